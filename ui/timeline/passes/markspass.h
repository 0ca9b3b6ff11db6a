#pragma once
// The marks the user set on the tracks, drawn over them at every paint:
//  - GapMarksPass: the gaps of one sync source (solid outlines) and the gap
//    shown in the details (dashed), over every GPU track of its device;
//  - RangePass: the range selection across the plot;
//  - SelectionPass: the selected event's halo (and that of the events
//    selected with it), the events its flows link it to, and an arrow along
//    each flow.
#include "timeline/passes/timelinepass.h"

namespace syncscope::ui {

// An outline clipped to the section it belongs to.
struct ClippedRect {
    QRect clip, rect;
};

class GapMarksPass final : public TimelinePass {
public:
    struct State final : PassState {
        std::vector<ClippedRect> marked;  // the gaps of a sync source
        std::vector<ClippedRect> current; // the gap shown in the details
        void append(PassState &&part) override;
    };
    const char *name() const override { return "marked gaps"; }
    Scope scope() const override { return Scope::Plot; }
    Update update() const override { return Update::EveryFrame; }
    std::unique_ptr<PassState> newState() const override { return std::make_unique<State>(); }
    void plan(const FrameContext &ctx, const FrameSection *sec, std::vector<PassWork> &work) const override;
    void prepare(const FrameContext &ctx, const FrameSection *sec, const PassWork &work,
                 PassState &state) const override;
    void paint(QPainter &p, const FrameContext &ctx, const FrameSection *sec,
               const PassState &state) const override;
};

class RangePass final : public TimelinePass {
public:
    struct State final : PassState {
        bool shown = false;
        int left = 0, right = 0; // viewport x of its edges
        void append(PassState &&part) override;
    };
    const char *name() const override { return "range"; }
    Scope scope() const override { return Scope::Plot; }
    Update update() const override { return Update::EveryFrame; }
    std::unique_ptr<PassState> newState() const override { return std::make_unique<State>(); }
    void plan(const FrameContext &ctx, const FrameSection *sec, std::vector<PassWork> &work) const override;
    void prepare(const FrameContext &ctx, const FrameSection *sec, const PassWork &work,
                 PassState &state) const override;
    void paint(QPainter &p, const FrameContext &ctx, const FrameSection *sec,
               const PassState &state) const override;
};

class SelectionPass final : public TimelinePass {
public:
    struct State final : PassState {
        struct Link {
            ClippedRect other; // the flow's other end
            QRect from, to;    // the arrow's ends, when both are drawn (else null)
        };
        std::vector<Link> links;
        bool hasSelected = false;
        ClippedRect selected;
        std::vector<ClippedRect> with; // the events selected with it
        void append(PassState &&part) override;
    };
    const char *name() const override { return "selection"; }
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
