#pragma once
// Header rows (a rank of a job, a process): their band across the plot, so the
// tracks under them read as a group. A collapsed header's busy time is the
// summary pass's.
#include "timeline/passes/timelinepass.h"

namespace syncscope::ui {

class HeadersPass final : public TimelinePass {
public:
    struct State final : PassState {
        void append(PassState &&) override {}
    };
    const char *name() const override { return "headers"; }
    std::unique_ptr<PassState> newState() const override { return std::make_unique<State>(); }
    void plan(const FrameContext &, const FrameSection *, std::vector<PassWork> &) const override {}
    void prepare(const FrameContext &, const FrameSection *, const PassWork &, PassState &) const override {}
    void paintBackground(QPainter &p, const FrameContext &ctx, const FrameSection &sec) const override;
    void paint(QPainter &, const FrameContext &, const FrameSection *, const PassState &) const override {}
};

} // namespace syncscope::ui
