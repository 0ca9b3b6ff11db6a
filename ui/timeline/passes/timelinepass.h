#pragma once
// The timeline is drawn by render passes (Qt Creator's TimelineRenderPass,
// Tracy's prepare-then-draw): one per kind of row (headers, slices, summaries,
// counters) and per overlay (instants, sync-gap bands, blocking calls, find's
// matches, the marked gaps, the range, the selection with its flows).
//
// A pass plans its work for what is in view (a row, or a whole section),
// prepares each piece into a state of its own (on the row pool, for the passes
// that are cached with the geometry), and paints that state on the GUI thread.
// TimelineFrame (timelineframe.h) runs them; timelinePasses() lists them in
// paint order. A new kind of track or overlay is one more pass: a class in its
// own file and a line in passlist.cpp.
#include "timeline/timelinedata.h"
#include "timeline/timelinelayout.h"
#include "timeline/timemapping.h"

#include <QRect>

#include <memory>
#include <utility>
#include <vector>

class QFontMetrics;
class QPainter;

namespace syncscope::ui {

class NameCache;

// One section of rows as a frame shows it: the pinned rows, or the rows that
// scroll under them. Each section has its own y from 0.
struct FrameSection {
    bool pinned = false;
    const std::vector<LayoutRow> *rows = nullptr;
    QRect area;      // viewport rect; its width is the plot's
    int scrollY = 0; // the section y shown at area.top()

    bool visible(const LayoutRow &r) const { return r.y + r.height > scrollY && r.y < scrollY + area.height(); }
    int top(const LayoutRow &r) const { return area.top() + r.y - scrollY; }
    // The rows in view: [first, last).
    std::pair<size_t, size_t> shownRows() const;
};

// What the user marked on the tracks; the frame passes draw it every paint.
struct FrameMarks {
    TimelineEvent selected;
    const std::vector<std::pair<TimelineEvent, TimelineEvent>> *links = nullptr; // flows of the selection
    const std::vector<TimelineEvent> *selectedWith = nullptr;                    // selected together with it
    int highlightGap = -1;                        // index into data.gaps(), -1: none
    const std::vector<int> *markedGaps = nullptr; // indices into data.gaps()
    bool hasRange = false;
    TimeNs range0 = 0, range1 = 0;
    // Find: per file, per string id, 1 for a name to outline; null: none.
    const std::vector<std::vector<char>> *names = nullptr;
};

// Everything a pass may read: the data, the view's layout and time mapping,
// the plot and its two sections, and (frame passes only) the marks.
struct FrameContext {
    const TimelineData &data;
    const TimelineLayout &layout;
    const TimeMapping &map;
    QRect plot;
    FrameSection sections[2]; // [0] pinned, [1] scrolled
    const FrameMarks *marks = nullptr;

    const FrameSection &section(bool pinned) const { return sections[pinned ? 0 : 1]; }
    // Events shorter than this fold into runs (kFoldPixels).
    TimeNs foldNs() const;
    // Plot x of a time, clamped to a little outside the plot.
    int x(TimeNs t) const;
    // Viewport rect of an event's box; null when it is not drawn.
    QRect eventRect(const TimelineEvent &e) const;
};

// One piece of a pass's work: a row of a section (row set), a track's part of
// a row (track >= 0: a collapsed header's busy band, or a track whose first row
// is scrolled away), or the whole section or plot (row null).
struct PassWork {
    const LayoutRow *row = nullptr;
    int track = -1;
};

// What a pass prepared for one section (or the plot). Parts prepared on other
// threads are appended in the order of the work.
class PassState {
public:
    virtual ~PassState() = default;
    virtual void append(PassState &&part) = 0;
    // Boxes and folded blocks drawn (the level of detail's measure).
    virtual size_t drawn() const { return 0; }
};

class TimelinePass {
public:
    // Section: one state per section, painted clipped to it. Plot: one state
    // for the whole plot, painted clipped to the plot.
    enum class Scope : uint8_t { Section, Plot };
    // Cached: prepared with the geometry (a new range, size, scroll or layout),
    // on the row pool. EveryFrame: prepared at each paint on the GUI thread (the marks).
    enum class Update : uint8_t { Cached, EveryFrame };
    // Where a cached section pass paints: with the rows (their boxes, then,
    // once every row pass has painted, their labels), or over them.
    enum class Layer : uint8_t { Rows, OverRows };

    virtual ~TimelinePass() = default;
    virtual const char *name() const = 0;
    virtual Scope scope() const { return Scope::Section; }
    virtual Update update() const { return Update::Cached; }
    virtual Layer layer() const { return Layer::Rows; }
    virtual std::unique_ptr<PassState> newState() const = 0;

    // Appends the work of one section (sec) or of the plot (sec null, Plot scope).
    virtual void plan(const FrameContext &ctx, const FrameSection *sec, std::vector<PassWork> &work) const = 0;
    // Prepares one piece; may run on a pool thread (Cached), so it reads only ctx.
    virtual void prepare(const FrameContext &ctx, const FrameSection *sec, const PassWork &work,
                         PassState &state) const = 0;
    // After every piece, on the GUI thread (fonts, the name cache).
    virtual void finish(const FrameContext &, const FrameSection *, const QFontMetrics &, NameCache &,
                        PassState &) const
    {
    }
    // Row backgrounds, painted under the grid (clipped to the section).
    virtual void paintBackground(QPainter &, const FrameContext &, const FrameSection &) const {}
    // Text over the rows' boxes: after every Rows pass's paint, before the OverRows passes.
    virtual void paintLabels(QPainter &, const FrameContext &, const FrameSection &, const PassState &) const {}
    virtual void paint(QPainter &p, const FrameContext &ctx, const FrameSection *sec,
                       const PassState &state) const = 0;
};

// Every pass, in paint order (passlist.cpp).
const std::vector<const TimelinePass *> &timelinePasses();

// Plans one piece per row in view that `wants`.
template <class Wants> void planShownRows(const FrameSection &sec, std::vector<PassWork> &work, Wants wants)
{
    const auto [first, last] = sec.shownRows();
    for (size_t i = first; i < last; ++i)
        if (wants((*sec.rows)[i]))
            work.push_back({&(*sec.rows)[i]});
}

// The state type of a pass, checked.
template <class S> S &stateAs(PassState &s) { return static_cast<S &>(s); }
template <class S> const S &stateAs(const PassState &s) { return static_cast<const S &>(s); }

} // namespace syncscope::ui
