#include "timeline/timelinelayout.h"

#include <algorithm>

namespace syncscope::ui {

void TimelineLayout::reset(const TimelineData *data)
{
    m_data = data;
    const size_t files = data ? data->files().size() : 0;
    const size_t groups = data ? data->groups().size() : 0;
    const size_t tracks = data ? data->tracks().size() : 0;
    m_fileCollapsed.assign(files, 0);
    m_groupCollapsed.assign(groups, 0);
    m_track.assign(tracks, TrackState{});
    // A sync gap and its GPU band together: the GPU devices' tracks are pinned.
    for (size_t t = 0; t < tracks; ++t)
        m_track[t].pinned = data->tracks()[t].gpu ||
                            data->groups()[size_t(data->tracks()[t].group)].kind == TimelineGroup::Kind::Gpu;
    m_showPython = !data || data->pythonEvents() == 0;
    m_groupOrder.resize(groups);
    for (size_t g = 0; g < groups; ++g)
        m_groupOrder[g] = int(g);
    m_trackOrder.assign(groups, {});
    for (size_t g = 0; g < groups; ++g)
        m_trackOrder[g] = data->groups()[g].tracks;
    rebuild();
}

void TimelineLayout::adopt(const TimelineData *data)
{
    if (!data || !m_data || data->files().size() != m_fileCollapsed.size() ||
        data->groups().size() != m_groupCollapsed.size() || data->tracks().size() != m_track.size()) {
        reset(data);
        return;
    }
    m_data = data;
    rebuild();
}

void TimelineLayout::setFileCollapsed(int file, bool on)
{
    if (file < 0 || size_t(file) >= m_fileCollapsed.size())
        return;
    m_fileCollapsed[size_t(file)] = on;
    rebuild();
}

void TimelineLayout::setGroupCollapsed(int group, bool on)
{
    if (group < 0 || size_t(group) >= m_groupCollapsed.size())
        return;
    m_groupCollapsed[size_t(group)] = on;
    rebuild();
}

void TimelineLayout::setTrackCollapsed(int track, bool on)
{
    if (track < 0 || size_t(track) >= m_track.size())
        return;
    m_track[size_t(track)].collapsed = on;
    rebuild();
}

void TimelineLayout::setTrackPinned(int track, bool on)
{
    if (track < 0 || size_t(track) >= m_track.size())
        return;
    m_track[size_t(track)].pinned = on;
    rebuild();
}

void TimelineLayout::setMaxDepth(int track, int depth)
{
    if (track < 0 || size_t(track) >= m_track.size())
        return;
    m_track[size_t(track)].maxDepth = std::max(0, depth);
    rebuild();
}

void TimelineLayout::setShowPython(bool on)
{
    m_showPython = on;
    rebuild();
}

void TimelineLayout::setAllCollapsed(bool on)
{
    std::fill(m_fileCollapsed.begin(), m_fileCollapsed.end(), char(on));
    std::fill(m_groupCollapsed.begin(), m_groupCollapsed.end(), char(on));
    for (TrackState &t : m_track)
        t.collapsed = on;
    rebuild();
}

bool TimelineLayout::moveTrack(int track, int before)
{
    if (!m_data || track < 0 || size_t(track) >= m_track.size() || track == before)
        return false;
    const int group = m_data->tracks()[size_t(track)].group;
    if (before >= 0 && (size_t(before) >= m_track.size() || m_data->tracks()[size_t(before)].group != group))
        return false;
    std::vector<int> &order = m_trackOrder[size_t(group)];
    order.erase(std::find(order.begin(), order.end(), track));
    order.insert(before < 0 ? order.end() : std::find(order.begin(), order.end(), before), track);
    rebuild();
    return true;
}

bool TimelineLayout::moveGroup(int group, int before)
{
    if (!m_data || group < 0 || size_t(group) >= m_groupOrder.size() || group == before)
        return false;
    const uint32_t file = m_data->groups()[size_t(group)].file;
    if (before >= 0 && (size_t(before) >= m_groupOrder.size() || m_data->groups()[size_t(before)].file != file))
        return false;
    m_groupOrder.erase(std::find(m_groupOrder.begin(), m_groupOrder.end(), group));
    auto at = before >= 0 ? std::find(m_groupOrder.begin(), m_groupOrder.end(), before)
                          : std::find_if(m_groupOrder.begin(), m_groupOrder.end(), [&](int g) {
                                return m_data->groups()[size_t(g)].file > file; // last of its file
                            });
    m_groupOrder.insert(at, group);
    rebuild();
    return true;
}

const std::vector<TimelineLevel> &TimelineLayout::levels(int track) const
{
    const TimelineTrack &tt = m_data->tracks()[size_t(track)];
    return !m_showPython && tt.pythonEvents > 0 ? tt.levelsNoPython : tt.levels;
}

int TimelineLayout::shownDepth(const TimelineEvent &e) const
{
    const TimelineTrack &tt = m_data->tracks()[size_t(e.track)];
    if (!m_showPython && tt.pythonEvents > 0) {
        const uint16_t d = tt.depthNoPython[e.index];
        return d == TimelineTrack::kHiddenDepth ? -1 : int(d);
    }
    return int(m_data->modelTrack(e.track).depth[e.index]);
}

int TimelineLayout::shownRowCount(int track) const
{
    const TrackState &s = m_track[size_t(track)];
    if (s.collapsed)
        return 1;
    int n = std::max<int>(1, int(levels(track).size()));
    if (s.maxDepth > 0)
        n = std::min(n, s.maxDepth);
    return n;
}

TimelineLayout::Place TimelineLayout::placeOf(const TimelineEvent &e) const
{
    if (!m_data || !e.valid())
        return {};
    const Span sp = m_span[size_t(e.track)];
    const int d = shownDepth(e);
    if (sp.count == 0 || d < 0)
        return {};
    // Deeper than the cap: drawn nowhere, except that a collapsed thread shows
    // all of its events in its summary row.
    if (m_track[size_t(e.track)].collapsed)
        return {sp.pinned, sp.first};
    if (d >= sp.count)
        return {};
    return {sp.pinned, sp.first + d};
}

int TimelineLayout::rowAt(const std::vector<LayoutRow> &rows, int y)
{
    auto it = std::upper_bound(rows.begin(), rows.end(), y, [](int v, const LayoutRow &r) { return v < r.y; });
    if (it == rows.begin())
        return -1;
    --it;
    return y < it->y + it->height ? int(it - rows.begin()) : -1;
}

void TimelineLayout::addTrack(std::vector<LayoutRow> &rows, int &y, int track)
{
    Span &sp = m_span[size_t(track)];
    sp.pinned = &rows == &m_pinned;
    sp.first = int(rows.size());
    sp.count = shownRowCount(track);
    for (int d = 0; d < sp.count; ++d) {
        LayoutRow r;
        r.kind = m_track[size_t(track)].collapsed ? LayoutRow::Kind::Summary : LayoutRow::Kind::Slices;
        r.file = int(m_data->tracks()[size_t(track)].file);
        r.group = m_data->tracks()[size_t(track)].group;
        r.track = track;
        r.depth = d;
        r.y = y;
        r.height = TimelineData::kRowHeight;
        rows.push_back(r);
        y += r.height;
    }
    y += TimelineData::kTrackGap;
}

void TimelineLayout::rebuild()
{
    m_pinned.clear();
    m_rows.clear();
    m_span.assign(m_track.size(), Span{});
    m_pinnedHeight = m_totalHeight = 0;
    if (!m_data)
        return;
    const auto &groups = m_data->groups();
    const bool multiFile = m_data->files().size() > 1;
    for (int section = 0; section < 2; ++section) {
        const bool pinned = section == 0;
        std::vector<LayoutRow> &rows = pinned ? m_pinned : m_rows;
        int y = 0;
        int lastFile = -1;
        for (int g : m_groupOrder) {
            const TimelineGroup &group = groups[size_t(g)];
            const int file = int(group.file);
            if (!pinned && multiFile && file != lastFile) {
                LayoutRow r;
                r.kind = LayoutRow::Kind::RankHeader;
                r.file = file;
                r.y = y;
                r.height = TimelineData::kHeaderHeight + 2;
                rows.push_back(r);
                y += r.height;
            }
            lastFile = file;
            if (m_fileCollapsed[size_t(file)])
                continue;
            std::vector<int> tracks;
            for (int t : m_trackOrder[size_t(g)])
                if (m_track[size_t(t)].pinned == pinned)
                    tracks.push_back(t);
            const size_t counters = pinned ? 0 : group.counters.size();
            if (tracks.empty() && counters == 0)
                continue;
            LayoutRow h;
            h.kind = LayoutRow::Kind::GroupHeader;
            h.file = file;
            h.group = g;
            h.y = y;
            h.height = TimelineData::kHeaderHeight;
            rows.push_back(h);
            y += h.height;
            if (m_groupCollapsed[size_t(g)])
                continue;
            for (int t : tracks)
                addTrack(rows, y, t);
            for (size_t c = 0; c < counters; ++c) {
                LayoutRow r;
                r.kind = LayoutRow::Kind::Counter;
                r.file = file;
                r.group = g;
                r.counter = group.counters[c];
                r.y = y;
                r.height = kCounterHeight;
                rows.push_back(r);
                y += r.height + TimelineData::kTrackGap;
            }
        }
        (pinned ? m_pinnedHeight : m_totalHeight) = y;
    }
}

} // namespace syncscope::ui
