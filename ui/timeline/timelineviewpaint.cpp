// TimelineView's painting: the render passes (passes/) draw the rows and what
// lies over them; the view draws its chrome around them (grid, ruler, step
// band, the names panel, the indicator).
#include "timeline/timelineview.h"

#include "shared/timeformat.h"

#include <QPainter>
#include <QScrollBar>

#include <cmath>

namespace syncscope::ui {

using namespace palette::chrome;

void TimelineView::paintEvent(QPaintEvent *)
{
    QPainter p(viewport());
    p.fillRect(viewport()->rect(), kBackground);
    if (!m_data) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(viewport()->rect(), Qt::AlignCenter | Qt::TextWordWrap,
                   tr("Open a Chrome trace (.json or .json.gz) saved by torch.profiler to see "
                      "where the GPU waited on the host.\nSeveral files open as the ranks of one job."));
        return;
    }
    ensureGeometry();
    paintPlot(p);
    // The marks: prepared at every paint, over the rows.
    FrameMarks marks;
    marks.selected = m_selected;
    marks.links = &m_links;
    marks.selectedWith = &m_selectedWith;
    marks.highlightGap = m_highlightGap;
    marks.markedGaps = &m_markedGaps;
    marks.hasRange = m_hasRange;
    marks.range0 = m_range0;
    marks.range1 = m_range1;
    marks.names = m_highlightNames.get();
    const FrameContext ctx = frameContext(&marks);
    m_frame.prepare(ctx, TimelinePass::Update::EveryFrame, fontMetrics(), m_names);
    m_frame.paint(p, ctx, TimelinePass::Update::EveryFrame, TimelinePass::Scope::Plot);
    paintRuler(p);
    paintStepBand(p);
    paintLabels(p, false);
    paintLabels(p, true);
    paintIndicator(p);
}

void TimelineView::paintPlot(QPainter &p)
{
    const QRect plot = plotRect();
    const FrameContext ctx = frameContext();
    p.save();
    // Row backgrounds (headers across the plot, so processes read as groups).
    m_frame.paintBackgrounds(p, ctx);
    p.setClipRect(plot);

    // Grid at the ruler's ticks.
    p.setPen(kGrid);
    for (const RulerTick &tick : rulerTicks())
        p.drawLine(tick.x, plot.top(), tick.x, plot.bottom());
    m_frame.paint(p, ctx, TimelinePass::Update::Cached, TimelinePass::Scope::Section);
    const QRect pinned = pinnedRect();
    if (!pinned.isEmpty()) {
        p.setClipRect(plot);
        p.fillRect(QRect(plot.left(), pinned.bottom() + 1, plot.width(), 3), kPinnedSeparator);
        // Pinned rows taller than their area scroll: a thin bar shows where.
        if (const int max = pinnedScrollMax(); max > 0) {
            const int total = pinned.height() + max;
            const int len = std::max(12, pinned.height() * pinned.height() / total);
            const int top = pinned.top() + (pinned.height() - len) * pinnedScrollY() / max;
            p.fillRect(QRect(plot.right() - 4, top, 4, len), kPinnedScrollBar);
        }
    }
    m_frame.paint(p, ctx, TimelinePass::Update::Cached, TimelinePass::Scope::Plot);
    p.restore();
}

std::vector<TimelineView::RulerTick> TimelineView::rulerTicks() const
{
    std::vector<RulerTick> ticks;
    if (!m_data || m_map.width() <= 0)
        return ticks;
    const QRect plot = plotRect();
    const TimeNs origin = m_data->minTime();
    // One unit for every label the ruler can show: that of the largest, as far
    // as the view can go past the trace's end, so the unit never changes with a
    // pan or a zoom. The step leaves room for the widest label.
    const uint64_t axisMax = uint64_t(m_data->maxTime() - origin + viewMargin());
    int64_t step = rulerStep(m_map.nsPerPixel());
    for (int i = 0; i < 2; ++i) {
        const int need = fontMetrics().horizontalAdvance(formatTick(TimeNs(axisMax), step, axisMax)) + 12;
        if (double(step) / m_map.nsPerPixel() >= need)
            break;
        step = rulerStep(m_map.nsPerPixel(), need);
    }
    for (TimeNs t = origin + int64_t(std::floor(double(m_map.start() - origin) / double(step))) * step;
         t <= m_map.end(); t += step)
        ticks.push_back({plot.left() + int(std::floor(m_map.toPixel(t))), formatTick(t - origin, step, axisMax)});
    return ticks;
}

void TimelineView::paintRuler(QPainter &p) const
{
    const QRect plot = plotRect();
    const QRect ruler(0, 0, viewport()->width(), kRulerHeight);
    p.fillRect(ruler, kRulerBackground);
    p.setPen(kRule);
    p.drawLine(0, kRulerHeight - 1, viewport()->width(), kRulerHeight - 1);
    p.setPen(kRulerText);
    for (const RulerTick &tick : rulerTicks()) {
        if (tick.x < plot.left())
            continue;
        p.drawLine(tick.x, kRulerHeight - 7, tick.x, kRulerHeight - 1);
        p.drawText(QRect(tick.x + 3, 0, 400, kRulerHeight - 4), Qt::AlignLeft | Qt::AlignVCenter, tick.label);
    }
    if (m_hasRange) {
        const int l = plot.left() + int(std::floor(m_map.toPixelClamped(m_range0)));
        const int r = plot.left() + int(std::ceil(m_map.toPixelClamped(m_range1)));
        const QRect band(std::max(l, plot.left()), 0,
                         std::max(1, std::min(r, plot.right()) - std::max(l, plot.left())), kRulerHeight - 1);
        p.fillRect(band, kRangeBand);
        p.setPen(Qt::white);
        p.drawText(band, Qt::AlignCenter, formatDuration(m_range1 - m_range0));
    }
    // Corner: the visible span.
    p.fillRect(QRect(0, 0, m_labelWidth, kRulerHeight - 1), kCornerBackground);
    p.setPen(kCornerText);
    p.drawText(QRect(6, 0, m_labelWidth - 12, kRulerHeight - 1), Qt::AlignVCenter | Qt::AlignLeft,
               tr("view %1").arg(formatDuration(m_map.span())));
}

void TimelineView::paintStepBand(QPainter &p) const
{
    const QRect band = stepBandRect();
    if (band.isEmpty())
        return;
    p.save();
    p.fillRect(QRect(0, band.top(), viewport()->width(), band.height()), kStepBandBackground);
    p.setClipRect(band);
    const auto &steps = m_data->steps();
    // Steps are ordered by start; they are few (one per iteration), so a scan
    // is cheap and needs no sorted ends. Alternate two shades so back-to-back
    // steps read apart; steps inside an already drawn pixel column fold into it.
    auto it = steps.begin();
    const QColor shades[2] = {kStepShadeA, kStepShadeB};
    int lastRight = INT32_MIN;
    for (; it != steps.end(); ++it) {
        const Step &st = m_data->step(*it);
        if (st.start > m_map.end())
            break;
        if (st.end < m_map.start())
            continue;
        const int l = band.left() + int(std::floor(m_map.toPixelClamped(st.start)));
        const int r = band.left() + int(std::floor(m_map.toPixelClamped(st.end)));
        if (r <= lastRight)
            continue;
        const QRect rect(std::max(l, lastRight), band.top() + 1, std::max(1, r - std::max(l, lastRight)),
                         band.height() - 2);
        const size_t idx = size_t(it - steps.begin());
        p.fillRect(rect, shades[idx % 2]);
        p.setPen(kStepEdge);
        p.drawLine(rect.topLeft(), rect.bottomLeft());
        if (rect.width() > 40) {
            p.setPen(kStepText);
            const QString name = m_data->text(it->file, st.name);
            p.drawText(rect.adjusted(3, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
                       p.fontMetrics().elidedText(name, Qt::ElideRight, rect.width() - 5));
        }
        lastRight = rect.right() + 1;
    }
    p.setClipping(false);
    p.fillRect(QRect(0, band.top(), m_labelWidth, band.height()), kCornerBackground);
    p.setPen(kCornerText);
    p.drawText(QRect(6, band.top(), m_labelWidth - 12, band.height()), Qt::AlignVCenter | Qt::AlignLeft,
               tr("steps (click to zoom)"));
    p.setPen(kRule);
    p.drawLine(0, band.bottom(), viewport()->width(), band.bottom());
    p.restore();
}

void TimelineView::paintLabels(QPainter &p, bool pinned) const
{
    const QRect area = pinned ? pinnedRect() : scrollRect();
    if (area.isEmpty())
        return;
    const int w = m_labelWidth;
    const int sy = pinned ? pinnedScrollY() : scrollY();
    p.save();
    QRect clip(0, area.top(), w, area.height());
    if (!pinned) // the panel reaches the bottom, less the indicator
        clip.setBottom(viewport()->height() - 1 - indicatorRect().height());
    p.setClipRect(clip);
    p.fillRect(clip, kNamePanelBackground);
    const auto &rows = pinned ? m_layout.pinnedRows() : m_layout.rows();
    auto it = std::partition_point(rows.begin(), rows.end(),
                                   [&](const LayoutRow &r) { return r.y + r.height <= sy; });
    QFont bold = font();
    bold.setBold(true);
    const QChar open(0x25BE), closed(0x25B8); // ▾ ▸
    for (; it != rows.end() && it->y < sy + area.height(); ++it) {
        const QRect r(0, area.top() + it->y - sy, w, it->height);
        const QString title = rowTitle(*it, pinned);
        if (it->header()) {
            const bool collapsed = it->kind == LayoutRow::Kind::RankHeader ? m_layout.fileCollapsed(it->file)
                                                                           : m_layout.groupCollapsed(it->group);
            p.fillRect(r, it->kind == LayoutRow::Kind::RankHeader ? kRankBackground : kHeaderBackground);
            p.setFont(bold);
            p.setPen(kHeaderText);
            p.drawText(QRect(4, r.top(), 14, r.height()), Qt::AlignVCenter | Qt::AlignLeft,
                       QString(collapsed ? closed : open));
            p.drawText(r.adjusted(18, 0, -4, 0), Qt::AlignVCenter | Qt::AlignLeft,
                       rowLabel(pinned, int(it - rows.begin()), p.fontMetrics()));
            p.setFont(font());
            continue;
        }
        if (it->kind == LayoutRow::Kind::Counter) {
            const TimelineCounter &c = m_data->counters()[size_t(it->counter)];
            p.setPen(kTrackText);
            p.drawText(QRect(14, r.top(), w - 18, TimelineData::kRowHeight), Qt::AlignVCenter | Qt::AlignLeft,
                       p.fontMetrics().elidedText(title, Qt::ElideRight, w - 30));
            p.setPen(kDimText);
            p.drawText(QRect(14, r.top() + TimelineData::kRowHeight, w - 18, TimelineData::kRowHeight),
                       Qt::AlignVCenter | Qt::AlignLeft, tr("max %1").arg(c.maxValue, 0, 'g', 6));
            continue;
        }
        if (it->depth != 0)
            continue;
        const TimelineTrack &tt = m_data->tracks()[size_t(it->track)];
        const int shown = m_layout.spanOf(it->track).count;
        p.setPen(kTrackSeparator);
        p.drawLine(0, r.top() + shown * TimelineData::kRowHeight, w, r.top() + shown * TimelineData::kRowHeight);
        p.setPen(tt.gpu ? kGpuTrackText : kTrackText);
        const bool collapsed = it->kind == LayoutRow::Kind::Summary;
        p.drawText(QRect(4, r.top(), 12, TimelineData::kRowHeight), Qt::AlignVCenter | Qt::AlignLeft,
                   QString(collapsed ? closed : open));
        QString name = title;
        const int cap = m_layout.maxDepth(it->track);
        if (cap > 0 && !collapsed && int(m_layout.levels(it->track).size()) > cap)
            name += tr(" (depth ≤ %1)").arg(cap);
        p.drawText(QRect(16, r.top(), w - 20, TimelineData::kRowHeight), Qt::AlignVCenter | Qt::AlignLeft,
                   p.fontMetrics().elidedText(name, Qt::ElideRight, w - 30));
    }
    p.setPen(kRule);
    p.drawLine(w - 1, clip.top(), w - 1, clip.bottom());
    if (m_drag.mode() == Mode::Reorder) { // where the dragged name would go
        const auto [tPinned, tRow] = rowAtPos(m_drag.lastPos());
        if (tPinned == pinned && tRow >= 0) {
            const QRect r = rowRect(pinned, tRow);
            const bool down = m_drag.lastPos().y() > m_drag.pressPos().y();
            const int y = down ? r.bottom() : r.top();
            p.setPen(QPen(kDropLine, 2));
            p.drawLine(0, y, w, y);
        }
    }
    p.restore();
}

void TimelineView::paintIndicator(QPainter &p) const
{
    const QRect r = indicatorRect();
    if (r.isEmpty())
        return;
    const bool hidden = !m_layout.showPython();
    p.fillRect(r, hidden ? kIndicatorWarn : kCornerBackground);
    p.setPen(kRule);
    p.drawLine(r.topLeft(), r.topRight());
    p.setPen(kIndicatorText);
    const QString text = hidden ? pythonIndicatorText() : tr("Python frames shown");
    p.drawText(r.adjusted(6, 0, -4, 0), Qt::AlignVCenter | Qt::AlignLeft,
               p.fontMetrics().elidedText(text, Qt::ElideRight, r.width() - 10));
}

} // namespace syncscope::ui
