#pragma once
// Level of detail for the rows of events, shared by the slices and summary
// passes (Qt Creator's timeline renderer, Tracy's folding):
//  - an event at least 3 px wide is a box of its category colour, named if it fits;
//  - a run of narrower events, and the gaps under 3 px between them, fold into
//    one block coloured by the widest event of the run, so sub-pixel events
//    merge and the longest one's colour wins;
//  - runs are found by binary search on sorted ends, so the cost is
//    O(visible rows * pixels * log n), whatever the number of events;
//  - rectangles are batched per colour and drawn with one drawRects call each.
#include "timeline/timelinedata.h"
#include "timeline/timelinepalette.h"
#include "timeline/timemapping.h"

#include <QFontMetrics>
#include <QRect>
#include <QString>

#include <array>
#include <string_view>
#include <unordered_map>
#include <vector>

class QPainter;

namespace syncscope::ui {

// Pixels under which events fold into runs.
constexpr double kFoldPixels = 3.0;

// An event name as drawn: at most kMaxLabelBytes of its UTF-8 (cut at a
// character boundary, with an ellipsis), so that a name of 100 MB is neither
// converted nor shaped whole. No label is wider than a screen anyway.
constexpr size_t kMaxLabelBytes = 1024;
QString labelText(std::string_view utf8);

// Names converted and measured once per string, not once per frame.
class NameCache {
public:
    struct Entry {
        QString text;
        int width = 0;
    };
    const Entry &get(const TimelineData &data, uint32_t file, StrId id, const QFontMetrics &fm);
    void clear() { m_entries.clear(); }

private:
    std::unordered_map<uint64_t, Entry> m_entries;
};

// Boxes batched by palette colour, with the count of what was drawn.
struct BoxBatches {
    std::array<std::vector<QRect>, palette::kColorCount> byColor;
    size_t count = 0; // boxes and folded blocks
    size_t foldedRuns = 0;
    size_t foldedEvents = 0;

    void append(BoxBatches &&part);
    void paint(QPainter &p) const; // one drawRects per colour
};

// A name drawn in a box.
struct BoxLabel {
    QRect rect;
    QString text;
    bool dark = true;
};

// A label found while preparing on a pool thread, named on the GUI thread
// (fonts and the name cache are not shared with the pool).
struct PendingLabel {
    QRect rect;
    uint32_t file = 0;
    StrId name = kNoStr; // kNoStr: a folded run of `count` events
    uint32_t count = 0;
    int color = 0;
};

// Fills the boxes of one row, [top, top + height) in viewport y.
struct RowBuilder {
    const TimeMapping &map;
    const QRect &plot;
    BoxBatches &boxes;
    std::vector<PendingLabel> *pending = nullptr; // null: no names (summaries)
    int top = 0, height = 0;
    int lastColor = -1;
    size_t lastIndex = 0;
    int lastRight = INT32_MIN;

    // Pixel column range of [s, e): always at least one pixel.
    std::pair<int, int> columns(TimeNs s, TimeNs e) const;
    // Returns the columns this event covers: the rect added, or, where it
    // extended the previous box (same colour, same pixel column), its own part
    // of that box, so that a long event after a tiny one keeps its label.
    QRect add(int color, int l, int r, bool gapAfter);
    void label(const QRect &r, uint32_t file, StrId name, uint32_t count, int color);
};

// One level of a track's events. busy: a collapsed thread's busy time, one
// colour and no names.
void buildLevel(const TimelineData &data, int trackIndex, const TimelineLevel &lvl, RowBuilder &rb, TimeNs foldNs,
                bool busy);

// Names the pending labels: fits each name in its box.
void resolveLabels(const TimelineData &data, const QRect &plot, const QFontMetrics &fm, NameCache &names,
                   std::vector<PendingLabel> &pending, std::vector<BoxLabel> &out);

// Appends a vector to another.
template <class T> void appendAll(std::vector<T> &to, std::vector<T> &from)
{
    if (to.empty())
        to = std::move(from);
    else
        to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
    from.clear();
}

} // namespace syncscope::ui
