#pragma once
// Level of detail for the timeline, built once per (range, size, scroll) and
// replayed by paintEvent (Qt Creator's timeline renderer):
//  - an event at least 3 px wide is a box of its category colour, named if it fits;
//  - a run of narrower events, and the gaps under 3 px between them, fold into
//    one block (Tracy) coloured by the widest event of the run, so sub-pixel
//    events merge and the longest one's colour wins;
//  - runs are found by binary search on sorted ends, so the cost is
//    O(visible rows * pixels * log n), whatever the number of events;
//  - rectangles are batched per colour and drawn with one drawRects call each.
#include "timeline/timelinedata.h"
#include "timeline/timelinelayout.h"
#include "timeline/timelinepalette.h"
#include "timeline/timemapping.h"

#include <QFontMetrics>
#include <QRect>
#include <QString>

#include <array>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace syncscope::ui {

struct TimelineGeometry {
    std::array<std::vector<QRect>, palette::kColorCount> boxes;
    struct Label {
        QRect rect;
        QString text;
        bool dark = true;
    };
    std::vector<Label> labels;
    // A label found by a row builder, named on the GUI thread (fonts and the
    // name cache are not shared with the builders).
    struct PendingLabel {
        QRect rect;
        uint32_t file = 0;
        StrId name = kNoStr; // kNoStr: a folded run of `count` events
        uint32_t count = 0;
        int color = 0;
    };
    std::vector<PendingLabel> pending;
    std::vector<QRect> counterAreas; // step areas of counter tracks
    std::vector<QRect> gapBands;   // sync gaps over the GPU tracks of their device
    std::vector<QRect> gapCalls;   // blocking calls that caused a gap
    std::vector<QRect> otherCalls; // blocking calls with no gap
    size_t boxCount = 0;           // boxes and folded blocks drawn
    size_t foldedRuns = 0;
    size_t foldedEvents = 0;

    void clear();
    // Appends another part (built on another thread for other rows).
    void append(TimelineGeometry &&part);
};

// Names converted and measured once per string, not once per frame.
// An event name as drawn: at most kMaxLabelBytes of its UTF-8 (cut at a
// character boundary, with an ellipsis), so that a name of 100 MB is neither
// converted nor shaped whole. No label is wider than a screen anyway.
constexpr size_t kMaxLabelBytes = 1024;
QString labelText(std::string_view utf8);

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

// One section of rows (the pinned ones, or the scrolling ones) drawn in area
// (viewport coordinates; its width is the plot's); scrollY: the section y shown
// at area.top(). The rows of a frame are built in parallel when there are many
// (Tracy): each thread fills its own part, merged afterwards.
void buildTimelineGeometry(const TimelineData &data, const TimelineLayout &layout, bool pinned,
                           const TimeMapping &map, const QRect &area, int scrollY,
                           const QFontMetrics &fm, NameCache &names, TimelineGeometry &out);
// Several sections in one parallel batch: the pinned and the scrolled rows.
struct GeometrySection {
    bool pinned = false;
    QRect area;
    int scrollY = 0;
    TimelineGeometry *out = nullptr;
};
void buildTimelineGeometry(const TimelineData &data, const TimelineLayout &layout, const TimeMapping &map,
                           const std::vector<GeometrySection> &sections, const QFontMetrics &fm,
                           NameCache &names);
// Threads the row builders may use (1: serial); 0, the default: the ideal
// thread count when it is 4 or more, else 1.
void setTimelineGeometryThreads(int threads);
int timelineGeometryThreads();

// Pixels under which events fold into runs.
constexpr double kFoldPixels = 3.0;

} // namespace syncscope::ui
