#include "timeline/passes/markspass.h"

#include "timeline/passes/boxes.h"
#include "timeline/timelinepalette.h"

#include <QPainter>
#include <QPainterPath>

#include <cmath>

namespace syncscope::ui {

using namespace palette::chrome;

void GapMarksPass::State::append(PassState &&part)
{
    auto &o = stateAs<State>(part);
    appendAll(marked, o.marked);
    appendAll(current, o.current);
}

void GapMarksPass::plan(const FrameContext &ctx, const FrameSection *, std::vector<PassWork> &work) const
{
    if (ctx.marks && ((ctx.marks->markedGaps && !ctx.marks->markedGaps->empty()) || ctx.marks->highlightGap >= 0))
        work.push_back({});
}

void GapMarksPass::prepare(const FrameContext &ctx, const FrameSection *, const PassWork &, PassState &state) const
{
    auto &s = stateAs<State>(state);
    // A gap over every GPU track of its device (nothing when out of view).
    auto outline = [&](int index, std::vector<ClippedRect> &out) {
        const TimelineGap &g = ctx.data.gaps()[size_t(index)];
        const TimelineFile &file = ctx.data.files()[g.file];
        const SyncGap &gap = file.sync.syncGaps[g.gap];
        if (gap.interval.end < ctx.map.start() || gap.interval.start > ctx.map.end())
            return;
        const int l = ctx.x(gap.interval.start);
        const int r = ctx.plot.left() + int(std::ceil(ctx.map.toPixelClamped(gap.interval.end)));
        for (const auto &dg : file.deviceGaps)
            if (dg.device == gap.device)
                for (int ti : dg.tracks) {
                    const TimelineLayout::Span sp = ctx.layout.spanOf(ti);
                    if (sp.count == 0)
                        continue;
                    const FrameSection &sec = ctx.section(sp.pinned);
                    const int top = sec.top((*sec.rows)[size_t(sp.first)]);
                    out.push_back({sec.area,
                                   QRect(l, top, std::max(2, r - l), sp.count * TimelineData::kRowHeight)});
                }
    };
    if (ctx.marks->markedGaps)
        for (int mg : *ctx.marks->markedGaps)
            outline(mg, s.marked);
    if (ctx.marks->highlightGap >= 0)
        outline(ctx.marks->highlightGap, s.current);
}

void GapMarksPass::paint(QPainter &p, const FrameContext &ctx, const FrameSection *, const PassState &state) const
{
    const auto &s = stateAs<State>(state);
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setPen(QPen(kMarkedGapEdge, 2));
    p.setBrush(kMarkedGapFill);
    for (const ClippedRect &c : s.marked) {
        p.setClipRect(c.clip);
        p.drawRect(c.rect);
    }
    p.setPen(QPen(kCurrentGapEdge, 2, Qt::DashLine));
    p.setBrush(Qt::NoBrush);
    for (const ClippedRect &c : s.current) {
        p.setClipRect(c.clip);
        p.drawRect(c.rect);
    }
    p.setClipRect(ctx.plot);
}

void RangePass::State::append(PassState &&part)
{
    auto &o = stateAs<State>(part);
    if (o.shown)
        *this = o;
}

void RangePass::plan(const FrameContext &ctx, const FrameSection *, std::vector<PassWork> &work) const
{
    if (ctx.marks && ctx.marks->hasRange)
        work.push_back({});
}

void RangePass::prepare(const FrameContext &ctx, const FrameSection *, const PassWork &, PassState &state) const
{
    auto &s = stateAs<State>(state);
    s.shown = true;
    s.left = ctx.x(ctx.marks->range0);
    s.right = ctx.plot.left() + int(std::ceil(ctx.map.toPixelClamped(ctx.marks->range1)));
}

void RangePass::paint(QPainter &p, const FrameContext &ctx, const FrameSection *, const PassState &state) const
{
    const auto &s = stateAs<State>(state);
    if (!s.shown)
        return;
    const QRect &plot = ctx.plot;
    p.setRenderHint(QPainter::Antialiasing, true);
    p.fillRect(QRect(s.left, plot.top(), std::max(1, s.right - s.left), plot.height()), kRangeFill);
    p.setPen(kRangeEdge);
    p.drawLine(s.left, plot.top(), s.left, plot.bottom());
    p.drawLine(s.right, plot.top(), s.right, plot.bottom());
}

void SelectionPass::State::append(PassState &&part)
{
    auto &o = stateAs<State>(part);
    appendAll(links, o.links);
    appendAll(with, o.with);
    if (o.hasSelected) {
        hasSelected = true;
        selected = o.selected;
    }
}

void SelectionPass::plan(const FrameContext &ctx, const FrameSection *, std::vector<PassWork> &work) const
{
    if (ctx.marks && ctx.marks->selected.valid())
        work.push_back({});
}

void SelectionPass::prepare(const FrameContext &ctx, const FrameSection *, const PassWork &,
                            PassState &state) const
{
    auto &s = stateAs<State>(state);
    const TimelineEvent &sel = ctx.marks->selected;
    // A box outline stays in its section: a scrolled row never draws over the pinned ones.
    auto clipOf = [&](const TimelineEvent &e) { return ctx.section(ctx.layout.placeOf(e).pinned).area; };
    if (ctx.marks->links)
        for (const auto &[from, to] : *ctx.marks->links) {
            const TimelineEvent other = from == sel ? to : from;
            const QRect a = ctx.eventRect(from), b = ctx.eventRect(to);
            const bool both = !a.isNull() && !b.isNull();
            s.links.push_back({{clipOf(other), ctx.eventRect(other).adjusted(-1, -1, 1, 1)},
                               both ? a : QRect(),
                               both ? b : QRect()});
        }
    s.hasSelected = true;
    s.selected = {clipOf(sel), ctx.eventRect(sel).adjusted(-1, -1, 1, 1)};
    if (ctx.marks->selectedWith)
        for (const TimelineEvent &e : *ctx.marks->selectedWith)
            if (const QRect r = ctx.eventRect(e); !r.isNull())
                s.with.push_back({clipOf(e), r.adjusted(-1, -1, 1, 1)});
}

void SelectionPass::paint(QPainter &p, const FrameContext &ctx, const FrameSection *, const PassState &state) const
{
    const auto &s = stateAs<State>(state);
    if (!s.hasSelected)
        return;
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setPen(QPen(kFlowLine, 1.6));
    // Each flow: the other end outlined in its section, then the arrow over the plot.
    for (const State::Link &link : s.links) {
        p.setBrush(Qt::NoBrush);
        p.setClipRect(link.other.clip);
        p.drawRect(link.other.rect);
        p.setClipRect(ctx.plot);
        if (!link.from.isNull()) {
            const QRect &a = link.from, &b = link.to;
            const QPointF p0(a.left(), a.center().y() + 0.5);
            const QPointF p1(b.left(), b.center().y() + 0.5);
            QPainterPath path(p0);
            const double dx = std::max(30.0, std::abs(p1.x() - p0.x()) / 2);
            path.cubicTo(p0 + QPointF(dx, 0), p1 - QPointF(dx, 0), p1);
            p.setBrush(Qt::NoBrush);
            p.drawPath(path);
            // The head points right into the target.
            QPolygonF head;
            head << p1 << p1 + QPointF(-8, -4) << p1 + QPointF(-8, 4);
            p.setBrush(p.pen().color());
            p.drawPolygon(head);
        }
    }
    p.setBrush(Qt::NoBrush);
    auto halo = [&p](const ClippedRect &c) {
        p.setClipRect(c.clip);
        p.setPen(QPen(kSelectionHalo, 3));
        p.drawRect(c.rect);
        p.setPen(QPen(kSelectionEdge, 1.5));
        p.drawRect(c.rect);
    };
    halo(s.selected);
    for (const ClippedRect &c : s.with)
        halo(c);
}

} // namespace syncscope::ui
