#pragma once
// How a click in the Job view lands in the Timeline. The Timeline draws the
// ranks of a job on the aligned clock (each rank's file times minus its clock
// offset, TraceModel::shiftTimes), the clock its ranks were analysed in, so a
// window given here is in that clock: the Job view turns the collectives'
// aligned times into it with JobRank::analysedOffset (0 there).
#include "trace/tracemodel.h"

namespace syncscope::ui {

class TimelineView;

// Zooms to exactly [start, end), expands the rank of `file` (an index into
// TimelineData::files()) and scrolls its header to the top. False when the
// view shows no such file.
bool showRankWindowInTimeline(TimelineView &view, int file, TimeNs start, TimeNs end);

} // namespace syncscope::ui
