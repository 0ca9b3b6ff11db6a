#pragma once
// How a click in the Job view lands in the Timeline. The Timeline draws the
// ranks of a job on the aligned clock (each rank's file times minus its clock
// offset, TraceModel::shiftTimes), the clock its ranks were analysed in, so a
// window given here is in that clock: the Job view turns the collectives'
// aligned times into it with JobRank::analysedOffset (0 there).
#include "analysis/jobscale.h"
#include "timeline/timelinedata.h"
#include "trace/tracemodel.h"

namespace syncscope::ui {

class TimelineView;

// Zooms to exactly [start, end), expands the rank of `file` (an index into
// TimelineData::files()) and scrolls its header to the top. False when the
// view shows no such file.
bool showRankWindowInTimeline(TimelineView &view, int file, TimeNs start, TimeNs end);

// What a row of the collectives' blame points at on its last rank: the
// collective (its kernel on that rank) and the late sync call (the last call
// of the blamed source to end before the collective starts; invalid without a
// cause).
struct BlamedEvents {
    TimelineEvent collective, call;
};
// `blame` with its start and end in the rank's clock (as the window).
BlamedEvents blamedEvents(const TimelineData &data, int file, const CollectiveBlame &blame);

// A blame row in the Timeline: the window as showRankWindowInTimeline, the
// late sync call selected with the collective (the details show the call),
// the call's thread scrolled into view and the rank's GPU streams brought
// into the pinned area. False when the view shows no such file.
bool showBlameInTimeline(TimelineView &view, int file, TimeNs start, TimeNs end, const CollectiveBlame &blame);

} // namespace syncscope::ui
