#include "timeline/passes/findpass.h"

#include "timeline/passes/boxes.h"
#include "timeline/timelinepalette.h"

#include <QPainter>

#include <cmath>

namespace syncscope::ui {

void FindPass::State::append(PassState &&part)
{
    auto &o = stateAs<State>(part);
    pinnedCount += o.pinnedCount;
    appendAll(rects, o.rects);
}

void FindPass::plan(const FrameContext &ctx, const FrameSection *, std::vector<PassWork> &work) const
{
    if (ctx.marks && ctx.marks->names)
        work.push_back({});
}

void FindPass::prepare(const FrameContext &ctx, const FrameSection *, const PassWork &, PassState &state) const
{
    auto &s = stateAs<State>(state);
    const auto &mask = *ctx.marks->names;
    const TimelineData &data = ctx.data;
    const TimeMapping &map = ctx.map;
    // An event narrower than this is folded into its neighbours by the level of
    // detail: nothing to outline.
    const TimeNs minDur = std::max<TimeNs>(1, TimeNs(std::ceil(2 * map.nsPerPixel())));
    const TimeNs t0 = map.start(), t1 = map.end();
    // The rows as drawn: levels as shown (Python frames hidden or not),
    // collapsed threads (summary rows) and capped depths left out.
    auto outline = [&](const FrameSection &sec) {
        const QRect &clip = sec.area;
        for (const LayoutRow &r : *sec.rows) {
            if (s.rects.size() >= size_t(kMaxOutlines))
                return;
            const int top = sec.top(r);
            if (r.kind != LayoutRow::Kind::Slices || r.track < 0 || top + r.height <= clip.top() ||
                top > clip.bottom())
                continue;
            const TimelineTrack &tt = data.tracks()[size_t(r.track)];
            const auto &levels = ctx.layout.levels(r.track);
            if (r.depth < 0 || r.depth >= int(levels.size()) || tt.file >= mask.size())
                continue;
            const auto &names = mask[tt.file];
            const TimelineLevel &lvl = levels[size_t(r.depth)];
            const Track &mt = data.modelTrack(r.track);
            const size_t n = lvl.events.size();
            size_t pos = TimelineData::firstEndingAtOrAfter(mt, lvl, 0, t0);
            const int y = top + 1;
            while (pos < n && s.rects.size() < size_t(kMaxOutlines) && mt.start[lvl.events[pos]] <= t1) {
                if (pos % 4096 == 0 && pos + 4096 <= n && mt.dur[lvl.events[lvl.widest4k[pos / 4096]]] < minDur) {
                    pos += 4096;
                    continue;
                }
                if (pos % 64 == 0 && pos + 64 <= n && mt.dur[lvl.events[lvl.widest64[pos / 64]]] < minDur) {
                    pos += 64;
                    continue;
                }
                const uint32_t e = lvl.events[pos++];
                if (mt.dur[e] < minDur || mt.name[e] >= names.size() || !names[mt.name[e]])
                    continue;
                const int l = ctx.x(mt.start[e]);
                const int rr = ctx.x(mt.end(e));
                s.rects.push_back(QRect(l, y, std::max(1, rr - l), r.height - 2).adjusted(-1, -1, 1, 1));
            }
        }
    };
    if (ctx.section(true).area.height() > 0)
        outline(ctx.section(true));
    s.pinnedCount = s.rects.size();
    outline(ctx.section(false));
}

void FindPass::paint(QPainter &p, const FrameContext &ctx, const FrameSection *, const PassState &state) const
{
    const auto &s = stateAs<State>(state);
    if (s.rects.empty())
        return;
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(palette::chrome::kFindOutline, 2));
    p.setClipRect(ctx.section(true).area);
    p.drawRects(s.rects.data(), int(s.pinnedCount));
    p.setClipRect(ctx.section(false).area);
    p.drawRects(s.rects.data() + s.pinnedCount, int(s.rects.size() - s.pinnedCount));
}

} // namespace syncscope::ui
