#include "timeline/passes/counterpass.h"

#include "timeline/passes/boxes.h"
#include "timeline/timelinepalette.h"

#include <QPainter>

#include <cmath>

namespace syncscope::ui {

void CounterPass::State::append(PassState &&part) { appendAll(areas, stateAs<State>(part).areas); }

void CounterPass::plan(const FrameContext &, const FrameSection *sec, std::vector<PassWork> &work) const
{
    planShownRows(*sec, work, [](const LayoutRow &r) { return r.kind == LayoutRow::Kind::Counter; });
}

void CounterPass::prepare(const FrameContext &ctx, const FrameSection *sec, const PassWork &work,
                          PassState &state) const
{
    auto &s = stateAs<State>(state);
    const LayoutRow &row = *work.row;
    const TimelineCounter &tc = ctx.data.counters()[size_t(row.counter)];
    const CounterSeries &cs = ctx.data.counterSeries(row.counter);
    const TimeMapping &map = ctx.map;
    const QRect &plot = sec->area;
    const int top = sec->top(row) + 2, h = row.height - 4;
    const double lo = std::min(0.0, tc.minValue), hi = std::max(tc.maxValue, lo);
    auto height = [&](double v) { return hi > lo ? int(std::lround((v - lo) / (hi - lo) * h)) : 0; };
    const auto &ts = cs.ts;
    const size_t first = s.areas.size(); // this row's areas start here
    // The value at map.start() is the last sample at or before it.
    size_t i = size_t(std::upper_bound(ts.begin(), ts.end(), map.start()) - ts.begin());
    if (i > 0)
        --i;
    while (i < ts.size() && ts[i] <= map.end()) {
        const int l = plot.left() + int(std::floor(map.toPixelClamped(ts[i])));
        // Every sample in this pixel column: keep the largest (through the
        // block maxima when a column holds many).
        const TimeNs colEnd = map.toTime(l - plot.left() + 1);
        // The column's samples end at j: a galloping search from i, so a column
        // of k samples costs O(log k) reads near each other.
        size_t j = i + 1, step = 8;
        while (j + step < ts.size() && ts[j + step] < colEnd) {
            j += step;
            step *= 2;
        }
        j = size_t(std::lower_bound(ts.begin() + ptrdiff_t(j),
                                    ts.begin() + ptrdiff_t(std::min(ts.size(), j + step + 1)), colEnd) -
                   ts.begin());
        const double v = tc.maxOf(cs.value, i, j);
        const TimeNs until = j < ts.size() ? ts[j] : cs.ts.back();
        int r = j < ts.size() ? plot.left() + int(std::floor(map.toPixelClamped(until))) : l + 1;
        r = std::max(r, l + 1);
        const int bh = std::max(height(v), v != lo ? 1 : 0);
        if (bh > 0) {
            // A column as high as the one it touches extends it: fewer rects to fill.
            if (s.areas.size() > first && s.areas.back().right() + 1 == l && s.areas.back().height() == bh)
                s.areas.back().setRight(r - 1);
            else
                s.areas.emplace_back(l, top + h - bh, r - l, bh);
        }
        i = j;
    }
}

void CounterPass::paintBackground(QPainter &p, const FrameContext &ctx, const FrameSection &sec) const
{
    const auto [first, last] = sec.shownRows();
    for (size_t i = first; i < last; ++i) {
        const LayoutRow &r = (*sec.rows)[i];
        if (r.kind == LayoutRow::Kind::Counter)
            p.fillRect(QRect(ctx.plot.left(), sec.top(r), ctx.plot.width(), r.height),
                       palette::chrome::kCounterBackground);
    }
}

void CounterPass::paint(QPainter &p, const FrameContext &, const FrameSection *, const PassState &state) const
{
    const auto &s = stateAs<State>(state);
    if (s.areas.empty())
        return;
    p.setPen(Qt::NoPen);
    p.setBrush(palette::chrome::kCounterFill);
    p.drawRects(s.areas.data(), int(s.areas.size()));
}

} // namespace syncscope::ui
