// The constructed GPU trace tests/data/gpu_sync_gaps.json has exactly known sync
// gaps, causes and idle breakdown (times below in microseconds).
//   device 0 activity: K1 [125,300] M1 [535,560] K2 [565,690] K3 [910,950]
//                      K4 [1000,1040] on stream 7; K5 [1100,1150] Memset [1160,1170] on 8
//   idle: [300,535] [560,565] [690,910] [950,1000] [1040,1100] [1150,1160]
//   blocking calls: S1 cudaStreamSynchronize [130,305] in aten::item < step
//                   S2 cudaDeviceSynchronize [560,695] in aten::copy_ < copy_back < step
//                   S3 cudaEventSynchronize [600,702] on another thread, no op
//                   S4 cudaStreamSynchronize [905,945] in step (5 us before its gap)
//                   S5 cuCtxSynchronize [1010,1029] no op (11 us before its gap: too early)
#include "analysis/jobanalysis.h"
#include "analysis/opstats.h"
#include "common/error.h"
#include "testutil.h"
#include "trace/traceloader.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace syncscope;

namespace {

constexpr TimeNs us(double v) { return static_cast<TimeNs>(v * 1000); }

std::string nameOf(const TraceModel &m, const EventRef &r)
{
    return r.valid() ? std::string(m.str(m.tracks()[r.track].name[r.index])) : "null";
}

class ConstructedTrace : public testing::Test {
protected:
    void SetUp() override
    {
        model = loadTrace(test::dataPath("gpu_sync_gaps.json"));
        analysis = analyzeSyncs(*model);
    }
    TraceModelPtr model;
    SyncAnalysis analysis;
};

} // namespace

TEST_F(ConstructedTrace, BusyAndIdlePerDevice)
{
    ASSERT_EQ(analysis.devices.size(), 2u);
    const DeviceActivity &d0 = analysis.devices[0];
    EXPECT_EQ(d0.device, 0);
    EXPECT_EQ(d0.kernels, 5u);
    EXPECT_EQ(d0.memcpys, 1u);
    EXPECT_EQ(d0.memsets, 1u);
    EXPECT_EQ(d0.busy, us(465)); // gpu_user_annotation [100,1200] is not activity
    EXPECT_EQ(d0.span(), us(1045));
    EXPECT_EQ(d0.idle(), us(580));
    const std::vector<std::pair<double, double>> idle = {{300, 535},  {560, 565},   {690, 910},
                                                         {950, 1000}, {1040, 1100}, {1150, 1160}};
    ASSERT_EQ(d0.idleIntervals.size(), idle.size());
    for (size_t i = 0; i < idle.size(); ++i) {
        EXPECT_EQ(d0.idleIntervals[i].start, us(idle[i].first));
        EXPECT_EQ(d0.idleIntervals[i].end, us(idle[i].second));
    }
    // Device 1 comes from the pid, as the kernel has no args.device.
    EXPECT_EQ(analysis.devices[1].device, 1);
    EXPECT_EQ(analysis.devices[1].busy, us(60));
    EXPECT_EQ(analysis.devices[1].idle(), 0);
}

TEST_F(ConstructedTrace, BlockingSyncCallsWithOps)
{
    ASSERT_EQ(analysis.syncCalls.size(), 5u);
    const char *names[] = {"cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize",
                           "cudaStreamSynchronize", "cuCtxSynchronize"};
    const char *ops[] = {"aten::item", "aten::copy_", "null", "step", "null"};
    const char *roots[] = {"step", "step", "null", "step", "null"};
    for (size_t i = 0; i < 5; ++i) {
        const SyncCall &c = analysis.syncCalls[i];
        EXPECT_EQ(nameOf(*model, c.event), names[i]) << i;
        EXPECT_EQ(nameOf(*model, c.op), ops[i]) << i;
        EXPECT_EQ(nameOf(*model, c.rootOp), roots[i]) << i;
    }
    ASSERT_EQ(analysis.cudaSyncEvents.size(), 1u);
    EXPECT_EQ(model->str(analysis.cudaSyncEvents[0].kind), "Stream Sync");
    EXPECT_EQ(analysis.cudaSyncEvents[0].stream, 7);
}

TEST_F(ConstructedTrace, SyncGapsAndCauses)
{
    ASSERT_EQ(analysis.syncGaps.size(), 3u);
    struct Want {
        double g0, g1;
        const char *sync, *op;
    } want[] = {{300, 535, "cudaStreamSynchronize", "aten::item"},
                {690, 910, "cudaEventSynchronize", "null"},    // returned last (702 > 695)
                {950, 1000, "cudaStreamSynchronize", "step"}}; // within the 10 us skew
    for (size_t i = 0; i < 3; ++i) {
        const SyncGap &g = analysis.syncGaps[i];
        EXPECT_EQ(g.device, 0);
        EXPECT_EQ(g.interval.start, us(want[i].g0)) << i;
        EXPECT_EQ(g.interval.end, us(want[i].g1)) << i;
        const SyncCall &c = analysis.syncCalls[g.syncCall];
        EXPECT_EQ(nameOf(*model, c.event), want[i].sync) << i;
        EXPECT_EQ(nameOf(*model, c.op), want[i].op) << i;
    }
    EXPECT_EQ(analysis.devices[0].syncGap, us(235 + 220 + 50));

    // With no skew allowed, the third gap loses its cause.
    AnalysisOptions strict;
    strict.clockSkew = 0;
    EXPECT_EQ(analyzeSyncs(*model, strict).syncGaps.size(), 2u);
    // With 11 us, the cuCtxSynchronize before [1040,1100] counts too.
    AnalysisOptions loose;
    loose.clockSkew = us(11);
    EXPECT_EQ(analyzeSyncs(*model, loose).syncGaps.size(), 4u);
}

TEST_F(ConstructedTrace, IdleBreakdownPerStream)
{
    ASSERT_EQ(analysis.idleBreakdown.size(), 3u);
    const IdleBreakdown &s7 = analysis.idleBreakdown[0];
    EXPECT_EQ(s7.device, 0);
    EXPECT_EQ(s7.stream, 7);
    EXPECT_EQ(s7.hostWait, us(235 + 220)); // launches at 520 > 300 and 900 > 690
    EXPECT_EQ(s7.kernelWait, us(5));       // launched before, gap under 30 us
    EXPECT_EQ(s7.other, us(50));           // launched before, gap of 50 us
    const IdleBreakdown &s8 = analysis.idleBreakdown[1];
    EXPECT_EQ(s8.stream, 8);
    EXPECT_EQ(s8.hostWait, us(10)); // memset launched at 1151, after K5 ended at 1150
    EXPECT_EQ(s8.kernelWait + s8.other, 0);
    EXPECT_EQ(analysis.idleBreakdown[2].device, 1);
}

TEST_F(ConstructedTrace, OpStatistics)
{
    auto stats = opStatistics(*model);
    auto find = [&](const std::vector<OpStat> &v, const char *name) -> const OpStat * {
        for (const OpStat &s : v)
            if (model->str(s.name) == name)
                return &s;
        return nullptr;
    };
    const OpStat *item = find(stats, "aten::item");
    ASSERT_NE(item, nullptr);
    EXPECT_EQ(item->count, 1u);
    EXPECT_EQ(item->total, us(300));
    EXPECT_EQ(item->self, us(300 - 10 - 175));
    const OpStat *launch = find(stats, "cudaLaunchKernel");
    ASSERT_NE(launch, nullptr);
    EXPECT_EQ(launch->count, 5u);
    EXPECT_EQ(launch->total, us(10 + 5 + 5 + 5 + 5));
    EXPECT_EQ(launch->min, us(5));
    EXPECT_EQ(launch->max, us(10));
    EXPECT_EQ(model->str(stats[0].name), "region"); // longest total first

    // Range [200, 600): step is clipped to 400, aten::item to [200,400).
    auto range = opStatistics(*model, us(200), us(600));
    const OpStat *step = find(range, "step");
    ASSERT_NE(step, nullptr);
    EXPECT_EQ(step->total, us(400));
    const OpStat *rItem = find(range, "aten::item");
    ASSERT_NE(rItem, nullptr);
    EXPECT_EQ(rItem->total, us(200));
    EXPECT_EQ(rItem->self, us(200 - 105)); // cudaStreamSynchronize clipped to [200,305)
    EXPECT_EQ(find(range, "K3"), nullptr);
    const OpStat *rLaunch = find(range, "cudaLaunchKernel");
    ASSERT_NE(rLaunch, nullptr);
    EXPECT_EQ(rLaunch->count, 1u); // only the one at 540
}

TEST_F(ConstructedTrace, JsonShape)
{
    const JobAnalysis job = analyzeJob({model});
    const std::string text = analysisToJson(job, 3);
    const auto doc = nlohmann::json::parse(text);
    const std::vector<std::string> keys = {"files",      "categories",       "devices",      "sync_calls",
                                           "long_calls", "cuda_sync_events", "stream_waits", "handoffs",
                                           "sync_gaps",  "idle_breakdown",   "steps",        "sync_sources",
                                           "top_ops"};
    // Times are written as exact decimals with 3 places, never through a double.
    EXPECT_NE(text.find("\"busy_us\": 465.000,"), std::string::npos);
    EXPECT_NE(text.find("\"dur_us\": 220.000,"), std::string::npos);
    std::vector<std::string> got;
    for (auto it = doc.begin(); it != doc.end(); ++it)
        got.push_back(it.key());
    std::sort(got.begin(), got.end());
    auto sorted = keys;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(got, sorted);
    EXPECT_EQ(doc["files"][0]["rank"], 3);
    EXPECT_EQ(doc["files"][0]["format"], "json");
    EXPECT_EQ(doc["files"][0]["events"], 26);
    EXPECT_EQ(doc["categories"]["kernel"], 6);
    EXPECT_EQ(doc["devices"][0]["busy_us"], 465.0);
    EXPECT_EQ(doc["devices"][0]["sync_gap_us"], 505.0);
    EXPECT_EQ(doc["sync_calls"][2]["op"], nullptr);
    EXPECT_EQ(doc["sync_calls"][0]["pid"], 100);
    EXPECT_EQ(doc["sync_gaps"][0]["sync"], "cudaStreamSynchronize");
    EXPECT_EQ(doc["sync_gaps"][0]["root_op"], "step");
    EXPECT_EQ(doc["sync_gaps"][1]["dur_us"], 220.0);
    EXPECT_EQ(doc["idle_breakdown"][0]["host_wait_us"], 455.0);
    EXPECT_EQ(doc["top_ops"].size(), 3u);
    EXPECT_EQ(doc["cuda_sync_events"][0]["kind"], "Stream Sync");
}

TEST_F(ConstructedTrace, CancelStopsAnalysis)
{
    CancelToken token;
    token.cancel();
    EXPECT_THROW(analyzeSyncs(*model, {}, {}, &token), Cancelled);
    EXPECT_THROW(opStatistics(*model, {}, &token), Cancelled);
}
