#pragma once
// Slice rows: one level of a thread's or stream's events, as boxes of their
// category colour with their names, narrow events folded into runs (boxes.h).
#include "timeline/passes/boxes.h"
#include "timeline/passes/timelinepass.h"

namespace syncscope::ui {

class SlicesPass final : public TimelinePass {
public:
    struct State final : PassState {
        BoxBatches boxes;
        std::vector<PendingLabel> pending; // named in finish()
        std::vector<BoxLabel> labels;
        void append(PassState &&part) override;
        size_t drawn() const override { return boxes.count; }
    };
    const char *name() const override { return "slices"; }
    std::unique_ptr<PassState> newState() const override { return std::make_unique<State>(); }
    void plan(const FrameContext &ctx, const FrameSection *sec, std::vector<PassWork> &work) const override;
    void prepare(const FrameContext &ctx, const FrameSection *sec, const PassWork &work,
                 PassState &state) const override;
    void finish(const FrameContext &ctx, const FrameSection *sec, const QFontMetrics &fm, NameCache &names,
                PassState &state) const override;
    void paint(QPainter &p, const FrameContext &ctx, const FrameSection *sec,
               const PassState &state) const override;
    void paintLabels(QPainter &p, const FrameContext &ctx, const FrameSection &sec,
                     const PassState &state) const override;
};

} // namespace syncscope::ui
