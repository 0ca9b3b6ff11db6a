// TimelineView's track management: the two sections (pinned, scrolled), the
// name panel's clicks, drags and resize, the context menu and the tooltips.
#include "timeline/timelineview.h"

#include "shared/timeformat.h"

#include <QAction>
#include <QActionGroup>
#include <QContextMenuEvent>
#include <QMenu>
#include <QScrollBar>

#include <algorithm>
#include <cmath>

namespace syncscope::ui {

void TimelineView::relayout()
{
    ++m_layoutVersion;
    m_geometryValid = false;
    updateScrollBar();
    viewport()->update();
    Q_EMIT layoutChanged();
}

void TimelineView::setTrackCollapsed(int track, bool on)
{
    m_layout.setTrackCollapsed(track, on);
    relayout();
}

void TimelineView::setGroupCollapsed(int group, bool on)
{
    m_layout.setGroupCollapsed(group, on);
    relayout();
}

void TimelineView::setFileCollapsed(int file, bool on)
{
    m_layout.setFileCollapsed(file, on);
    relayout();
}

void TimelineView::setAllCollapsed(bool on)
{
    m_layout.setAllCollapsed(on);
    relayout();
}

void TimelineView::setTrackPinned(int track, bool on)
{
    m_layout.setTrackPinned(track, on);
    relayout();
}

void TimelineView::setMaxDepth(int track, int depth)
{
    m_layout.setMaxDepth(track, depth);
    relayout();
}

void TimelineView::setShowPython(bool on)
{
    m_layout.setShowPython(on);
    {
        const QSignalBlocker block(m_pythonAction);
        m_pythonAction->setChecked(on);
    }
    relayout();
}

bool TimelineView::moveTrack(int track, int before)
{
    if (!m_layout.moveTrack(track, before))
        return false;
    relayout();
    return true;
}

bool TimelineView::moveGroup(int group, int before)
{
    if (!m_layout.moveGroup(group, before))
        return false;
    relayout();
    return true;
}

QString TimelineView::pythonIndicatorText() const
{
    if (!m_data || m_data->pythonEvents() == 0 || m_layout.showPython())
        return {};
    return tr("Python frames hidden (%1)").arg(m_data->pythonEvents());
}

QRect TimelineView::indicatorRect() const
{
    if (!m_data || m_data->pythonEvents() == 0)
        return {};
    return QRect(0, viewport()->height() - kIndicatorHeight, m_labelWidth, kIndicatorHeight);
}

void TimelineView::setLabelWidth(int width)
{
    width = std::clamp(width, kMinLabelWidth, std::max(kMinLabelWidth, viewport()->width() - 120));
    if (width == m_labelWidth)
        return;
    m_labelWidth = width;
    const TimeMapping m = m_map.withWidth(plotRect().width()); // the same range, stretched
    m_geometryValid = false;
    viewport()->update();
    if (m != m_map) {
        m_map = m;
        Q_EMIT visibleRangeChanged();
    }
}

QRect TimelineView::pinnedRect() const
{
    const QRect plot = plotRect();
    // At most 60% of the plot unless the user dragged it: the scrolled tracks stay usable.
    const int limit = m_pinnedLimit >= 0 ? std::clamp(m_pinnedLimit, TimelineData::kRowHeight,
                                                      std::max(TimelineData::kRowHeight, plot.height() * 4 / 5))
                                         : plot.height() * 3 / 5;
    const int h = std::min(m_layout.pinnedHeight(), limit);
    return QRect(plot.left(), plot.top(), plot.width(), std::max(0, h));
}

QRect TimelineView::pinnedHandleRect() const
{
    const QRect pinned = pinnedRect();
    if (pinned.height() <= 0)
        return {};
    return QRect(0, pinned.bottom() + 1, viewport()->width(), 3);
}

int TimelineView::pinnedScrollMax() const { return std::max(0, m_layout.pinnedHeight() - pinnedRect().height()); }

int TimelineView::pinnedScrollY() const { return std::clamp(m_pinnedScroll, 0, pinnedScrollMax()); }

void TimelineView::setPinnedScroll(int y)
{
    const int v = std::clamp(y, 0, pinnedScrollMax());
    if (v == m_pinnedScroll)
        return;
    m_pinnedScroll = v;
    m_geometryValid = false;
    viewport()->update();
}

void TimelineView::setPinnedLimit(int height)
{
    m_pinnedLimit = std::max(0, height);
    m_pinnedScroll = pinnedScrollY();
    m_geometryValid = false;
    updateScrollBar();
    viewport()->update();
}

QRect TimelineView::scrollRect() const
{
    const QRect plot = plotRect();
    const int pinned = pinnedRect().height();
    const int sep = pinned > 0 ? 3 : 0;
    return QRect(plot.left(), plot.top() + pinned + sep, plot.width(), std::max(1, plot.height() - pinned - sep));
}

int TimelineView::rowTop(bool pinned, const LayoutRow &r) const
{
    return pinned ? pinnedRect().top() + r.y - pinnedScrollY() : scrollRect().top() + r.y - scrollY();
}

QRect TimelineView::rowRect(bool pinned, int row) const
{
    const auto &rows = pinned ? m_layout.pinnedRows() : m_layout.rows();
    if (row < 0 || row >= int(rows.size()))
        return {};
    const LayoutRow &r = rows[size_t(row)];
    return QRect(0, rowTop(pinned, r), viewport()->width(), r.height);
}

void TimelineView::keepRowOnScreen(const LayoutRow &was, int screenY)
{
    // The same row after a relayout: a header by what it heads, a thread by
    // its first row (a collapsed thread's summary, an expanded one's depth 0).
    const std::vector<LayoutRow> &rows = m_layout.rows();
    int found = -1;
    for (size_t i = 0; i < rows.size() && found < 0; ++i) {
        const LayoutRow &r = rows[i];
        const bool same = was.kind == LayoutRow::Kind::RankHeader ? r.kind == was.kind && r.file == was.file
                          : was.kind == LayoutRow::Kind::GroupHeader
                              ? r.kind == was.kind && r.group == was.group
                              : r.track == was.track &&
                                    (r.kind == LayoutRow::Kind::Summary || r.kind == LayoutRow::Kind::Slices ||
                                     r.kind == LayoutRow::Kind::Counter);
        if (same)
            found = int(i);
    }
    if (found < 0)
        return;
    const int now = scrollRect().top() + rows[size_t(found)].y - scrollY();
    if (now != screenY)
        verticalScrollBar()->setValue(scrollY() + (now - screenY));
}

std::pair<bool, int> TimelineView::rowAtPos(const QPoint &pos) const
{
    if (!m_data)
        return {false, -1};
    const QRect pinned = pinnedRect(), scrolled = scrollRect();
    if (pos.y() >= pinned.top() && pos.y() < pinned.top() + pinned.height())
        return {true, TimelineLayout::rowAt(m_layout.pinnedRows(), pos.y() - pinned.top() + pinnedScrollY())};
    if (pos.y() >= scrolled.top() && pos.y() <= scrolled.bottom())
        return {false, TimelineLayout::rowAt(m_layout.rows(), pos.y() - scrolled.top() + scrollY())};
    return {false, -1};
}

QString TimelineView::rowTitle(const LayoutRow &r, bool pinned) const
{
    switch (r.kind) {
    case LayoutRow::Kind::RankHeader: return m_data->files()[size_t(r.file)].label;
    case LayoutRow::Kind::GroupHeader: return rowTitlePrefix(r, pinned) + m_data->groups()[size_t(r.group)].title;
    case LayoutRow::Kind::Counter: return m_data->counters()[size_t(r.counter)].name;
    case LayoutRow::Kind::Slices:
    case LayoutRow::Kind::Summary: return m_data->tracks()[size_t(r.track)].name;
    }
    return {};
}

QString TimelineView::rowTitlePrefix(const LayoutRow &r, bool pinned) const
{
    if (r.kind != LayoutRow::Kind::GroupHeader || !pinned || m_data->files().size() < 2)
        return {};
    // Pinned rows have no rank header above them: name the rank, briefly.
    const TimelineFile &f = m_data->files()[size_t(r.file)];
    const int64_t rank = f.model->info().rank;
    return (rank != kNoValue ? QStringLiteral("Rank %1").arg(rank) : f.label) + QStringLiteral(" · ");
}

QString TimelineView::rowLabel(bool pinned, int row, const QFontMetrics &fm) const
{
    const auto &rows = pinned ? m_layout.pinnedRows() : m_layout.rows();
    if (!m_data || row < 0 || row >= int(rows.size()))
        return {};
    const LayoutRow &r = rows[size_t(row)];
    if (!r.header())
        return fm.elidedText(rowTitle(r, pinned), Qt::ElideRight, m_labelWidth - 30);
    // A header keeps what tells it from its neighbours: the rank it names
    // stays whole, the rest loses its middle ("Rank 3 · python3…V100-SXM2").
    const int width = m_labelWidth - 24;
    const QString prefix = rowTitlePrefix(r, pinned), title = rowTitle(r, pinned);
    if (prefix.isEmpty() || fm.horizontalAdvance(title) <= width)
        return fm.elidedText(title, Qt::ElideMiddle, width);
    const int room = width - fm.horizontalAdvance(prefix);
    if (room < fm.horizontalAdvance(QStringLiteral("M…M"))) { // the rank alone ("Rank 3")
        const QString rank = prefix.chopped(3);
        return fm.horizontalAdvance(rank) <= width ? rank : fm.elidedText(title, Qt::ElideRight, width);
    }
    return prefix + fm.elidedText(title.mid(prefix.size()), Qt::ElideMiddle, room);
}

void TimelineView::labelRelease(const QPoint &pos, Mode mode)
{
    const auto [pinned, row] = m_pressRow;
    m_pressRow = {false, -1};
    if (row < 0)
        return;
    const LayoutRow src = (pinned ? m_layout.pinnedRows() : m_layout.rows())[size_t(row)];
    if (mode == Mode::LabelPending) { // a click: collapse or expand
        // The clicked row stays under the mouse, whatever the click adds or
        // removes above it (a rank that expands grows the pinned GPU area).
        const int screenBefore = scrollRect().top() + src.y - scrollY();
        switch (src.kind) {
        case LayoutRow::Kind::RankHeader: setFileCollapsed(src.file, !m_layout.fileCollapsed(src.file)); break;
        case LayoutRow::Kind::GroupHeader:
            setGroupCollapsed(src.group, !m_layout.groupCollapsed(src.group));
            break;
        case LayoutRow::Kind::Summary: setTrackCollapsed(src.track, false); break;
        case LayoutRow::Kind::Slices:
            if (src.depth == 0)
                setTrackCollapsed(src.track, true);
            break;
        case LayoutRow::Kind::Counter: break;
        }
        if (!pinned)
            keepRowOnScreen(src, screenBefore);
        return;
    }
    // A drag: drop on another thread of the same process, or another process.
    const auto [tPinned, tRow] = rowAtPos(pos);
    if (tRow < 0)
        return;
    const LayoutRow dst = (tPinned ? m_layout.pinnedRows() : m_layout.rows())[size_t(tRow)];
    // Moving down puts it after the target, moving up before it.
    auto beforeOf = [](const std::vector<int> &order, int from, int to, auto sameScope) {
        const auto si = std::find(order.begin(), order.end(), from);
        const auto ti = std::find(order.begin(), order.end(), to);
        if (ti < si)
            return to;
        const auto next = ti + 1;
        return next != order.end() && sameScope(*next) ? *next : -1;
    };
    if (src.track >= 0 && dst.track >= 0 && src.track != dst.track && src.group == dst.group) {
        moveTrack(src.track,
                  beforeOf(m_layout.trackOrder(src.group), src.track, dst.track, [](int) { return true; }));
    } else if (src.kind == LayoutRow::Kind::GroupHeader && dst.group >= 0 && dst.group != src.group &&
               dst.file == src.file) {
        const int file = src.file;
        moveGroup(src.group, beforeOf(m_layout.groupOrder(), src.group, dst.group,
                                      [&](int g) { return int(m_data->groups()[size_t(g)].file) == file; }));
    }
}

std::unique_ptr<QMenu> TimelineView::contextMenuAt(const QPoint &pos)
{
    auto menu = std::make_unique<QMenu>(this);
    if (!m_data)
        return menu;
    auto add = [&](QMenu *m, const QString &text, const char *name, auto fn) {
        QAction *a = m->addAction(text);
        a->setObjectName(QLatin1String(name));
        connect(a, &QAction::triggered, this, fn);
        return a;
    };
    const auto [pinned, row] = pos.y() >= plotRect().top() ? rowAtPos(pos) : std::pair<bool, int>{false, -1};
    if (row >= 0) {
        const LayoutRow r = (pinned ? m_layout.pinnedRows() : m_layout.rows())[size_t(row)];
        if (r.track >= 0) {
            const int t = r.track;
            const bool collapsed = m_layout.trackCollapsed(t);
            add(menu.get(), collapsed ? tr("Expand Thread") : tr("Collapse Thread"), "collapseTrack",
                [this, t, collapsed] { setTrackCollapsed(t, !collapsed); });
            const bool isPinned = m_layout.trackPinned(t);
            add(menu.get(), isPinned ? tr("Unpin") : tr("Pin to Top"), "pinTrack",
                [this, t, isPinned] { setTrackPinned(t, !isPinned); });
            QMenu *depth = menu->addMenu(tr("Maximum Depth"));
            depth->setObjectName(QStringLiteral("maxDepthMenu"));
            auto *group = new QActionGroup(depth);
            const int levels = int(m_layout.levels(t).size());
            for (int d : {0, 1, 2, 3, 4, 6, 8, 12, 16}) {
                if (d > 0 && d >= levels)
                    break;
                QAction *a = add(depth, d == 0 ? tr("All (%1)").arg(levels) : QString::number(d), "maxDepth",
                                 [this, t, d] { setMaxDepth(t, d); });
                a->setObjectName(QStringLiteral("maxDepth%1").arg(d));
                a->setCheckable(true);
                a->setChecked(m_layout.maxDepth(t) == d);
                group->addAction(a);
            }
        } else if (r.kind == LayoutRow::Kind::GroupHeader) {
            const int g = r.group;
            const bool collapsed = m_layout.groupCollapsed(g);
            add(menu.get(), collapsed ? tr("Expand Process") : tr("Collapse Process"), "collapseGroup",
                [this, g, collapsed] { setGroupCollapsed(g, !collapsed); });
            add(menu.get(), tr("Pin All Its Threads"), "pinGroup", [this, g] {
                for (int t : m_data->groups()[size_t(g)].tracks)
                    m_layout.setTrackPinned(t, true);
                relayout();
            });
            add(menu.get(), tr("Unpin All Its Threads"), "unpinGroup", [this, g] {
                for (int t : m_data->groups()[size_t(g)].tracks)
                    m_layout.setTrackPinned(t, false);
                relayout();
            });
        } else if (r.kind == LayoutRow::Kind::RankHeader) {
            const int f = r.file;
            const bool collapsed = m_layout.fileCollapsed(f);
            add(menu.get(), collapsed ? tr("Expand Rank") : tr("Collapse Rank"), "collapseFile",
                [this, f, collapsed] { setFileCollapsed(f, !collapsed); });
        }
        menu->addSeparator();
    }
    if (m_data->pythonEvents() > 0)
        menu->addAction(m_pythonAction);
    add(menu.get(), tr("Expand All"), "expandAll", [this] { setAllCollapsed(false); });
    add(menu.get(), tr("Collapse All"), "collapseAll", [this] { setAllCollapsed(true); });
    return menu;
}

void TimelineView::contextMenuEvent(QContextMenuEvent *event)
{
    if (!m_data)
        return;
    std::unique_ptr<QMenu> menu = contextMenuAt(event->pos());
    menu->exec(event->globalPos());
    event->accept();
}

QString TimelineView::toolTipAt(const QPoint &pos) const
{
    if (!m_data)
        return {};
    if (indicatorRect().contains(pos))
        return tr("%n python_function event(s); click or press P to show or hide them", nullptr,
                  int(m_data->pythonEvents()));
    const QRect plot = plotRect();
    if (pos.x() < m_labelWidth && pos.y() >= plot.top()) {
        // The name panel: the full name of a truncated one.
        const auto [pinned, row] = rowAtPos(pos);
        if (row < 0)
            return {};
        const LayoutRow &r = (pinned ? m_layout.pinnedRows() : m_layout.rows())[size_t(row)];
        if (r.kind == LayoutRow::Kind::Slices && r.depth > 0)
            return {};
        const QString title = rowTitle(r, pinned);
        const int avail = m_labelWidth - (r.header() ? 24 : 30);
        QFont f = font();
        f.setBold(r.header());
        return QFontMetrics(f).horizontalAdvance(title) > avail ? title : QString();
    }
    if (!plot.contains(pos))
        return {};
    const TimeNs t = m_map.toTime(pos.x() - plot.left());
    const auto [pinned, row] = rowAtPos(pos);
    if (row >= 0) {
        const LayoutRow &r = (pinned ? m_layout.pinnedRows() : m_layout.rows())[size_t(row)];
        if (r.kind == LayoutRow::Kind::Counter) {
            const CounterSeries &cs = m_data->counterSeries(r.counter);
            auto it = std::upper_bound(cs.ts.begin(), cs.ts.end(), t);
            if (it == cs.ts.begin())
                return {};
            const size_t i = size_t(it - cs.ts.begin()) - 1;
            return QStringLiteral("%1\n%2 at %3")
                .arg(m_data->counters()[size_t(r.counter)].name)
                .arg(cs.value[i], 0, 'g', 12)
                .arg(formatDuration(cs.ts[i] - m_data->minTime()));
        }
    }
    const int gi = m_data->globalInstantNear(t, std::max<TimeNs>(1, m_map.toDuration(3.0)));
    if (gi >= 0) {
        const TimelineInstant &g = m_data->globalInstants()[size_t(gi)];
        return tr("%1\nglobal instant at %2")
            .arg(m_data->text(g.file, g.name), formatDuration(g.ts - m_data->minTime()));
    }
    const TimelineEvent e = eventAt(pos);
    if (!e.valid())
        return {};
    const QString name = labelText(m_data->name(e));
    const QString cat = QString::fromUtf8(m_data->category(e).data(), int(m_data->category(e).size()));
    return QStringLiteral("%1\n%2 · %3")
        .arg(name.left(300), cat, formatDuration(m_data->end(e) - m_data->start(e)));
}

void TimelineView::ensureTrackVisible(int track, int depth)
{
    if (!m_data || track < 0 || track >= int(m_data->tracks().size()))
        return;
    const TimelineTrack &tt = m_data->tracks()[size_t(track)];
    if (m_layout.fileCollapsed(int(tt.file)) || m_layout.groupCollapsed(tt.group)) {
        m_layout.setFileCollapsed(int(tt.file), false);
        m_layout.setGroupCollapsed(tt.group, false);
        relayout();
    }
    const TimelineLayout::Span sp = m_layout.spanOf(track);
    if (sp.count == 0)
        return;
    if (sp.pinned) { // the pinned area scrolls on its own
        const LayoutRow &r = m_layout.pinnedRows()[size_t(sp.first + std::clamp(depth, 0, sp.count - 1))];
        const int h = pinnedRect().height();
        if (r.y < pinnedScrollY())
            setPinnedScroll(r.y);
        else if (r.y + r.height > pinnedScrollY() + h)
            setPinnedScroll(r.y + r.height - h);
        return;
    }
    const LayoutRow &r = m_layout.rows()[size_t(sp.first + std::clamp(depth, 0, sp.count - 1))];
    const int h = scrollRect().height();
    QScrollBar *sb = verticalScrollBar();
    if (r.y < sb->value())
        sb->setValue(std::max(0, r.y - TimelineData::kHeaderHeight));
    else if (r.y + r.height > sb->value() + h)
        sb->setValue(r.y + r.height - h + TimelineData::kRowHeight);
}

void TimelineView::revealEvent(const TimelineEvent &e)
{
    if (!m_data || !e.valid() || e.track >= int(m_data->tracks().size()))
        return;
    if (m_layout.shownDepth(e) < 0)
        setShowPython(true);
    bool changed = false;
    if (m_layout.trackCollapsed(e.track)) {
        m_layout.setTrackCollapsed(e.track, false);
        changed = true;
    }
    const int depth = m_layout.shownDepth(e);
    if (m_layout.maxDepth(e.track) > 0 && depth >= m_layout.maxDepth(e.track)) {
        m_layout.setMaxDepth(e.track, 0);
        changed = true;
    }
    if (changed)
        relayout();
    ensureTrackVisible(e.track, std::max(0, depth));
}

bool TimelineView::isTrackRowVisible(int track, int depth) const
{
    if (!m_data || track < 0 || track >= int(m_data->tracks().size()))
        return false;
    const TimelineLayout::Span sp = m_layout.spanOf(track);
    if (sp.count == 0)
        return false;
    const bool pinned = sp.pinned;
    const LayoutRow &r = (pinned ? m_layout.pinnedRows()
                                 : m_layout.rows())[size_t(sp.first + std::clamp(depth, 0, sp.count - 1))];
    const QRect area = pinned ? pinnedRect() : scrollRect();
    const int top = rowTop(pinned, r);
    return top >= area.top() && top + r.height <= area.top() + area.height();
}

void TimelineView::revealGap(int gap)
{
    if (!m_data || gap < 0 || gap >= int(m_data->gaps().size()))
        return;
    const TimelineGap &g = m_data->gaps()[size_t(gap)];
    const TimelineFile &file = m_data->files()[g.file];
    const SyncGap &sg = file.sync.syncGaps[g.gap];
    const TimelineEvent call = m_data->eventOf(g.file, file.sync.syncCalls[sg.syncCall].event);
    std::vector<int> gpuTracks;
    for (const auto &dg : file.deviceGaps)
        if (dg.device == sg.device)
            gpuTracks = dg.tracks;
    // Expand what hides them.
    bool changed = false;
    auto expand = [&](int track) {
        const TimelineTrack &tt = m_data->tracks()[size_t(track)];
        if (m_layout.fileCollapsed(int(tt.file)) || m_layout.groupCollapsed(tt.group)) {
            m_layout.setFileCollapsed(int(tt.file), false);
            m_layout.setGroupCollapsed(tt.group, false);
            changed = true;
        }
    };
    if (call.valid())
        expand(call.track);
    for (int t : gpuTracks)
        expand(t);
    if (changed)
        relayout();
    // The scrolled rows to show: the call's, then the GPU band (when not pinned).
    int lo = INT32_MAX, hi = INT32_MIN, callLo = INT32_MAX, callHi = INT32_MIN;
    if (call.valid()) {
        const TimelineLayout::Span sp = m_layout.spanOf(call.track);
        if (sp.count > 0 && !sp.pinned) {
            const int d = std::clamp(m_layout.shownDepth(call), 0, sp.count - 1);
            const LayoutRow &r = m_layout.rows()[size_t(sp.first + d)];
            callLo = lo = r.y;
            callHi = hi = r.y + r.height;
        }
    }
    for (int t : gpuTracks) {
        const TimelineLayout::Span sp = m_layout.spanOf(t);
        if (sp.count == 0 || sp.pinned)
            continue;
        lo = std::min(lo, m_layout.rows()[size_t(sp.first)].y);
        const LayoutRow &last = m_layout.rows()[size_t(sp.first + sp.count - 1)];
        hi = std::max(hi, last.y + last.height);
    }
    if (lo > hi)
        return; // all pinned
    const int h = scrollRect().height();
    if (hi - lo > h) { // both do not fit: the call's thread wins
        lo = callLo != INT32_MAX ? callLo : lo;
        hi = callLo != INT32_MAX ? callHi : lo + h;
    }
    QScrollBar *sb = verticalScrollBar();
    const int margin = TimelineData::kHeaderHeight;
    if (lo < sb->value() || hi > sb->value() + h)
        sb->setValue(std::max(0, std::min(lo - margin, hi - h + margin)));
    if (lo < sb->value() || hi > sb->value() + h) // the margin did not fit
        sb->setValue(std::clamp(sb->value(), hi - h, lo));
}

} // namespace syncscope::ui
