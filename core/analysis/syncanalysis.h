#pragma once
// Where the GPU sat idle because the host blocked on a sync, which call and which
// line of code did it, and what removing syncs would save.
// Definitions (docs/analysis.md "Trace analysis"):
//  - GPU activity: duration events of category kernel, gpu_memcpy or gpu_memset;
//    device = args.device, else the numeric pid, else the device named by the
//    process's name metadata ("GPU 3"); stream = args.stream else the tid.
//  - busy: union length of a device's activity over all streams; span: first
//    activity start to last end; idle = span - busy; idle intervals: the gaps.
//  - blocking call: a cuda_runtime/cuda_driver event named as in
//    isBlockingSyncCall() (runtime.h: CUDA and HIP), or a cudaMemcpyAsync /
//    hipMemcpyAsync whose GPU copy (same correlation) goes device-to-host into
//    pageable memory; attributed to the
//    innermost (op) and outermost (root_op) enclosing cpu_op/user_annotation on
//    its thread, and to the innermost enclosing python_function (py_frame) and
//    the innermost one that is not library code (user_frame).
//  - sync gap: an idle interval [g0, g1] in which a blocking call returns (end in
//    [g0 - clockSkew, g1]). The cause: among those calls, the one that returns
//    last of those that started at or before g0, else the last to return.
//  - avoidable: how much earlier a device's last activity ends in a sync-free
//    replay of the trace without a set of blocking calls (syncreplay.h).
//  - idle breakdown per (device, stream): host wait when the launching runtime
//    call (same correlation) starts after the previous activity ended, else
//    kernel wait when the gap is under kernelWaitThreshold, else other.
#include "analysis/replayinput.h"
#include "analysis/runtime.h"
#include "common/progress.h"
#include "trace/tracemodel.h"

#include <string>
#include <string_view>
#include <vector>

namespace syncscope {

struct AnalysisOptions {
    TimeNs clockSkew = 10'000;           // 10 us
    TimeNs kernelWaitThreshold = 30'000; // 30 us
    // Python frames whose name starts with one of these are library code too.
    std::vector<std::string> libPrefixes;
    // Events whose name matches this ECMAScript regex are steps too (besides
    // ProfilerStep#N of category cpu_op, user_annotation or none). Empty: none.
    std::string stepRegex;
    // A runtime call at least this long that is not a blocking call is a long
    // host call: the host waited inside a call that is not a sync (a full
    // launch queue, a module load). Listed, never replayed.
    TimeNs longCallThreshold = 1'000'000; // 1 ms
    // CPU threads for the replays of one call each: 0 = every core; fewer where
    // their state would pass 1 GiB. The figures do not depend on it.
    size_t replayThreads = 0;
};

struct Interval {
    TimeNs start = 0;
    TimeNs end = 0;
    TimeNs length() const { return end - start; }
};

// An event in a model: tracks()[track], index in its columns.
struct EventRef {
    uint32_t track = UINT32_MAX;
    uint32_t index = 0;
    bool valid() const { return track != UINT32_MAX; }
};

struct DeviceActivity {
    int64_t device = 0;
    std::string name; // from deviceProperties (runtime.h deviceNames); empty when unknown
    uint64_t kernels = 0, memcpys = 0, memsets = 0;
    TimeNs first = 0, last = 0; // span = last - first
    TimeNs busy = 0;
    TimeNs syncGap = 0;   // total length of this device's sync gaps
    TimeNs avoidable = 0; // replay without every blocking call: an upper bound
    ReplayLimit limit;    // where that replay's head start stopped
    std::vector<Interval> idleIntervals;
    TimeNs span() const { return last - first; }
    TimeNs idle() const { return span() - busy; }
};

struct SyncCall {
    EventRef event;
    EventRef op;               // innermost enclosing cpu_op/user_annotation, or invalid
    EventRef rootOp;           // outermost one, or invalid
    EventRef pyFrame;          // innermost enclosing python_function, or invalid
    EventRef userFrame;        // innermost enclosing python_function that is not library code
    bool pageableCopy = false; // a cudaMemcpyAsync/hipMemcpyAsync device-to-host into pageable memory
    TimeNs start = 0, dur = 0;
    int32_t step = -1;   // index into SyncAnalysis::steps of the step its end falls in
    int32_t source = -1; // index into SyncAnalysis::sources
    int32_t advice = -1; // index into builtinAdviceRules() (advice.h), -1: no known rewrite
    // Replay without this call alone: per device (same order as devices), and summed.
    std::vector<TimeNs> avoidableByDevice;
    TimeNs avoidable = 0;
    TimeNs end() const { return start + dur; }
};

struct CudaSyncEvent {
    EventRef event;
    StrId kind = kEmptyStr; // args.cuda_sync_kind, else the event name
    TimeNs start = 0, dur = 0;
    int64_t device = kNoValue, stream = kNoValue;
};

struct SyncGap {
    int64_t device = 0;
    Interval interval;
    size_t syncCall = 0;  // index into SyncAnalysis::syncCalls: the cause
    TimeNs blocked = 0;   // the cause's duration: how long the host waited
    TimeNs avoidable = 0; // replay without the cause, on this device
    int32_t step = -1;    // the cause's step, or -1
};

// Blocking calls rolled up by (sync name, op, user_frame): "which line to fix".
struct SyncSource {
    StrId sync = kEmptyStr;
    StrId op = kNoStr;        // kNoStr: no enclosing op
    StrId userFrame = kNoStr; // kNoStr: no user frame (or no Python events)
    uint64_t count = 0;       // blocking calls
    uint64_t gaps = 0;        // sync gaps they cause
    TimeNs gapTime = 0;
    TimeNs avoidable = 0;                  // replay without all of them, summed over devices
    std::vector<TimeNs> avoidableByDevice; // the same per device (order of devices)
    std::vector<size_t> calls;             // indices into syncCalls
    ReplayLimit limit;                     // where its replay's head start stopped, on limitDevice
    size_t limitDevice = 0;                // index into devices: the one it saves most on (the first on a tie)
    int32_t advice = -1;                   // the rule most of its calls match, -1: none
    uint64_t adviceCalls = 0;              // how many of its calls match that rule (or none)
};

// A step: ProfilerStep#N (cpu_op or user_annotation) or a --step-regex match.
struct Step {
    EventRef event;
    StrId name = kEmptyStr;
    TimeNs start = 0, end = 0; // host window [start, end)
};

// One step on one device.
struct StepDeviceStats {
    size_t step = 0; // index into steps
    int64_t device = 0;
    TimeNs gpuBusy = 0;    // union of the device's activity clipped to the window
    uint64_t syncGaps = 0; // gaps whose cause ends inside the window
    TimeNs syncGapTime = 0;
    TimeNs avoidable = 0; // replay without every call that ends in the step
};

struct IdleBreakdown {
    int64_t device = 0, stream = 0;
    TimeNs hostWait = 0, kernelWait = 0, other = 0;
};

struct SyncAnalysis {
    std::vector<DeviceActivity> devices; // by device id
    std::vector<SyncCall> syncCalls;     // blocking calls, by start
    // Runtime calls of at least options.longCallThreshold that are not
    // blocking calls (their op and root op set, no frames), by start.
    std::vector<SyncCall> longCalls;
    std::vector<CudaSyncEvent> cudaSyncEvents;
    std::vector<SyncGap> syncGaps;            // by device, then start
    std::vector<IdleBreakdown> idleBreakdown; // by (device, stream)
    std::vector<SyncSource> sources;          // by avoidable, longest first
    std::vector<Step> steps;                  // by start
    std::vector<StepDeviceStats> stepStats;   // by step, then device
    uint64_t unplacedActivities = 0;          // GPU events whose device cannot be told
    ReplayInput replay;                       // what the replays ran on (calls in syncCalls order)
    RuntimeUse runtime;                       // CUDA, HIP or none (runtime.h)
    size_t deviceIndex(int64_t device) const; // into devices; SIZE_MAX when absent
};

// Whether a python_function name is library code: a path with a directory
// torch/, site-packages/, dist-packages/ or pythonX.Y/; a name starting with
// "<built-in", "threading.py" or "multiprocessing/"; or one of extraPrefixes.
bool isLibraryFrame(std::string_view name, const std::vector<std::string> &extraPrefixes = {});

SyncAnalysis analyzeSyncs(const TraceModel &model, const AnalysisOptions &options = {},
                          const ProgressFn &progress = {}, const CancelToken *cancel = nullptr);

// How long any GPU of the analysis ran work (kernels, copies, sets: the
// union over devices) within [from, to). A blocking call that lasts much
// longer than this waited for something the trace does not show: the
// runtime's or driver's set-up, lazy code loading, another process.
TimeNs gpuBusyWithin(const SyncAnalysis &analysis, TimeNs from, TimeNs to);

// SyncAnalysis::replay alone, exactly as analyzeSyncs builds it, without the
// figures and their replays: what a job's collectives and clock offsets need.
ReplayInput replayInputOf(const TraceModel &model, const AnalysisOptions &options = {},
                          const CancelToken *cancel = nullptr);

} // namespace syncscope
