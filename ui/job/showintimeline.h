#pragma once
// How a click in the Job view lands in the Timeline. The Timeline draws every
// rank in its own clock (the times of its file, no offset applied), so the
// window given here is in that rank's clock: the Job view converts the
// collectives' aligned times back with JobRank::clockOffset before it asks.
#include "trace/tracemodel.h"

namespace syncscope::ui {

class TimelineView;

// Zooms to exactly [start, end), expands the rank of `file` (an index into
// TimelineData::files()) and scrolls its header to the top. False when the
// view shows no such file.
bool showRankWindowInTimeline(TimelineView &view, int file, TimeNs start, TimeNs end);

} // namespace syncscope::ui
