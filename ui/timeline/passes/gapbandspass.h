#pragma once
// Sync gaps: a hatched band over every GPU track of the gap's device, neighbours
// closer than a pixel merged into one band.
#include "timeline/passes/timelinepass.h"

namespace syncscope::ui {

class GapBandsPass final : public TimelinePass {
public:
    struct State final : PassState {
        std::vector<QRect> bands;
        void append(PassState &&part) override;
    };
    const char *name() const override { return "sync gaps"; }
    Layer layer() const override { return Layer::OverRows; }
    std::unique_ptr<PassState> newState() const override { return std::make_unique<State>(); }
    void plan(const FrameContext &, const FrameSection *, std::vector<PassWork> &work) const override
    {
        work.push_back({}); // the whole section
    }
    void prepare(const FrameContext &ctx, const FrameSection *sec, const PassWork &work,
                 PassState &state) const override;
    void paint(QPainter &p, const FrameContext &ctx, const FrameSection *sec,
               const PassState &state) const override;
};

} // namespace syncscope::ui
