// The replay's early stops and jumps against the full walk: on simulated traces
// of both shapes (a GPU that waits for the host, a host that waits for the
// GPU), with several host threads and streams, handoffs, stream dependencies,
// orphans, overlaps and calls that return before their GPU work ends, run()
// must give every removed set the figures of a walk of every item to the end
// (SyncReplay::setFullWalk), to the ns.
#include "analysis/syncreplay.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace syncscope;

namespace {

struct Shape {
    bool hostBound = true;
    uint32_t threads = 2; // 1: main; 2: + the engine (handoffs); 3: + an independent thread
    uint32_t devices = 1;
    uint32_t perDevice = 2; // streams per device
    int launches = 1500;
    int syncEvery = 40;      // launches of the main thread between two blocking calls
    double early = 0.3;      // share of blocking calls that return before their GPU work ends
    double reads = 0.6;      // share of blocking calls that are a scalar read: a copy, then a stream synchronize
    double irregular = 0.02; // share of activities that overlap their predecessor / are orphans
    TimeNs kernelMax = 0;    // longest kernel (0: 9 us host-bound, 70 us GPU-bound)
    bool rareStream = false; // the last stream of device 0 runs one launch in 300
};

// A discrete simulation of the measured run: the main thread (and the engine
// thread while the main thread waits in backward()) and an independent thread
// issue launches and blocking calls on their own clocks, in time order; the GPU
// runs each stream's work in order.
class Sim {
public:
    Sim(const Shape &s, uint64_t seed) : m_s(s), m_rng(seed)
    {
        for (uint32_t d = 0; d < s.devices; ++d) {
            in.deviceIds.push_back(d);
            for (uint32_t k = 0; k < s.perDevice; ++k)
                in.streamIds.push_back({d, 7 + k});
        }
        in.threads = s.threads;
        m_free.assign(in.streamIds.size(), 0);
        m_last.assign(in.streamIds.size(), -1);
    }

    ReplayInput run()
    {
        TimeNs mainClock = 1'000'000, otherClock = 1'003'000;
        int mainLaunches = 0, otherLaunches = 0;
        uint32_t mainThread = 0;
        int burstLeft = 0;
        TimeNs burstAt = 0;
        while (mainLaunches + otherLaunches < m_s.launches) {
            const bool other = m_s.threads >= 3 && otherClock < mainClock;
            if (other) {
                if (chance(0.08))
                    otherClock = block(2, otherClock);
                else
                    otherClock = launch(2, pickStream(true), otherClock) + hostGap();
                ++otherLaunches;
                continue;
            }
            if (burstLeft > 0) { // the engine thread runs backward
                mainClock = launch(1, pickStream(false), mainClock) + hostGap();
                ++mainLaunches;
                if (--burstLeft == 0) {
                    const TimeNs back = mainClock + uni(500, 3'000);
                    in.handoffs.push_back({0, 1, burstAt, back});
                    mainClock = back + uni(1'000, 5'000);
                    mainThread = 0;
                }
                continue;
            }
            if (m_s.threads >= 2 && chance(0.03)) { // backward(): hand over to the engine
                burstAt = mainClock + uni(2'000, 10'000);
                mainClock = burstAt;
                mainThread = 1;
                burstLeft = 5 + int(m_rng() % 40);
                continue;
            }
            if (mainLaunches > 0 && mainLaunches % m_s.syncEvery == 0 && !m_justBlocked) {
                mainClock = block(mainThread, mainClock);
                m_justBlocked = true;
                continue;
            }
            m_justBlocked = false;
            mainClock = launch(mainThread, pickStream(false), mainClock) + hostGap();
            ++mainLaunches;
        }
        std::sort(in.deps.begin(), in.deps.end(), [](const StreamDependency &a, const StreamDependency &b) {
            return a.activity != b.activity ? a.activity < b.activity : a.on < b.on;
        });
        return in;
    }

    ReplayInput in;

private:
    Shape m_s;
    std::mt19937_64 m_rng;
    std::vector<TimeNs> m_free;
    std::vector<int64_t> m_last; // per stream: the activity launched last
    int64_t m_corr = 0;
    bool m_justBlocked = false;

    TimeNs uni(TimeNs lo, TimeNs hi) { return lo + TimeNs(m_rng() % uint64_t(hi - lo + 1)); }
    bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(m_rng) < p; }
    TimeNs hostGap() { return m_s.hostBound ? uni(10'000, 40'000) : uni(1'000, 6'000); }
    uint32_t pickStream(bool other)
    {
        const uint32_t n = static_cast<uint32_t>(in.streamIds.size());
        if (m_s.rareStream && m_s.perDevice > 1) { // stream perDevice - 1 seldom
            const uint32_t rare = m_s.perDevice - 1;
            if (chance(1.0 / 300))
                return rare;
            const uint32_t q = chance(0.8) ? 0 : uint32_t(m_rng() % n);
            return q == rare ? 0 : q;
        }
        if (other) // mostly its own stream, the last one
            return chance(0.9) ? n - 1 : uint32_t(m_rng() % n);
        return chance(0.8) ? 0 : uint32_t(m_rng() % n);
    }
    uint32_t deviceOf(uint32_t q) const { return q / m_s.perDevice; }

    // A launch call at t of an activity on stream q; returns when the call ends.
    TimeNs launch(uint32_t thread, uint32_t q, TimeNs t)
    {
        const TimeNs call = uni(2'000, 6'000);
        const int64_t corr = ++m_corr;
        const bool orphan = chance(m_s.irregular / 2);
        if (!orphan)
            in.launches.push_back({thread, t, t + call, corr});
        TimeNs start = std::max(t + call + uni(1'000, 4'000), m_free[q] + uni(0, 2'000));
        const uint32_t a = static_cast<uint32_t>(in.activities.size());
        // A dependency on the last work of another stream of its device.
        if (m_s.perDevice > 1 && chance(0.12)) {
            const uint32_t o = deviceOf(q) * m_s.perDevice + uint32_t(m_rng() % m_s.perDevice);
            if (o != q && m_last[o] >= 0) {
                const auto on = static_cast<uint32_t>(m_last[o]);
                in.deps.push_back({a, on});
                start = std::max(start, in.activities[on].end + uni(0, 2'000));
            }
        }
        if (chance(m_s.irregular)) // clock skew: it starts before its predecessor ended
            start -= uni(1, 3'000);
        if (chance(0.01)) // a wait the trace does not hold
            start += uni(20'000, 60'000);
        const TimeNs dur = m_s.kernelMax > 0 ? uni(1'000, m_s.kernelMax)
                           : m_s.hostBound   ? uni(1'000, 9'000)
                                             : uni(15'000, 70'000);
        in.activities.push_back({deviceOf(q), q, start, start + dur, corr});
        m_free[q] = std::max(m_free[q], start + dur);
        m_last[q] = a;
        return t + call;
    }

    // A blocking call at t, or two (a scalar read); returns when the last returns.
    TimeNs block(uint32_t thread, TimeNs t)
    {
        if (chance(m_s.reads)) { // .item(): the copy (which may return early), then its stream's synchronize
            t = oneBlock(thread, t, BlockKind::Copy) + uni(500, 1'500);
            return oneBlock(thread, t, BlockKind::Stream, false) + uni(500, 5'000);
        }
        const BlockKind kinds[] = {BlockKind::Stream, BlockKind::Device, BlockKind::Event, BlockKind::Copy};
        return oneBlock(thread, t, kinds[m_rng() % 4]) + uni(500, 5'000);
    }

    // One blocking call at t; returns its end.
    TimeNs oneBlock(uint32_t thread, TimeNs t, BlockKind kind, bool mayReturnEarly = true)
    {
        ReplayBlocking c;
        c.thread = thread;
        c.start = t;
        TimeNs done = 0;
        if (kind == BlockKind::Device) { // a device synchronize: device 0, or its thread's last launch's
            c.kind = BlockKind::Device;
            c.device = chance(0.5) ? 0 : -1;
            for (uint32_t q = 0; q < m_s.perDevice; ++q)
                done = std::max(done, m_free[q]);
        } else if (kind == BlockKind::Copy) { // a copy to the host: its own copy, then it returns
            c.kind = BlockKind::Copy;
            const uint32_t q = 0;
            t = launch(thread, q, t);
            c.stream = 0;
            done = m_free[q];
        } else if (kind == BlockKind::Event && m_last[0] >= 0) { // an event recorded at the stream's last launch
            c.kind = BlockKind::Event;
            c.stream = 0;
            c.cut = t - 1;
            done = m_free[0];
        } else {
            c.kind = BlockKind::Stream;
            c.stream = chance(0.7) ? 0 : -1;
            done = m_free[0];
        }
        TimeNs end = std::max(t + uni(1'000, 4'000), done + uni(500, 3'000));
        if (mayReturnEarly && chance(m_s.early) &&
            done - 5'000 > t + 1'000) // it returned before the GPU work ended
            end = done - uni(1, 5'000);
        c.end = end;
        in.calls.push_back(c);
        return end;
    }
};

// The removed sets the analysis replays, and some more: each call, runs of
// consecutive calls (steps, sources), random subsets, all of them.
std::vector<std::vector<size_t>> removedSets(size_t calls, std::mt19937_64 &rng)
{
    std::vector<std::vector<size_t>> sets;
    for (size_t c = 0; c < calls; ++c)
        sets.push_back({c});
    for (size_t c = 0; c + 1 < calls; c += 3)
        sets.push_back({c, c + 1});
    for (int k = 0; k < 6 && calls > 0; ++k) {
        std::vector<size_t> s;
        for (size_t c = 0; c < calls; ++c)
            if (rng() % 3 == 0)
                s.push_back(c);
        sets.push_back(s);
    }
    std::vector<size_t> all(calls);
    for (size_t c = 0; c < calls; ++c)
        all[c] = c;
    sets.push_back(all);
    return sets;
}

struct Tally {
    size_t runs = 0, jumped = 0, walkedFast = 0, walkedFull = 0;
};

void compareWithFullWalk(const ReplayInput &in, uint64_t seed, Tally &tally)
{
    SyncReplay fast(in);
    std::unique_ptr<SyncReplay> full = fast.twin();
    full->setFullWalk(true);
    // Looks for a uniform shift at every item, every 7th, or at the default.
    const size_t every[] = {1, 7, 0};
    fast.setShiftCheckEvery(every[seed % 3]);
    std::mt19937_64 rng(seed);
    for (const std::vector<size_t> &removed : removedSets(in.calls.size(), rng)) {
        const std::vector<TimeNs> a = fast.run(removed), b = full->run(removed);
        ASSERT_EQ(a, b) << "seed " << seed << ", " << removed.size() << " removed call(s), the first "
                        << (removed.empty() ? -1 : int64_t(removed[0]));
        // Not only the figures: every activity's new end.
        for (uint32_t k = 0; k < in.activities.size(); ++k)
            ASSERT_EQ(fast.lastRunEnd(k), full->lastRunEnd(k))
                << "seed " << seed << ", activity " << k << ", " << removed.size()
                << " removed call(s), the first " << (removed.empty() ? -1 : int64_t(removed[0]));
        ++tally.runs;
        tally.jumped += fast.lastJumps() > 0;
        tally.walkedFast += fast.lastWalked();
        tally.walkedFull += full->lastWalked();
    }
}

} // namespace

// A GPU that waits for the host, blocking calls every 40 launches, a third of
// which return before their GPU work ends, on 1-3 threads and 1-2 devices of
// 1-3 streams: the jumps must give the full walk's figures, and they must be
// taken (most of the items are jumped over).
TEST(ReplayStops, HostBoundTracesGiveTheFullWalksFigures)
{
    Tally tally;
    for (uint64_t seed = 1; seed <= 60; ++seed) {
        Shape s;
        s.hostBound = true;
        s.threads = 1 + uint32_t(seed % 3);
        s.devices = 1 + uint32_t(seed / 3 % 2);
        s.perDevice = 1 + uint32_t(seed / 6 % 3);
        s.irregular = seed % 4 == 0 ? 0.0 : 0.02;
        const ReplayInput in = Sim(s, seed).run();
        compareWithFullWalk(in, seed, tally);
        if (HasFatalFailure())
            return;
    }
    // The jumps were taken, in hundreds of runs (what they save on a long
    // trace: the last test below; here many replays converge within a few items).
    EXPECT_GT(tally.jumped, 500u) << "the jumps were hardly taken, in " << tally.runs << " runs";
    EXPECT_LT(tally.walkedFast * 3, tally.walkedFull * 2);
}

// The GPU-bound shape: kernels of 15-70 us behind host work of 1-6 us.
TEST(ReplayStops, GpuBoundTracesGiveTheFullWalksFigures)
{
    Tally tally;
    for (uint64_t seed = 101; seed <= 160; ++seed) {
        Shape s;
        s.hostBound = false;
        s.threads = 1 + uint32_t(seed % 3);
        s.devices = 1 + uint32_t(seed / 3 % 2);
        s.perDevice = 1 + uint32_t(seed / 6 % 3);
        s.syncEvery = 10 + int(seed % 50);
        const ReplayInput in = Sim(s, seed).run();
        compareWithFullWalk(in, seed, tally);
        if (HasFatalFailure())
            return;
    }
    EXPECT_LT(tally.walkedFast * 3, tally.walkedFull) << "the stops saved little";
}

// Blocking calls that all wait for their GPU work, or all return early, and
// no irregular activity: each extreme of the spans.
TEST(ReplayStops, EveryCallRegularOrEveryCallEarly)
{
    Tally tally;
    for (uint64_t seed = 201; seed <= 240; ++seed) {
        Shape s;
        s.hostBound = seed % 2 == 0;
        s.threads = 1 + uint32_t(seed % 3);
        s.perDevice = 1 + uint32_t(seed / 3 % 2);
        s.early = seed / 2 % 2 == 0 ? 0.0 : 1.0;
        s.irregular = 0.0;
        s.launches = 800;
        const ReplayInput in = Sim(s, seed).run();
        compareWithFullWalk(in, seed, tally);
        if (HasFatalFailure())
            return;
    }
}

// Everything at once, and often: kernels as long as the host's gaps (the
// queue fills and drains), one activity in ten an orphan and one in ten
// started before its predecessor ended, most calls returning early, device
// synchronizes waiting on a stream that runs one launch in 300.
TEST(ReplayStops, MixedTracesWithManyOrphansAndEarlyReturns)
{
    Tally tally;
    for (uint64_t seed = 301; seed <= 400; ++seed) {
        Shape s;
        s.hostBound = true;
        s.kernelMax = 10'000 + TimeNs(seed % 5) * 10'000;
        s.threads = 1 + uint32_t(seed % 3);
        s.devices = 1 + uint32_t(seed / 3 % 2);
        s.perDevice = 2 + uint32_t(seed / 6 % 2);
        s.irregular = 0.2;
        s.early = 0.7;
        s.reads = 0.3;
        s.rareStream = true;
        s.syncEvery = 15;
        s.launches = 1'000;
        const ReplayInput in = Sim(s, seed).run();
        compareWithFullWalk(in, seed, tally);
        if (HasFatalFailure())
            return;
    }
    EXPECT_GT(tally.jumped, 200u) << "the jumps were hardly taken, in " << tally.runs << " runs";
}

// A training loop that reads the loss every 100 launches (a copy to the host
// that may return before its copy ends, then a stream synchronize), backward
// on the engine's thread: removing one call moves everything after it, and a
// replay per call must not walk the rest of the trace: on a trace four times
// as long it walks less than twice the items (571 and 956 when written), and
// a small share of the trace.
TEST(ReplayStops, APerCallReplayCostsItsSpansNotTheTraceLength)
{
    double perReplay[2] = {0, 0};
    size_t items[2] = {0, 0};
    for (int size = 0; size < 2; ++size) {
        Shape s;
        s.hostBound = true;
        s.threads = 2;
        s.perDevice = 1;
        s.syncEvery = 100;
        s.reads = 1.0;
        s.early = 0.5;
        s.irregular = 0.0;
        s.launches = size == 0 ? 5'000 : 20'000;
        const ReplayInput in = Sim(s, 7).run();
        items[size] = in.activities.size() + in.calls.size() + 2 * in.handoffs.size();
        SyncReplay r(in);
        size_t walked = 0;
        for (size_t c = 0; c < in.calls.size(); ++c) {
            r.run({c});
            walked += r.lastWalked();
        }
        perReplay[size] = double(walked) / double(in.calls.size());
    }
    EXPECT_LT(perReplay[1], 2 * perReplay[0]) << perReplay[0] << " items per replay, then " << perReplay[1];
    EXPECT_LT(perReplay[1] * 20, double(items[1])) << perReplay[1] << " of " << items[1] << " items per replay";
}

// By hand: an orphan that takes a head start its stream predecessor took
// while a kept call that returned early had lowered it. Thread 0 removes R [0,
// 10] (head start 4), launches A1 ([20,21], A1 [22,30]: to [18,26]) and A2
// ([31,32], A2 [33,54]: to [29,50]). Its synchronize Z [40,50] waits for A2,
// which ends 4 after it returned: the head start drops to max(0, 4 - 4) = 0. B
// ([52,53], B [60,70]) waits for A2 and still moves by 4, to [56,66], taking
// head start 0; the orphan O [70,80] after it takes that 0 and starts as
// measured. A shift of 4 found after A1 must not be taken as reaching O.
TEST(ReplayStops, AnOrphanTakesTheLoweredHeadStartOfItsPredecessor)
{
    ReplayInput in;
    in.deviceIds = {0};
    in.streamIds = {{0, 7}};
    in.threads = 1;
    in.activities = {{0, 0, 22, 30, 1}, {0, 0, 33, 54, 2}, {0, 0, 60, 70, 3}, {0, 0, 70, 80, kNoValue}};
    in.launches = {{0, 20, 21, 1}, {0, 31, 32, 2}, {0, 52, 53, 3}};
    in.calls = {
        {0, 0, 4, BlockKind::Stream, 0}, {0, 40, 50, BlockKind::Stream, 0}, {0, 75, 85, BlockKind::Stream, 0}};
    SyncReplay r(in);
    r.setShiftCheckEvery(1);
    EXPECT_EQ(r.run({0})[0], 0);
    EXPECT_EQ(r.lastRunEnd(2), 66);
    EXPECT_EQ(r.lastRunEnd(3), 80);
    std::unique_ptr<SyncReplay> full = r.twin();
    full->setFullWalk(true);
    EXPECT_EQ(full->run({0})[0], 0);
    EXPECT_EQ(full->lastRunEnd(3), 80);
}
