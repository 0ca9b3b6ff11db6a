#pragma once
// The one sentence that says where a replay's head start stopped
// (ReplayLimit), for JSON, text, the app and reports.
#include "analysis/replayinput.h"

#include <functional>
#include <string>

namespace syncscope {

// `callText(c)` names blocking call c ("cudaStreamSynchronize in aten::item");
// times are printed in ms after `origin` (the trace's first event).
std::string limitSentence(const ReplayLimit &limit, const ReplayInput &in,
                          const std::function<std::string(size_t)> &callText, TimeNs origin);

} // namespace syncscope
