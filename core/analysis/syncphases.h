#pragma once
// The phases of the sync analysis, in the order analyzeSyncs runs them. Each
// takes and returns plain values, so each can be tested on its own; the
// definitions of what they compute are in syncanalysis.h and docs/analysis.md
// ("Trace analysis").
#include "analysis/advice.h"
#include "analysis/replaybuild.h"
#include "analysis/syncanalysis.h"
#include "analysis/syncreplay.h"

#include <functional>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

namespace syncscope::phases {

// 1. One pass over the events: GPU activity, launch calls, blocking calls
//    (with the pageable device-to-host copies that block like one), the
//    profiler's cuda_sync records and the steps. Calls, records and steps by
//    start; every call with its op, root op and event filled in.
struct Collected {
    std::vector<GpuActivityRef> activities;    // in event order
    std::map<int64_t, DeviceActivity> devices; // kernels, memcpys, memsets counted
    CorrelationIndex launchOf;                 // correlation -> first runtime call
    std::vector<SyncCall> syncCalls;
    std::vector<SyncCall> longCalls; // long runtime calls that do not block
    std::vector<CudaSyncEvent> cudaSyncEvents;
    std::vector<Step> steps;
    uint64_t unplacedActivities = 0;             // GPU activity with no device
    std::unordered_map<int64_t, StrId> copyName; // correlation -> gpu_memcpy name
};
Collected collectEvents(const TraceModel &model, const AnalysisOptions &options, const ProgressFn &progress,
                        const CancelToken *cancel);

// 2. Busy time: the union of each device's activity over its streams. Sorts
//    `activities` by (device, start); returns the devices by id with first,
//    last, busy and idle intervals filled in, and each device's busy pieces.
struct Busy {
    std::vector<DeviceActivity> devices;
    std::map<int64_t, std::vector<Interval>> pieces; // disjoint, by start
};
Busy busyTime(std::vector<GpuActivityRef> &activities, std::map<int64_t, DeviceActivity> devices);

// 3. Each call's Python frame and user frame: the innermost enclosing
//    python_function (latest start, then the shortest), among all of them and
//    among those that are not library code.
void attachFrames(const TraceModel &model, const AnalysisOptions &options, std::vector<SyncCall> &calls);

// 4. Each call's step: the one its end falls in (the latest-starting one when
//    steps overlap), -1 when none. `steps` by start.
void assignSteps(const std::vector<Step> &steps, std::vector<SyncCall> &calls);

// The calls' positions by end (stable), which the gap and step phases search.
std::vector<size_t> callsByEnd(const std::vector<SyncCall> &calls);

// 5. Sync gaps: for each idle interval, the calls returning in it (from
//    clockSkew before its start to its end); the cause is the last to return
//    among those that started at or before the gap, else the last to return.
//    Adds each gap's length to its device's syncGap.
std::vector<SyncGap> findSyncGaps(std::vector<DeviceActivity> &devices, const std::vector<SyncCall> &calls,
                                  const std::vector<size_t> &byEnd, TimeNs clockSkew);

// Stable-sorts `activities` by (device, stream, start): the order the idle
// breakdown and the replay input read them in.
void sortByStream(std::vector<GpuActivityRef> &activities);

// 6. Idle time per (device, stream) between consecutive activities: host wait
//    (launched after the previous one ended), kernel wait (under the
//    threshold) or other. Stable-sorts `activities` by (device, stream, start).
std::vector<IdleBreakdown> idleBreakdown(std::vector<GpuActivityRef> &activities, const CorrelationIndex &launchOf,
                                         TimeNs kernelWaitThreshold);

// 7. Sync sources: the calls grouped by (sync name, op name, user frame name),
//    in order of first call; sets each call's source and counts the gaps.
std::vector<SyncSource> groupSources(const TraceModel &model, std::vector<SyncCall> &calls,
                                     const std::vector<SyncGap> &gaps);

// 8. What to write instead (advice.h): each call's rule, from its op chain,
//    Python frames, name and GPU copy; each source's rule is the one most of
//    its calls match (ties: the earlier rule; a rule before none), -1 when
//    more of them match none.
void attachAdvice(const TraceModel &model, const AdviceRules &rules,
                  const std::unordered_map<int64_t, StrId> &copyName, std::vector<SyncCall> &calls,
                  std::vector<SyncSource> &sources);

// The facts the rules see of one call (attachAdvice's input, for tests).
AdviceFacts adviceFacts(const TraceModel &model, const AdviceRules &rules,
                        const std::unordered_map<int64_t, StrId> &copyName, const SyncCall &call);

// How many threads the replays use: `requested` (0: every core), at most one
// per call, and no more extra threads than fit 1 GiB of their walk state (about
// 12 bytes per GPU activity).
size_t replayThreads(size_t requested, const ReplayInput &in);

// The replay and its twins, one per thread: a run of replays, each writing
// its own figures, spread over them. The replays do not depend on each other,
// so the figures are the same on any number of threads.
class ReplayPool {
public:
    ReplayPool(SyncReplay &replay, size_t threads);
    ~ReplayPool();
    SyncReplay &replay() { return m_replay; }
    // task(replay, i) for i in [0, count), on any thread; tick once per task
    // done, on the calling thread.
    void run(size_t count, const std::function<void(SyncReplay &, size_t)> &task,
             const std::function<void()> &tick);

private:
    SyncReplay &m_replay;
    std::vector<std::unique_ptr<SyncReplay>> m_twins;
    std::vector<SyncReplay *> m_workers;
};

// 9. The sync-free replay (`replays` of out.replay): every figure per device,
//    call, gap and source; the sources then by avoidable time, longest first,
//    and the calls' source indices updated. `tick` is called once per replay,
//    on the calling thread.
void replayFigures(SyncAnalysis &out, ReplayPool &replays, const std::function<void()> &tick);

// 10. Per step and device: busy time in the window, the gaps whose cause ends
//    in it, and the replay without every call that ends in it.
void stepFigures(SyncAnalysis &out, ReplayPool &replays,
                 const std::map<int64_t, std::vector<Interval>> &busyPieces, const std::vector<size_t> &byEnd,
                 const std::function<void()> &tick);

} // namespace syncscope::phases
