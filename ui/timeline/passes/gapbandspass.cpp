#include "timeline/passes/gapbandspass.h"

#include "timeline/passes/boxes.h"
#include "timeline/timelinepalette.h"

#include <QPainter>

#include <cmath>

namespace syncscope::ui {

void GapBandsPass::State::append(PassState &&part) { appendAll(bands, stateAs<State>(part).bands); }

void GapBandsPass::prepare(const FrameContext &ctx, const FrameSection *sec, const PassWork &,
                           PassState &state) const
{
    auto &s = stateAs<State>(state);
    const TimeMapping &map = ctx.map;
    const TimeNs t0 = map.start(), t1 = map.end();
    const QRect &plot = sec->area;
    for (const TimelineFile &file : ctx.data.files()) {
        const auto &gaps = file.sync.syncGaps;
        for (const auto &dg : file.deviceGaps) {
            std::vector<std::pair<int, int>> ys;
            for (int ti : dg.tracks) {
                const TimelineLayout::Span sp = ctx.layout.spanOf(ti);
                if (sp.count == 0 || sp.pinned != sec->pinned)
                    continue;
                const LayoutRow &first = (*sec->rows)[size_t(sp.first)];
                const LayoutRow &last = (*sec->rows)[size_t(sp.first + sp.count - 1)];
                const int y0 = first.y, y1 = last.y + last.height;
                if (y1 > sec->scrollY && y0 < sec->scrollY + plot.height())
                    ys.emplace_back(plot.top() + y0 - sec->scrollY, y1 - y0);
            }
            if (ys.empty())
                continue;
            // Idle intervals never overlap, so ends are sorted as well.
            auto it = std::partition_point(dg.gaps.begin(), dg.gaps.end(),
                                           [&](uint32_t gi) { return gaps[gi].interval.end < t0; });
            int bandL = 0, bandR = INT32_MIN;
            auto flush = [&] {
                if (bandR == INT32_MIN)
                    return;
                for (auto [y, h] : ys)
                    s.bands.emplace_back(bandL, y, std::max(2, bandR - bandL), h);
            };
            while (it != dg.gaps.end() && gaps[*it].interval.start <= t1) {
                const Interval &iv = gaps[*it].interval;
                const int l = plot.left() + int(std::floor(map.toPixelClamped(iv.start)));
                const int r = plot.left() + int(std::ceil(map.toPixelClamped(iv.end)));
                if (l <= bandR + 1) {
                    bandR = std::max(bandR, r);
                } else {
                    flush();
                    bandL = l;
                    bandR = r;
                }
                const TimeNs after = map.toTime(bandR - plot.left() + 1);
                it = std::partition_point(it + 1, dg.gaps.end(),
                                          [&](uint32_t gi) { return gaps[gi].interval.end < after; });
            }
            flush();
        }
    }
}

void GapBandsPass::paint(QPainter &p, const FrameContext &, const FrameSection *, const PassState &state) const
{
    using namespace palette::chrome;
    const auto &s = stateAs<State>(state);
    if (s.bands.empty())
        return;
    p.setPen(Qt::NoPen);
    p.setBrush(kGapFill);
    p.drawRects(s.bands.data(), int(s.bands.size()));
    p.setBrush(QBrush(kGapHatch, Qt::BDiagPattern));
    p.drawRects(s.bands.data(), int(s.bands.size()));
    p.setPen(kGapEdge);
    for (const QRect &r : s.bands) {
        p.drawLine(r.topLeft(), r.bottomLeft());
        p.drawLine(r.topRight(), r.bottomRight());
    }
}

} // namespace syncscope::ui
