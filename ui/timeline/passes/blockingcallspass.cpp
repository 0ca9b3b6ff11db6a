#include "timeline/passes/blockingcallspass.h"

#include "timeline/passes/boxes.h"
#include "timeline/timelinepalette.h"

#include <QPainter>

#include <cmath>

namespace syncscope::ui {

void BlockingCallsPass::State::append(PassState &&part)
{
    auto &o = stateAs<State>(part);
    appendAll(gapCalls, o.gapCalls);
    appendAll(otherCalls, o.otherCalls);
}

void BlockingCallsPass::plan(const FrameContext &, const FrameSection *sec, std::vector<PassWork> &work) const
{
    const auto [first, last] = sec->shownRows();
    if (first < last) {
        const LayoutRow &r = (*sec->rows)[first];
        if (r.track >= 0 && r.depth > 0)
            work.push_back({&r});
    }
    for (size_t i = first; i < last; ++i) {
        const LayoutRow &r = (*sec->rows)[i];
        if ((r.kind == LayoutRow::Kind::Slices || r.kind == LayoutRow::Kind::Summary) && r.depth == 0)
            work.push_back({&r});
    }
}

void BlockingCallsPass::prepare(const FrameContext &ctx, const FrameSection *sec, const PassWork &work,
                                PassState &state) const
{
    // Per track, one list per kind, so a pixel column is visited once: after a
    // mark, jump to the first call starting past it (a sync per step of a long
    // run is thousands of calls at full zoom-out).
    auto &s = stateAs<State>(state);
    const int trackIndex = work.row->track;
    const TimelineTrack &tt = ctx.data.tracks()[size_t(trackIndex)];
    const TimelineFile &file = ctx.data.files()[tt.file];
    const auto &calls = file.sync.syncCalls;
    const TimelineLayout::Span sp = ctx.layout.spanOf(trackIndex);
    const QRect &plot = sec->area;
    const TimeMapping &map = ctx.map;
    const TimeNs t0 = map.start(), t1 = map.end();
    for (int kind = 0; kind < 2; ++kind) {
        const std::vector<uint32_t> &list = kind ? tt.gapCalls : tt.otherCalls;
        auto byStart = [&](uint32_t c, TimeNs t) { return calls[c].start < t; };
        auto it = std::lower_bound(list.begin(), list.end(), t0 - file.maxSyncCallDur, byStart);
        while (it != list.end() && calls[*it].start <= t1) {
            const SyncCall &c = calls[*it];
            if (c.end() < t0) {
                ++it;
                continue;
            }
            const int d = ctx.layout.shownDepth({trackIndex, c.event.index});
            const int row = sp.first + std::clamp(d, 0, sp.count - 1);
            const LayoutRow &r = (*sec->rows)[size_t(row)];
            int l = plot.left() + int(std::floor(map.toPixelClamped(c.start)));
            int rr = plot.left() + int(std::floor(map.toPixelClamped(c.end())));
            if (rr - l < 3) { // keep a blocking call visible however short
                l -= 1;
                rr = l + 3;
            }
            if (sec->visible(r))
                (kind ? s.gapCalls : s.otherCalls).emplace_back(l, sec->top(r), rr - l, r.height);
            it = std::lower_bound(it + 1, list.end(), map.toTime(rr - plot.left() + 1), byStart);
        }
    }
}

void BlockingCallsPass::paint(QPainter &p, const FrameContext &, const FrameSection *,
                              const PassState &state) const
{
    using namespace palette::chrome;
    const auto &s = stateAs<State>(state);
    if (!s.gapCalls.empty()) {
        p.setPen(QPen(kGapCallEdge, 2));
        p.setBrush(kGapCallFill);
        p.drawRects(s.gapCalls.data(), int(s.gapCalls.size()));
    }
    if (!s.otherCalls.empty()) {
        p.setPen(QPen(kOtherCallEdge, 1));
        p.setBrush(Qt::NoBrush);
        p.drawRects(s.otherCalls.data(), int(s.otherCalls.size()));
    }
}

} // namespace syncscope::ui
