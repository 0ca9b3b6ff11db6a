// TimelineView's outlines of find's matches: the names to outline; the find
// pass (passes/findpass.h) draws them.
#include "timeline/timelineview.h"

#include "timeline/passes/findpass.h"

namespace syncscope::ui {

void TimelineView::setHighlightedNames(std::shared_ptr<const std::vector<std::vector<char>>> mask)
{
    m_highlightNames = std::move(mask);
    viewport()->update();
}

std::vector<QRect> TimelineView::highlightRects() const { return m_frame.plotState<FindPass::State>().rects; }

int TimelineView::highlightsPainted() const { return int(m_frame.plotState<FindPass::State>().rects.size()); }

} // namespace syncscope::ui
