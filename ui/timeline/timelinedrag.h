#pragma once
// The Timeline's press, drag and release, apart from the widget: what a press
// starts from where it lands, when a press becomes a drag, and what a release
// ends. TimelineView hit-tests the press (Zone) and acts on the mode; this
// class decides, and is tested on its own (tst_timelinedrag).
#include <QPoint>

namespace syncscope::ui {

class TimelineDrag {
public:
    enum class Mode {
        None,         // nothing held, or a press that acted at once
        Pending,      // a press on the plot: a click until it moves
        Pan,          // the plot dragged
        Range,        // a time range dragged (Shift, or on the ruler)
        LabelPending, // a press on a name: a click until it moves
        Reorder,      // a name dragged to another place
        Resize,       // the name panel's edge dragged
        PinnedResize, // the band under the pinned rows dragged
    };
    // Where a left press landed, as the view hit-tests it.
    enum class Zone { Plot, Ruler, Labels, LabelEdge, PinnedHandle, Indicator, StepBand };

    // What a press in `zone` starts. The indicator and the step band act at
    // once and hold nothing.
    static Mode modeFor(Zone zone, bool shift)
    {
        switch (zone) {
        case Zone::PinnedHandle: return Mode::PinnedResize;
        case Zone::LabelEdge: return Mode::Resize;
        case Zone::Labels: return Mode::LabelPending;
        case Zone::Indicator:
        case Zone::StepBand: return Mode::None;
        case Zone::Ruler: return Mode::Range;
        case Zone::Plot: return shift ? Mode::Range : Mode::Pending;
        }
        return Mode::None;
    }

    void press(Zone zone, bool shift, QPoint pos)
    {
        m_mode = modeFor(zone, shift);
        m_press = m_last = pos;
    }
    // A move while held: a pending press that has moved `dragDistance` or more
    // (Manhattan) becomes a pan, a pending name a reorder. The mode after it.
    Mode move(QPoint pos, int dragDistance)
    {
        m_last = pos;
        if ((pos - m_press).manhattanLength() >= dragDistance) {
            if (m_mode == Mode::Pending)
                m_mode = Mode::Pan;
            else if (m_mode == Mode::LabelPending)
                m_mode = Mode::Reorder;
        }
        return m_mode;
    }
    // The release: the mode the gesture ended in; nothing is held after it.
    Mode release()
    {
        const Mode m = m_mode;
        m_mode = Mode::None;
        return m;
    }

    Mode mode() const { return m_mode; }
    bool held() const { return m_mode != Mode::None; }
    QPoint pressPos() const { return m_press; }
    QPoint lastPos() const { return m_last; } // where a reordered name would drop

private:
    Mode m_mode = Mode::None;
    QPoint m_press, m_last;
};

} // namespace syncscope::ui
