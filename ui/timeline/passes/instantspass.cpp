#include "timeline/passes/instantspass.h"

#include "timeline/passes/boxes.h"
#include "timeline/timelinepalette.h"

#include <QPainter>

#include <cmath>

namespace syncscope::ui {

void InstantsPass::State::append(PassState &&part) { appendAll(marks, stateAs<State>(part).marks); }

void InstantsPass::plan(const FrameContext &, const FrameSection *sec, std::vector<PassWork> &work) const
{
    planShownRows(*sec, work, [](const LayoutRow &r) {
        return (r.kind == LayoutRow::Kind::Slices || r.kind == LayoutRow::Kind::Summary) && r.depth == 0;
    });
}

void InstantsPass::prepare(const FrameContext &ctx, const FrameSection *sec, const PassWork &work,
                           PassState &state) const
{
    auto &s = stateAs<State>(state);
    const Track &mt = ctx.data.modelTrack(work.row->track);
    const auto &ts = mt.instants.ts;
    const TimeMapping &map = ctx.map;
    const QRect &plot = sec->area;
    const int top = sec->top(*work.row) + 1;
    auto it = std::lower_bound(ts.begin(), ts.end(), map.start());
    while (it != ts.end() && *it <= map.end()) {
        if (mt.instants.scope[size_t(it - ts.begin())] == 'g') { // the global pass draws it
            ++it;
            continue;
        }
        const int x = plot.left() + int(std::floor(map.toPixelClamped(*it)));
        s.marks.emplace_back(x - 1, top, 3, 4);
        // One mark per two pixels is all the eye can tell apart.
        it = std::lower_bound(it + 1, ts.end(), map.toTime(x - plot.left() + 2));
    }
}

void InstantsPass::paint(QPainter &p, const FrameContext &, const FrameSection *, const PassState &state) const
{
    const auto &s = stateAs<State>(state);
    if (s.marks.empty())
        return;
    p.setPen(Qt::NoPen);
    p.setBrush(palette::color(palette::kInstantColor));
    p.drawRects(s.marks.data(), int(s.marks.size()));
}

void GlobalInstantsPass::State::append(PassState &&part) { appendAll(xs, stateAs<State>(part).xs); }

void GlobalInstantsPass::plan(const FrameContext &ctx, const FrameSection *, std::vector<PassWork> &work) const
{
    if (!ctx.data.globalInstants().empty())
        work.push_back({});
}

void GlobalInstantsPass::prepare(const FrameContext &ctx, const FrameSection *, const PassWork &,
                                 PassState &state) const
{
    auto &s = stateAs<State>(state);
    const auto &gi = ctx.data.globalInstants();
    int lastX = INT32_MIN;
    auto it = std::lower_bound(gi.begin(), gi.end(), ctx.map.start(),
                               [](const TimelineInstant &g, TimeNs t) { return g.ts < t; });
    for (; it != gi.end() && it->ts <= ctx.map.end(); ++it) {
        const int x = ctx.x(it->ts);
        if (x == lastX)
            continue;
        lastX = x;
        s.xs.push_back(x);
    }
}

void GlobalInstantsPass::paint(QPainter &p, const FrameContext &ctx, const FrameSection *,
                               const PassState &state) const
{
    const auto &s = stateAs<State>(state);
    p.setPen(QPen(palette::chrome::kInstantLine, 1, Qt::DashLine));
    for (int x : s.xs)
        p.drawLine(x, ctx.plot.top(), x, ctx.plot.bottom());
}

} // namespace syncscope::ui
