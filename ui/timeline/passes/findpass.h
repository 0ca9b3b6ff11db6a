#pragma once
// Find's matches: an outline round every matching event in view that is wide
// enough to see, on the rows in view (the pinned ones first). Blocks of events
// narrower than that are skipped through the level's widest-per-block index,
// so a zoomed-out frame of millions of events costs a few thousand look-ups
// per row.
#include "timeline/passes/timelinepass.h"

namespace syncscope::ui {

class FindPass final : public TimelinePass {
public:
    static constexpr int kMaxOutlines = 5000; // beyond this the outlines are a solid wall anyway
    struct State final : PassState {
        std::vector<QRect> rects; // viewport coordinates, the pinned section's first
        size_t pinnedCount = 0;   // how many of them are in the pinned section
        void append(PassState &&part) override;
    };
    const char *name() const override { return "find"; }
    Scope scope() const override { return Scope::Plot; }
    Update update() const override { return Update::EveryFrame; }
    std::unique_ptr<PassState> newState() const override { return std::make_unique<State>(); }
    void plan(const FrameContext &ctx, const FrameSection *sec, std::vector<PassWork> &work) const override;
    void prepare(const FrameContext &ctx, const FrameSection *sec, const PassWork &work,
                 PassState &state) const override;
    void paint(QPainter &p, const FrameContext &ctx, const FrameSection *sec,
               const PassState &state) const override;
};

} // namespace syncscope::ui
