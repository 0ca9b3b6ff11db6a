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

BlamedEvents blamedEvents(const TimelineData &data, int file, const CollectiveBlame &blame)
{
    BlamedEvents out;
    if (file < 0 || file >= int(data.files().size()))
        return out;
    const TimelineFile &f = data.files()[size_t(file)];
    const TraceModel &m = *f.model;
    // The collective: its kernel on a GPU track of the rank, starting where
    // the analysis saw it arrive.
    const StrId name = m.findString(blame.name);
    if (name != kNoStr)
        for (size_t t = 0; t < data.tracks().size() && !out.collective.valid(); ++t) {
            const TimelineTrack &tt = data.tracks()[t];
            if (int(tt.file) != file || !tt.gpu)
                continue;
            const Track &mt = data.modelTrack(int(t));
            for (uint32_t i = 0; i < mt.size(); ++i)
                if (mt.start[i] == blame.start && mt.name[i] == name) {
                    out.collective = {int(t), i};
                    break;
                }
        }
    if (!blame.hasCause)
        return out;
    // The source by its text, as the job analysis named it.
    const auto text = [&m](StrId s) { return s == kNoStr ? std::string_view() : m.str(s); };
    for (const SyncSource &s : f.sync.sources) {
        if (text(s.sync) != blame.cause.sync || (s.op != kNoStr) != blame.cause.hasOp ||
            text(s.op) != blame.cause.op || (s.userFrame != kNoStr) != blame.cause.hasUserFrame ||
            text(s.userFrame) != blame.cause.userFrame || s.calls.empty())
            continue;
        // Its last call to end by the collective's start: what held the rank
        // up on the way there (else its first).
        const SyncCall *late = &f.sync.syncCalls[s.calls.front()];
        for (size_t c : s.calls) {
            const SyncCall &call = f.sync.syncCalls[c];
            if (call.end() <= blame.start && (late->end() > blame.start || call.end() > late->end()))
                late = &call;
        }
        out.call = data.eventOf(uint32_t(file), late->event);
        break;
    }
    return out;
}

bool showBlameInTimeline(TimelineView &view, int file, TimeNs start, TimeNs end, const CollectiveBlame &blame)
{
    if (!showRankWindowInTimeline(view, file, start, end))
        return false;
    const BlamedEvents ev = blamedEvents(*view.data(), file, blame);
    const TimelineEvent primary = ev.call.valid() ? ev.call : ev.collective;
    if (ev.call.valid() && ev.collective.valid())
        view.selectEvents(ev.call, {ev.collective});
    else
        view.selectEvent(primary, false);
    // The rank's GPU streams: its device's group at the top of the pinned
    // area (the collective's row in view when the group is taller).
    if (ev.collective.valid()) {
        view.revealEvent(ev.collective);
        const int group = view.data()->tracks()[size_t(ev.collective.track)].group;
        for (const LayoutRow &r : view.layout().pinnedRows())
            if (r.kind == LayoutRow::Kind::GroupHeader && r.group == group) {
                view.setPinnedScroll(r.y);
                break;
            }
        view.revealEvent(ev.collective);
    }
    // The call on its host thread: the rank's rows scroll to it.
    if (ev.call.valid())
        view.revealEvent(ev.call);
    return true;
}

} // namespace syncscope::ui
