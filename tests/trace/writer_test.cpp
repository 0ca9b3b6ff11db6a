// What the writer produces loads back in our loader with the same content, and is
// plain Trace Event Format JSON.
#include "analysis/jobanalysis.h"
#include "common/error.h"
#include "testutil.h"
#include "trace/tracebuilder.h"
#include "trace/traceloader.h"
#include "trace/tracewriter.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>

using namespace syncscope;

namespace {

void expectSameModel(const TraceModel &a, const TraceModel &b)
{
    EXPECT_EQ(a.counts().durationEvents, b.counts().durationEvents);
    EXPECT_EQ(a.counts().instants, b.counts().instants);
    EXPECT_EQ(a.counts().flows, b.counts().flows);
    EXPECT_EQ(a.info().rank, b.info().rank);
    EXPECT_EQ(a.info().devicePropertiesJson, b.info().devicePropertiesJson);
    EXPECT_EQ(a.minTime(), b.minTime());
    EXPECT_EQ(a.maxTime(), b.maxTime());
    ASSERT_EQ(a.tracks().size(), b.tracks().size());
    for (size_t t = 0; t < a.tracks().size(); ++t) {
        const Track &x = a.tracks()[t], &y = b.tracks()[t];
        EXPECT_EQ(a.str(x.pid.text), b.str(y.pid.text));
        EXPECT_EQ(a.str(x.tid.text), b.str(y.tid.text));
        EXPECT_EQ(a.str(x.threadName), b.str(y.threadName));
        ASSERT_EQ(x.size(), y.size());
        for (size_t i = 0; i < x.size(); ++i) {
            EXPECT_EQ(x.start[i], y.start[i]);
            EXPECT_EQ(x.dur[i], y.dur[i]);
            EXPECT_EQ(x.depth[i], y.depth[i]);
            EXPECT_EQ(a.str(x.name[i]), b.str(y.name[i]));
            EXPECT_EQ(a.str(x.cat[i]), b.str(y.cat[i]));
            EXPECT_EQ(a.args(x.args[i]), b.args(y.args[i]));
            EXPECT_EQ(x.correlation[i], y.correlation[i]);
        }
        EXPECT_EQ(std::vector<TimeNs>(x.instants.ts.begin(), x.instants.ts.end()),
                  std::vector<TimeNs>(y.instants.ts.begin(), y.instants.ts.end()));
    }
    ASSERT_EQ(a.counters().size(), b.counters().size());
    for (size_t i = 0; i < a.counters().size(); ++i)
        EXPECT_EQ(a.counters()[i].value, b.counters()[i].value);
    ASSERT_EQ(a.processes().size(), b.processes().size());
}

} // namespace

TEST(TraceWriter, RoundTripsJsonAndGzip)
{
    for (const char *name : {"phases.json", "gpu_sync_gaps.json"}) {
        auto original = loadTrace(test::dataPath(name));
        for (const char *ext : {".json", ".json.gz"}) {
            const std::string path = testing::TempDir() + "/roundtrip" + ext;
            writeTrace(*original, path);
            auto back = loadTrace(path);
            EXPECT_EQ(back->info().format, std::string(ext).substr(1));
            EXPECT_EQ(back->warnings().count, 0u);
            expectSameModel(*original, *back);
            std::remove(path.c_str());
        }
    }
}

TEST(TraceWriter, SameAnalysisAfterRoundTrip)
{
    auto original = loadTrace(test::dataPath("gpu_sync_gaps.json"));
    auto back = loadTraceFromMemory(traceToJson(*original), "written.json");
    // Everything after "files" (which holds the differing path) must be equal.
    const std::string a = analysisToJson(analyzeJob({original}), 10);
    const std::string b = analysisToJson(analyzeJob({back}), 10);
    EXPECT_EQ(a.substr(a.find("\"categories\"")), b.substr(b.find("\"categories\"")));
}

TEST(TraceWriter, ValidTraceEventFormat)
{
    auto m = loadTrace(test::dataPath("phases.json"));
    const auto doc = nlohmann::json::parse(traceToJson(*m));
    ASSERT_TRUE(doc.contains("traceEvents"));
    for (const auto &e : doc["traceEvents"]) {
        ASSERT_TRUE(e.contains("ph"));
        ASSERT_TRUE(e.contains("pid"));
        const std::string ph = e["ph"];
        EXPECT_NE(std::string("XiCMstf").find(ph), std::string::npos) << ph;
        if (ph != "M")
            EXPECT_TRUE(e["ts"].is_number());
        if (ph == "X")
            EXPECT_TRUE(e["dur"].is_number() && e.contains("tid"));
        if (ph == "s" || ph == "t" || ph == "f")
            EXPECT_TRUE(e.contains("id"));
    }
}

TEST(TraceWriter, BuiltInMemoryAndFractionalTimes)
{
    TraceBuilder b;
    const uint32_t t = b.track(b.id(int64_t(1)), b.id("main \"thread\""));
    b.addComplete(t, 1234567, 1001, b.intern("step\n1"), b.internCategory("user_annotation"),
                  b.storeArgs("{\"a\": [1, 2]}"));
    b.addCounterValue(b.id(int64_t(1)), b.intern("mem"), b.intern("bytes"), 5, 0.125);
    auto m = b.finish();
    auto back = loadTraceFromMemory(traceToJson(*m), "built.json");
    ASSERT_EQ(back->tracks().size(), 1u);
    EXPECT_EQ(back->tracks()[0].start[0], 1234567);
    EXPECT_EQ(back->tracks()[0].dur[0], 1001);
    EXPECT_EQ(back->str(back->tracks()[0].name[0]), "step\n1");
    EXPECT_EQ(back->str(back->tracks()[0].tid.text), "main \"thread\"");
    EXPECT_EQ(back->args(back->tracks()[0].args[0]), "{\"a\":[1,2]}");
    ASSERT_EQ(back->counters().size(), 1u);
    EXPECT_EQ(back->counters()[0].value[0], 0.125);
}

TEST(TraceWriter, UnwritablePathIsOneSentence)
{
    auto m = loadTrace(test::dataPath("bare_array.json"));
    try {
        writeTrace(*m, "/nonexistent-dir/out.json");
        FAIL() << "no error";
    } catch (const Error &e) {
        EXPECT_NE(std::string(e.what()).find("cannot write '/nonexistent-dir/out.json'"), std::string::npos);
    }
}
