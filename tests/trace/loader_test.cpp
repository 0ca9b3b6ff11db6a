// Loader and model on the hand-written traces in tests/data.
#include "common/error.h"
#include "../common/files.h"
#include "testutil.h"
#include "trace/traceloader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <tuple>
#include <fstream>
#include <optional>
#include <sstream>
#include <zlib.h>

using namespace syncscope;
using syncscope::test::dataPath;
using syncscope::test::findEvent;
using syncscope::test::readFile;

namespace {

std::string loadError(const std::string &path)
{
    try {
        loadTrace(path);
    } catch (const Error &e) {
        return e.what();
    }
    return "";
}

} // namespace

TEST(TraceLoader, EveryPhaseAndLegacyCategory)
{
    auto m = loadTrace(dataPath("phases.json"));
    const TraceInfo &info = m->info();
    EXPECT_EQ(info.format, "json");
    EXPECT_EQ(info.rank, 1);
    EXPECT_EQ(info.worldSize, 2);
    EXPECT_EQ(info.baseTimeNanoseconds, 1700000000000000000LL);
    EXPECT_EQ(info.displayTimeUnit, "ns");
    EXPECT_NE(info.devicePropertiesJson.find("Test GPU"), std::string::npos);
    EXPECT_FALSE(info.truncated);

    const TraceCounts &c = m->counts();
    EXPECT_EQ(c.durationEvents, 7u + 1u + 3u); // X on two tracks, outer, three B/E pairs
    EXPECT_EQ(c.instants, 2u);
    EXPECT_EQ(c.counters, 2u);
    EXPECT_EQ(c.flows, 4u);
    EXPECT_EQ(c.metadata, 4u);
    EXPECT_EQ(c.unknownPhase, 2u);
    EXPECT_EQ(m->warnings().count, 1u); // the unknown phase, reported once

    // Legacy spellings are normalized; other categories kept as they are.
    size_t t, i;
    ASSERT_TRUE(findEvent(*m, "aten::mm", t, i));
    EXPECT_EQ(m->str(m->tracks()[t].cat[i]), "cpu_op");
    ASSERT_TRUE(findEvent(*m, "cudaLaunchKernel", t, i));
    EXPECT_EQ(m->str(m->tracks()[t].cat[i]), "cuda_runtime");
    // Numeric strings and fractional microseconds, exact to the nanosecond.
    EXPECT_EQ(m->tracks()[t].start[i], 202000);
    EXPECT_EQ(m->tracks()[t].dur[i], 1500);
    EXPECT_EQ(m->tracks()[t].externalId[i], 3);
    EXPECT_EQ(m->tracks()[t].correlation[i], 41);
    ASSERT_TRUE(findEvent(*m, "cuLaunchKernel", t, i));
    EXPECT_EQ(m->str(m->tracks()[t].cat[i]), "cuda_driver");
    ASSERT_TRUE(findEvent(*m, "gemm \"fast\" \xc3\xa9", t, i)); // escapes decoded
    const Track &gpu = m->tracks()[t];
    EXPECT_EQ(m->str(gpu.cat[i]), "kernel");
    EXPECT_EQ(gpu.device[i], 0);
    EXPECT_EQ(gpu.stream[i], 7);
    EXPECT_EQ(m->str(gpu.tid.text), "stream 7");
    EXPECT_FALSE(gpu.tid.isNumber());
    EXPECT_EQ(gpu.pid.num, 0);
    ASSERT_TRUE(findEvent(*m, "Memcpy HtoD", t, i));
    EXPECT_EQ(m->str(m->tracks()[t].cat[i]), "gpu_memcpy");
    EXPECT_EQ(m->tracks()[t].bytes[i], 1024);
    ASSERT_TRUE(findEvent(*m, "Memset", t, i));
    EXPECT_EQ(m->str(m->tracks()[t].cat[i]), "gpu_memset");

    // Args are kept whole (minified) for the details view.
    ASSERT_TRUE(findEvent(*m, "aten::mm", t, i));
    EXPECT_EQ(m->args(m->tracks()[t].args[i]), R"({"External id":3,"Input Dims":[[2,2],[2,2]]})");

    // pid 7 with tid 7 (number) and tid "7" (string) is one track, sorted by start.
    ASSERT_TRUE(findEvent(*m, "outer", t, i));
    const Track &host = m->tracks()[t];
    EXPECT_EQ(host.size(), 4u);
    EXPECT_EQ(m->str(host.name[0]), "outer");
    EXPECT_EQ(host.depth[0], 0);
    EXPECT_EQ(m->str(host.name[1]), "aten::mm");
    EXPECT_EQ(host.parent[1], 0);
    EXPECT_EQ(host.depth[2], 2); // cudaLaunchKernel inside aten::mm inside outer
    EXPECT_EQ(m->str(host.threadName), "main thread");
    EXPECT_EQ(host.threadSortIndex, 1);
    EXPECT_EQ(host.instants.ts.size(), 2u);
    EXPECT_EQ(host.instants.ts[0], 240000); // sorted
    EXPECT_EQ(host.instants.scope[1], 't');

    // B/E: unsorted in the file, paired in time order, nested three deep.
    ASSERT_TRUE(findEvent(*m, "top", t, i));
    const Track &be = m->tracks()[t];
    ASSERT_EQ(be.size(), 3u);
    EXPECT_EQ(m->str(be.name[0]), "top");
    EXPECT_EQ(be.dur[0], 70000);
    EXPECT_EQ(m->str(be.name[1]), "middle");
    EXPECT_EQ(be.dur[1], 50000);
    EXPECT_EQ(be.parent[1], 0);
    EXPECT_EQ(m->str(be.name[2]), "inner");
    EXPECT_EQ(be.dur[2], 30000);
    EXPECT_EQ(be.depth[2], 2);
    EXPECT_EQ(m->args(be.args[2]), R"({"n":1})");

    const Process *p = m->process(7);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(m->str(p->name), "python3");
    EXPECT_EQ(p->sortIndex, 2);

    ASSERT_EQ(m->counters().size(), 2u);
    for (const CounterSeries &s : m->counters()) {
        ASSERT_EQ(s.ts.size(), 2u);
        EXPECT_EQ(s.ts[0], 255000); // sorted
        if (m->str(s.key) == "reserved")
            EXPECT_DOUBLE_EQ(s.value[1], 20.5);
    }

    ASSERT_EQ(m->flows().size(), 4u);
    EXPECT_EQ(m->flows()[0].id, 41);
    EXPECT_EQ(m->flows()[0].phase, FlowPhase::Start);
    EXPECT_EQ(m->str(m->flows()[1].idText), "launch-9");
    EXPECT_EQ(m->flows()[2].phase, FlowPhase::Step);
    EXPECT_TRUE(m->flows()[3].bindEnclosing);
    EXPECT_EQ(m->minTime(), 1000 * 100);
    EXPECT_EQ(m->maxTime(), 1000 * 300);
}

TEST(TraceLoader, BareArrayWithTrailingComma)
{
    auto m = loadTrace(dataPath("bare_array.json"));
    ASSERT_EQ(m->tracks().size(), 1u);
    const Track &t = m->tracks()[0];
    ASSERT_EQ(t.size(), 2u);
    EXPECT_EQ(m->str(t.name[0]), "b");
    EXPECT_EQ(t.start[1], 5000);
    EXPECT_EQ(m->warnings().count, 0u);
    EXPECT_EQ(m->info().rank, kNoValue);
}

TEST(TraceLoader, TruncatedFileKeepsCompleteEvents)
{
    auto m = loadTrace(dataPath("truncated.json"));
    EXPECT_TRUE(m->info().truncated);
    EXPECT_EQ(m->counts().durationEvents, 2u);
    ASSERT_EQ(m->warnings().count, 1u);
    EXPECT_NE(m->warnings().first[0].find("truncated"), std::string::npos);
}

TEST(TraceLoader, TruncatedGzipKeepsCompleteEvents)
{
    const std::string gz = test::gzipBytes(readFile(dataPath("phases.json")));
    // Cut inside the deflate stream, as a killed profiler would leave it.
    auto m = loadTraceFromMemory(std::string_view(gz).substr(0, gz.size() * 2 / 3), "cut.gz");
    EXPECT_TRUE(m->info().truncated);
    EXPECT_EQ(m->info().format, "json.gz");
    EXPECT_GE(m->warnings().count, 1u);
}

TEST(TraceLoader, GzipDetectedByMagicNotName)
{
    const std::string plain = readFile(dataPath("phases.json"));
    const std::string path = testing::TempDir() + "/gzip_named_plain.json";
    {
        std::ofstream out(path, std::ios::binary);
        out << test::gzipBytes(plain);
    }
    auto gz = loadTrace(path);
    auto ref = loadTrace(dataPath("phases.json"));
    EXPECT_EQ(gz->info().format, "json.gz");
    EXPECT_EQ(gz->info().jsonBytes, plain.size());
    EXPECT_EQ(gz->counts().durationEvents, ref->counts().durationEvents);
    EXPECT_EQ(gz->counts().flows, ref->counts().flows);
    std::remove(path.c_str());
}

TEST(TraceLoader, ConcatenatedGzipMembers)
{
    const std::string plain = readFile(dataPath("bare_array.json"));
    const std::string a = plain.substr(0, 50), b = plain.substr(50);
    const std::string gz = test::gzipBytes(a) + test::gzipBytes(b);
    auto m = loadTraceFromMemory(gz, "two-members.gz");
    EXPECT_EQ(m->counts().durationEvents, 2u);
    EXPECT_FALSE(m->info().truncated);
}

TEST(TraceLoader, MalformedJsonIsOneSentenceWithOffset)
{
    const std::string msg = loadError(dataPath("malformed.json"));
    const size_t offset = readFile(dataPath("malformed.json")).find("\"pid\": 1, \"tid\": 1, \"ts\": 3");
    EXPECT_NE(msg.find("malformed.json: not valid JSON at byte " + std::to_string(offset)), std::string::npos)
        << msg;
    EXPECT_EQ(msg.back(), '.');
    EXPECT_EQ(msg.find('\n'), std::string::npos);
}

TEST(TraceLoader, UnreadableInputsAreOneSentence)
{
    EXPECT_NE(loadError(dataPath("empty.json")).find("the file is empty."), std::string::npos);
    const std::string notJson = loadError(dataPath("not_json.bin"));
    EXPECT_NE(notJson.find("not a Chrome trace: expected '{' or '[' at byte 0"), std::string::npos) << notJson;
    const std::string missing = loadError(dataPath("does_not_exist.json"));
    EXPECT_NE(missing.find("cannot open"), std::string::npos) << missing;
    EXPECT_NE(loadError(dataPath("")).find("cannot"), std::string::npos);
}

TEST(TraceLoader, WrongTypesAreCountedWarnings)
{
    auto m = loadTrace(dataPath("wrong_types.json"));
    EXPECT_EQ(m->counts().durationEvents, 2u);
    EXPECT_EQ(m->warnings().count, 10u);
    EXPECT_EQ(m->warnings().first.size(), 10u);
    std::string all;
    for (const auto &w : m->warnings().first)
        all += w + "\n";
    EXPECT_NE(all.find("has no \"ts\""), std::string::npos) << all;
    EXPECT_NE(all.find("has no matching B"), std::string::npos) << all;
    EXPECT_NE(all.find("never ends"), std::string::npos) << all;
    EXPECT_NE(all.find("is not an object"), std::string::npos) << all;
}

TEST(TraceLoader, WarningTextIsCapped)
{
    std::string doc = "[";
    for (int i = 0; i < 100; ++i)
        doc += "{\"ph\": \"X\", \"name\": \"n\", \"pid\": 1, \"tid\": 1},";
    doc += "]";
    auto m = loadTraceFromMemory(doc, "many.json");
    EXPECT_EQ(m->warnings().count, 100u);
    EXPECT_EQ(m->warnings().first.size(), LoadWarnings::kKeep);
}

TEST(TraceLoader, SmallChunksAndHugeEventsAcrossBufferRefills)
{
    // An event larger than the read buffer (4 MiB) must still load.
    std::string big(9u << 20, 'x');
    std::string doc = "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"big\", \"pid\": 1, \"tid\": 1, "
                      "\"ts\": 1, \"dur\": 2, \"args\": {\"blob\": \"" +
                      big +
                      "\"}}, {\"ph\": \"X\", \"name\": \"after\", \"pid\": 1, \"tid\": 1, "
                      "\"ts\": 4, \"dur\": 1}]}";
    auto m = loadTraceFromMemory(doc, "big.json");
    ASSERT_EQ(m->counts().durationEvents, 2u);
    EXPECT_EQ(m->args(m->tracks()[0].args[0]).size(), big.size() + 11);
}

TEST(TraceLoader, ProgressAndCancel)
{
    std::string doc = "[";
    for (int i = 0; i < 200000; ++i)
        doc += "{\"ph\": \"X\", \"name\": \"n\", \"pid\": 1, \"tid\": 1, \"ts\": " + std::to_string(i) +
               ", \"dur\": 1},";
    doc += "]";
    double last = -1;
    bool monotonic = true;
    auto m = loadTraceFromMemory(doc, "p.json", [&](double f, const char *) {
        monotonic = monotonic && f >= last;
        last = f;
    });
    EXPECT_TRUE(monotonic);
    EXPECT_DOUBLE_EQ(last, 1.0);
    EXPECT_EQ(m->counts().durationEvents, 200000u);

    CancelToken token;
    token.cancel();
    EXPECT_THROW(loadTraceFromMemory(doc, "p.json", {}, &token), Cancelled);
}

TEST(TraceLoader, DeepNestingIsAnErrorNotACrash)
{
    std::string doc = "[{\"ph\": \"X\", \"args\": " + std::string(100000, '[');
    EXPECT_THROW(loadTraceFromMemory(doc + std::string(100000, ']') + "}]", "deep.json"), Error);
}

TEST(TraceLoader, SeveralRanksOrderedByRank)
{
    auto files = loadTraces({dataPath("bare_array.json"), dataPath("gpu_sync_gaps.json"),
                             dataPath("phases.json")});
    ASSERT_EQ(files.size(), 3u);
    EXPECT_EQ(files[0]->info().rank, 1);
    EXPECT_EQ(files[1]->info().rank, 3);
    EXPECT_EQ(files[2]->info().rank, kNoValue);
    EXPECT_THROW(loadTraces({dataPath("bare_array.json"), dataPath("malformed.json")}), Error);
}

// The legacy autograd profiler (LibTorch 1.x without Kineto, e.g. the app's own
// captures on Debian's LibTorch) writes ops with no "cat" under the pid "CPU
// Functions" (the layout of tests/data/legacy_autograd_profiler.json is that
// profiler's output verbatim). They load as cpu_op, so they are coloured as
// CPU ops; events without a category elsewhere keep none.
TEST(TraceLoader, LegacyAutogradProfilerOpsAreCpuOps)
{
    auto m = loadTrace(dataPath("legacy_autograd_profiler.json"));
    size_t t, i;
    ASSERT_TRUE(findEvent(*m, "aten::eq", t, i));
    EXPECT_EQ(m->str(m->tracks()[t].cat[i]), "cpu_op");
    EXPECT_EQ(m->tracks()[t].start[i], 30495);
    ASSERT_TRUE(findEvent(*m, "ProfilerStep#1", t, i));
    EXPECT_EQ(m->str(m->tracks()[t].cat[i]), "cpu_op");
    ASSERT_TRUE(findEvent(*m, "uncategorized elsewhere", t, i));
    EXPECT_EQ(m->str(m->tracks()[t].cat[i]), "");
}

// Big traces sort their tracks on two cores, one track of more than half the
// events in two halves merged after. The order must be that of one stable sort
// of the file by (start, longer first): many ties on start, and on start and
// duration, where file order decides.
TEST(TraceLoader, ASortOnTwoCoresKeepsTheOrderOfOneStableSort)
{
    std::mt19937_64 rng(7);
    struct Row {
        int tid;
        int64_t start, dur;
        int index; // file order, in the name
    };
    std::vector<Row> rows;
    for (int i = 0; i < 150000; ++i) {
        const int tid = i % 10 < 6 ? 1 : 2 + i % 3; // track 1 holds 60 %
        rows.push_back({tid, int64_t(rng() % 5000), int64_t(rng() % 4), i});
    }
    std::string doc = "[";
    for (const Row &r : rows)
        doc += "{\"ph\": \"X\", \"name\": \"e" + std::to_string(r.index) +
               "\", \"pid\": 1, \"tid\": " + std::to_string(r.tid) + ", \"ts\": " + std::to_string(r.start) +
               ", \"dur\": " + std::to_string(r.dur) + "},";
    doc.back() = ']';
    auto m = loadTraceFromMemory(doc, "ties.json");
    ASSERT_EQ(m->counts().durationEvents, rows.size());
    std::stable_sort(rows.begin(), rows.end(), [](const Row &a, const Row &b) {
        return std::make_tuple(a.tid, a.start, -a.dur) < std::make_tuple(b.tid, b.start, -b.dur);
    });
    size_t k = 0;
    for (int tid = 1; tid <= 4; ++tid) {
        std::optional<Track> t; // tracks() hands out views by value
        for (const Track candidate : m->tracks())
            if (candidate.tid.num == tid)
                t = candidate;
        ASSERT_TRUE(t) << tid;
        for (size_t i = 0; i < t->start.size(); ++i, ++k) {
            ASSERT_LT(k, rows.size());
            ASSERT_EQ(m->str(t->name[i]), "e" + std::to_string(rows[k].index)) << "track " << tid << " row " << i;
        }
    }
    EXPECT_EQ(k, rows.size());
}
