#pragma once
// Where the GPU sat idle because the host blocked on a sync, and which op did it.
// Definitions (README "Trace analysis"):
//  - GPU activity: duration events of category kernel, gpu_memcpy or gpu_memset;
//    device = args.device else the numeric pid, stream = args.stream else the tid.
//  - busy: union length of a device's activity over all streams; span: first
//    activity start to last end; idle = span - busy; idle intervals: the gaps.
//  - blocking sync call: a cuda_runtime/cuda_driver event named as in
//    isBlockingSyncCall(), attributed to the innermost (op) and outermost
//    (root_op) enclosing cpu_op/user_annotation on its thread.
//  - sync gap: an idle interval [g0, g1] in which a blocking sync call returns
//    (end in [g0 - clockSkew, g1]); the cause is the last such call to return.
//  - idle breakdown per (device, stream) as HTA: host wait when the launching
//    runtime call (same correlation) starts after the previous activity ended,
//    else kernel wait when the gap is under kernelWaitThreshold, else other.
#include "common/progress.h"
#include "trace/tracemodel.h"

#include <string_view>
#include <vector>

namespace syncscope {

struct AnalysisOptions {
    TimeNs clockSkew = 10'000;           // 10 us
    TimeNs kernelWaitThreshold = 30'000; // 30 us
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
    uint64_t kernels = 0, memcpys = 0, memsets = 0;
    TimeNs first = 0, last = 0; // span = last - first
    TimeNs busy = 0;
    TimeNs syncGap = 0;         // total length of this device's sync gaps
    std::vector<Interval> idleIntervals;
    TimeNs span() const { return last - first; }
    TimeNs idle() const { return span() - busy; }
};

struct SyncCall {
    EventRef event;
    EventRef op;     // innermost enclosing cpu_op/user_annotation, or invalid
    EventRef rootOp; // outermost one, or invalid
    TimeNs start = 0, dur = 0;
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
    size_t syncCall = 0; // index into SyncAnalysis::syncCalls: the cause
};

struct IdleBreakdown {
    int64_t device = 0, stream = 0;
    TimeNs hostWait = 0, kernelWait = 0, other = 0;
};

struct SyncAnalysis {
    std::vector<DeviceActivity> devices;     // by device id
    std::vector<SyncCall> syncCalls;         // by start
    std::vector<CudaSyncEvent> cudaSyncEvents;
    std::vector<SyncGap> syncGaps;           // by device, then start
    std::vector<IdleBreakdown> idleBreakdown; // by (device, stream)
    uint64_t unplacedActivities = 0;         // GPU events with neither args.device nor a numeric pid
};

bool isBlockingSyncCall(std::string_view name);

SyncAnalysis analyzeSyncs(const TraceModel &model, const AnalysisOptions &options = {},
                          const ProgressFn &progress = {}, const CancelToken *cancel = nullptr);

} // namespace syncscope
