// The sync analysis's phases one by one, on values written here (times in ns),
// each figure worked out by hand in the comments.
#include "analysis/syncphases.h"
#include "testutil.h"
#include "trace/traceloader.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

using namespace syncscope;

namespace {

GpuActivityRef act(int64_t device, int64_t stream, TimeNs start, TimeNs end, int64_t correlation = kNoValue)
{
    return {device, stream, start, end, correlation, 0, 0};
}

SyncCall call(TimeNs start, TimeNs dur)
{
    SyncCall c;
    c.start = start;
    c.dur = dur;
    return c;
}

Step step(TimeNs start, TimeNs end)
{
    Step s;
    s.start = start;
    s.end = end;
    return s;
}

} // namespace

// Device 0: [0, 10] and [5, 20] overlap (one piece of 20), then [30, 40]:
// busy 30, one idle interval [20, 30]. Device 1: one activity [100, 150].
TEST(SyncPhases, BusyTimeIsTheUnionPerDevice)
{
    std::vector<GpuActivityRef> acts = {act(1, 7, 100, 150), act(0, 7, 30, 40), act(0, 8, 5, 20),
                                        act(0, 7, 0, 10)};
    std::map<int64_t, DeviceActivity> devices;
    devices[0].device = 0;
    devices[1].device = 1;
    const phases::Busy b = phases::busyTime(acts, devices);
    ASSERT_EQ(b.devices.size(), 2u);
    EXPECT_EQ(b.devices[0].busy, 30);
    EXPECT_EQ(b.devices[0].first, 0);
    EXPECT_EQ(b.devices[0].last, 40);
    ASSERT_EQ(b.devices[0].idleIntervals.size(), 1u);
    EXPECT_EQ(b.devices[0].idleIntervals[0].start, 20);
    EXPECT_EQ(b.devices[0].idleIntervals[0].end, 30);
    EXPECT_EQ(b.devices[1].busy, 50);
    ASSERT_EQ(b.pieces.at(0).size(), 2u);
    EXPECT_EQ(b.pieces.at(0)[0].end, 20);
    // Sorted by (device, start) in place.
    EXPECT_EQ(acts.front().start, 0);
    EXPECT_EQ(acts.back().device, 1);
}

// Steps [0, 100), [50, 80) (inside the first) and [100, 200). A call ending at
// 60 is in the latest-starting step that holds it (1); at 90 only step 0 holds
// it; at 100 step 2 (windows are half-open); at 250 none.
TEST(SyncPhases, EachCallInTheLatestStartingStepThatHoldsItsEnd)
{
    const std::vector<Step> steps = {step(0, 100), step(50, 80), step(100, 200)};
    std::vector<SyncCall> calls = {call(40, 20), call(85, 5), call(90, 10), call(240, 10), call(-20, 10)};
    phases::assignSteps(steps, calls);
    EXPECT_EQ(calls[0].step, 1);
    EXPECT_EQ(calls[1].step, 0);
    EXPECT_EQ(calls[2].step, 2);
    EXPECT_EQ(calls[3].step, -1);
    EXPECT_EQ(calls[4].step, -1);
}

// Idle interval [100, 200] on device 0. Calls returning from 100 - skew (90)
// to 200: A [50, 150] (started before the gap) and B [120, 190] (started in
// it). The cause is the last to return among those that started at or before
// the gap: A, though B returns later. A call returning at 80 is outside.
TEST(SyncPhases, TheGapsCauseStartedBeforeIt)
{
    std::vector<DeviceActivity> devices(1);
    devices[0].idleIntervals = {{100, 200}};
    const std::vector<SyncCall> calls = {call(10, 70), call(50, 100), call(120, 70)};
    const std::vector<size_t> byEnd = phases::callsByEnd(calls);
    const std::vector<SyncGap> gaps = phases::findSyncGaps(devices, calls, byEnd, 10);
    ASSERT_EQ(gaps.size(), 1u);
    EXPECT_EQ(gaps[0].syncCall, 1u);
    EXPECT_EQ(gaps[0].blocked, 100);
    EXPECT_EQ(devices[0].syncGap, 100);
}

// Stream 7: [0, 10], [15, 20] (launched at 2, before 10: a 5 ns kernel wait),
// [100, 110] (launched at 50, after 20: an 80 ns host wait), [200, 210] with no
// launch call (a 90 ns gap over the 30 ns threshold: other).
TEST(SyncPhases, IdleBreakdownByWhatTheStreamWaitedFor)
{
    std::vector<GpuActivityRef> acts = {act(0, 7, 0, 10, 1), act(0, 7, 15, 20, 2), act(0, 7, 100, 110, 3),
                                        act(0, 7, 200, 210)};
    CorrelationIndex launchOf;
    launchOf.add(3, {0, 1, 50, 55});
    launchOf.add(2, {0, 0, 2, 4});
    launchOf.finish();
    const std::vector<IdleBreakdown> b = phases::idleBreakdown(acts, launchOf, 30);
    ASSERT_EQ(b.size(), 1u);
    EXPECT_EQ(b[0].kernelWait, 5);
    EXPECT_EQ(b[0].hostWait, 80);
    EXPECT_EQ(b[0].other, 90);
}

// replayInputOf is the replay input analyzeSyncs builds, to the field, on every
// fixture with GPU work (the Timeline aligns a job's clocks with it).
TEST(SyncPhases, ACorrelationKeepsItsFirstCallWhateverTheOrderOfCorrelations)
{
    CorrelationIndex index;
    index.add(7, {0, 0, 100, 110});
    index.add(3, {0, 1, 200, 210});
    index.add(7, {1, 5, 300, 310}); // a later call of correlation 7: not the launch
    index.add(-4, {2, 2, 400, 410});
    index.finish();
    EXPECT_EQ(index.size(), 3u);
    ASSERT_NE(index.find(7), nullptr);
    EXPECT_EQ(index.find(7)->start, 100);
    EXPECT_EQ(index.find(3)->index, 1u);
    EXPECT_EQ(index.find(-4)->track, 2u);
    EXPECT_EQ(index.find(5), nullptr);
    EXPECT_EQ(index.find(8), nullptr);
    std::vector<int64_t> order;
    for (const auto &e : index)
        order.push_back(e.first);
    EXPECT_EQ(order, (std::vector<int64_t>{-4, 3, 7}));
}

// Look-ups go through a table indexed by the correlation where the ids are
// dense, else a hash table: on many keys, dense, sparse, negative, repeated
// and far apart (the same low bits), every one finds its first call and no
// absent key finds one, against a std::map of the same calls.
TEST(SyncPhases, ACorrelationIndexFindsWhatAMapFinds)
{
    std::mt19937_64 rng(3);
    for (const int64_t spread : {int64_t(1), int64_t(7), int64_t(1) << 32, int64_t(10'000'000)}) {
        SCOPED_TRACE(spread);
        CorrelationIndex index;
        std::map<int64_t, HostCallRef> first;
        for (uint32_t i = 0; i < 20000; ++i) {
            const bool below = spread > 1 && rng() % 8 == 0; // spread 1: dense
            const int64_t c = static_cast<int64_t>(rng() % 30000) * spread - (below ? spread * 40000 : 0);
            const HostCallRef call{i % 5, i, TimeNs(i), TimeNs(i) + 1};
            index.add(c, call);
            // The first in event order (track, then index) stays.
            auto [it, added] = first.emplace(c, call);
            if (!added &&
                std::make_pair(call.track, call.index) < std::make_pair(it->second.track, it->second.index))
                it->second = call;
        }
        index.finish();
        ASSERT_EQ(index.size(), first.size());
        for (const auto &kv : first) {
            const HostCallRef *found = index.find(kv.first);
            ASSERT_NE(found, nullptr) << kv.first;
            EXPECT_EQ(found->index, kv.second.index) << kv.first;
        }
        for (int k = 0; k < 20000; ++k) {
            const int64_t c = static_cast<int64_t>(rng());
            if (first.count(c) == 0)
                EXPECT_EQ(index.find(c), nullptr) << c;
            const int64_t near = static_cast<int64_t>(rng() % 30000) * spread + 1;
            if (first.count(near) == 0)
                EXPECT_EQ(index.find(near), nullptr) << near;
        }
    }
    // Calls as launching threads append them: each thread's in correlation
    // order, the threads' ids interleaved (a few sorted runs, merged), some
    // ids on two threads (the first thread's call stays).
    for (const uint32_t threads : {2u, 3u, 16u, 17u}) {
        SCOPED_TRACE(threads);
        CorrelationIndex index;
        std::map<int64_t, uint32_t> firstTrack;
        for (uint32_t t = 0; t < threads; ++t)
            for (uint32_t k = 0; k < 3000; ++k) {
                const int64_t c = int64_t(k) * threads + t - (k % 7 == 0 ? 1 : 0);
                index.add(c, {t, k, 0, 1});
                firstTrack.emplace(c, t);
            }
        index.finish();
        ASSERT_EQ(index.size(), firstTrack.size());
        int64_t last = INT64_MIN;
        for (const auto &e : index) {
            EXPECT_LT(last, e.first);
            last = e.first;
            EXPECT_EQ(e.second.track, firstTrack[e.first]) << e.first;
        }
    }
    EXPECT_EQ(CorrelationIndex().find(1), nullptr);
    // Dense ids near int64's ends: no look-up wraps into the table.
    CorrelationIndex ends;
    ends.add(INT64_MAX - 1, {0, 0, 0, 1});
    ends.add(INT64_MAX, {0, 1, 0, 1});
    ends.finish();
    EXPECT_EQ(ends.find(INT64_MAX)->index, 1u);
    EXPECT_EQ(ends.find(INT64_MIN), nullptr);
    EXPECT_EQ(ends.find(0), nullptr);
    EXPECT_EQ(ends.find(INT64_MAX - 2), nullptr);
}

// Ids dense in blocks far apart (runs or processes numbered from different
// bases, e.g. a trace made of copies with ids shifted by ten million): a table
// per block. Every id finds its call, every id around and between the blocks
// finds none, against a std::map; too many blocks, or blocks too sparse, hash.
TEST(SyncPhases, ACorrelationIndexOfDenseBlocksFindsWhatAMapFinds)
{
    std::mt19937_64 rng(5);
    struct Shape {
        int blocks;
        int64_t shift;
        int perBlock, step;
        const char *layout;
    };
    for (const Shape &sh : {Shape{1, 0, 5000, 1, "direct"}, Shape{38, 10'000'000, 3000, 1, "blocks"},
                            Shape{5, -1'000'000'000'000, 2000, 3, "blocks"}, Shape{4, 5000, 300, 2, "blocks"},
                            Shape{3000, 1000, 10, 1, "hash"}, Shape{40, 10'000'000, 1000, 70, "hash"}}) {
        SCOPED_TRACE(sh.layout + std::string(" ") + std::to_string(sh.blocks));
        CorrelationIndex index;
        std::map<int64_t, HostCallRef> first;
        std::vector<int64_t> ids;
        for (int b = 0; b < sh.blocks; ++b)
            for (int k = 0; k < sh.perBlock; ++k)
                if (rng() % 5) // a few gaps inside the blocks
                    ids.push_back(b * sh.shift + int64_t(k) * sh.step);
        std::shuffle(ids.begin(), ids.end(), rng);
        for (uint32_t i = 0; i < ids.size(); ++i) {
            const HostCallRef call{i % 3, i, TimeNs(i), TimeNs(i) + 1};
            index.add(ids[i], call);
            first.emplace(ids[i], call);
        }
        index.finish();
        EXPECT_STREQ(index.layout(), sh.layout);
        ASSERT_EQ(index.size(), first.size());
        for (const auto &kv : first) {
            const HostCallRef *found = index.find(kv.first);
            ASSERT_NE(found, nullptr) << kv.first;
            EXPECT_EQ(found->index, kv.second.index) << kv.first;
        }
        for (int b = -1; b <= sh.blocks; ++b)
            for (int64_t d : {int64_t(-200), int64_t(-65), int64_t(-1), int64_t(0), int64_t(1), int64_t(7),
                              int64_t(sh.perBlock) * sh.step - 1, int64_t(sh.perBlock) * sh.step,
                              int64_t(sh.perBlock) * sh.step + 64, sh.shift / 2}) {
                const int64_t c = b * sh.shift + d;
                if (first.count(c) == 0)
                    EXPECT_EQ(index.find(c), nullptr) << c;
                else
                    EXPECT_EQ(index.find(c)->index, first[c].index) << c;
            }
    }
}

TEST(SyncPhases, ReplayInputOfIsTheAnalysisReplayInput)
{
    size_t withWork = 0;
    for (const char *name : {"gpu_sync_gaps.json", "stream_wait_event.json", "sync_replay.json", "resync.json",
                             "job_straggler_rank0.json", "job_straggler_rank2.json", "advice_chains.json",
                             "hip_item_sync.json", "graph_launch.json", "kineto_exact_times.json"}) {
        const TraceModelPtr m = loadTrace(test::dataPath(name));
        const ReplayInput a = analyzeSyncs(*m).replay, b = replayInputOf(*m);
        withWork += !a.activities.empty();
        EXPECT_EQ(a.deviceIds, b.deviceIds) << name;
        EXPECT_EQ(a.streamIds, b.streamIds) << name;
        EXPECT_EQ(a.threads, b.threads) << name;
        ASSERT_EQ(a.activities.size(), b.activities.size()) << name;
        for (size_t i = 0; i < a.activities.size(); ++i) {
            const ReplayActivity &x = a.activities[i], &y = b.activities[i];
            EXPECT_TRUE(x.device == y.device && x.stream == y.stream && x.start == y.start && x.end == y.end &&
                        x.correlation == y.correlation)
                << name << " activity " << i;
        }
        ASSERT_EQ(a.launches.size(), b.launches.size()) << name;
        for (size_t i = 0; i < a.launches.size(); ++i)
            EXPECT_TRUE(a.launches[i].thread == b.launches[i].thread &&
                        a.launches[i].start == b.launches[i].start && a.launches[i].end == b.launches[i].end &&
                        a.launches[i].correlation == b.launches[i].correlation)
                << name << " launch " << i;
        ASSERT_EQ(a.calls.size(), b.calls.size()) << name;
        for (size_t i = 0; i < a.calls.size(); ++i)
            EXPECT_TRUE(a.calls[i].thread == b.calls[i].thread && a.calls[i].start == b.calls[i].start &&
                        a.calls[i].end == b.calls[i].end)
                << name << " call " << i;
        ASSERT_EQ(a.deps.size(), b.deps.size()) << name;
        for (size_t i = 0; i < a.deps.size(); ++i)
            EXPECT_TRUE(a.deps[i].activity == b.deps[i].activity && a.deps[i].on == b.deps[i].on) << name;
        EXPECT_EQ(a.waitMode, b.waitMode) << name;
        ASSERT_EQ(a.collectives.size(), b.collectives.size()) << name;
        for (size_t i = 0; i < a.collectives.size(); ++i)
            EXPECT_TRUE(a.collectives[i].activity == b.collectives[i].activity &&
                        a.collectives[i].group == b.collectives[i].group &&
                        a.collectives[i].name == b.collectives[i].name &&
                        a.collectives[i].seq == b.collectives[i].seq)
                << name;
    }
    EXPECT_GE(withWork, 8u);
}
