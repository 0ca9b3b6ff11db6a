// Track management in the timeline: order, pins, collapse, depth cap, Python
// frames, drag to reorder, global instants, counters, the gap jump and the name
// panel. A small hand-written trace whose rows are known, and the synthetic one.
#include "synthetictrace.h"
#include "uievents.h"
#include "timeline/timelinedata.h"
#include "timeline/timelinepage.h"
#include "timeline/passes/blockingcallspass.h"
#include "timeline/passes/counterpass.h"
#include "timeline/passes/instantspass.h"
#include "timeline/passes/slicespass.h"
#include "timeline/passes/summarypass.h"
#include "timeline/timelineview.h"
#include "trace/traceloader.h"
#include "trace/tracewriter.h"

#include <QAction>
#include <QMenu>
#include <QScrollBar>
#include <QTemporaryDir>
#include <QWheelEvent>
#include <QtTest>

#include <set>
#include <tuple>

using namespace syncscope;
using namespace syncscope::ui;
using syncscope::test::sendMouse;

namespace {

// pid 100 "python train.py": thread 1 "main" with a Python stack
//   train.py [0, 1000] > forward [10, 900] > aten::mm [20, 320] > cudaLaunchKernel [30, 40]
//                                         > aten::add [400, 500] > cudaStreamSynchronize [410, 480]
// and thread 2 with a long name; a counter "Memory" (10 at 0, 50 at 200, 20 at 600).
// pid 0: a kernel on stream 7. pid "Spans": a span. Global instants at 950 (pid "")
// and 5 (pid "Traces", its only event).
const char *kTrace = R"json({"traceEvents": [
 {"ph": "M", "name": "process_name", "pid": 100, "tid": 0, "args": {"name": "python train.py"}},
 {"ph": "M", "name": "thread_name", "pid": 100, "tid": 1, "args": {"name": "main"}},
 {"ph": "M", "name": "thread_name", "pid": 100, "tid": 2,
  "args": {"name": "a data loader thread with a name far too long for the panel of names"}},
 {"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans", "tid": "PyTorch Profiler", "ts": 0, "dur": 1000},
 {"ph": "X", "cat": "python_function", "name": "train.py(10): main", "pid": 100, "tid": 1, "ts": 0, "dur": 1000},
 {"ph": "X", "cat": "python_function", "name": "model.py(5): forward", "pid": 100, "tid": 1, "ts": 10, "dur": 890},
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 100, "tid": 1, "ts": 20, "dur": 300},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 1, "ts": 30, "dur": 10,
  "args": {"correlation": 1}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 100, "tid": 1, "ts": 400, "dur": 100},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": 100, "tid": 1, "ts": 410, "dur": 70},
 {"ph": "X", "cat": "cpu_op", "name": "load", "pid": 100, "tid": 2, "ts": 0, "dur": 500},
 {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 50, "dur": 350,
  "args": {"device": 0, "stream": 7, "correlation": 1}},
 {"ph": "C", "name": "Memory", "pid": 100, "ts": 0, "args": {"allocated": 10}},
 {"ph": "C", "name": "Memory", "pid": 100, "ts": 200, "args": {"allocated": 50}},
 {"ph": "C", "name": "Memory", "pid": 100, "ts": 600, "args": {"allocated": 20}},
 {"ph": "i", "s": "g", "name": "Iteration Start: PyTorch Profiler", "pid": "Traces", "tid": "Trace PyTorch Profiler", "ts": 5},
 {"ph": "i", "s": "g", "name": "Record Window End", "pid": "", "tid": "", "ts": 950}
]})json";

void click(QWidget *w, QPoint pos)
{
    sendMouse(w, QEvent::MouseButtonPress, pos, Qt::LeftButton, Qt::LeftButton);
    sendMouse(w, QEvent::MouseButtonRelease, pos, Qt::LeftButton, Qt::NoButton);
}

QAction *findAction(QMenu *menu, const QString &name) { return menu->findChild<QAction *>(name); }

} // namespace

class TstTimelineTracks : public QObject {
    Q_OBJECT
private:
    std::unique_ptr<TimelineView> m_view;
    std::shared_ptr<const TimelineData> m_data;
    int m_main = -1, m_loader = -1, m_gpu = -1, m_spans = -1;

    int trackNamed(const QString &prefix) const
    {
        for (size_t t = 0; t < m_data->tracks().size(); ++t)
            if (m_data->tracks()[t].name.startsWith(prefix))
                return int(t);
        return -1;
    }
    // The event of the main thread with this name.
    TimelineEvent event(const char *name) const
    {
        const Track &mt = m_data->modelTrack(m_main);
        for (uint32_t i = 0; i < mt.size(); ++i)
            if (m_data->name({m_main, i}) == name)
                return {m_main, i};
        return {};
    }
    // Viewport point at time us (from the trace's start) in a layout row.
    QPoint at(double us, bool pinned, int row) const
    {
        const QRect r = m_view->rowRect(pinned, row);
        const TimeNs t = m_data->minTime() + TimeNs(us * 1000);
        return QPoint(m_view->plotRect().left() + int(m_view->mapping().toPixel(t)), r.center().y());
    }
    QPoint labelOf(int track) const
    {
        const auto sp = m_view->layout().spanOf(track);
        return m_view->rowRect(sp.pinned, sp.first).topLeft() + QPoint(40, 9);
    }

private Q_SLOTS:
    void init()
    {
        m_data = TimelineData::build({loadTraceFromMemory(kTrace, "tracks.json")});
        m_main = trackNamed(QStringLiteral("main"));
        m_loader = trackNamed(QStringLiteral("a data loader"));
        m_gpu = trackNamed(QStringLiteral("stream 7"));
        m_spans = trackNamed(QStringLiteral("thread PyTorch Profiler"));
        QStringList names;
        for (const auto &t : m_data->tracks())
            names << t.name;
        QVERIFY2(m_main >= 0 && m_loader >= 0 && m_gpu >= 0 && m_spans >= 0,
                 qPrintable(names.join(QStringLiteral(", "))));
        m_view = std::make_unique<TimelineView>();
        m_view->resize(1000, 500);
        m_view->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
        m_view->setData(m_data);
    }
    void cleanup()
    {
        m_view.reset();
        setTimelineGeometryThreads(0);
    }

    void defaultOrderPinsAndGlobalInstants()
    {
        // CPU process, GPU device, then the pseudo-process; no "(pid )" row for
        // the global instants, and "Traces" (only a global instant) has none.
        QStringList titles;
        for (const TimelineGroup &g : m_data->groups())
            titles << g.title;
        QCOMPARE(titles, QStringList({QStringLiteral("python train.py (pid 100)"),
                                      QStringLiteral("Process (pid 0)"), QStringLiteral("Spans")}));
        QCOMPARE(int(m_data->groups()[0].kind), int(TimelineGroup::Kind::Cpu));
        QCOMPARE(int(m_data->groups()[1].kind), int(TimelineGroup::Kind::Gpu));
        QCOMPARE(int(m_data->groups()[2].kind), int(TimelineGroup::Kind::Pseudo));
        QCOMPARE(m_data->globalInstants().size(), size_t(2));
        QCOMPARE(m_data->text(0, m_data->globalInstants()[1].name), QStringLiteral("Record Window End"));
        // GPU pinned, the others scroll
        const TimelineLayout &l = m_view->layout();
        QVERIFY(l.trackPinned(m_gpu));
        QVERIFY(!l.trackPinned(m_main) && !l.trackPinned(m_spans));
        QVERIFY(l.spanOf(m_gpu).pinned);
        QCOMPARE(l.pinnedRows().front().kind, LayoutRow::Kind::GroupHeader);
        // In the scrolled section the pseudo-process comes last.
        QCOMPARE(l.rows().back().track, m_spans);
    }

    void globalInstantIsALineAcrossTracks()
    {
        const TimeNs ts = m_data->globalInstants()[1].ts;
        const int x = m_view->plotRect().left() + int(std::floor(m_view->mapping().toPixel(ts)));
        // Its name on hover, in a pinned row and in a scrolled one.
        QVERIFY(m_view->toolTipAt(QPoint(x, m_view->rowRect(true, 1).center().y()))
                    .contains(QStringLiteral("Record Window End")));
        QVERIFY(m_view
                    ->toolTipAt(QPoint(x, m_view->rowRect(false, m_view->layout().rows().size() - 1).center().y()))
                    .contains(QStringLiteral("Record Window End")));
        // Drawn from the plot's top to its bottom (dashed: some pixels of each half).
        const QImage img = m_view->viewport()->grab().toImage();
        const QRect plot = m_view->plotRect();
        auto purple = [&](int y) {
            const QColor c = img.pixelColor(x, y);
            return c.blue() > c.green() + 40 && c.red() > c.green();
        };
        int top = 0, bottom = 0;
        for (int y = plot.top(); y < plot.center().y(); ++y)
            top += purple(y);
        for (int y = plot.center().y(); y <= plot.bottom(); ++y)
            bottom += purple(y);
        QVERIFY2(top > 20 && bottom > 20, qPrintable(QStringLiteral("%1 %2").arg(top).arg(bottom)));
    }

    void pythonFramesHiddenByDefaultAndToggle()
    {
        const TimelineLayout &l = m_view->layout();
        QVERIFY(!l.showPython());
        QCOMPARE(m_data->pythonEvents(), uint64_t(2));
        QCOMPARE(m_view->pythonIndicatorText(), QStringLiteral("Python frames hidden (2)"));
        QVERIFY(!m_view->indicatorRect().isEmpty());
        // Beneath the hidden frames, the ops move up.
        QCOMPARE(l.shownDepth(event("aten::mm")), 0);
        QCOMPARE(l.shownDepth(event("cudaLaunchKernel")), 1);
        QCOMPARE(l.shownDepth(event("cudaStreamSynchronize")), 1);
        QCOMPARE(l.shownDepth(event("train.py(10): main")), -1);
        QCOMPARE(l.placeOf(event("model.py(5): forward")).row, -1);
        QCOMPARE(l.spanOf(m_main).count, 2);
        const int row0 = l.spanOf(m_main).first;
        QCOMPARE(m_view->eventAt(at(100, false, row0)), event("aten::mm"));
        QCOMPARE(m_view->eventAt(at(450, false, row0 + 1)), event("cudaStreamSynchronize"));

        // The action shows them: four rows, the ops at their depth in the file.
        QAction *a = m_view->showPythonAction();
        QVERIFY(!a->isChecked());
        a->trigger();
        QVERIFY(l.showPython());
        QVERIFY(m_view->pythonIndicatorText().isEmpty());
        QCOMPARE(l.spanOf(m_main).count, 4);
        QCOMPARE(l.shownDepth(event("aten::mm")), 2);
        QCOMPARE(m_view->eventAt(at(100, false, l.spanOf(m_main).first)), event("train.py(10): main"));
        // P hides them again; so does a click on the indicator.
        QTest::keyClick(m_view.get(), Qt::Key_P);
        QVERIFY(!l.showPython());
        QVERIFY(!a->isChecked());
        click(m_view->viewport(), m_view->indicatorRect().center());
        QVERIFY(l.showPython());
        QVERIFY(a->isChecked());
    }

    void collapseAndExpandThreadByClick()
    {
        const TimelineLayout &l = m_view->layout();
        QSignalSpy spy(m_view.get(), &TimelineView::layoutChanged);
        click(m_view->viewport(), labelOf(m_main));
        QVERIFY(l.trackCollapsed(m_main));
        QCOMPARE(spy.count(), 1);
        const auto sp = l.spanOf(m_main);
        QCOMPARE(sp.count, 1);
        QCOMPARE(l.rows()[size_t(sp.first)].kind, LayoutRow::Kind::Summary);
        // The summary row shows busy time: the union of the top-level events,
        // here train.py [0, 1000] us, one merged band.
        m_view->viewport()->grab();
        const QRect row = m_view->rowRect(false, sp.first);
        const auto &busy = m_view->frame().state<SummaryPass::State>(false).busy();
        QCOMPARE(busy.size(), size_t(1));
        const QRect b = busy.front();
        QVERIFY(b.top() > row.top() && b.bottom() < row.bottom() + 1);
        QVERIFY(std::abs(b.left() - at(0, false, sp.first).x()) <= 1);
        QVERIFY(std::abs(b.right() + 1 - at(1000, false, sp.first).x()) <= 2);
        // The blocking call is still marked there.
        bool marked = false;
        for (const QRect &c : m_view->frame().state<BlockingCallsPass::State>(false).otherCalls)
            marked |= c.top() == row.top();
        for (const QRect &c : m_view->frame().state<BlockingCallsPass::State>(false).gapCalls)
            marked |= c.top() == row.top();
        QVERIFY(marked);
        // Click again: expanded.
        click(m_view->viewport(), labelOf(m_main));
        QVERIFY(!l.trackCollapsed(m_main));
        QCOMPARE(l.spanOf(m_main).count, 2);
        // And from the context menu.
        auto menu = m_view->contextMenuAt(labelOf(m_main));
        findAction(menu.get(), QStringLiteral("collapseTrack"))->trigger();
        QVERIFY(l.trackCollapsed(m_main));
    }

    void collapseProcessRankAndAll()
    {
        const TimelineLayout &l = m_view->layout();
        const int group = m_data->tracks()[size_t(m_main)].group;
        // Click the process header: its threads and counter go.
        int header = -1;
        for (size_t r = 0; r < l.rows().size(); ++r)
            if (l.rows()[r].kind == LayoutRow::Kind::GroupHeader && l.rows()[r].group == group)
                header = int(r);
        QVERIFY(header >= 0);
        click(m_view->viewport(), m_view->rowRect(false, header).topLeft() + QPoint(40, 8));
        QVERIFY(l.groupCollapsed(group));
        // Its header shows the busy time of its threads: main [0, 1000] and the
        // loader [0, 500] us, both from 0.
        m_view->viewport()->grab();
        const QRect headerRect = m_view->rowRect(false, header);
        int inHeader = 0, right = 0;
        for (const QRect &b : m_view->frame().state<SummaryPass::State>(false).busy())
            if (headerRect.contains(b.center())) {
                ++inHeader;
                right = std::max(right, b.right() + 1);
            }
        QCOMPARE(inHeader, 2);
        QVERIFY(std::abs(right - at(1000, false, header).x()) <= 2);
        QCOMPARE(l.spanOf(m_main).count, 0);
        QCOMPARE(l.spanOf(m_loader).count, 0);
        for (const LayoutRow &r : l.rows())
            QVERIFY(r.kind != LayoutRow::Kind::Counter);
        // Expand All from the menu; Collapse All collapses threads too.
        auto menu = m_view->contextMenuAt(QPoint(m_view->plotRect().center().x(),
                                                 m_view->viewport()->height() - 2));
        findAction(menu.get(), QStringLiteral("expandAll"))->trigger();
        QVERIFY(!l.groupCollapsed(group));
        QCOMPARE(l.spanOf(m_main).count, 2);
        menu = m_view->contextMenuAt(QPoint(5, 5));
        findAction(menu.get(), QStringLiteral("collapseAll"))->trigger();
        QVERIFY(l.groupCollapsed(group) && l.trackCollapsed(m_main) && l.trackCollapsed(m_gpu));
        // A rank: two files, collapse the first.
        m_view->setData(TimelineData::build({loadTraceFromMemory(kTrace, "rank0.json"),
                                             loadTraceFromMemory(kTrace, "rank1.json")}));
        QCOMPARE(l.rows().front().kind, LayoutRow::Kind::RankHeader);
        const size_t before = l.rows().size();
        click(m_view->viewport(), m_view->rowRect(false, 0).topLeft() + QPoint(40, 8));
        QVERIFY(l.fileCollapsed(0));
        QVERIFY(l.rows().size() < before);
        QCOMPARE(l.rows()[1].kind, LayoutRow::Kind::RankHeader); // rank 1 follows at once
        // The collapsed rank's header draws its GPU busy time, as a collapsed
        // process does its threads': its GPU stream's kernels end at 1000 us.
        m_view->viewport()->grab();
        const QRect rankRect = m_view->rowRect(false, 0);
        int inRank = 0, rankRight = 0;
        for (const QRect &b : m_view->frame().state<SummaryPass::State>(false).busy())
            if (rankRect.contains(b.center())) {
                ++inRank;
                rankRight = std::max(rankRight, b.right() + 1);
            }
        QVERIFY2(inRank > 0, "a collapsed rank shows its activity");
        TimeNs gpuEnd = 0;
        for (const TimelineTrack &t : m_view->data()->tracks())
            if (t.file == 0 && t.gpu)
                for (const TimelineLevel &lv : t.levels)
                    for (uint32_t e : lv.events)
                        gpuEnd = std::max(
                            gpuEnd, m_view->data()->modelTrack(int(&t - &m_view->data()->tracks()[0])).end(e));
        QVERIFY(gpuEnd > m_view->data()->minTime());
        const int expectRight = m_view->plotRect().left() + int(std::ceil(m_view->mapping().toPixel(gpuEnd)));
        QVERIFY2(
            std::abs(rankRight - expectRight) <= 2,
            qPrintable(QStringLiteral("busy ends at %1 px, the GPU at %2 px").arg(rankRight).arg(expectRight)));
    }

    // Expanding a rank grows the pinned GPU area above the scrolled rows: the
    // clicked header stays under the mouse, so the next click lands where
    // the user aims.
    void expandingARankKeepsItsHeaderUnderTheMouse()
    {
        m_view->resize(1000, 420);
        m_view->setData(TimelineData::build({loadTraceFromMemory(kTrace, "rank0.json"),
                                             loadTraceFromMemory(kTrace, "rank1.json"),
                                             loadTraceFromMemory(kTrace, "rank2.json"),
                                             loadTraceFromMemory(kTrace, "rank3.json")}));
        const TimelineLayout &l = m_view->layout();
        auto headerOf = [&](int file) {
            for (size_t r = 0; r < l.rows().size(); ++r)
                if (l.rows()[r].kind == LayoutRow::Kind::RankHeader && l.rows()[r].file == file)
                    return int(r);
            return -1;
        };
        // Ranks 1 to 3 collapsed; then the view scrolled to rank 2's header.
        for (int f = 1; f < 4; ++f)
            m_view->setFileCollapsed(f, true);
        const int pinnedBefore = m_view->pinnedRect().height();
        m_view->verticalScrollBar()->setValue(m_view->verticalScrollBar()->maximum());
        const int row = headerOf(2);
        QVERIFY(row >= 0);
        const QRect before = m_view->rowRect(false, row);
        QVERIFY2(!before.isNull(), "rank 2's header is on screen");
        click(m_view->viewport(), before.topLeft() + QPoint(40, 8));
        QVERIFY(!l.fileCollapsed(2));
        QVERIFY2(m_view->pinnedRect().height() > pinnedBefore, "its GPU rows joined the pinned area");
        const QRect after = m_view->rowRect(false, headerOf(2));
        QCOMPARE(after.top(), before.top());
        // And collapsing it again from there keeps it too.
        click(m_view->viewport(), after.topLeft() + QPoint(40, 8));
        QVERIFY(l.fileCollapsed(2));
        const QRect again = m_view->rowRect(false, headerOf(2));
        QVERIFY(!again.isNull());
    }

    // Eight ranks' GPU streams are taller than the pinned area: it scrolls on
    // its own (the wheel over its names), and the band under it resizes it.
    void pinnedAreaScrollsAndResizes()
    {
        m_view->resize(1000, 460);
        std::vector<TraceModelPtr> ranks;
        for (int r = 0; r < 8; ++r)
            ranks.push_back(loadTraceFromMemory(kTrace, "rank" + std::to_string(r) + ".json"));
        m_view->setData(TimelineData::build(std::move(ranks)));
        const TimelineLayout &l = m_view->layout();
        QVERIFY(l.pinnedHeight() > m_view->pinnedRect().height());
        QVERIFY(m_view->pinnedScrollMax() > 0);
        QCOMPARE(m_view->pinnedScrollY(), 0);
        const QRect pinned = m_view->pinnedRect();
        const int scrolledBefore = m_view->verticalScrollBar()->value();
        const QPoint overNames(20, pinned.top() + 10);
        const auto [wasPinned, rowBefore] = m_view->rowAtPos(overNames);
        QVERIFY(wasPinned && rowBefore >= 0);
        QWheelEvent down(QPointF(overNames), m_view->viewport()->mapToGlobal(QPointF(overNames)), QPoint(),
                         QPoint(0, -240), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(m_view->viewport(), &down);
        QVERIFY(m_view->pinnedScrollY() > 0);
        QCOMPARE(m_view->verticalScrollBar()->value(), scrolledBefore); // the other rows stay
        const auto [stillPinned, rowAfter] = m_view->rowAtPos(overNames);
        QVERIFY(stillPinned && rowAfter > rowBefore); // a lower row is under the point now
        // The last pinned track can be brought into view.
        const int last = l.pinnedRows().back().track;
        m_view->setPinnedScroll(0);
        m_view->ensureTrackVisible(last, 0);
        QVERIFY(m_view->isTrackRowVisible(last, 0));
        QVERIFY(m_view->pinnedScrollY() > 0);
        // Dragging the band under it down by 60 px gives it 60 px more.
        const int h = pinned.height();
        const QPoint band(300, pinned.bottom() + 2);
        sendMouse(m_view->viewport(), QEvent::MouseButtonPress, band, Qt::LeftButton, Qt::LeftButton);
        sendMouse(m_view->viewport(), QEvent::MouseMove, band + QPoint(0, 60), Qt::NoButton, Qt::LeftButton);
        sendMouse(m_view->viewport(), QEvent::MouseButtonRelease, band + QPoint(0, 60), Qt::LeftButton,
                  Qt::NoButton);
        QVERIFY2(std::abs(m_view->pinnedRect().height() - (h + 60)) <= 2,
                 qPrintable(QStringLiteral("%1 px, was %2").arg(m_view->pinnedRect().height()).arg(h)));
        // and up to a small area, the scrolled rows take the rest.
        m_view->setPinnedLimit(TimelineData::kRowHeight);
        QCOMPARE(m_view->pinnedRect().height(), TimelineData::kRowHeight);
        QVERIFY(m_view->scrollRect().height() > 300);
    }

    // Find's outlines sit on the rows as drawn: with Python frames hidden
    // (the default) aten::mm is on the thread's first row, not its third.
    void findOutlinesFollowTheLayout()
    {
        const TimelineEvent mm = event("aten::mm");
        auto mask = std::make_shared<std::vector<std::vector<char>>>(1);
        const auto &model = *m_data->files().front().model;
        (*mask)[0].assign(model.strings().size(), 0);
        (*mask)[0][model.findString("aten::mm")] = 1;
        m_view->setHighlightedNames(mask);
        for (bool python : {false, true}) {
            m_view->setShowPython(python);
            m_view->viewport()->grab();
            const QRect drawn = m_view->eventRect(mm);
            QVERIFY(!drawn.isNull());
            QCOMPARE(m_view->highlightRects().size(), size_t(1));
            QVERIFY2(m_view->highlightRects().front().contains(drawn.center()),
                     qPrintable(QStringLiteral("python %1").arg(python)));
        }
    }

    // Find reveals a match wherever it is: a hidden Python frame shows the
    // frames, a collapsed thread expands, a depth cap above it is lifted.
    void revealEventMakesItDrawn()
    {
        const TimelineLayout &l = m_view->layout();
        const TimelineEvent forward = event("model.py(5): forward");
        QVERIFY(!l.showPython());
        QVERIFY(m_view->eventRect(forward).isNull());
        m_view->revealEvent(forward);
        QVERIFY(l.showPython());
        QVERIFY(!m_view->eventRect(forward).isNull());

        const TimelineEvent mm = event("aten::mm"); // depth 2 with the frames shown
        m_view->setMaxDepth(m_main, 1);
        m_view->setTrackCollapsed(m_main, true);
        m_view->revealEvent(mm);
        QVERIFY(!l.trackCollapsed(m_main));
        QCOMPARE(l.maxDepth(m_main), 0);
        QVERIFY(!m_view->eventRect(mm).isNull());
    }

    void depthLimitPerThread()
    {
        const TimelineLayout &l = m_view->layout();
        m_view->setShowPython(true);
        QCOMPARE(l.spanOf(m_main).count, 4);
        auto menu = m_view->contextMenuAt(labelOf(m_main));
        QAction *two = findAction(menu.get(), QStringLiteral("maxDepth2"));
        QVERIFY(two);
        two->trigger();
        QCOMPARE(l.maxDepth(m_main), 2);
        QCOMPARE(l.spanOf(m_main).count, 2);
        QCOMPARE(l.spanOf(m_loader).count, 1); // per thread
        QCOMPARE(l.placeOf(event("aten::mm")).row, -1);
        QVERIFY(m_view->eventRect(event("aten::mm")).isNull());
        // The blocking call (depth 3) still shows, on the last shown row.
        m_view->viewport()->grab();
        const QRect last = m_view->rowRect(false, l.spanOf(m_main).first + 1);
        bool marked = false;
        for (const auto *v : {&m_view->frame().state<BlockingCallsPass::State>(false).otherCalls,
                              &m_view->frame().state<BlockingCallsPass::State>(false).gapCalls})
            for (const QRect &c : *v)
                marked |= c.top() == last.top();
        QVERIFY(marked);
        menu = m_view->contextMenuAt(labelOf(m_main));
        findAction(menu.get(), QStringLiteral("maxDepth0"))->trigger();
        QCOMPARE(l.spanOf(m_main).count, 4);
    }

    void pinKeepsTracksFixedWhileScrolling()
    {
        const TimelineLayout &l = m_view->layout();
        m_view->resize(1000, 230); // small enough to scroll
        auto menu = m_view->contextMenuAt(labelOf(m_loader));
        findAction(menu.get(), QStringLiteral("pinTrack"))->trigger();
        QVERIFY(l.trackPinned(m_loader));
        QVERIFY(l.spanOf(m_loader).pinned);
        QVERIFY(m_view->verticalScrollBar()->maximum() > 0);
        const QRect pinnedRow = m_view->rowRect(true, l.spanOf(m_loader).first);
        const QRect scrolledRow = m_view->rowRect(false, l.spanOf(m_main).first);
        m_view->verticalScrollBar()->setValue(m_view->verticalScrollBar()->maximum());
        QCOMPARE(m_view->rowRect(true, l.spanOf(m_loader).first), pinnedRow);
        QVERIFY(m_view->rowRect(false, l.spanOf(m_main).first).top() < scrolledRow.top());
        QVERIFY(m_view->isTrackRowVisible(m_gpu, 0));
        // Unpin the GPU: it scrolls with the rest.
        menu = m_view->contextMenuAt(labelOf(m_gpu));
        findAction(menu.get(), QStringLiteral("pinTrack"))->trigger();
        QVERIFY(!l.spanOf(m_gpu).pinned);
    }

    void reorderByApi()
    {
        const TimelineLayout &l = m_view->layout();
        const int group = m_data->tracks()[size_t(m_main)].group;
        QCOMPARE(l.trackOrder(group), std::vector<int>({m_main, m_loader}));
        QVERIFY(l.spanOf(m_main).first < l.spanOf(m_loader).first);
        QVERIFY(m_view->moveTrack(m_loader, m_main));
        QCOMPARE(l.trackOrder(group), std::vector<int>({m_loader, m_main}));
        QVERIFY(l.spanOf(m_loader).first < l.spanOf(m_main).first);
        QVERIFY(!m_view->moveTrack(m_loader, m_spans)); // not across processes
        // Processes: the pseudo-process before the CPU one.
        const int spans = m_data->tracks()[size_t(m_spans)].group;
        QVERIFY(m_view->moveGroup(spans, group));
        QCOMPARE(l.rows().front().group, spans);
    }

    void reorderByMouseDrag()
    {
        const TimelineLayout &l = m_view->layout();
        const int group = m_data->tracks()[size_t(m_main)].group;
        QWidget *vp = m_view->viewport();
        const QPoint from = labelOf(m_main), to = labelOf(m_loader);
        sendMouse(vp, QEvent::MouseButtonPress, from, Qt::LeftButton, Qt::LeftButton);
        sendMouse(vp, QEvent::MouseMove, from + QPoint(0, 6), Qt::NoButton, Qt::LeftButton);
        sendMouse(vp, QEvent::MouseMove, to, Qt::NoButton, Qt::LeftButton);
        sendMouse(vp, QEvent::MouseButtonRelease, to, Qt::LeftButton, Qt::NoButton);
        QCOMPARE(l.trackOrder(group), std::vector<int>({m_loader, m_main}));
        QVERIFY(!l.trackCollapsed(m_main)); // a drag is no click
    }

    void counterIsAStepArea()
    {
        const TimelineLayout &l = m_view->layout();
        QCOMPARE(m_data->counters().size(), size_t(1));
        QCOMPARE(m_data->counters()[0].name, QStringLiteral("Memory.allocated"));
        int row = -1;
        for (size_t r = 0; r < l.rows().size(); ++r)
            if (l.rows()[r].kind == LayoutRow::Kind::Counter)
                row = int(r);
        QVERIFY(row >= 0);
        QCOMPARE(l.rows()[size_t(row)].group,
                 m_data->tracks()[size_t(m_main)].group); // under its process
        m_view->viewport()->grab();
        const auto &areas = m_view->frame().state<CounterPass::State>(false).areas;
        QCOMPARE(areas.size(), size_t(3));
        // 10 on [0, 200), 50 on [200, 600), 20 from 600: heights in that ratio,
        // bottoms on one baseline.
        QVERIFY(std::abs(areas[0].left() - at(0, false, row).x()) <= 1);
        QVERIFY(std::abs(areas[1].left() - at(200, false, row).x()) <= 1);
        QVERIFY(std::abs(areas[2].left() - at(600, false, row).x()) <= 1);
        QVERIFY(std::abs(areas[1].right() + 1 - at(600, false, row).x()) <= 1);
        QCOMPARE(areas[0].bottom(), areas[1].bottom());
        QVERIFY(std::abs(areas[1].height() - 5 * areas[0].height()) <= 3);
        QVERIFY(std::abs(areas[1].height() - (TimelineLayout::kCounterHeight - 4)) <= 1);
        // The value on hover.
        const QString tip = m_view->toolTipAt(at(300, false, row));
        QVERIFY2(tip.contains(QStringLiteral("50")), qPrintable(tip));
        QVERIFY(m_view->toolTipAt(at(100, false, row)).contains(QStringLiteral("10")));
    }

    void namePanelResizesAndTooltipsTruncatedNames()
    {
        // The long name is cut at 190 px: its full name on hover; "main" is not.
        QCOMPARE(m_view->toolTipAt(labelOf(m_loader)),
                 QStringLiteral("a data loader thread with a name far too long for the panel of names"));
        QVERIFY(m_view->toolTipAt(labelOf(m_main)).isEmpty());
        // Drag the panel's edge.
        QWidget *vp = m_view->viewport();
        const QPoint edge(m_view->labelWidth(), m_view->plotRect().center().y());
        const TimeMapping before = m_view->mapping();
        sendMouse(vp, QEvent::MouseButtonPress, edge, Qt::LeftButton, Qt::LeftButton);
        sendMouse(vp, QEvent::MouseMove, QPoint(600, edge.y()), Qt::NoButton, Qt::LeftButton);
        sendMouse(vp, QEvent::MouseButtonRelease, QPoint(600, edge.y()), Qt::LeftButton, Qt::NoButton);
        QCOMPARE(m_view->labelWidth(), 600);
        QCOMPARE(m_view->plotRect().left(), 600);
        QCOMPARE(m_view->mapping().start(), before.start()); // the same range, narrower
        QVERIFY(m_view->toolTipAt(labelOf(m_loader)).isEmpty());
    }

    void parallelRowsMatchSerial()
    {
        test::SyntheticTrace t;
        t.steps = 300;
        t.kernelsPerStep = 30;
        // Three ranks: enough rows for several threads.
        const auto data = TimelineData::build({t.build("r0.json"), t.build("r1.json"), t.build("r2.json")});
        m_view->setData(data);
        m_view->resize(1400, 900);
        const TimeNs span = data->maxTime() - data->minTime();
        m_view->setVisibleRange(data->minTime() + span / 3, data->minTime() + span / 3 + span / 40);
        auto snapshot = [&] {
            m_view->invalidateGeometry();
            m_view->viewport()->grab();
            std::multiset<std::tuple<int, int, int, int, int>> out;
            const TimelineFrame &f = m_view->frame();
            for (bool pinned : {false, true}) {
                for (const BoxBatches *g :
                     {&f.state<SlicesPass::State>(pinned).boxes, &f.state<SummaryPass::State>(pinned).boxes})
                    for (int c = 0; c < palette::kColorCount; ++c)
                        for (const QRect &r : g->byColor[size_t(c)])
                            out.emplace(c, r.x(), r.y(), r.width(), r.height());
                for (const QRect &r : f.state<InstantsPass::State>(pinned).marks)
                    out.emplace(palette::kInstantColor, r.x(), r.y(), r.width(), r.height());
            }
            return out;
        };
        setTimelineGeometryThreads(1);
        const auto serial = snapshot();
        setTimelineGeometryThreads(4);
        const auto parallel = snapshot();
        QVERIFY(m_view->layout().rows().size() >= 12);
        QVERIFY2(serial.size() > 100, qPrintable(QString::number(serial.size())));
        QVERIFY(serial == parallel);
    }

    void gapJumpShowsCallAndGpuBand()
    {
        test::SyntheticTrace t;
        t.steps = 20;
        t.kernelsPerStep = 10;
        const auto data = TimelineData::build({t.build()});
        m_view->setData(data);
        m_view->resize(700, 170); // room for a few rows only
        QVERIFY(!data->gaps().empty());
        const TimelineGap &g = data->gaps()[3];
        const TimelineFile &file = data->files()[g.file];
        const SyncGap &sg = file.sync.syncGaps[g.gap];
        const TimelineEvent call = data->eventOf(g.file, file.sync.syncCalls[sg.syncCall].event);
        const int depth = m_view->layout().shownDepth(call);
        int gpu = -1;
        for (const auto &dg : file.deviceGaps)
            if (dg.device == sg.device)
                gpu = dg.tracks.front();
        // Put the call's thread last, and scroll it out of view.
        QVERIFY(m_view->moveTrack(call.track, -1));
        QScrollBar *sb = m_view->verticalScrollBar();
        QVERIFY(sb->maximum() > 0);
        sb->setValue(0);
        if (m_view->isTrackRowVisible(call.track, depth))
            sb->setValue(sb->maximum());
        QVERIFY(!m_view->isTrackRowVisible(call.track, depth));
        m_view->revealGap(3);
        QVERIFY(m_view->isTrackRowVisible(call.track, depth));
        QVERIFY(m_view->isTrackRowVisible(gpu, 0)); // pinned
        // Unpinned and tall enough for both: both scrolled into view.
        for (int ti : file.deviceGaps.front().tracks)
            m_view->setTrackPinned(ti, false);
        m_view->resize(700, 330);
        sb->setValue(0);
        m_view->revealGap(3);
        QVERIFY(m_view->isTrackRowVisible(call.track, depth));
        QVERIFY(m_view->isTrackRowVisible(gpu, 0));
        // A collapsed process is expanded by the jump.
        m_view->setGroupCollapsed(data->tracks()[size_t(call.track)].group, true);
        m_view->revealGap(3);
        QVERIFY(m_view->isTrackRowVisible(call.track, depth));
    }

    void reanalysisKeepsTheTracksAnotherTraceResets()
    {
        m_view->setTrackCollapsed(m_main, true);
        m_view->setTrackPinned(m_loader, true);
        m_view->setShowPython(true);
        // The same models analysed again: what the user did stays.
        m_view->setData(TimelineData::build(m_data->models()));
        const TimelineLayout &l = m_view->layout();
        QVERIFY(l.trackCollapsed(m_main));
        QVERIFY(l.trackPinned(m_loader));
        QVERIFY(l.showPython());
        QVERIFY(m_view->showPythonAction()->isChecked());
        // Another trace (the same text, loaded again): the defaults.
        m_view->setData(TimelineData::build({loadTraceFromMemory(kTrace, "tracks.json")}));
        QVERIFY(!l.trackCollapsed(m_main));
        QVERIFY(!l.trackPinned(m_loader));
        QVERIFY(!l.showPython());
    }

    void pageGapJumpShowsCallThread()
    {
        // Five ranks: more rows than the page's view shows. "]" (nextGap) and
        // a gap-table row (showGap) scroll the blocking call's thread into view;
        // the GPU band is pinned.
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        test::SyntheticTrace t;
        t.steps = 8;
        t.kernelsPerStep = 6;
        QStringList files;
        for (int r = 0; r < 5; ++r) {
            files << tmp.filePath(QStringLiteral("rank%1.json").arg(r));
            writeTrace(*t.build(), files.back().toStdString());
        }
        TimelinePage page;
        page.resize(1000, 600);
        page.show();
        QSignalSpy done(&page, &TimelinePage::loadFinished);
        page.openFiles(files);
        QVERIFY(done.wait(20000));
        TimelineView *view = page.view();
        const auto data = page.data();
        QVERIFY(data && data->gaps().size() > 4);
        QScrollBar *sb = view->verticalScrollBar();
        QVERIFY(sb->maximum() > 0);
        auto check = [&](int gap) {
            const TimelineGap &g = data->gaps()[size_t(gap)];
            const TimelineFile &file = data->files()[g.file];
            const SyncGap &sg = file.sync.syncGaps[g.gap];
            const TimelineEvent call = data->eventOf(g.file, file.sync.syncCalls[sg.syncCall].event);
            const int depth = view->layout().shownDepth(call);
            int gpu = -1;
            for (const auto &dg : file.deviceGaps)
                if (dg.device == sg.device)
                    gpu = dg.tracks.front();
            return view->isTrackRowVisible(call.track, depth) && view->isTrackRowVisible(gpu, 0);
        };
        // The last gap's file is the last rank: scroll to the top, then jump.
        const int last = int(data->gaps().size()) - 1;
        int lastOfLastRank = last;
        while (data->gaps()[size_t(lastOfLastRank)].file != 4)
            --lastOfLastRank;
        sb->setValue(0);
        QVERIFY(!check(lastOfLastRank));
        page.showGap(lastOfLastRank);
        QVERIFY(check(lastOfLastRank));
        // A gap of rank 0 with the view at the bottom, by "]".
        int firstOfRank0 = 0;
        while (data->gaps()[size_t(firstOfRank0)].file != 0)
            ++firstOfRank0;
        page.showGap(firstOfRank0 > 0 ? firstOfRank0 - 1 : last);
        sb->setValue(sb->maximum());
        QVERIFY(!check(firstOfRank0));
        page.nextGap();
        QVERIFY(check(firstOfRank0));
    }
};

QTEST_MAIN(TstTimelineTracks)
#include "tst_timelinetracks.moc"
