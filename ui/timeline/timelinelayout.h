#pragma once
// What the user did to the tracks of one view, and the rows that follows from
// it: collapse (rank, process, thread), a maximum depth per thread, Python
// frames shown or hidden, pins, and the order of processes and threads.
// TimelineData is immutable and shared; this is per view and cheap to rebuild
// (O(tracks + rows), never O(events)).
//
// Two sections: the pinned rows stay at the top of the plot, the other rows
// scroll under them. Each section has its own y from 0.
#include "timeline/timelinedata.h"

#include <vector>

namespace syncscope::ui {

struct LayoutRow {
    enum class Kind : uint8_t {
        RankHeader,  // file: a rank of a multi-file job
        GroupHeader, // group: a process
        Slices,      // track, depth: one level of a thread's events
        Summary,     // track: a collapsed thread, its busy time in one band
        Counter,     // counter: a step-area counter track
    };
    Kind kind = Kind::Slices;
    int file = -1;
    int group = -1;
    int track = -1;
    int counter = -1;
    int depth = 0;
    int y = 0;
    int height = 0;
    bool header() const { return kind == Kind::RankHeader || kind == Kind::GroupHeader; }
};

class TimelineLayout {
public:
    static constexpr int kCounterHeight = 2 * TimelineData::kRowHeight;

    // Default state for these data: everything expanded, the tracks of GPU
    // devices pinned,
    // Python frames hidden when the job has any.
    void reset(const TimelineData *data);
    // New data of the same trace (a re-analysis: the same tracks and groups):
    // keeps what the user did. Falls back to reset() when the shapes differ.
    void adopt(const TimelineData *data);
    const TimelineData *data() const { return m_data; }

    bool fileCollapsed(int file) const { return m_fileCollapsed[size_t(file)] != 0; }
    bool groupCollapsed(int group) const { return m_groupCollapsed[size_t(group)] != 0; }
    bool trackCollapsed(int track) const { return m_track[size_t(track)].collapsed; }
    bool trackPinned(int track) const { return m_track[size_t(track)].pinned; }
    // 0: every depth.
    int maxDepth(int track) const { return m_track[size_t(track)].maxDepth; }
    bool showPython() const { return m_showPython; }

    void setFileCollapsed(int file, bool on);
    void setGroupCollapsed(int group, bool on);
    void setTrackCollapsed(int track, bool on);
    void setTrackPinned(int track, bool on);
    void setMaxDepth(int track, int depth);
    void setShowPython(bool on);
    void setAllCollapsed(bool on); // every rank, process and thread

    // Display order: groups per file, tracks per group (indices into data).
    const std::vector<int> &groupOrder() const { return m_groupOrder; }
    const std::vector<int> &trackOrder(int group) const { return m_trackOrder[size_t(group)]; }
    // Moves a track before another of the same process (before = -1: last).
    bool moveTrack(int track, int before);
    // Moves a process before another of the same file (before = -1: last).
    bool moveGroup(int group, int before);

    const std::vector<LayoutRow> &pinnedRows() const { return m_pinned; }
    const std::vector<LayoutRow> &rows() const { return m_rows; }
    int pinnedHeight() const { return m_pinnedHeight; }
    int totalHeight() const { return m_totalHeight; }

    // Index of the row of a section at y (section coordinates), or -1.
    static int rowAt(const std::vector<LayoutRow> &rows, int y);

    // The levels drawn for a track (without Python frames when they are hidden).
    const std::vector<TimelineLevel> &levels(int track) const;
    // The shown depth of an event, or -1 when it is hidden (Python frame).
    int shownDepth(const TimelineEvent &e) const;
    // Where an event is drawn: the row (in pinned() ? pinnedRows : rows), or
    // row -1 when it is not drawn (hidden frame, collapsed process or rank).
    struct Place {
        bool pinned = false;
        int row = -1;
    };
    Place placeOf(const TimelineEvent &e) const;
    // The rows of a track in its section: [first, first + count); count 0 when
    // the track is not shown.
    struct Span {
        bool pinned = false;
        int first = -1;
        int count = 0;
    };
    Span spanOf(int track) const { return m_span[size_t(track)]; }
    // Shown rows of a track: its levels, capped by maxDepth, 1 when collapsed.
    int shownRowCount(int track) const;

private:
    struct TrackState {
        bool collapsed = false;
        bool pinned = false;
        int maxDepth = 0;
    };
    void rebuild();
    void addTrack(std::vector<LayoutRow> &rows, int &y, int track);

    const TimelineData *m_data = nullptr;
    std::vector<char> m_fileCollapsed, m_groupCollapsed;
    std::vector<TrackState> m_track;
    bool m_showPython = true;
    std::vector<int> m_groupOrder;
    std::vector<std::vector<int>> m_trackOrder;
    std::vector<LayoutRow> m_pinned, m_rows;
    std::vector<Span> m_span;
    int m_pinnedHeight = 0, m_totalHeight = 0;
};

} // namespace syncscope::ui
