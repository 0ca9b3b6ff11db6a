#pragma once
// Blocking calls on their CPU thread: filled and outlined where the call
// caused a sync gap, outlined where it did not. A call below the depth cap, or
// under a collapsed thread, shows on the track's last shown row: a blocking
// call never disappears.
#include "timeline/passes/timelinepass.h"

namespace syncscope::ui {

class BlockingCallsPass final : public TimelinePass {
public:
    struct State final : PassState {
        std::vector<QRect> gapCalls;   // calls that caused a gap
        std::vector<QRect> otherCalls; // calls with no gap
        void append(PassState &&part) override;
    };
    const char *name() const override { return "blocking calls"; }
    Layer layer() const override { return Layer::OverRows; }
    std::unique_ptr<PassState> newState() const override { return std::make_unique<State>(); }
    // Once per track: on its first row, or on the first row in view when the
    // track's first row is scrolled away.
    void plan(const FrameContext &ctx, const FrameSection *sec, std::vector<PassWork> &work) const override;
    void prepare(const FrameContext &ctx, const FrameSection *sec, const PassWork &work,
                 PassState &state) const override;
    void paint(QPainter &p, const FrameContext &ctx, const FrameSection *sec,
               const PassState &state) const override;
};

} // namespace syncscope::ui
