// TimelineView's outlines of find's matches: every matching event in view that
// is wide enough to see, on the rows in view. Blocks of events narrower than
// that are skipped through the level's widest-per-block index, so a zoomed-out
// frame of millions of events costs a few thousand look-ups per row.
#include "timeline/timelineview.h"

#include <QPainter>

#include <algorithm>
#include <cmath>

namespace syncscope::ui {

void TimelineView::setHighlightedNames(std::shared_ptr<const std::vector<std::vector<char>>> mask)
{
    m_highlightNames = std::move(mask);
    viewport()->update();
}

void TimelineView::paintHighlights(QPainter &p)
{
    m_highlightsPainted = 0;
    m_highlightRects.clear();
    if (!m_data || !m_highlightNames)
        return;
    constexpr int kMaxOutlines = 5000; // beyond this the outlines are a solid wall anyway
    const auto &mask = *m_highlightNames;
    const QRect plot = plotRect();
    // An event narrower than this is folded into its neighbours by the level of
    // detail: nothing to outline.
    const TimeNs minDur = std::max<TimeNs>(1, TimeNs(std::ceil(2 * m_map.nsPerPixel())));
    const TimeNs t0 = m_map.start(), t1 = m_map.end();
    p.save();
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(palette::chrome::kFindOutline, 2));
    // The rows as drawn: the pinned section, then the scrolled one under it,
    // each clipped to its own area; levels as shown (Python frames hidden or
    // not), collapsed threads (summary rows) and capped depths left out.
    auto outline = [&](const std::vector<LayoutRow> &rows, bool pinned, const QRect &clip) {
        p.setClipRect(clip);
        for (const LayoutRow &r : rows) {
            if (m_highlightsPainted >= kMaxOutlines)
                return;
            const int top = rowTop(pinned, r);
            if (r.kind != LayoutRow::Kind::Slices || r.track < 0 || top + r.height <= clip.top() ||
                top > clip.bottom())
                continue;
            const TimelineTrack &tt = m_data->tracks()[size_t(r.track)];
            const auto &levels = m_layout.levels(r.track);
            if (r.depth < 0 || r.depth >= int(levels.size()) || tt.file >= mask.size())
                continue;
            const auto &names = mask[tt.file];
            const TimelineLevel &lvl = levels[size_t(r.depth)];
            const Track &mt = m_data->modelTrack(r.track);
            const size_t n = lvl.events.size();
            size_t pos = TimelineData::firstEndingAtOrAfter(mt, lvl, 0, t0);
            const int y = top + 1;
            while (pos < n && m_highlightsPainted < kMaxOutlines && mt.start[lvl.events[pos]] <= t1) {
                if (pos % 4096 == 0 && pos + 4096 <= n &&
                    mt.dur[lvl.events[lvl.widest4k[pos / 4096]]] < minDur) {
                    pos += 4096;
                    continue;
                }
                if (pos % 64 == 0 && pos + 64 <= n &&
                    mt.dur[lvl.events[lvl.widest64[pos / 64]]] < minDur) {
                    pos += 64;
                    continue;
                }
                const uint32_t e = lvl.events[pos++];
                if (mt.dur[e] < minDur || mt.name[e] >= names.size() || !names[mt.name[e]])
                    continue;
                const int l = plot.left() + int(std::floor(m_map.toPixelClamped(mt.start[e])));
                const int rr = plot.left() + int(std::floor(m_map.toPixelClamped(mt.end(e))));
                const QRect box = QRect(l, y, std::max(1, rr - l), r.height - 2).adjusted(-1, -1, 1, 1);
                p.drawRect(box);
                m_highlightRects.push_back(box);
                ++m_highlightsPainted;
            }
        }
    };
    if (pinnedRect().height() > 0)
        outline(m_layout.pinnedRows(), true, pinnedRect());
    outline(m_layout.rows(), false, scrollRect());
    p.restore();
}

} // namespace syncscope::ui
