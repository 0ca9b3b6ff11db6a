#include "timeline/passes/summarypass.h"

namespace syncscope::ui {

void SummaryPass::plan(const FrameContext &ctx, const FrameSection *sec, std::vector<PassWork> &work) const
{
    const TimelineData &data = ctx.data;
    const TimelineLayout &layout = ctx.layout;
    const auto [first, last] = sec->shownRows();
    for (size_t i = first; i < last; ++i) {
        const LayoutRow &row = (*sec->rows)[i];
        if (row.kind == LayoutRow::Kind::Summary) {
            work.push_back({&row});
        } else if (row.kind == LayoutRow::Kind::GroupHeader && layout.groupCollapsed(row.group)) {
            for (int t : data.groups()[size_t(row.group)].tracks)
                if (layout.trackPinned(t) == sec->pinned)
                    work.push_back({&row, t});
        } else if (row.kind == LayoutRow::Kind::RankHeader && layout.fileCollapsed(row.file)) {
            // A collapsed rank: the busy time of its GPU tracks (of its threads
            // when it has none), wherever they are pinned.
            bool anyGpu = false;
            for (const TimelineGroup &g : data.groups())
                if (int(g.file) == row.file)
                    for (int t : g.tracks)
                        anyGpu = anyGpu || data.tracks()[size_t(t)].gpu;
            for (const TimelineGroup &g : data.groups())
                if (int(g.file) == row.file)
                    for (int t : g.tracks)
                        if (data.tracks()[size_t(t)].gpu == anyGpu)
                            work.push_back({&row, t});
        }
    }
}

void SummaryPass::prepare(const FrameContext &ctx, const FrameSection *sec, const PassWork &work,
                          PassState &state) const
{
    auto &s = stateAs<State>(state);
    const LayoutRow &row = *work.row;
    RowBuilder rb{ctx.map, sec->area, s.boxes};
    // A header's band sits inside it; a summary row fills its row as slices do.
    const int track = work.track >= 0 ? work.track : row.track;
    const bool header = work.track >= 0;
    rb.top = sec->top(row) + (header ? 3 : 1);
    rb.height = row.height - (header ? 6 : 2);
    // The union of the top-level events is the busy time.
    const auto &levels = ctx.data.tracks()[size_t(track)].levels;
    const int depth = header ? 0 : row.depth;
    if (depth < int(levels.size()))
        buildLevel(ctx.data, track, levels[size_t(depth)], rb, ctx.foldNs(), true);
}

} // namespace syncscope::ui
