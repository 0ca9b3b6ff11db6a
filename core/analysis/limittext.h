#pragma once
// The one sentence that says where a replay's head start stopped
// (ReplayLimit), for JSON, text, the app and reports.
#include "analysis/replayinput.h"
#include "analysis/syncanalysis.h"
#include "trace/tracemodel.h"

#include <functional>
#include <string>

namespace syncscope {

// `callText(c)` names blocking call c ("cudaStreamSynchronize in aten::item");
// times are printed in ms after `origin` (the trace's first event).
std::string limitSentence(const ReplayLimit &limit, const ReplayInput &in,
                          const std::function<std::string(size_t)> &callText, TimeNs origin);

// callText for an analysed trace: "NAME in OP" of its c-th blocking call.
// Holds references to both: use it while they live.
std::function<std::string(size_t)> syncCallText(const TraceModel &model, const SyncAnalysis &analysis);
// The sentence of `limit`, with the trace's own names and first event.
std::string limitSentence(const ReplayLimit &limit, const TraceModel &model, const SyncAnalysis &analysis);

} // namespace syncscope
