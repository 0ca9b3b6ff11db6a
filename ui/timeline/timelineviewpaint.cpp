// TimelineView's painting: replays the cached level-of-detail geometry, then draws
// what changes without a new range (selection, flows, range, ruler, labels).
#include "timeline/timelineview.h"

#include "timeline/timeformat.h"

#include <QPainter>
#include <QPainterPath>
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
    paintHighlights(p);
    paintOverlays(p);
    paintRuler(p);
    paintStepBand(p);
    paintLabels(p, false);
    paintLabels(p, true);
    paintIndicator(p);
}

void TimelineView::paintPlot(QPainter &p)
{
    const QRect plot = plotRect();
    p.save();
    p.setClipRect(plot);
    // Header rows across the plot, so processes read as groups.
    for (int section = 0; section < 2; ++section) {
        const bool pinned = section == 0;
        const QRect area = pinned ? pinnedRect() : scrollRect();
        if (area.isEmpty())
            continue;
        p.setClipRect(area);
        const auto &rows = pinned ? m_layout.pinnedRows() : m_layout.rows();
        const int sy = pinned ? pinnedScrollY() : scrollY();
        auto it = std::partition_point(rows.begin(), rows.end(),
                                       [&](const LayoutRow &r) { return r.y + r.height <= sy; });
        for (; it != rows.end() && it->y < sy + area.height(); ++it) {
            if (it->header())
                p.fillRect(QRect(plot.left(), area.top() + it->y - sy, plot.width(), it->height),
                           it->kind == LayoutRow::Kind::RankHeader ? kRankBackground : kHeaderBackground);
            else if (it->kind == LayoutRow::Kind::Counter)
                p.fillRect(QRect(plot.left(), area.top() + it->y - sy, plot.width(), it->height),
                           kCounterBackground);
        }
    }
    p.setClipRect(plot);

    // Grid at the ruler's ticks.
    const int64_t step = rulerStep(m_map.nsPerPixel());
    const TimeNs origin = m_data->minTime();
    TimeNs t = origin + int64_t(std::floor(double(m_map.start() - origin) / double(step))) * step;
    p.setPen(kGrid);
    for (; t <= m_map.end(); t += step) {
        const int x = plot.left() + int(std::floor(m_map.toPixel(t)));
        p.drawLine(x, plot.top(), x, plot.bottom());
    }
    paintSection(p, m_geometry, scrollRect(), false);
    const QRect pinned = pinnedRect();
    if (!pinned.isEmpty()) {
        paintSection(p, m_pinnedGeometry, pinned, true);
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
    p.setClipRect(plot);
    paintGlobalInstants(p);
    p.restore();
}

void TimelineView::paintSection(QPainter &p, const TimelineGeometry &g, const QRect &clip, bool) const
{
    p.setClipRect(clip);
    p.setPen(Qt::NoPen);
    for (int c = 0; c < palette::kColorCount; ++c) {
        const auto &batch = g.boxes[size_t(c)];
        if (batch.empty())
            continue;
        p.setBrush(palette::color(c));
        p.drawRects(batch.data(), int(batch.size()));
    }
    if (!g.counterAreas.empty()) {
        p.setBrush(kCounterFill);
        p.drawRects(g.counterAreas.data(), int(g.counterAreas.size()));
    }
    for (const auto &label : g.labels) {
        p.setPen(label.dark ? kLabelDark : kLabelLight);
        p.drawText(label.rect, Qt::AlignVCenter | Qt::AlignLeft | Qt::TextSingleLine, label.text);
    }

    // Sync gaps over the GPU tracks, blocking calls on their CPU threads.
    if (!g.gapBands.empty()) {
        p.setPen(Qt::NoPen);
        p.setBrush(kGapFill);
        p.drawRects(g.gapBands.data(), int(g.gapBands.size()));
        p.setBrush(QBrush(kGapHatch, Qt::BDiagPattern));
        p.drawRects(g.gapBands.data(), int(g.gapBands.size()));
        p.setPen(kGapEdge);
        for (const QRect &r : g.gapBands) {
            p.drawLine(r.topLeft(), r.bottomLeft());
            p.drawLine(r.topRight(), r.bottomRight());
        }
    }
    if (!g.gapCalls.empty()) {
        p.setPen(QPen(kGapCallEdge, 2));
        p.setBrush(kGapCallFill);
        p.drawRects(g.gapCalls.data(), int(g.gapCalls.size()));
    }
    if (!g.otherCalls.empty()) {
        p.setPen(QPen(kOtherCallEdge, 1));
        p.setBrush(Qt::NoBrush);
        p.drawRects(g.otherCalls.data(), int(g.otherCalls.size()));
    }
}

void TimelineView::paintGlobalInstants(QPainter &p) const
{
    // "s": "g" instants: a line across every track, one per pixel column.
    const auto &gi = m_data->globalInstants();
    if (gi.empty())
        return;
    const QRect plot = plotRect();
    p.setPen(QPen(kInstantLine, 1, Qt::DashLine));
    int lastX = INT32_MIN;
    auto it = std::lower_bound(gi.begin(), gi.end(), m_map.start(),
                               [](const TimelineInstant &g, TimeNs t) { return g.ts < t; });
    for (; it != gi.end() && it->ts <= m_map.end(); ++it) {
        const int x = plot.left() + int(std::floor(m_map.toPixelClamped(it->ts)));
        if (x == lastX)
            continue;
        lastX = x;
        p.drawLine(x, plot.top(), x, plot.bottom());
    }
}

void TimelineView::paintArrow(QPainter &p, const TimelineEvent &from, const TimelineEvent &to) const
{
    const QRect a = eventRect(from), b = eventRect(to);
    if (a.isNull() || b.isNull())
        return;
    const QPointF p0(a.left(), a.center().y() + 0.5);
    const QPointF p1(b.left(), b.center().y() + 0.5);
    QPainterPath path(p0);
    const double dx = std::max(30.0, std::abs(p1.x() - p0.x()) / 2);
    path.cubicTo(p0 + QPointF(dx, 0), p1 - QPointF(dx, 0), p1);
    p.setBrush(Qt::NoBrush);
    p.drawPath(path);
    // arrow head pointing right into the target
    QPolygonF head;
    head << p1 << p1 + QPointF(-8, -4) << p1 + QPointF(-8, 4);
    p.setBrush(p.pen().color());
    p.drawPolygon(head);
}

void TimelineView::paintOverlays(QPainter &p) const
{
    const QRect plot = plotRect();
    p.save();
    p.setClipRect(plot);
    p.setRenderHint(QPainter::Antialiasing, true);
    // Outlines a gap over every GPU track of its device (nothing when out of view).
    auto outlineGap = [&](int index) {
        const TimelineGap &g = m_data->gaps()[size_t(index)];
        const TimelineFile &file = m_data->files()[g.file];
        const SyncGap &gap = file.sync.syncGaps[g.gap];
        if (gap.interval.end < m_map.start() || gap.interval.start > m_map.end())
            return;
        const int l = plot.left() + int(std::floor(m_map.toPixelClamped(gap.interval.start)));
        const int r = plot.left() + int(std::ceil(m_map.toPixelClamped(gap.interval.end)));
        for (const auto &dg : file.deviceGaps)
            if (dg.device == gap.device)
                for (int ti : dg.tracks) {
                    const TimelineLayout::Span sp = m_layout.spanOf(ti);
                    if (sp.count == 0)
                        continue;
                    const QRect first = rowRect(sp.pinned, sp.first);
                    p.setClipRect(sp.pinned ? pinnedRect() : scrollRect());
                    p.drawRect(QRect(l, first.top(), std::max(2, r - l), sp.count * TimelineData::kRowHeight));
                }
        p.setClipRect(plot);
    };
    if (!m_markedGaps.empty()) {
        // The gaps of one sync source: solid outlines, only those in view.
        p.setPen(QPen(kMarkedGapEdge, 2));
        p.setBrush(kMarkedGapFill);
        for (int mg : m_markedGaps)
            outlineGap(mg);
    }
    if (m_highlightGap >= 0) {
        p.setPen(QPen(kCurrentGapEdge, 2, Qt::DashLine));
        p.setBrush(Qt::NoBrush);
        outlineGap(m_highlightGap);
    }
    if (m_hasRange) {
        const int l = plot.left() + int(std::floor(m_map.toPixelClamped(m_range0)));
        const int r = plot.left() + int(std::ceil(m_map.toPixelClamped(m_range1)));
        p.fillRect(QRect(l, plot.top(), std::max(1, r - l), plot.height()), kRangeFill);
        p.setPen(kRangeEdge);
        p.drawLine(l, plot.top(), l, plot.bottom());
        p.drawLine(r, plot.top(), r, plot.bottom());
    }
    if (m_selected.valid()) {
        // A box outline stays in its section: a scrolled row never draws over
        // the pinned ones.
        auto clipTo = [&](const TimelineEvent &e) {
            p.setClipRect(m_layout.placeOf(e).pinned ? pinnedRect() : scrollRect());
        };
        p.setPen(QPen(kFlowLine, 1.6));
        for (const auto &[from, to] : m_links) {
            const TimelineEvent other = from == m_selected ? to : from;
            p.setBrush(Qt::NoBrush);
            clipTo(other);
            p.drawRect(eventRect(other).adjusted(-1, -1, 1, 1));
            p.setClipRect(plot);
            paintArrow(p, from, to);
        }
        const QRect r = eventRect(m_selected).adjusted(-1, -1, 1, 1);
        clipTo(m_selected);
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(kSelectionHalo, 3));
        p.drawRect(r);
        p.setPen(QPen(kSelectionEdge, 1.5));
        p.drawRect(r);
    }
    p.restore();
}

void TimelineView::paintRuler(QPainter &p) const
{
    const QRect plot = plotRect();
    const QRect ruler(0, 0, viewport()->width(), kRulerHeight);
    p.fillRect(ruler, kRulerBackground);
    p.setPen(kRule);
    p.drawLine(0, kRulerHeight - 1, viewport()->width(), kRulerHeight - 1);
    const int64_t step = rulerStep(m_map.nsPerPixel());
    const TimeNs origin = m_data->minTime();
    TimeNs t = origin + int64_t(std::floor(double(m_map.start() - origin) / double(step))) * step;
    // One unit for the whole ruler: that of its largest label.
    const auto magnitude = [](TimeNs d) { return d < 0 ? uint64_t(0) - uint64_t(d) : uint64_t(d); };
    const uint64_t axisMax = std::max(magnitude(t - origin), magnitude(m_map.end() - origin));
    p.setPen(kRulerText);
    for (; t <= m_map.end(); t += step) {
        const int x = plot.left() + int(std::floor(m_map.toPixel(t)));
        if (x < plot.left())
            continue;
        p.drawLine(x, kRulerHeight - 7, x, kRulerHeight - 1);
        p.drawText(QRect(x + 3, 0, 200, kRulerHeight - 4), Qt::AlignLeft | Qt::AlignVCenter,
                   formatTick(t - origin, step, axisMax));
    }
    if (m_hasRange) {
        const int l = plot.left() + int(std::floor(m_map.toPixelClamped(m_range0)));
        const int r = plot.left() + int(std::ceil(m_map.toPixelClamped(m_range1)));
        const QRect band(std::max(l, plot.left()), 0, std::max(1, std::min(r, plot.right()) - std::max(l, plot.left())),
                         kRulerHeight - 1);
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
                       p.fontMetrics().elidedText(title, Qt::ElideMiddle, r.width() - 24));
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
