#pragma once
// The timeline widget: tracks grouped by rank and process, a time ruler, event
// boxes with level of detail, sync-gap bands, selection with flow arrows and a
// range selection. Controls (Perfetto's keys):
//   wheel / pinch / W S   zoom around the cursor      A D / drag   pan
//   Shift+wheel           pan                         Alt+wheel    scroll tracks
//   click                 select an event             double-click zoom to it
//   Shift+drag, or drag on the ruler                  range selection
//   click on the step band (under the ruler)          zoom to that step
//   F                     zoom to selection           Esc          clear selection
//   P                     show or hide Python frames
// Tracks (timelineviewtracks.cpp): click a process, rank or thread name to
// collapse or expand it, drag a name to reorder, drag the panel's edge to
// resize it; the context menu pins, caps the depth, collapses or expands all.
#include "timeline/timelinedata.h"
#include "timeline/timelinedrag.h"
#include "timeline/passes/boxes.h"
#include "timeline/passes/timelineframe.h"
#include "timeline/timelinelayout.h"
#include "timeline/timemapping.h"

#include <QAbstractScrollArea>

#include <memory>
#include <utility>
#include <vector>

class QAction;
class QMenu;

namespace syncscope::ui {

class TimelineView : public QAbstractScrollArea {
    Q_OBJECT
public:
    static constexpr int kLabelWidth = 190; // the name panel's initial width
    static constexpr int kMinLabelWidth = 80;
    static constexpr int kIndicatorHeight = 20;
    static constexpr int kRulerHeight = 24;
    // The band under the ruler that shows the steps, when the trace has any.
    static constexpr int kStepBandHeight = 18;
    static constexpr double kZoomStep = 1.25;

    explicit TimelineView(QWidget *parent = nullptr);
    ~TimelineView() override;

    void setData(std::shared_ptr<const TimelineData> data);
    const std::shared_ptr<const TimelineData> &data() const { return m_data; }

    const TimeMapping &mapping() const { return m_map; }
    QRect plotRect() const;
    // Viewport rect of the step band (empty when the trace has no steps).
    QRect stepBandRect() const;
    void setVisibleRange(TimeNs t0, TimeNs t1);
    // Shows [t0, t1] with a margin of 10% on each side.
    void showInterval(TimeNs t0, TimeNs t1);
    void fitAll();
    void zoomIn();
    void zoomOut();
    // factor > 1 zooms in, keeping the time under plot x fixed.
    void zoomBy(double factor, double plotX);
    // Positive pixels show later times.
    void panBy(double pixels);
    void panLeft();
    void panRight();
    // Zooms to the range selection, else the selected event, else the shown gap.
    bool zoomToSelection();

    TimelineEvent selectedEvent() const { return m_selected; }
    void selectEvent(const TimelineEvent &e, bool reveal = true);
    // Selects e with the events it is shown together with (a collective with
    // the sync call that made it late): they are outlined as the selection is
    // and the details list them. Any other selection drops them.
    void selectEvents(const TimelineEvent &e, std::vector<TimelineEvent> with);
    const std::vector<TimelineEvent> &selectedWith() const { return m_selectedWith; }
    const std::vector<std::pair<TimelineEvent, TimelineEvent>> &links() const { return m_links; }

    bool hasRangeSelection() const { return m_hasRange; }
    std::pair<TimeNs, TimeNs> rangeSelection() const { return {m_range0, m_range1}; }
    void setRangeSelection(TimeNs t0, TimeNs t1);
    void clearRangeSelection();

    // A sync gap (index into data()->gaps()) to outline; -1 for none.
    void setHighlightedGap(int gap);
    int highlightedGap() const { return m_highlightGap; }
    // Sync gaps (indices into data()->gaps()) to mark together, e.g. those of one
    // sync source; empty for none.
    void setMarkedGaps(std::vector<int> gaps);
    const std::vector<int> &markedGaps() const { return m_markedGaps; }

    // Find's matches to outline where they are in view: per file of the job, per
    // string id, 1 for a name to outline (NameMatcher::mask()); null for none.
    void setHighlightedNames(std::shared_ptr<const std::vector<std::vector<char>>> mask);
    bool hasHighlightedNames() const { return m_highlightNames != nullptr; }
    // How many outlines the last paint drew (the find pass).
    int highlightsPainted() const;
    // The outlines of the last paint, in viewport coordinates (a copy: the
    // next paint prepares them anew).
    std::vector<QRect> highlightRects() const;

    // The step (index into data()->steps()) under a viewport point of the step
    // band, else -1; when several overlap there, the shortest.
    int stepAt(const QPoint &viewportPos) const;
    // Shows exactly the step's host window.
    void zoomToStep(int step);
    // What a click on the step band does: zoomToStep, then stepActivated.
    void activateStep(int step);

    // The ruler's ticks over the view: viewport x and label (the grid's lines
    // are at the same x).
    struct RulerTick {
        int x = 0;
        QString label;
    };
    std::vector<RulerTick> rulerTicks() const;

    TimelineEvent eventAt(const QPoint &viewportPos) const;
    // Viewport rect of an event's box (for tests and overlays).
    QRect eventRect(const TimelineEvent &e) const;
    // Scrolls (and expands the process or rank if collapsed) so that the row of
    // depth `depth` of a track is in view; pinned tracks always are.
    void ensureTrackVisible(int track, int depth);
    // Makes an event drawn and scrolls to its row: expands its rank, process
    // and thread, lifts a depth cap below it, shows Python frames when it is
    // one (find lands on every event of the trace, hidden or not).
    void revealEvent(const TimelineEvent &e);
    // A sync gap: its blocking call's thread row and the GPU band, both in view.
    void revealGap(int gap);
    // Whether a track's row is fully shown now (pinned, or within the scrolled area).
    bool isTrackRowVisible(int track, int depth) const;

    // Track management: the layout of this view.
    const TimelineLayout &layout() const { return m_layout; }
    void setTrackCollapsed(int track, bool on);
    void setGroupCollapsed(int group, bool on);
    void setFileCollapsed(int file, bool on);
    void setAllCollapsed(bool on);
    void setTrackPinned(int track, bool on);
    void setMaxDepth(int track, int depth);
    void setShowPython(bool on);
    bool moveTrack(int track, int before);
    bool moveGroup(int group, int before);
    // The checkable "Show Python frames" action (key P).
    QAction *showPythonAction() const { return m_pythonAction; }
    // "Python frames hidden (N)" while hidden, else empty.
    QString pythonIndicatorText() const;
    QRect indicatorRect() const;

    int labelWidth() const { return m_labelWidth; }
    void setLabelWidth(int width);
    // Viewport rects: the pinned rows (empty when none) and the scrolled rows.
    QRect pinnedRect() const;
    QRect scrollRect() const;
    // The pinned area holds at most its limit (60% of the plot until the user
    // drags the band under it), and scrolls on its own when its rows are taller:
    // the wheel over it, or setPinnedScroll.
    int pinnedScrollY() const;
    int pinnedScrollMax() const;
    void setPinnedScroll(int y);
    // Height in pixels the pinned area may take (clamped to a row and 80% of
    // the plot); what dragging the band under it sets.
    void setPinnedLimit(int height);
    // Viewport rect of a layout row (pinned section or not), null when not shown.
    QRect rowRect(bool pinned, int row) const;
    // The layout row at a viewport point: {pinned, row} with row -1 for none.
    std::pair<bool, int> rowAtPos(const QPoint &viewportPos) const;
    // After a relayout: scrolls so that the row that was `was` (a header or a
    // thread's first row) is at viewport y `screenY` again, as far as the
    // scroll range allows.
    void keepRowOnScreen(const LayoutRow &was, int screenY);
    // The context menu of a viewport point (a track, a header or empty space).
    std::unique_ptr<QMenu> contextMenuAt(const QPoint &viewportPos);
    // The tooltip text for a viewport point ("" for none).
    QString toolTipAt(const QPoint &viewportPos) const;
    // A row's name elided to fit the names panel in `fm`, as it draws a
    // header (bold): the rank a header names stays whole, the rest loses its
    // middle; other rows lose their end.
    QString rowLabel(bool pinned, int row, const QFontMetrics &fm) const;

    // How often the cached passes were prepared again (cache misses).
    int geometryBuilds() const { return m_geometryBuilds; }
    // What the render passes prepared for the last paint (passes/).
    const TimelineFrame &frame() const { return m_frame; }
    void invalidateGeometry() { m_geometryValid = false; }
    // The passes' view of this frame: data, layout, mapping, plot and sections;
    // with marks, what the frame passes draw. Valid while the view is unchanged.
    FrameContext frameContext(const FrameMarks *marks = nullptr) const;

Q_SIGNALS:
    void selectionChanged();
    void rangeSelectionChanged();
    void visibleRangeChanged();
    void eventActivated(const TimelineEvent &e);
    // A click on the step band zoomed to this step (index into data()->steps()).
    void stepActivated(int step);
    // Collapse, pin, order, depth or Python frames changed.
    void layoutChanged();

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    bool viewportEvent(QEvent *event) override;
    void scrollContentsBy(int dx, int dy) override;
    void contextMenuEvent(QContextMenuEvent *event) override;

private:
    using Mode = TimelineDrag::Mode;
    using Zone = TimelineDrag::Zone;
    // Where a left press at a viewport point lands (the drag's start).
    Zone zoneAt(const QPoint &pos) const;

    void setMapping(const TimeMapping &map);
    // How far past the trace's ends the view may go.
    TimeNs viewMargin() const;
    void updateScrollBar();
    void ensureGeometry();
    double cursorPlotX() const;
    int scrollY() const;

    // painting (timelineviewpaint.cpp)
    void paintRuler(QPainter &p) const;
    void paintStepBand(QPainter &p) const;
    int stepBandHeight() const;
    void paintLabels(QPainter &p, bool pinned) const;
    void paintIndicator(QPainter &p) const;
    void paintPlot(QPainter &p);
    QString rowTitle(const LayoutRow &r, bool pinned) const;
    // The part of a row's title that names its rank ("Rank 3 · "), "" for none.
    QString rowTitlePrefix(const LayoutRow &r, bool pinned) const;
    // tracks (timelineviewtracks.cpp)
    void relayout();
    // A press, then a release, on the names: a click collapses or expands; a
    // drag (`mode` Reorder) moves the track or process.
    void labelRelease(const QPoint &pos, Mode mode);
    int rowTop(bool pinned, const LayoutRow &r) const;

    std::shared_ptr<const TimelineData> m_data;
    TimeMapping m_map;
    TimelineEvent m_selected;
    std::vector<TimelineEvent> m_selectedWith;
    std::vector<std::pair<TimelineEvent, TimelineEvent>> m_links;
    bool m_hasRange = false;
    TimeNs m_range0 = 0, m_range1 = 0;
    int m_highlightGap = -1;
    std::vector<int> m_markedGaps;
    std::shared_ptr<const std::vector<std::vector<char>>> m_highlightNames;

    TimelineDrag m_drag;
    TimeMapping m_pressMap;
    int m_pressScroll = 0;

    TimelineLayout m_layout;
    int m_labelWidth = kLabelWidth;
    QAction *m_pythonAction = nullptr;
    std::pair<bool, int> m_pressRow{false, -1};
    int m_layoutVersion = 0;
    int m_geometryLayout = -1;

    TimelineFrame m_frame;
    NameCache m_names;
    bool m_geometryValid = false;
    TimeMapping m_geometryMap;
    QRect m_geometryPlot;
    int m_geometryScroll = -1;
    int m_geometryPinnedScroll = -1;
    int m_pinnedScroll = 0; // of the pinned rows, when they overflow their area
    int m_pinnedLimit = -1; // the pinned area's height the user dragged to; -1: 60% of the plot
    // The band under the pinned area that resizes it (empty without pinned rows).
    QRect pinnedHandleRect() const;
    int m_geometryBuilds = 0;
};

} // namespace syncscope::ui
