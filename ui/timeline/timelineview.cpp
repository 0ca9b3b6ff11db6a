#include "timeline/timelineview.h"

#include "shared/timeformat.h"

#include <QAction>
#include <QApplication>
#include <QGestureEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QNativeGestureEvent>
#include <QPinchGesture>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace syncscope::ui {

namespace {
constexpr TimeNs kMinSpan = 20; // ns across the whole plot
}

TimelineView::TimelineView(QWidget *parent) : QAbstractScrollArea(parent)
{
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setFocusPolicy(Qt::StrongFocus);
    viewport()->setMouseTracking(true); // the resize cursor over the name panel's edge
    viewport()->setAttribute(Qt::WA_OpaquePaintEvent);
    viewport()->grabGesture(Qt::PinchGesture);
    setMinimumSize(320, 160);
    m_pythonAction = new QAction(tr("Show Python frames"), this);
    m_pythonAction->setCheckable(true);
    m_pythonAction->setChecked(true);
    m_pythonAction->setToolTip(tr("Show or hide python_function frames; the events beneath move up (P)"));
    connect(m_pythonAction, &QAction::toggled, this, [this](bool on) {
        if (on != m_layout.showPython())
            setShowPython(on);
    });
}

TimelineView::~TimelineView() = default;

void TimelineView::setData(std::shared_ptr<const TimelineData> data)
{
    // A re-analysis of the same trace keeps the tracks as the user left them.
    const bool sameTrace = m_data && data && m_data->models() == data->models();
    const int scroll = scrollY();
    m_data = std::move(data);
    m_selected = {};
    m_selectedWith.clear();
    m_links.clear();
    m_hasRange = false;
    m_highlightGap = -1;
    m_markedGaps.clear();
    m_names.clear();
    m_geometryValid = false;
    if (sameTrace)
        m_layout.adopt(m_data.get());
    else
        m_layout.reset(m_data.get());
    {
        const QSignalBlocker block(m_pythonAction);
        m_pythonAction->setChecked(m_layout.showPython());
        m_pythonAction->setEnabled(m_data && m_data->pythonEvents() > 0);
    }
    ++m_layoutVersion;
    updateScrollBar();
    verticalScrollBar()->setValue(sameTrace ? scroll : 0);
    fitAll();
    Q_EMIT selectionChanged();
    Q_EMIT rangeSelectionChanged();
}

int TimelineView::stepBandHeight() const { return m_data && !m_data->steps().empty() ? kStepBandHeight : 0; }

QRect TimelineView::plotRect() const
{
    const QRect vp = viewport()->rect();
    const int top = kRulerHeight + stepBandHeight();
    return QRect(m_labelWidth, top, std::max(1, vp.width() - m_labelWidth), std::max(1, vp.height() - top));
}

QRect TimelineView::stepBandRect() const
{
    const int h = stepBandHeight();
    if (h == 0)
        return {};
    return QRect(m_labelWidth, kRulerHeight, std::max(1, viewport()->width() - m_labelWidth), h);
}

int TimelineView::stepAt(const QPoint &pos) const
{
    const QRect band = stepBandRect();
    if (!m_data || band.isEmpty() || !band.contains(pos))
        return -1;
    const TimeNs t = m_map.toTime(pos.x() - band.left());
    const TimeNs tol = std::max<TimeNs>(0, m_map.toDuration(1.0));
    const auto &steps = m_data->steps();
    // Steps are sorted by start; a few may overlap (ranks, nested matches).
    auto end = std::partition_point(steps.begin(), steps.end(),
                                    [&](const TimelineStep &s) { return m_data->step(s).start <= t + tol; });
    int best = -1;
    TimeNs bestLen = 0;
    for (auto it = steps.begin(); it != end; ++it) {
        const Step &st = m_data->step(*it);
        if (st.end + tol < t)
            continue;
        const TimeNs len = st.end - st.start;
        if (best < 0 || len < bestLen) {
            best = int(it - steps.begin());
            bestLen = len;
        }
    }
    return best;
}

void TimelineView::zoomToStep(int step)
{
    if (!m_data || step < 0 || step >= int(m_data->steps().size()))
        return;
    const Step &st = m_data->step(m_data->steps()[size_t(step)]);
    setVisibleRange(st.start, st.end);
}

int TimelineView::scrollY() const { return verticalScrollBar()->value(); }

void TimelineView::setMapping(const TimeMapping &map)
{
    TimeMapping m = map.withWidth(plotRect().width());
    if (m.span() < kMinSpan)
        m = TimeMapping::fitted(m.start() + m.span() / 2, m.start() + m.span() / 2, m.width(), kMinSpan);
    if (m_data) {
        m = m.clampedTo(m_data->minTime(), m_data->maxTime(), viewMargin());
    }
    if (m == m_map)
        return;
    m_map = m;
    viewport()->update();
    Q_EMIT visibleRangeChanged();
}

TimeNs TimelineView::viewMargin() const
{
    return m_data ? std::max<TimeNs>((m_data->maxTime() - m_data->minTime()) / 20, 1000) : 0;
}

void TimelineView::setVisibleRange(TimeNs t0, TimeNs t1)
{
    setMapping(TimeMapping::fitted(t0, t1, plotRect().width(), kMinSpan));
}

void TimelineView::showInterval(TimeNs t0, TimeNs t1)
{
    const TimeNs span = std::max<TimeNs>(t1 - t0, kMinSpan);
    const TimeNs margin = span / 10;
    setVisibleRange(t0 - margin, t1 + margin);
}

void TimelineView::fitAll()
{
    if (!m_data) {
        m_map = TimeMapping(0, 1000, plotRect().width());
        viewport()->update();
        return;
    }
    const TimeNs lo = m_data->minTime(), hi = m_data->maxTime();
    const TimeNs margin = std::max<TimeNs>((hi - lo) / 100, 0);
    setVisibleRange(lo - margin, hi + margin);
}

double TimelineView::cursorPlotX() const
{
    const QPoint pos = viewport()->mapFromGlobal(QCursor::pos());
    const QRect plot = plotRect();
    if (underMouse() && plot.contains(pos))
        return pos.x() - plot.left();
    return plot.width() / 2.0;
}

void TimelineView::zoomBy(double factor, double plotX) { setMapping(m_map.zoomedAround(plotX, factor, kMinSpan)); }
void TimelineView::zoomIn() { zoomBy(kZoomStep, cursorPlotX()); }
void TimelineView::zoomOut() { zoomBy(1.0 / kZoomStep, cursorPlotX()); }
void TimelineView::panBy(double pixels) { setMapping(m_map.panned(pixels)); }
void TimelineView::panLeft() { panBy(-plotRect().width() / 8.0); }
void TimelineView::panRight() { panBy(plotRect().width() / 8.0); }

bool TimelineView::zoomToSelection()
{
    if (!m_data)
        return false;
    if (m_hasRange) {
        setVisibleRange(m_range0, m_range1);
        return true;
    }
    if (m_selected.valid()) {
        showInterval(m_data->start(m_selected), m_data->end(m_selected));
        return true;
    }
    if (m_highlightGap >= 0) {
        const TimelineGap &g = m_data->gaps()[size_t(m_highlightGap)];
        const Interval iv = m_data->files()[g.file].sync.syncGaps[g.gap].interval;
        showInterval(iv.start, iv.end);
        return true;
    }
    return false;
}

void TimelineView::selectEvent(const TimelineEvent &e, bool reveal)
{
    const TimelineEvent sel = (m_data && e.valid() && e.track < int(m_data->tracks().size())) ? e
                                                                                              : TimelineEvent{};
    if (sel != m_selected || !m_selectedWith.empty()) {
        m_selected = sel;
        m_selectedWith.clear();
        m_links = m_data ? m_data->linkedEvents(sel) : decltype(m_links){};
        viewport()->update();
        Q_EMIT selectionChanged();
    }
    if (reveal && m_selected.valid()) {
        ensureTrackVisible(m_selected.track, std::max(0, m_layout.shownDepth(m_selected)));
        const TimeNs s = m_data->start(m_selected), en = m_data->end(m_selected);
        if (en - s > m_map.span())
            showInterval(s, en);
        else if (s < m_map.start() || en > m_map.end()) // keep the zoom, centre on it
            setMapping(m_map.panned(m_map.toPixel(s + (en - s) / 2) - m_map.width() / 2));
    }
}

void TimelineView::selectEvents(const TimelineEvent &e, std::vector<TimelineEvent> with)
{
    const auto valid = [this](const TimelineEvent &x) {
        return m_data && x.valid() && x.track < int(m_data->tracks().size());
    };
    with.erase(std::remove_if(with.begin(), with.end(),
                              [&](const TimelineEvent &x) { return !valid(x) || x == e; }),
               with.end());
    if (!valid(e) || with.empty()) {
        selectEvent(e, false);
        return;
    }
    m_selected = e;
    m_selectedWith = std::move(with);
    m_links = m_data->linkedEvents(e);
    viewport()->update();
    Q_EMIT selectionChanged();
}

void TimelineView::setRangeSelection(TimeNs t0, TimeNs t1)
{
    if (t1 < t0)
        std::swap(t0, t1);
    m_hasRange = true;
    m_range0 = t0;
    m_range1 = t1;
    viewport()->update();
    Q_EMIT rangeSelectionChanged();
}

void TimelineView::clearRangeSelection()
{
    if (!m_hasRange)
        return;
    m_hasRange = false;
    viewport()->update();
    Q_EMIT rangeSelectionChanged();
}

void TimelineView::setHighlightedGap(int gap)
{
    m_highlightGap = (m_data && gap >= 0 && gap < int(m_data->gaps().size())) ? gap : -1;
    viewport()->update();
}

void TimelineView::activateStep(int step)
{
    if (!m_data || step < 0 || step >= int(m_data->steps().size()))
        return;
    zoomToStep(step);
    Q_EMIT stepActivated(step);
}

void TimelineView::setMarkedGaps(std::vector<int> gaps)
{
    const int n = m_data ? int(m_data->gaps().size()) : 0;
    gaps.erase(std::remove_if(gaps.begin(), gaps.end(), [n](int g) { return g < 0 || g >= n; }), gaps.end());
    std::sort(gaps.begin(), gaps.end());
    m_markedGaps = std::move(gaps);
    viewport()->update();
}

TimelineEvent TimelineView::eventAt(const QPoint &pos) const
{
    const QRect plot = plotRect();
    if (!m_data || !plot.contains(pos))
        return {};
    const auto [pinned, row] = rowAtPos(pos);
    if (row < 0)
        return {};
    const LayoutRow &r = (pinned ? m_layout.pinnedRows() : m_layout.rows())[size_t(row)];
    if (r.kind != LayoutRow::Kind::Slices && r.kind != LayoutRow::Kind::Summary)
        return {};
    // A collapsed thread's band is its top-level events.
    const auto &levels = r.kind == LayoutRow::Kind::Summary ? m_data->tracks()[size_t(r.track)].levels
                                                            : m_layout.levels(r.track);
    if (r.depth >= int(levels.size()))
        return {};
    const TimelineLevel &lvl = levels[size_t(r.depth)];
    const Track &mt = m_data->modelTrack(r.track);
    const double x = pos.x() - plot.left();
    const TimeNs t = m_map.toTime(x);
    const TimeNs tol = std::max<TimeNs>(1, m_map.toDuration(2.0));
    const size_t p = TimelineData::firstEndingAtOrAfter(mt, lvl, 0, t - tol);
    if (p >= lvl.events.size() || mt.start[lvl.events[p]] > t + tol)
        return {};
    // Exact hit first (one at most per depth), else the widest of the nearby
    // events: the one whose colour the folded block shows.
    auto q = std::partition_point(lvl.events.begin() + std::ptrdiff_t(p), lvl.events.end(),
                                  [&](uint32_t e) { return mt.start[e] <= t + tol; });
    const size_t qi = size_t(q - lvl.events.begin());
    for (size_t i = p; i < qi && i < p + 4; ++i)
        if (mt.start[lvl.events[i]] <= t && t <= mt.end(lvl.events[i]))
            return {r.track, lvl.events[i]};
    return {r.track, lvl.events[TimelineData::widest(mt, lvl, p, qi)]};
}

QRect TimelineView::eventRect(const TimelineEvent &e) const
{
    if (!m_data || !e.valid())
        return {};
    return frameContext().eventRect(e);
}

FrameContext TimelineView::frameContext(const FrameMarks *marks) const
{
    return FrameContext{*m_data,
                        m_layout,
                        m_map,
                        plotRect(),
                        {FrameSection{true, &m_layout.pinnedRows(), pinnedRect(), pinnedScrollY()},
                         FrameSection{false, &m_layout.rows(), scrollRect(), scrollY()}},
                        marks};
}

void TimelineView::updateScrollBar()
{
    const int h = scrollRect().height();
    const int total = m_layout.totalHeight();
    QScrollBar *sb = verticalScrollBar();
    sb->setRange(0, std::max(0, total - h));
    sb->setPageStep(h);
    sb->setSingleStep(TimelineData::kRowHeight * 2);
}

void TimelineView::resizeEvent(QResizeEvent *event)
{
    QAbstractScrollArea::resizeEvent(event);
    updateScrollBar();
    // Keep the time range, stretch it over the new width.
    const TimeMapping m = m_map.withWidth(plotRect().width());
    if (m != m_map) {
        m_map = m;
        Q_EMIT visibleRangeChanged();
    }
}

void TimelineView::scrollContentsBy(int, int) { viewport()->update(); }

void TimelineView::wheelEvent(QWheelEvent *event)
{
    const QPoint angle = event->angleDelta();
    const QPointF pos = event->position();
    const QRect plot = plotRect();
    const bool overLabels = pos.x() < m_labelWidth;
    if (event->modifiers() & Qt::AltModifier || overLabels) {
        // Alt turns vertical wheel into horizontal on some platforms: take either.
        const int d = angle.y() != 0 ? angle.y() : angle.x();
        // Over the pinned rows, when they overflow their area, they scroll.
        const QRect pinned = pinnedRect();
        if (pinnedScrollMax() > 0 && pos.y() >= pinned.top() && pos.y() <= pinned.bottom())
            setPinnedScroll(pinnedScrollY() - d * TimelineData::kRowHeight / 40);
        else
            verticalScrollBar()->setValue(verticalScrollBar()->value() - d * TimelineData::kRowHeight / 40);
    } else if (event->modifiers() & Qt::ShiftModifier) {
        const int d = angle.y() != 0 ? angle.y() : angle.x();
        panBy(-d / 120.0 * plot.width() / 10.0);
    } else {
        if (angle.x() != 0 && std::abs(angle.x()) > std::abs(angle.y()))
            panBy(-angle.x() / 120.0 * plot.width() / 10.0); // touchpad sideways
        else if (angle.y() != 0)
            zoomBy(std::pow(kZoomStep, angle.y() / 120.0), pos.x() - plot.left());
    }
    event->accept();
}

TimelineView::Zone TimelineView::zoneAt(const QPoint &pos) const
{
    if (pinnedHandleRect().adjusted(0, -1, 0, 1).contains(pos))
        return Zone::PinnedHandle;
    if (m_data && indicatorRect().contains(pos))
        return Zone::Indicator;
    if (m_data && std::abs(pos.x() - m_labelWidth) <= 3 && pos.y() >= kRulerHeight)
        return Zone::LabelEdge;
    if (m_data && pos.x() < m_labelWidth && pos.y() >= plotRect().top())
        return Zone::Labels;
    if (stepBandRect().contains(pos))
        return Zone::StepBand;
    if (pos.y() < kRulerHeight && pos.x() >= m_labelWidth)
        return Zone::Ruler;
    return Zone::Plot;
}

void TimelineView::mousePressEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton) {
        QAbstractScrollArea::mousePressEvent(event);
        return;
    }
    const QPoint pos = event->position().toPoint();
    m_pressMap = m_map;
    m_pressScroll = scrollY();
    const Zone zone = zoneAt(pos);
    m_drag.press(zone, event->modifiers() & Qt::ShiftModifier, pos);
    // What acts at once, and what a release needs to know.
    if (zone == Zone::Indicator) {
        setShowPython(!m_layout.showPython());
    } else if (zone == Zone::Labels) {
        m_pressRow = rowAtPos(pos);
    } else if (zone == Zone::StepBand) {
        const int step = stepAt(pos);
        if (step >= 0)
            activateStep(step);
    }
    event->accept();
}

void TimelineView::mouseMoveEvent(QMouseEvent *event)
{
    const QPoint pos = event->position().toPoint();
    const QRect plot = plotRect();
    if (!m_drag.held()) { // hover: the name panel's edge and the pinned area's band resize them
        const Zone zone = zoneAt(pos);
        if (zone == Zone::PinnedHandle)
            viewport()->setCursor(Qt::SplitVCursor);
        else if (zone == Zone::LabelEdge)
            viewport()->setCursor(Qt::SplitHCursor);
        else
            viewport()->unsetCursor();
        return;
    }
    const Mode before = m_drag.mode();
    const Mode mode = m_drag.move(pos, QApplication::startDragDistance());
    const QPoint press = m_drag.pressPos();
    switch (mode) {
    case Mode::PinnedResize: setPinnedLimit(pos.y() - pinnedRect().top()); break;
    case Mode::Resize: setLabelWidth(pos.x()); break;
    case Mode::LabelPending:
    case Mode::Reorder:
        if (mode != before)
            viewport()->setCursor(Qt::DragMoveCursor);
        viewport()->update();
        break;
    case Mode::Pan:
        if (mode != before)
            viewport()->setCursor(Qt::ClosedHandCursor);
        setMapping(m_pressMap.panned(press.x() - pos.x()));
        verticalScrollBar()->setValue(m_pressScroll + press.y() - pos.y());
        break;
    case Mode::Range: {
        const TimeNs a = m_pressMap.toTime(press.x() - plot.left());
        const TimeNs b = m_map.toTime(std::clamp(pos.x(), plot.left(), plot.right()) - plot.left());
        m_hasRange = true;
        m_range0 = std::min(a, b);
        m_range1 = std::max(a, b);
        viewport()->update();
        break;
    }
    case Mode::Pending:
    case Mode::None: break;
    }
    event->accept();
}

void TimelineView::mouseReleaseEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton)
        return;
    const QPoint press = m_drag.pressPos();
    const Mode mode = m_drag.release();
    viewport()->unsetCursor();
    const QPoint pos = event->position().toPoint();
    if (mode == Mode::LabelPending || mode == Mode::Reorder) {
        labelRelease(pos, mode);
    } else if (mode == Mode::Pending) {
        selectEvent(eventAt(pos), false);
    } else if (mode == Mode::Range) {
        if (std::abs(pos.x() - press.x()) < 3) {
            m_hasRange = true; // force the signal even if it was already cleared
            clearRangeSelection();
        } else {
            Q_EMIT rangeSelectionChanged();
        }
    }
    event->accept();
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent *event)
{
    const TimelineEvent e = eventAt(event->position().toPoint());
    if (e.valid()) {
        selectEvent(e, false);
        showInterval(m_data->start(e), m_data->end(e));
        Q_EMIT eventActivated(e);
    }
    event->accept();
}

void TimelineView::keyPressEvent(QKeyEvent *event)
{
    switch (event->key()) {
    case Qt::Key_W: zoomIn(); break;
    case Qt::Key_S: zoomOut(); break;
    case Qt::Key_A: panLeft(); break;
    case Qt::Key_D: panRight(); break;
    case Qt::Key_F: zoomToSelection(); break;
    case Qt::Key_Home: fitAll(); break;
    case Qt::Key_P:
        if (m_data && m_data->pythonEvents() > 0)
            setShowPython(!m_layout.showPython());
        break;
    case Qt::Key_Escape:
        selectEvent({}, false);
        clearRangeSelection();
        break;
    default: QAbstractScrollArea::keyPressEvent(event); return;
    }
    event->accept();
}

bool TimelineView::viewportEvent(QEvent *event)
{
    switch (event->type()) {
    case QEvent::NativeGesture: {
        auto *ge = static_cast<QNativeGestureEvent *>(event);
        if (ge->gestureType() == Qt::ZoomNativeGesture) {
            zoomBy(1.0 + ge->value(), ge->position().x() - plotRect().left());
            return true;
        }
        break;
    }
    case QEvent::Gesture: {
        auto *ge = static_cast<QGestureEvent *>(event);
        if (auto *pinch = static_cast<QPinchGesture *>(ge->gesture(Qt::PinchGesture))) {
            if (pinch->changeFlags() & QPinchGesture::ScaleFactorChanged) {
                const QPointF c = viewport()->mapFromGlobal(pinch->centerPoint().toPoint());
                zoomBy(pinch->scaleFactor(), c.x() - plotRect().left());
            }
            ge->accept(pinch);
            return true;
        }
        break;
    }
    case QEvent::ToolTip: {
        auto *he = static_cast<QHelpEvent *>(event);
        if (stepBandRect().contains(he->pos())) {
            const int step = stepAt(he->pos());
            if (step < 0) {
                QToolTip::hideText();
                return true;
            }
            const TimelineStep &ts = m_data->steps()[size_t(step)];
            const TimelineFile &file = m_data->files()[ts.file];
            const Step &st = m_data->step(ts);
            QString tip = tr("%1: %2 (click to zoom)")
                              .arg(m_data->text(ts.file, st.name), formatDuration(st.end - st.start));
            if (m_data->files().size() > 1)
                tip = file.label + QStringLiteral(" · ") + tip;
            for (const StepDeviceStats &s : file.sync.stepStats)
                if (s.step == ts.step)
                    tip += tr("\nGPU %1: busy %2, %n sync gap(s) %3, avoidable %4", nullptr, int(s.syncGaps))
                               .arg(s.device)
                               .arg(formatDuration(s.gpuBusy), formatDuration(s.syncGapTime),
                                    formatDuration(s.avoidable));
            QToolTip::showText(he->globalPos(), tip, viewport());
            return true;
        }
        const QString tip = toolTipAt(he->pos());
        if (!tip.isEmpty())
            QToolTip::showText(he->globalPos(), tip, viewport());
        else
            QToolTip::hideText();
        return true;
    }
    default: break;
    }
    return QAbstractScrollArea::viewportEvent(event);
}

void TimelineView::ensureGeometry()
{
    const QRect plot = plotRect();
    if (m_geometryValid && m_geometryMap == m_map && m_geometryPlot == plot && m_geometryScroll == scrollY() &&
        m_geometryPinnedScroll == pinnedScrollY() && m_geometryLayout == m_layoutVersion)
        return;
    if (m_data)
        m_frame.prepare(frameContext(), TimelinePass::Update::Cached, fontMetrics(),
                        m_names); // both sections, one batch
    else
        m_frame.clear();
    m_geometryValid = true;
    m_geometryMap = m_map;
    m_geometryPlot = plot;
    m_geometryScroll = scrollY();
    m_geometryPinnedScroll = pinnedScrollY();
    m_geometryLayout = m_layoutVersion;
    ++m_geometryBuilds;
}

} // namespace syncscope::ui
