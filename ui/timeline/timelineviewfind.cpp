// TimelineView's outlines of find's matches: every matching event in view that
// is wide enough to see, on the rows in view. Blocks of events narrower than
// that are skipped through the level's widest-per-block index, so a zoomed-out
// frame of millions of events costs a few thousand look-ups per row.
#include "timeline/timelineview.h"

#include <QPainter>
#include <QScrollBar>

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
    if (!m_data || !m_highlightNames)
        return;
    constexpr int kMaxOutlines = 5000; // beyond this the outlines are a solid wall anyway
    const auto &mask = *m_highlightNames;
    const QRect plot = plotRect();
    // An event narrower than this is folded into its neighbours by the level of
    // detail: nothing to outline.
    const TimeNs minDur = std::max<TimeNs>(1, TimeNs(std::ceil(2 * m_map.nsPerPixel())));
    const TimeNs t0 = m_map.start(), t1 = m_map.end();
    const int sy = verticalScrollBar()->value();
    p.save();
    p.setClipRect(plot);
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(QColor(255, 170, 0), 2));
    const auto &rows = m_data->rows();
    auto it = std::partition_point(rows.begin(), rows.end(),
                                   [&](const TimelineRow &r) { return r.y + r.height <= sy; });
    for (; it != rows.end() && it->y < sy + plot.height() && m_highlightsPainted < kMaxOutlines;
         ++it) {
        if (it->track < 0)
            continue;
        const TimelineTrack &tt = m_data->tracks()[size_t(it->track)];
        if (it->depth < 0 || it->depth >= int(tt.levels.size()) || tt.file >= mask.size())
            continue;
        const auto &names = mask[tt.file];
        const TimelineLevel &lvl = tt.levels[size_t(it->depth)];
        const Track &mt = m_data->modelTrack(it->track);
        const size_t n = lvl.events.size();
        size_t pos = TimelineData::firstEndingAtOrAfter(mt, lvl, 0, t0);
        const int y = plot.top() + it->y - sy + 1;
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
            const int r = plot.left() + int(std::floor(m_map.toPixelClamped(mt.end(e))));
            p.drawRect(QRect(l, y, std::max(1, r - l), it->height - 2).adjusted(-1, -1, 1, 1));
            ++m_highlightsPainted;
        }
    }
    p.restore();
}

} // namespace syncscope::ui
