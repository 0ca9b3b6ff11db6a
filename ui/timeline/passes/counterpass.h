#pragma once
// Counter rows: a step area per counter track, per pixel column the largest
// value that holds in it, so a short peak is never lost (min/max decimation,
// upper envelope), on a band of its own.
#include "timeline/passes/timelinepass.h"

namespace syncscope::ui {

class CounterPass final : public TimelinePass {
public:
    struct State final : PassState {
        std::vector<QRect> areas;
        void append(PassState &&part) override;
    };
    const char *name() const override { return "counters"; }
    std::unique_ptr<PassState> newState() const override { return std::make_unique<State>(); }
    void plan(const FrameContext &ctx, const FrameSection *sec, std::vector<PassWork> &work) const override;
    void prepare(const FrameContext &ctx, const FrameSection *sec, const PassWork &work,
                 PassState &state) const override;
    void paintBackground(QPainter &p, const FrameContext &ctx, const FrameSection &sec) const override;
    void paint(QPainter &p, const FrameContext &ctx, const FrameSection *sec,
               const PassState &state) const override;
};

} // namespace syncscope::ui
