// The comparison of two traces on the hand-made pair tests/data/diff_before.json
// and diff_after.json. Every expected value below was worked out by hand from the
// events (times in us; one device 0, one stream, one host thread):
//  before: ProfilerStep#0 [0,500): aten::old_name [10,50) launches K1 [40,240];
//          cudaStreamSynchronize [110,250) in aten::item under train.py(10): step;
//          K2 [290,390] launched at 270. ProfilerStep#1 [500,900): aten::old_name
//          [510,550) launches K1 [540,640] at 520.
//          busy 400 of span [40,640] = 600; idle 200 = [240,290] + [390,540];
//          the sync returns at 250 inside [240,290]: one sync gap of 50.
//          Replay without it: head start 140 from 110; K2 -> [240,340],
//          K1 at 520 -> max(540-140, 340) = [400,500]: last end 640 -> 500, 140.
//  after:  ProfilerStep#0 [0,300): aten::new_name [10,50) launches K1 [40,240],
//          K2 queued at [240,340]. ProfilerStep#1 [300,700): aten::new_name
//          [302,342) launches K1 [340,440];
//          cudaDeviceSynchronize [350,450) in aten::copy_ under train.py(20): log;
//          K2 [480,580] launched at 460.
//          busy 500 of [40,580] = 540; idle [440,480] = 40, a sync gap (450).
//          Replay without it: head start 100; K2 -> max(380, 440) = [440,540]: 40.
// So: one sync source removed, one added, step 0 went from 500 to 300 us, and
// aten::old_name was renamed aten::new_name (one op removed, one added).
#include "analysis/tracediff.h"
#include "testutil.h"
#include "trace/traceloader.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace syncscope;

namespace {

constexpr TimeNs us = 1000;

class TraceDiffTest : public ::testing::Test {
protected:
    static void SetUpTestSuite()
    {
        before = new AnalysedTrace(analyseTrace(loadTrace(test::dataPath("diff_before.json"))));
        after = new AnalysedTrace(analyseTrace(loadTrace(test::dataPath("diff_after.json"))));
        diff = new TraceDiff(diffTraces(*before, *after));
    }
    static void TearDownTestSuite()
    {
        delete diff;
        delete after;
        delete before;
    }
    static AnalysedTrace *before, *after;
    static TraceDiff *diff;
};
AnalysedTrace *TraceDiffTest::before = nullptr;
AnalysedTrace *TraceDiffTest::after = nullptr;
TraceDiff *TraceDiffTest::diff = nullptr;

const OpDiff *findOp(const TraceDiff &d, const std::string &name, const std::string &cat)
{
    for (const OpDiff &o : d.ops)
        if (o.name == name && o.cat == cat)
            return &o;
    return nullptr;
}

} // namespace

TEST(NearestRank, PercentilesAreElementsOfTheSortedValues)
{
    std::vector<TimeNs> v;
    for (TimeNs i = 20; i >= 1; --i) // 20 .. 1, unsorted on purpose
        v.push_back(i * 10);
    // n = 20: p5 -> rank ceil(1) = 1, p50 -> 10, p95 -> 19, p100 -> 20, p0 -> 1.
    EXPECT_EQ(nearestRank(v, 5), 10);
    EXPECT_EQ(nearestRank(v, 50), 100);
    EXPECT_EQ(nearestRank(v, 95), 190);
    EXPECT_EQ(nearestRank(v, 100), 200);
    EXPECT_EQ(nearestRank(v, 0), 10);
    v.push_back(5); // n = 21: p5 -> ceil(1.05) = 2, p50 -> ceil(10.5) = 11, p95 -> ceil(19.95) = 20
    EXPECT_EQ(nearestRank(v, 5), 10);
    EXPECT_EQ(nearestRank(v, 50), 100);
    EXPECT_EQ(nearestRank(v, 95), 190);
    EXPECT_EQ(nearestRank({}, 50), 0);
    EXPECT_EQ(nearestRank({7}, 95), 7);
    // Even count: the lower middle, not the mean of the two.
    EXPECT_EQ(nearestRank({1, 4}, 50), 1);
    // The true median: the middle value, or the two middle values' mean rounded down.
    EXPECT_EQ(median({}), 0);
    EXPECT_EQ(median({7}), 7);
    EXPECT_EQ(median({4, 1}), 2);
    EXPECT_EQ(median({9, 1, 5}), 5);
    EXPECT_EQ(median({10, 40, 20, 30}), 25);
    EXPECT_EQ(median({INT64_MAX, INT64_MAX - 2}), INT64_MAX - 1);
}

TEST_F(TraceDiffTest, Files)
{
    EXPECT_EQ(diff->before.events, 14u);
    EXPECT_EQ(diff->after.events, 16u);
    EXPECT_EQ(diff->before.span, 900 * us);
    EXPECT_EQ(diff->after.span, 700 * us);
}

TEST_F(TraceDiffTest, DevicesMatchById)
{
    ASSERT_EQ(diff->devices.size(), 1u);
    const DeviceDiff &d = diff->devices[0];
    ASSERT_TRUE(d.before && d.after);
    EXPECT_EQ(d.before->busy, 400 * us);
    EXPECT_EQ(d.before->idle, 200 * us);
    EXPECT_EQ(d.before->span, 600 * us);
    EXPECT_EQ(d.before->syncGap, 50 * us);
    EXPECT_EQ(d.before->avoidable, 140 * us);
    EXPECT_EQ(d.after->busy, 500 * us);
    EXPECT_EQ(d.after->idle, 40 * us);
    EXPECT_EQ(d.after->span, 540 * us);
    EXPECT_EQ(d.after->syncGap, 40 * us);
    EXPECT_EQ(d.after->avoidable, 40 * us);
}

TEST_F(TraceDiffTest, SyncCallsByName)
{
    ASSERT_EQ(diff->syncCalls.size(), 2u);
    for (const SyncCallDiff &c : diff->syncCalls) {
        if (c.name == "cudaStreamSynchronize") {
            EXPECT_EQ(c.before, std::optional<uint64_t>(1));
            EXPECT_FALSE(c.after);
        } else {
            EXPECT_EQ(c.name, "cudaDeviceSynchronize");
            EXPECT_FALSE(c.before);
            EXPECT_EQ(c.after, std::optional<uint64_t>(1));
        }
    }
}

TEST_F(TraceDiffTest, OneSourceRemovedOneAdded)
{
    ASSERT_EQ(diff->sources.size(), 2u);
    // Sorted by the larger avoidable side: 140 (removed) before 40 (added).
    const SourceDiff &gone = diff->sources[0];
    EXPECT_EQ(gone.sync, "cudaStreamSynchronize");
    EXPECT_EQ(gone.op, std::optional<std::string>("aten::item"));
    EXPECT_EQ(gone.userFrame, std::optional<std::string>("train.py(10): step"));
    ASSERT_TRUE(gone.before);
    EXPECT_FALSE(gone.after);
    EXPECT_EQ(gone.before->count, 1u);
    EXPECT_EQ(gone.before->gaps, 1u);
    EXPECT_EQ(gone.before->gapTime, 50 * us);
    EXPECT_EQ(gone.before->avoidable, 140 * us);
    EXPECT_EQ(gone.beforeIndex, 0u);
    EXPECT_EQ(gone.afterIndex, kNoIndex);

    const SourceDiff &added = diff->sources[1];
    EXPECT_EQ(added.sync, "cudaDeviceSynchronize");
    EXPECT_EQ(added.op, std::optional<std::string>("aten::copy_"));
    EXPECT_EQ(added.userFrame, std::optional<std::string>("train.py(20): log"));
    EXPECT_FALSE(added.before);
    ASSERT_TRUE(added.after);
    EXPECT_EQ(added.after->gapTime, 40 * us);
    EXPECT_EQ(added.after->avoidable, 40 * us);
}

TEST_F(TraceDiffTest, StepsMatchByOrder)
{
    ASSERT_EQ(diff->steps.size(), 2u);
    const StepDiff &s0 = diff->steps[0], &s1 = diff->steps[1];
    ASSERT_TRUE(s0.before && s0.after && s1.before && s1.after);
    EXPECT_EQ(s0.before->step, "ProfilerStep#0");
    EXPECT_EQ(s0.before->dur, 500 * us);
    EXPECT_EQ(s0.before->gpuBusy, 300 * us); // K1 200 + K2 100
    EXPECT_EQ(s0.before->syncGaps, 1u);
    EXPECT_EQ(s0.before->syncGapTime, 50 * us);
    EXPECT_EQ(s0.before->avoidable, 140 * us);
    EXPECT_EQ(s0.after->dur, 300 * us);     // the step that got faster
    EXPECT_EQ(s0.after->gpuBusy, 260 * us); // [40,340] clipped to [0,300)
    EXPECT_EQ(s0.after->syncGaps, 0u);
    EXPECT_EQ(s0.after->avoidable, 0);
    EXPECT_EQ(s1.before->dur, 400 * us);
    EXPECT_EQ(s1.before->gpuBusy, 100 * us);
    EXPECT_EQ(s1.before->avoidable, 0);
    EXPECT_EQ(s1.after->step, "ProfilerStep#1");
    EXPECT_EQ(s1.after->gpuBusy, 240 * us); // [300,440] + [480,580]
    EXPECT_EQ(s1.after->syncGaps, 1u);
    EXPECT_EQ(s1.after->avoidable, 40 * us);

    // Durations 500, 400 -> 400, 500 sorted: median their mean, p5 rank 1, p95 rank 2.
    EXPECT_EQ(diff->stepTimeBefore.count, 2u);
    EXPECT_EQ(diff->stepTimeBefore.median, 450 * us);
    EXPECT_EQ(diff->stepTimeBefore.p5, 400 * us);
    EXPECT_EQ(diff->stepTimeBefore.p95, 500 * us);
    EXPECT_EQ(diff->stepTimeAfter.median, 350 * us);
    EXPECT_TRUE(fewSteps(diff->stepTimeBefore, diff->stepTimeAfter));
    EXPECT_EQ(diff->stepTimeAfter.p95, 400 * us);
}

TEST_F(TraceDiffTest, RenamedOpIsOneRemovedAndOneAdded)
{
    const OpDiff *oldOp = findOp(*diff, "aten::old_name", "cpu_op");
    const OpDiff *newOp = findOp(*diff, "aten::new_name", "cpu_op");
    ASSERT_TRUE(oldOp && newOp);
    ASSERT_TRUE(oldOp->before);
    EXPECT_FALSE(oldOp->after);
    EXPECT_EQ(oldOp->before->count, 2u);
    EXPECT_EQ(oldOp->before->total, 80 * us);
    EXPECT_EQ(oldOp->before->self, 60 * us); // minus the two 10 us launches
    EXPECT_FALSE(newOp->before);
    ASSERT_TRUE(newOp->after);
    EXPECT_EQ(newOp->after->self, 60 * us);
    // GPU activity is in kernels, not ops.
    EXPECT_EQ(findOp(*diff, "K1", "kernel"), nullptr);
}

TEST_F(TraceDiffTest, OpsSortedByAbsoluteSelfChange)
{
    // |delta self| by hand: train.py(10): step 646 -> 248 (398); train.py(20): log
    // 0 -> 238; cudaStreamSynchronize 140 -> 0; cudaDeviceSynchronize 0 -> 100;
    // aten::new_name and aten::old_name 60 each (ties keep (name, cat) order); aten::item 20; then
    // 10 each for aten::copy_ (|delta total| 110) and cudaLaunchKernel (30 -> 40, total 10); then
    // the two ProfilerSteps (self 2 -> 2): #0 total 500 -> 300, #1 unchanged.
    std::vector<std::string> names;
    for (const OpDiff &o : diff->ops)
        names.push_back(o.name);
    const std::vector<std::string> expected = {"train.py(10): step",
                                               "train.py(20): log",
                                               "cudaStreamSynchronize",
                                               "cudaDeviceSynchronize",
                                               "aten::new_name",
                                               "aten::old_name",
                                               "aten::item",
                                               "aten::copy_",
                                               "cudaLaunchKernel",
                                               "ProfilerStep#0",
                                               "ProfilerStep#1"};
    EXPECT_EQ(names, expected);
    const OpDiff *py = findOp(*diff, "train.py(10): step", "python_function");
    ASSERT_TRUE(py && py->before && py->after);
    EXPECT_EQ(py->before->self, 646 * us);
    EXPECT_EQ(py->after->self, 248 * us);
}

TEST_F(TraceDiffTest, KernelsByName)
{
    ASSERT_EQ(diff->kernels.size(), 2u);
    EXPECT_EQ(diff->kernels[0].name, "K2"); // 100 -> 200 us
    EXPECT_EQ(diff->kernels[0].before->count, 1u);
    EXPECT_EQ(diff->kernels[0].after->count, 2u);
    EXPECT_EQ(diff->kernels[0].after->total, 200 * us);
    EXPECT_EQ(diff->kernels[1].name, "K1"); // 300 -> 300 us
    EXPECT_EQ(diff->kernels[1].before->total, 300 * us);
}

TEST_F(TraceDiffTest, TotalsForTheHeadline)
{
    EXPECT_EQ(diff->totalsBefore.busy, 400 * us);
    EXPECT_EQ(diff->totalsBefore.span, 600 * us);
    EXPECT_EQ(diff->totalsBefore.syncCalls, 1u);
    EXPECT_EQ(diff->totalsAfter.avoidable, 40 * us);
    EXPECT_EQ(diff->totalsAfter.syncGaps, 1u);
}

TEST_F(TraceDiffTest, JsonHasTheContractKeysAndNulls)
{
    const auto j = nlohmann::json::parse(traceDiffToJson(*diff));
    std::vector<std::string> keys;
    for (auto it = j.begin(); it != j.end(); ++it)
        keys.push_back(it.key());
    // nlohmann sorts keys; the order of the document is checked by the CLI test.
    for (const char *k :
         {"before", "after", "devices", "sync_calls", "sync_sources", "steps", "step_time", "ops", "kernels"})
        EXPECT_TRUE(j.contains(k)) << k;
    EXPECT_EQ(j["before"]["span_us"].dump(), "900.0");
    EXPECT_TRUE(j["sync_sources"][0]["after"].is_null());
    EXPECT_TRUE(j["sync_sources"][1]["before"].is_null());
    EXPECT_EQ(j["step_time"]["after"]["median_us"].get<double>(), 350.0);
    EXPECT_EQ(j["steps"][0]["before"]["avoidable_us"].get<double>(), 140.0);
}

TEST_F(TraceDiffTest, CsvRowsWithExactDeltas)
{
    const std::string csv = traceDiffToCsv(*diff);
    EXPECT_EQ(csv.substr(0, csv.find('\n')), "section,key,metric,before,after,delta");
    EXPECT_NE(csv.find("\ndevices,0,avoidable_us,140.000,40.000,-100.000\n"), std::string::npos);
    EXPECT_NE(csv.find("\nsync_sources,cudaStreamSynchronize in aten::item at train.py(10): step,avoidable_us,"
                       "140.000,,-140.000\n"),
              std::string::npos);
    EXPECT_NE(csv.find("\nsteps,0,dur_us,500.000,300.000,-200.000\n"), std::string::npos);
    EXPECT_NE(csv.find("\nstep_time,steps,median_us,450.000,350.000,-100.000\n"), std::string::npos);
    EXPECT_NE(csv.find("\nops,aten::new_name [cpu_op],count,,2,2\n"), std::string::npos);
    EXPECT_NE(csv.find("\nkernels,K2,count,1,2,1\n"), std::string::npos);
}

TEST(TraceDiffCsv, QuotesFieldsWithCommas)
{
    TraceDiff d;
    d.kernels.push_back({"void at::kernel<float, 2>", KernelFigures{1, 1500}, std::nullopt});
    const std::string csv = traceDiffToCsv(d);
    EXPECT_NE(csv.find("\nkernels,\"void at::kernel<float, 2>\",total_us,1.500,,-1.500\n"), std::string::npos);
}

TEST(TraceDiffOps, TheProfilerEnvelopeIsNoOp)
{
    const char *trace = R"json({"traceEvents": [
        {"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
        {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 10, "dur": 5}]})json";
    const AnalysedTrace t = analyseTrace(loadTraceFromMemory(trace, "envelope.json"));
    const TraceDiff d = diffTraces(t, t);
    ASSERT_EQ(d.ops.size(), 1u);
    EXPECT_EQ(d.ops[0].name, "aten::add");
    EXPECT_EQ(d.ops[0].before->total, 5 * us);
}
