#include "job/showintimeline.h"

#include "timeline/timelineview.h"

#include <QScrollBar>

namespace syncscope::ui {

bool showRankWindowInTimeline(TimelineView &view, int file, TimeNs start, TimeNs end)
{
    const auto &data = view.data();
    if (!data || file < 0 || file >= int(data->files().size()) || end < start)
        return false;
    // The rank's first track in display order: its host threads come first,
    // where the blocking calls are.
    int track = -1;
    for (const TimelineGroup &g : data->groups())
        if (int(g.file) == file && !g.tracks.empty()) {
            track = g.tracks.front();
            break;
        }
    if (track >= 0)
        view.ensureTrackVisible(track, 0); // expands the rank and its process when collapsed
    for (const LayoutRow &r : view.layout().rows())
        if (r.kind == LayoutRow::Kind::RankHeader && r.file == file) {
            view.verticalScrollBar()->setValue(r.y);
            break;
        }
    view.setVisibleRange(start, end);
    return true;
}

} // namespace syncscope::ui
