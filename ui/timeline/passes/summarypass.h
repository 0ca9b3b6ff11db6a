#pragma once
// Busy time where the events are not shown one by one: a collapsed thread's
// summary row (the union of its top-level events), a collapsed process's
// header (its threads' busy time) and a collapsed rank's header (that of its
// GPU streams, else of its threads), in one colour.
#include "timeline/passes/boxes.h"
#include "timeline/passes/timelinepass.h"

namespace syncscope::ui {

class SummaryPass final : public TimelinePass {
public:
    struct State final : PassState {
        BoxBatches boxes; // all in palette::kBusyColor
        const std::vector<QRect> &busy() const { return boxes.byColor[palette::kBusyColor]; }
        void append(PassState &&part) override { boxes.append(std::move(stateAs<State>(part).boxes)); }
        size_t drawn() const override { return boxes.count; }
    };
    const char *name() const override { return "summary"; }
    std::unique_ptr<PassState> newState() const override { return std::make_unique<State>(); }
    void plan(const FrameContext &ctx, const FrameSection *sec, std::vector<PassWork> &work) const override;
    void prepare(const FrameContext &ctx, const FrameSection *sec, const PassWork &work,
                 PassState &state) const override;
    void paint(QPainter &p, const FrameContext &, const FrameSection *, const PassState &state) const override
    {
        stateAs<State>(state).boxes.paint(p);
    }
};

} // namespace syncscope::ui
