#include "timeline/passes/slicespass.h"

#include <QPainter>

namespace syncscope::ui {

void SlicesPass::State::append(PassState &&part)
{
    auto &o = stateAs<State>(part);
    boxes.append(std::move(o.boxes));
    appendAll(pending, o.pending);
    appendAll(labels, o.labels);
}

void SlicesPass::plan(const FrameContext &, const FrameSection *sec, std::vector<PassWork> &work) const
{
    planShownRows(*sec, work, [](const LayoutRow &r) { return r.kind == LayoutRow::Kind::Slices; });
}

void SlicesPass::prepare(const FrameContext &ctx, const FrameSection *sec, const PassWork &work,
                         PassState &state) const
{
    auto &s = stateAs<State>(state);
    const LayoutRow &row = *work.row;
    RowBuilder rb{ctx.map, sec->area, s.boxes, &s.pending};
    rb.top = sec->top(row) + 1;
    rb.height = row.height - 2;
    const auto &levels = ctx.layout.levels(row.track);
    if (row.depth < int(levels.size()))
        buildLevel(ctx.data, row.track, levels[size_t(row.depth)], rb, ctx.foldNs(), false);
}

void SlicesPass::finish(const FrameContext &ctx, const FrameSection *sec, const QFontMetrics &fm, NameCache &names,
                        PassState &state) const
{
    auto &s = stateAs<State>(state);
    resolveLabels(ctx.data, sec->area, fm, names, s.pending, s.labels);
}

void SlicesPass::paint(QPainter &p, const FrameContext &, const FrameSection *, const PassState &state) const
{
    stateAs<State>(state).boxes.paint(p);
}

void SlicesPass::paintLabels(QPainter &p, const FrameContext &, const FrameSection &, const PassState &state) const
{
    const auto &s = stateAs<State>(state);
    for (const BoxLabel &label : s.labels) {
        p.setPen(label.dark ? palette::chrome::kLabelDark : palette::chrome::kLabelLight);
        p.drawText(label.rect, Qt::AlignVCenter | Qt::AlignLeft | Qt::TextSingleLine, label.text);
    }
}

} // namespace syncscope::ui
