#pragma once
// Instant events: a small mark at the top of their thread's first row, at
// most one per two pixels; global instants ("s": "g") as a dashed line across
// every track, one per pixel column.
#include "timeline/passes/timelinepass.h"

namespace syncscope::ui {

class InstantsPass final : public TimelinePass {
public:
    struct State final : PassState {
        std::vector<QRect> marks;
        void append(PassState &&part) override;
    };
    const char *name() const override { return "instants"; }
    std::unique_ptr<PassState> newState() const override { return std::make_unique<State>(); }
    void plan(const FrameContext &ctx, const FrameSection *sec, std::vector<PassWork> &work) const override;
    void prepare(const FrameContext &ctx, const FrameSection *sec, const PassWork &work,
                 PassState &state) const override;
    void paint(QPainter &p, const FrameContext &ctx, const FrameSection *sec,
               const PassState &state) const override;
};

class GlobalInstantsPass final : public TimelinePass {
public:
    struct State final : PassState {
        std::vector<int> xs; // viewport x of each line
        void append(PassState &&part) override;
    };
    const char *name() const override { return "global instants"; }
    Scope scope() const override { return Scope::Plot; }
    std::unique_ptr<PassState> newState() const override { return std::make_unique<State>(); }
    void plan(const FrameContext &ctx, const FrameSection *sec, std::vector<PassWork> &work) const override;
    void prepare(const FrameContext &ctx, const FrameSection *sec, const PassWork &work,
                 PassState &state) const override;
    void paint(QPainter &p, const FrameContext &ctx, const FrameSection *sec,
               const PassState &state) const override;
};

} // namespace syncscope::ui
