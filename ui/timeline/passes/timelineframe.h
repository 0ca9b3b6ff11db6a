#pragma once
// The prepared states of every render pass for one frame of a view, and the
// runs that prepare and paint them. The cached passes are prepared once per
// (range, size, scroll, layout), in one parallel batch on the row pool when
// there are many pieces (Tracy: each thread fills its own part, appended in
// order afterwards); the frame passes (the marks) at every paint.
#include "timeline/passes/timelinepass.h"

#include <array>
#include <memory>
#include <vector>

namespace syncscope::ui {

class TimelineFrame {
public:
    TimelineFrame();

    // Prepares every pass of `update` anew (the others keep their states).
    void prepare(const FrameContext &ctx, TimelinePass::Update update, const QFontMetrics &fm, NameCache &names);
    // Drops every prepared state.
    void clear();

    // Row backgrounds of both sections (under the grid).
    void paintBackgrounds(QPainter &p, const FrameContext &ctx) const;
    // The passes of `update` and `scope`, in order: each section pass clipped
    // to its section, each plot pass to the plot. The cached section passes
    // paint in layers: the Rows passes' boxes, their labels, the OverRows passes.
    void paint(QPainter &p, const FrameContext &ctx, TimelinePass::Update update, TimelinePass::Scope scope) const;

    // The state of the section pass whose state type is S (asserted to exist).
    template <class S> const S &state(bool pinned) const { return stateAs<S>(*find(&typeid(S), pinned ? 0 : 1)); }
    // The state of the plot pass whose state type is S.
    template <class S> const S &plotState() const { return stateAs<S>(*find(&typeid(S), 0)); }
    // Boxes and folded blocks drawn in a section, over every pass.
    size_t drawn(bool pinned) const;

private:
    // Per pass of timelinePasses(): [0] the pinned section or the plot, [1] the scrolled section.
    std::vector<std::array<std::unique_ptr<PassState>, 2>> m_states;
    const PassState *find(const std::type_info *type, size_t slot) const;
};

// Threads the cached passes may use (1: serial); 0, the default: the ideal
// thread count when it is 4 or more, else 1.
void setTimelineGeometryThreads(int threads);
int timelineGeometryThreads();

} // namespace syncscope::ui
