#pragma once
// Control passing between the host threads of one process (docs/analysis.md
// "Handoffs between host threads"): the thread that calls backward() goes silent while
// the autograd engine's thread launches the backward kernels, and resumes once
// that thread is done. The replay moves a head start along these handoffs.
#include "analysis/replayinput.h"
#include "trace/tracemodel.h"

#include <vector>

namespace syncscope {

// A woken thread's burst must begin within this long of the waker's last event,
// and the waker resume within this long of the burst's end, where nothing but
// the timing says which thread woke which.
constexpr TimeNs kHandoffBound = 1'000'000;

struct Handoffs {
    std::vector<ReplayHandoff> list; // threads are track indices; by at, then back
    ThreadMode mode = ThreadMode::None;
};

Handoffs findHandoffs(const TraceModel &model);

} // namespace syncscope
