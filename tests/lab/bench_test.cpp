// The bench harness: statistics, validation, JSON round trip, cancel.
#include "lab/impl/torchlab.h"
#include "common/error.h"
#include "lab/api/bench.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <algorithm>

using namespace syncscope;
using namespace syncscope::lab;

TEST(Summarize, QuantilesAndSpread)
{
    std::vector<double> v;
    for (int i = 1; i <= 101; ++i)
        v.push_back(i);
    const auto s = summarize(v);
    EXPECT_DOUBLE_EQ(s.medianMs, 51);
    EXPECT_DOUBLE_EQ(s.minMs, 1);
    EXPECT_DOUBLE_EQ(s.p5Ms, 6);
    EXPECT_DOUBLE_EQ(s.p95Ms, 96);
    EXPECT_DOUBLE_EQ(s.meanMs, 51);
    EXPECT_NEAR(s.stdevMs, 29.3002, 1e-3);
}

namespace {
BenchRequest smallRequest()
{
    BenchRequest r;
    r.variants = {"naive", "static", "fused"};
    BenchPoint p;
    p.n = 2000;
    p.k = 200;
    p.dim = 4;
    r.points = {p};
    p.n = 500;
    p.k = 50;
    p.batch = 3;
    r.points.push_back(p);
    r.warmup = 1;
    r.iters = 5;
    return r;
}
} // namespace

TEST(Bench, RunsEveryCellAndMeasuresTheFloor)
{
    int progressCalls = 0;
    double lastFraction = 0;
    const auto rep = torchLab().runBench(
        smallRequest(),
        [&](double f, const char *) {
            ++progressCalls;
            EXPECT_GE(f, lastFraction);
            lastFraction = f;
        },
        nullptr);
    ASSERT_EQ(rep.results.size(), 6u);
    EXPECT_EQ(rep.device, "cpu");
    EXPECT_FALSE(rep.torchVersion.empty());
    EXPECT_GE(rep.threads, 1);
    for (const auto &r : rep.results) {
        EXPECT_TRUE(r.error.empty()) << r.error;
        EXPECT_EQ(r.iters, 5);
        EXPECT_GT(r.stats.medianMs, 0);
        EXPECT_LE(r.stats.minMs, r.stats.p5Ms);
        EXPECT_LE(r.stats.p5Ms, r.stats.medianMs);
        EXPECT_LE(r.stats.medianMs, r.stats.p95Ms);
        EXPECT_GT(r.floorMs, 0);
        ASSERT_TRUE(r.gatherFloorMs.has_value());
        EXPECT_GT(*r.gatherFloorMs, 0);
        // every timed step, and the statistics are those of these steps
        ASSERT_EQ(r.samplesMs.size(), 5u);
        EXPECT_DOUBLE_EQ(summarize(r.samplesMs).medianMs, r.stats.medianMs);
        EXPECT_DOUBLE_EQ(*std::min_element(r.samplesMs.begin(), r.samplesMs.end()), r.stats.minMs);
        EXPECT_FALSE(r.syncsPerStep.has_value()); // the CPU cannot count syncs
        EXPECT_FALSE(r.peakBytes.has_value());
    }
    EXPECT_GE(progressCalls, 1);
    EXPECT_DOUBLE_EQ(lastFraction, 1.0);
}

TEST(Bench, CancelStopsTheRun)
{
    CancelToken cancel;
    auto req = smallRequest();
    req.iters = 100000;
    int calls = 0;
    EXPECT_THROW(torchLab().runBench(
                     req,
                     [&](double, const char *) {
                         if (++calls == 2)
                             cancel.cancel();
                     },
                     &cancel),
                 Cancelled);
}

TEST(Bench, RejectsBadRequests)
{
    auto expectError = [](BenchRequest r, const char *needle) {
        try {
            torchLab().validateBench(r);
            ADD_FAILURE() << "accepted: " << needle;
        } catch (const Error &e) {
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
        }
    };
    auto r = smallRequest();
    r.variants = {"bogus"};
    expectError(r, "unknown variant");
    r = smallRequest();
    r.iters = 0;
    expectError(r, "iterations");
    r = smallRequest();
    r.points[0].k = 0;
    expectError(r, "K must be at least 1");
    r = smallRequest();
    r.points[0].posFrac = 1.5;
    expectError(r, "positive fraction");
    r = smallRequest();
    r.points[0].ignoreFrac = 0.8;
    expectError(r, "ignored fraction");
    try {
        parseDevice("tpu");
        ADD_FAILURE() << "tpu accepted";
    } catch (const Error &e) {
        EXPECT_NE(std::string(e.what()).find("device must be"), std::string::npos) << e.what();
    }
}

TEST(BenchJson, RoundTripKeepsTheContractFields)
{
    BenchReport rep;
    rep.device = "cpu";
    rep.torchVersion = "1.13.0";
    rep.threads = 2;
    BenchResult r;
    r.variant = "fused";
    r.point.n = 1000;
    r.point.k = 100;
    r.stats = {1.5, 1.6, 1.0, 1.1, 2.0, 0.2};
    r.iters = 10;
    r.floorMs = 0.1;
    r.gatherFloorMs = 0.4;
    r.samplesMs = {1.5, 1.0, 2.0};
    rep.results.push_back(r);
    r.variant = "naive";
    r.syncsPerStep = 2.0;
    r.peakBytes = 4096;
    rep.results.push_back(r);
    const std::string text = benchReportToJson(rep);
    const auto j = nlohmann::json::parse(text);
    for (const char *key : {"device", "torch_version", "threads", "results"})
        EXPECT_TRUE(j.contains(key)) << key;
    for (const char *key :
         {"variant", "n", "k", "batch", "dim", "pos_frac", "median_ms", "mean_ms", "min_ms", "p5_ms", "p95_ms",
          "stdev_ms", "iters", "floor_ms", "gather_floor_ms", "samples_ms", "syncs_per_step", "peak_bytes"})
        EXPECT_TRUE(j["results"][0].contains(key)) << key;
    EXPECT_EQ(j["results"][0]["samples_ms"].size(), 3u);
    EXPECT_TRUE(j["results"][0]["syncs_per_step"].is_null());
    EXPECT_EQ(j["results"][1]["peak_bytes"], 4096);

    const auto back = benchReportFromJson(text);
    ASSERT_EQ(back.results.size(), 2u);
    EXPECT_EQ(back.results[1].variant, "naive");
    EXPECT_DOUBLE_EQ(back.results[0].stats.medianMs, 1.5);
    ASSERT_TRUE(back.results[0].gatherFloorMs.has_value());
    EXPECT_DOUBLE_EQ(*back.results[0].gatherFloorMs, 0.4);
    EXPECT_EQ(back.results[0].samplesMs, (std::vector<double>{1.5, 1.0, 2.0}));
    EXPECT_EQ(*back.results[1].syncsPerStep, 2.0);
    EXPECT_FALSE(back.results[0].syncsPerStep.has_value());
    EXPECT_NE(benchReportToCsv(rep).find("fused,cpu,1000,100"), std::string::npos);
    // Without warm-up and seed (results saved before they were recorded): null.
    EXPECT_TRUE(j["warmup"].is_null());
    EXPECT_TRUE(j["seed"].is_null());
    EXPECT_FALSE(back.warmup.has_value());
    EXPECT_FALSE(back.seed.has_value());
}

// The run's warm-up and seed travel with its results: JSON (the seed as a
// string, exact to 64 bits) and CSV.
TEST(BenchJson, WarmupAndSeedRoundTrip)
{
    BenchReport rep;
    rep.device = "cpu";
    rep.warmup = 7;
    rep.seed = 18446744073709551557ull;
    BenchResult r;
    r.variant = "fused";
    r.point.n = 1000;
    r.point.k = 100;
    r.iters = 30;
    r.stats.medianMs = 1.0;
    rep.results.push_back(r);
    const std::string text = benchReportToJson(rep);
    const auto j = nlohmann::json::parse(text);
    EXPECT_EQ(j["warmup"], 7);
    EXPECT_EQ(j["seed"], "18446744073709551557");
    const auto back = benchReportFromJson(text);
    ASSERT_TRUE(back.warmup && back.seed);
    EXPECT_EQ(*back.warmup, 7);
    EXPECT_EQ(*back.seed, 18446744073709551557ull);
    const std::string csv = benchReportToCsv(rep);
    EXPECT_NE(csv.find(",error,warmup,seed\n"), std::string::npos) << csv;
    EXPECT_NE(csv.find(",7,18446744073709551557\n"), std::string::npos) << csv;
    // One CSV dialect (RFC 4180): a field with a comma or quote is quoted, its quotes doubled.
    rep.results[0].variant = "my,variant";
    rep.results[0].error = "failed: \"cuda\", out of memory";
    const std::string quoted = benchReportToCsv(rep);
    EXPECT_NE(quoted.find("\n\"my,variant\",cpu,1000,100,"), std::string::npos) << quoted;
    EXPECT_NE(quoted.find(",\"failed: \"\"cuda\"\", out of memory\",7,"), std::string::npos) << quoted;
    EXPECT_THROW(benchReportFromJson(R"({"seed":"12x","results":[]})"), Error);
    EXPECT_EQ(*benchReportFromJson(R"({"seed":42,"results":[]})").seed, 42u);
}

TEST(BenchJson, BadFilesGiveOneSentence)
{
    EXPECT_THROW(benchReportFromJson("{not json"), Error);
    EXPECT_THROW(benchReportFromJson("[1,2]"), Error);
    EXPECT_THROW(benchReportFromJson(R"({"results":[{"n":1}]})"), Error);
    // Our sentence, not the JSON library's text ("[json.exception...").
    auto message = [](const std::string &text) {
        try {
            benchReportFromJson(text);
        } catch (const Error &e) {
            return std::string(e.what());
        }
        return std::string();
    };
    EXPECT_EQ(message(R"({"results":[{"n":1}]})"), "not a bench result: results[0] has no \"variant\"");
    EXPECT_EQ(message(R"({"results":[{"variant":"fused","n":"x","k":1}]})"),
              "not a bench result: results[0] has a field of the wrong type");
    EXPECT_EQ(message(R"({"results":[7]})"), "not a bench result: results[0] is not an object");
}
