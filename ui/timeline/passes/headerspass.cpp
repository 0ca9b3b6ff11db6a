#include "timeline/passes/headerspass.h"

#include "timeline/timelinepalette.h"

#include <QPainter>

namespace syncscope::ui {

void HeadersPass::paintBackground(QPainter &p, const FrameContext &ctx, const FrameSection &sec) const
{
    const auto [first, last] = sec.shownRows();
    for (size_t i = first; i < last; ++i) {
        const LayoutRow &r = (*sec.rows)[i];
        if (r.header())
            p.fillRect(QRect(ctx.plot.left(), sec.top(r), ctx.plot.width(), r.height),
                       r.kind == LayoutRow::Kind::RankHeader ? palette::chrome::kRankBackground
                                                             : palette::chrome::kHeaderBackground);
    }
}

} // namespace syncscope::ui
