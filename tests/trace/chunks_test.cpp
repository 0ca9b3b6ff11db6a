// The framing across refills: every fixture in tests/data, plain and gzipped, read
// 1 to 64 bytes at a time, loads to the same model as read whole (or fails with
// the same sentence), so every token of every fixture crosses a refill somewhere.
// A plain file read whole is scanned in place through a memory map; read in
// chunks, it is not.
#include "common/error.h"
#include "modelequal.h"
#include "../common/files.h"
#include "testutil.h"
#include "trace/traceloader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace syncscope;
using syncscope::test::dataPath;
using syncscope::test::modelDifference;
using syncscope::test::readFile;

namespace {

constexpr size_t kMaxChunk = 64;

// Every .json and .json.gz file of tests/data, by name.
std::vector<std::string> fixtures()
{
    std::vector<std::string> names;
    for (const auto &e : std::filesystem::directory_iterator(SYNCSCOPE_TEST_DATA_DIR)) {
        const std::string name = e.path().filename().string();
        const auto ends = [&](const std::string &tail) {
            return name.size() > tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
        };
        if (e.is_regular_file() && (ends(".json") || ends(".json.gz")))
            names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    return names;
}

struct Outcome {
    TraceModelPtr model;
    std::string error; // the sentence when it did not load
};

template <typename Load> Outcome outcome(Load &&load)
{
    Outcome o;
    try {
        o.model = load();
    } catch (const Error &e) {
        o.error = e.what();
    }
    return o;
}

// Read in chunks of `bytes`, never mapped.
LoadOptions chunkOf(size_t bytes)
{
    LoadOptions o;
    o.chunkBytes = bytes;
    o.mapFile = false;
    return o;
}

// Loads with every chunk from 1 to kMaxChunk bytes and compares with `whole`.
template <typename Load> void expectSameForEveryChunk(const std::string &what, const Outcome &whole, Load &&load)
{
    for (size_t chunk = 1; chunk <= kMaxChunk; ++chunk) {
        const Outcome o = outcome([&] { return load(chunkOf(chunk)); });
        if (!whole.model) {
            ASSERT_FALSE(o.model) << what << ", chunk " << chunk
                                  << ": loaded, but read whole it fails: " << whole.error;
            ASSERT_EQ(o.error, whole.error) << what << ", chunk " << chunk;
            continue;
        }
        ASSERT_TRUE(o.model) << what << ", chunk " << chunk << ": " << o.error;
        ASSERT_EQ(modelDifference(*whole.model, *o.model), "") << what << ", chunk " << chunk;
    }
}

class FixtureChunks : public testing::TestWithParam<std::string> {};

} // namespace

TEST(LoadChunks, TheFixturesAreThere)
{
    // Most fixtures load; empty.json and malformed.json are refused.
    size_t loading = 0, refused = 0;
    for (const std::string &name : fixtures()) {
        const Outcome o = outcome([&] { return loadTrace(dataPath(name)); });
        (o.model ? loading : refused) += 1;
    }
    EXPECT_GE(loading, 20u);
    EXPECT_GE(refused, 2u);
}

TEST_P(FixtureChunks, PlainFileLoadsTheSameWithChunksOf1To64Bytes)
{
    const std::string path = dataPath(GetParam());
    const Outcome whole = outcome([&] { return loadTrace(path); });
    expectSameForEveryChunk(GetParam(), whole,
                            [&](const LoadOptions &o) { return loadTrace(path, {}, nullptr, o); });
}

TEST_P(FixtureChunks, GzippedLoadsTheSameWithChunksOf1To64Bytes)
{
    const std::string gz = test::gzipBytes(readFile(dataPath(GetParam())));
    const std::string name = GetParam() + ".gz";
    const Outcome whole = outcome([&] { return loadTraceFromMemory(gz, name); });
    if (whole.model)
        EXPECT_EQ(whole.model->info().format, "json.gz");
    expectSameForEveryChunk(name, whole,
                            [&](const LoadOptions &o) { return loadTraceFromMemory(gz, name, {}, nullptr, o); });
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FixtureChunks, testing::ValuesIn(fixtures()),
                         [](const testing::TestParamInfo<std::string> &info) {
                             std::string name = info.param;
                             for (char &c : name)
                                 if (!std::isalnum(static_cast<unsigned char>(c)))
                                     c = '_';
                             return name;
                         });

// The top level's paths that the fixtures do not all take, read 1 to 64 bytes at
// a time: a byte order mark, escapes and \u in keys and names, a second
// traceEvents key, elements that are not objects, a trailing comma, counters and
// metadata whose args are read again once the event is whole, an event longer
// than any chunk, and a truncated end.
TEST(LoadChunks, TopLevelPathsLoadTheSameWithChunksOf1To64Bytes)
{
    const std::string big(300, 'y');
    const std::vector<std::pair<std::string, std::string>> docs = {
        {"bom.json", "\xEF\xBB\xBF[{\"ph\": \"X\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, \"ts\": 1, "
                     "\"dur\": 2}]"},
        {"escapes.json",
         "{\"displayTimeUnit\" : \"m\\u0073\", \"distributedInfo\": {\"rank\" : 3, \"world_size\": 4,"
         " \"x\": [1, {\"y\": null}]}, \"trace\\u0045vents\": [\n"
         "{\"ph\": \"X\", \"name\": \"a\\\"b\\\\c\\u00e9\\ud83d\\ude00\", \"pid\": \"p\\/1\", "
         "\"tid\": -7, \"ts\": 1.5e0, \"dur\": \"2\", \"args\": {\"External id\": \"12\", "
         "\"cuda_sync_kind\": \"event\\tsync\", \"nested\": {\"a\": [true, false, null]}}},\n"
         "17, \"str\", [1, 2], null,\n"
         "{\"ph\": \"C\", \"name\": \"mem\", \"pid\": 1, \"ts\": 3, \"args\": {\"used\": 1.25e3, "
         "\"free\": \"7\", \"bad\": [1]}},\n"
         "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, \"tid\": 2, \"args\": {\"name\": "
         "\"wor\\u006Ber\"}},\n"
         "{\"ph\": \"M\", \"name\": \"process_sort_index\", \"pid\": 1, \"args\": {\"sort_index\": -2}},\n"
         "{\"ph\": \"i\", \"name\": \"mark\", \"pid\": 1, \"tid\": 2, \"ts\": 4, \"s\": \"g\"},\n"
         "{\"ph\": \"s\", \"name\": \"f\", \"cat\": \"ac2g\", \"id\": 9, \"pid\": 1, \"tid\": 2, \"ts\": 4},\n"
         "{\"ph\": \"f\", \"name\": \"f\", \"cat\": \"ac2g\", \"id\": 9, \"bp\": \"e\", \"pid\": 1, "
         "\"tid\": 1, \"ts\": 5},\n"
         "{\"ph\": \"B\", \"name\": \"long\", \"pid\": 1, \"tid\": 1, \"ts\": 6, \"args\": {\"blob\": \"" +
             big +
             "\"}},\n"
             "{\"ph\": \"E\", \"pid\": 1, \"tid\": 1, \"ts\": 9},\n"
             "{\"ph\": \"q\", \"pid\": 1, \"tid\": 1, \"ts\": 9},\n"
             "{\"ph\": \"X\", \"name\": \"no dur\", \"pid\": 1, \"tid\": 1, \"ts\": 10},\n"
             "], \"traceEvents\": [{\"ph\": \"X\"}], \"schemaVersion\": 1}\n\t \n"},
        {"cut.json", "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, "
                     "\"ts\": 1, \"dur\": 2}, {\"ph\": \"X\", \"name\": \"b\\u00"},
        {"bad.json", "[{\"ph\": \"X\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 2}, "
                     "{\"ph\": \"X\", \"name\": \"b\\q\"}]"},
    };
    for (const auto &[name, doc] : docs) {
        for (const bool gz : {false, true}) {
            const std::string input = gz ? test::gzipBytes(doc) : doc;
            const std::string what = name + (gz ? ".gz" : "");
            const Outcome whole = outcome([&] { return loadTraceFromMemory(input, what); });
            expectSameForEveryChunk(what, whole, [&](const LoadOptions &o) {
                return loadTraceFromMemory(input, what, {}, nullptr, o);
            });
        }
    }
    // What the documents are meant to show, read whole.
    auto bom = loadTraceFromMemory(docs[0].second, "bom.json");
    EXPECT_EQ(bom->counts().durationEvents, 1u);
    auto esc = loadTraceFromMemory(docs[1].second, "escapes.json");
    EXPECT_EQ(esc->info().displayTimeUnit, "ms");
    EXPECT_EQ(esc->info().rank, 3);
    EXPECT_EQ(esc->counts().durationEvents, 3u);
    EXPECT_EQ(esc->counts().counters, 1u);
    EXPECT_EQ(esc->counts().metadata, 2u);
    EXPECT_EQ(esc->counts().unknownPhase, 1u);
    EXPECT_EQ(esc->counts().skipped, 4u); // the four elements that are not objects
    EXPECT_EQ(esc->counters().size(), 2u);
    EXPECT_EQ(esc->flows().size(), 2u);
    size_t t, i;
    ASSERT_TRUE(test::findEvent(*esc, "a\"b\\c\xC3\xA9\xF0\x9F\x98\x80", t, i));
    EXPECT_EQ(esc->tracks()[t].externalId[i], 12);
    EXPECT_EQ(esc->str(esc->tracks()[t].syncKind[i]), "event\tsync");
    auto cut = loadTraceFromMemory(docs[2].second, "cut.json");
    EXPECT_TRUE(cut->info().truncated);
    EXPECT_EQ(cut->counts().durationEvents, 1u);
    EXPECT_THROW(loadTraceFromMemory(docs[3].second, "bad.json"), Error);
}

// Data after the end of the JSON stops the reading where it is found, so how much
// of the file was read depends on the chunk; the model is otherwise the same.
TEST(LoadChunks, DataAfterTheJsonStopsTheReadingWhereItIsFound)
{
    const std::string doc = "[{\"ph\": \"X\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, \"ts\": 1, "
                            "\"dur\": 2}] trailing " +
                            std::string(1000, 'z');
    auto whole = loadTraceFromMemory(doc, "after.json");
    EXPECT_EQ(whole->info().jsonBytes, doc.size());
    test::ModelCompare relaxed;
    relaxed.sameReadExtent = false;
    for (size_t chunk = 1; chunk <= kMaxChunk; ++chunk) {
        auto m = loadTraceFromMemory(doc, "after.json", {}, nullptr, chunkOf(chunk));
        EXPECT_LT(m->info().jsonBytes, doc.size()) << chunk;
        EXPECT_EQ(modelDifference(*whole, *m, relaxed), "") << chunk;
    }
}

TEST(LoadChunks, TheDefaultChunkIsFourMiB)
{
    EXPECT_EQ(LoadOptions{}.chunkBytes, size_t(4) << 20);
    // 0 counts as 1 byte.
    auto m = loadTraceFromMemory("[{\"ph\": \"i\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, \"ts\": 1}]",
                                 "zero.json", {}, nullptr, chunkOf(0));
    EXPECT_EQ(m->counts().instants, 1u);
}

// A gzip stream cut off mid-member (found by the fuzzer): zlib still holds
// decoded bytes when a full output buffer stops it and the compressed input
// is all read. Every chunk size reads all 39 bytes before "ends early".
TEST(LoadChunks, AGzipStreamThatEndsEarlyGivesAllItsBytesWhateverTheChunk)
{
    const unsigned char raw[] = {0x1f, 0x8b, 0x8,  0x8,  0xd2, 0xe6, 0xb,  0x6b, 0x0,  0x3,  0x62, 0x8b, 0xae,
                                 0x56, 0x2a, 0xc8, 0x50, 0xb2, 0x52, 0x50, 0x8a, 0x50, 0xd2, 0x51, 0x50, 0x4a,
                                 0x4e, 0x2c, 0x61, 0x72, 0x62, 0x65, 0x5f, 0x61, 0x72, 0x72, 0x61, 0x79, 0x2e,
                                 0x6a, 0x73, 0x6f, 0x6e, 0x0,  0x8b, 0xae, 0x56, 0x2a, 0xc8, 0x50, 0xb2, 0x52,
                                 0x50, 0x8a, 0x50, 0xd2, 0x51, 0x50, 0x4a, 0x4e, 0x2c, 0x1,  0xb1, 0x93, 0xb,
                                 0x4a, 0xe3, 0xf3, 0xb,  0x40, 0x2,  0x7a, 0x89, 0xb9, 0xa9, 0x20, 0x0};
    const std::string bytes(reinterpret_cast<const char *>(raw), sizeof raw);
    for (size_t chunk = 1; chunk <= 64; ++chunk) {
        LoadOptions o;
        o.chunkBytes = chunk;
        const auto m = loadTraceFromMemory(bytes, "cut.json.gz", {}, nullptr, o);
        ASSERT_TRUE(m->info().truncated) << chunk;
        // [{"ph": "X", "cat": "cpu_op", ".ameeeee: what python3's zlib decodes too
        EXPECT_EQ(m->info().jsonBytes, 39u) << chunk;
        EXPECT_EQ(m->info().truncatedAtByte, 39u) << chunk;
    }
}

namespace {

LoadOptions scanning(size_t chunk, bool thread)
{
    LoadOptions o = chunkOf(chunk);
    o.scanThread = thread;
    return o;
}

// A trace of many chunks with what the framing hands to the committer besides
// events: escaped strings (copied out of the reader's scratch), elements that are
// not objects, top-level values before and after the events, a second
// traceEvents key and data after the end.
std::string framingMix(int events)
{
    std::string doc = R"({"deviceProperties": [{"id": 0, "name": "GPU \"0\""}], "traceEvents": [)";
    for (int i = 0; i < events; ++i) {
        if (i)
            doc += ',';
        if (i % 997 == 5)
            doc += "42,";
        doc += R"({"ph": "X", "cat": "cpu_op", "name": ")" +
               std::string(i % 3 == 0 ? "aten::add\\u00e9\\\"x\\\"" : "aten::mul") + std::to_string(i % 11) +
               R"(", "pid": "p\\u0031", "tid": )" + std::to_string(i % 5) + R"(, "ts": )" +
               std::to_string(10 * i) + R"(, "dur": 7, "args": {"External id": )" + std::to_string(i) +
               R"(, "note": "a\\nb"}})";
    }
    doc += R"(], "distributedInfo": {"rank": 3, "world_size": 8}, "traceEvents": [1], )"
           R"("displayTimeUnit": "ns"} trailing)";
    return doc;
}

} // namespace

TEST(LoadChunks, TheScanThreadBuildsTheSameModelAsReadingInline)
{
    const std::string doc = framingMix(20000);
    const Outcome inline_ = outcome([&] {
        return loadTraceFromMemory(doc, "mix.json", {}, nullptr, scanning(4096, false));
    });
    ASSERT_TRUE(inline_.model) << inline_.error;
    EXPECT_EQ(inline_.model->info().rank, 3);
    EXPECT_EQ(inline_.model->counts().skipped, 21u);
    EXPECT_EQ(inline_.model->warnings().count, 23u); // 21 elements, the second key, the trailing data
    EXPECT_EQ(inline_.model->info().displayTimeUnit, "ns");
    for (size_t chunk : {size_t(1) << 10, size_t(4096), size_t(65536)}) {
        const Outcome threaded = outcome([&] {
            return loadTraceFromMemory(doc, "mix.json", {}, nullptr, scanning(chunk, true));
        });
        ASSERT_TRUE(threaded.model) << threaded.error;
        EXPECT_EQ(modelDifference(*inline_.model, *threaded.model), "") << chunk;
    }
    const std::string gz = test::gzipBytes(doc);
    const Outcome gzInline = outcome([&] {
        return loadTraceFromMemory(gz, "mix.json.gz", {}, nullptr, scanning(4096, false));
    });
    const Outcome gzThreaded = outcome([&] {
        return loadTraceFromMemory(gz, "mix.json.gz", {}, nullptr, scanning(4096, true));
    });
    ASSERT_TRUE(gzInline.model && gzThreaded.model);
    EXPECT_EQ(modelDifference(*gzInline.model, *gzThreaded.model), "");
}

TEST(LoadChunks, TheScanThreadGivesTheSameErrorsAsReadingInline)
{
    std::string doc = framingMix(5000);
    const size_t cut = doc.size() / 2;
    for (const std::string &bad : {doc.substr(0, cut) + "}}}" + doc.substr(cut), doc.substr(0, cut)}) {
        for (size_t chunk : {size_t(512), size_t(4096)}) {
            const Outcome a = outcome([&] {
                return loadTraceFromMemory(bad, "bad.json", {}, nullptr, scanning(chunk, false));
            });
            const Outcome b = outcome([&] {
                return loadTraceFromMemory(bad, "bad.json", {}, nullptr, scanning(chunk, true));
            });
            EXPECT_EQ(a.error, b.error) << chunk;
            EXPECT_EQ(bool(a.model), bool(b.model)) << chunk;
            if (a.model && b.model)
                EXPECT_EQ(modelDifference(*a.model, *b.model), "") << chunk;
        }
    }
}

TEST(LoadChunks, ACancelStopsTheScanThread)
{
    const std::string doc = framingMix(200000);
    CancelToken token;
    double seen = 0;
    EXPECT_THROW(loadTraceFromMemory(
                     doc, "mix.json",
                     [&](double f, const char *) {
                         seen = std::max(seen, f);
                         token.cancel();
                     },
                     &token, scanning(4096, true)),
                 Cancelled);
    // It stopped while reading: the committer saw little of the file.
    EXPECT_LT(seen, 0.5);
}

namespace {

std::string writeTemp(const std::string &name, const std::string &bytes)
{
    const std::string path = test::freshDir("mapped") + "/" + name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
}

} // namespace

TEST(LoadMapped, AMappedFileBuildsTheSameModelAsReadingItInChunks)
{
    // Many chunks, on the scan thread and inline, with everything the framing
    // hands over besides events.
    const std::string path = writeTemp("mix.json", framingMix(20000));
    for (bool thread : {true, false}) {
        LoadOptions mapped = scanning(65536, thread);
        mapped.mapFile = true;
        const Outcome a = outcome([&] { return loadTrace(path, {}, nullptr, mapped); });
        const Outcome b = outcome([&] { return loadTrace(path, {}, nullptr, scanning(65536, thread)); });
        ASSERT_TRUE(a.model && b.model) << a.error << b.error;
        EXPECT_EQ(a.model->counts().skipped, 21u);
        test::ModelCompare relaxed; // the map reads to the end; the chunks stop at the data after the JSON
        relaxed.sameReadExtent = false;
        EXPECT_EQ(modelDifference(*b.model, *a.model, relaxed), "") << thread;
        EXPECT_EQ(a.model->info().jsonBytes, std::filesystem::file_size(path));
    }
}

TEST(LoadMapped, AFileThatEndsAtAPageBoundaryStillHasItsSentinel)
{
    // The byte after a file whose size is a multiple of the page size is the
    // mapping's own zero page, not the file's.
    const std::string event = R"({"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 2})";
    for (size_t size : {size_t(4095), size_t(4096), size_t(4097), size_t(65536)}) {
        std::string doc = "[" + event + "]";
        doc.insert(1, size - doc.size(), ' ');
        ASSERT_EQ(doc.size(), size);
        const std::string path = writeTemp("page.json", doc);
        const auto m = loadTrace(path);
        EXPECT_EQ(m->info().jsonBytes, size);
        EXPECT_EQ(m->counts().durationEvents, 1u) << size;
        // Cut inside the event: a truncated file, its sentence as when read.
        const std::string cut = doc.substr(0, size - 10);
        const std::string cutPath = writeTemp("cut.json", cut);
        const auto c = loadTrace(cutPath);
        EXPECT_TRUE(c->info().truncated) << size;
        EXPECT_EQ(c->info().truncatedAtByte, cut.size());
        EXPECT_EQ(modelDifference(*c, *loadTrace(cutPath, {}, nullptr, chunkOf(4096))), "");
    }
}

TEST(LoadMapped, AFileThatShrinksWhileItIsReadGivesOneSentence)
{
    // The profiler rewrites the file while it loads: past its new end the
    // mapping would fault. The load ends with one sentence and the process
    // stays up.
    const std::string path = writeTemp("shrinks.json", framingMix(300000));
    double seen = -1;
    std::string error;
    try {
        loadTrace(path, [&](double f, const char *) {
            if (seen < 0)
                std::filesystem::resize_file(path, 0);
            seen = std::max(seen, f);
        });
    } catch (const Error &e) {
        error = e.what();
    }
    ASSERT_GE(seen, 0) << "the load ended before its first progress report";
    EXPECT_EQ(error, path + ": the file shrank while it was being read (is it still being written?); open it "
                            "again once it is complete.");
    // The next load of the (now empty) file says so.
    const Outcome again = outcome([&] { return loadTrace(path); });
    EXPECT_EQ(again.error, path + ": the file is empty.");
}
