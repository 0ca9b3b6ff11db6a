#pragma once
// Building the replay input of one trace (replayinput.h) from what the sync
// analysis collected. Internal to the analysis.
#include "analysis/correlationindex.h"
#include "analysis/handoffs.h"
#include "analysis/replayinput.h"
#include "analysis/syncanalysis.h"

#include <future>
#include <unordered_map>
#include <vector>

namespace syncscope {

struct GpuActivityRef {
    int64_t device, stream;
    TimeNs start, end;
    int64_t correlation;
    uint32_t track, index;
};


// Stream dependencies are found within 2 us of the measured schedule, and a
// wait is inferred only when the activity started over 20 us after its launch.
constexpr TimeNs kDependencySlack = 2'000;
constexpr TimeNs kLaunchSlack = 20'000;

// What a blocking call of this name waits for (a pageable copy: its stream).
BlockKind blockKindOf(std::string_view name, bool pageableCopy);

// Whether a kernel name is a collective's (NCCL or RCCL).
bool isCollectiveKernel(std::string_view name);

// `acts` sorted by (device, stream, start); `launchOf`: the first runtime or
// driver call of each correlation; `deviceIds` ascending (SyncAnalysis::devices);
// `handoffs`: findHandoffs(model).
ReplayInput buildReplayInput(const TraceModel &model, const std::vector<GpuActivityRef> &acts,
                             const CorrelationIndex &launchOf, const std::vector<SyncCall> &calls,
                             const std::vector<CudaSyncEvent> &syncEvents, const std::vector<int64_t> &deviceIds,
                             Handoffs handoffs);

// findHandoffs(model), which needs the model alone, on a thread of its own
// while the caller goes on with the phases before the replay; on the calling
// thread, at get(), where `threads` (0: every usable core) allows only one.
std::future<Handoffs> handoffsAside(const TraceModel &model, size_t threads);

} // namespace syncscope
