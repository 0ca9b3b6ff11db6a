#pragma once
// Op statistics per (name, category) over all duration events of a trace.
#include "common/progress.h"
#include "trace/tracemodel.h"

#include <vector>

namespace syncscope {

struct OpStat {
    StrId name = kEmptyStr;
    StrId cat = kEmptyStr;
    uint64_t count = 0; // every instance
    TimeNs total = 0;   // over outermost instances only (none inside another of this name and category)
    TimeNs self = 0;    // total minus the time of direct children on the same track
    TimeNs min = 0;
    TimeNs max = 0;
    // GPU activities (kernel, gpu_memcpy, gpu_memset) launched by the runtime or
    // driver calls inside its outermost instances, the call itself included: the
    // first such call with an activity's correlation launches it, so a graph
    // launch (cudaGraphLaunch, hipGraphLaunch) and its enclosing ops get every
    // kernel of the graph. Whole-trace statistics only (0 in a range).
    uint64_t gpuCount = 0;
    TimeNs gpuTime = 0; // their summed durations
};

// Whole trace, sorted by total time, longest first (ties by name id).
std::vector<OpStat> opStatistics(const TraceModel &model, const ProgressFn &progress = {},
                                 const CancelToken *cancel = nullptr);

// Only the part of each event inside [t0, t1): durations are clipped to the range,
// count holds the events that overlap it (zero-length ones when t0 <= ts < t1),
// min/max are over the clipped durations. For the timeline's range selection.
std::vector<OpStat> opStatistics(const TraceModel &model, TimeNs t0, TimeNs t1, const ProgressFn &progress = {},
                                 const CancelToken *cancel = nullptr);

} // namespace syncscope
