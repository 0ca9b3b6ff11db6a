// The timeline widget with synthetic input: keys, wheel, drag, click, shift+drag,
// and the level-of-detail geometry it caches.
#include "synthetictrace.h"
#include "uievents.h"
#include "timeline/timelinedata.h"
#include "timeline/passes/blockingcallspass.h"
#include "timeline/passes/gapbandspass.h"
#include "timeline/passes/slicespass.h"
#include "timeline/timelineview.h"

#include <QSignalSpy>
#include <QtTest>

using namespace syncscope;
using namespace syncscope::ui;
using syncscope::test::sendMouse;
using syncscope::test::sendWheel;

class TstTimelineView : public QObject {
    Q_OBJECT
private:
    std::unique_ptr<TimelineView> m_view;
    std::shared_ptr<const TimelineData> m_data;

private Q_SLOTS:
    void init()
    {
        test::SyntheticTrace t;
        t.steps = 200;
        t.kernelsPerStep = 50;
        m_data = TimelineData::build({t.build()});
        m_view = std::make_unique<TimelineView>();
        m_view->resize(1200, 500);
        m_view->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
        m_view->setData(m_data);
    }
    void cleanup() { m_view.reset(); }

    void fitAllShowsEverything()
    {
        const TimeMapping &m = m_view->mapping();
        QVERIFY(m.start() <= m_data->minTime());
        QVERIFY(m.end() >= m_data->maxTime());
        QCOMPARE(m.width(), double(m_view->plotRect().width()));
    }

    void keysZoomAndPan()
    {
        const TimeNs span0 = m_view->mapping().span();
        QTest::keyClick(m_view.get(), Qt::Key_W);
        const TimeNs span1 = m_view->mapping().span();
        QVERIFY(std::abs(double(span1) - double(span0) / TimelineView::kZoomStep) < 2.0);
        QTest::keyClick(m_view.get(), Qt::Key_W);
        QTest::keyClick(m_view.get(), Qt::Key_W);
        const TimeNs zoomed = m_view->mapping().span();
        QVERIFY(zoomed < span1);
        const TimeNs start = m_view->mapping().start();
        QTest::keyClick(m_view.get(), Qt::Key_D);
        QVERIFY(m_view->mapping().start() > start);
        QCOMPARE(m_view->mapping().span(), zoomed);
        QTest::keyClick(m_view.get(), Qt::Key_A);
        QTest::keyClick(m_view.get(), Qt::Key_A);
        QVERIFY(m_view->mapping().start() < start);
        QTest::keyClick(m_view.get(), Qt::Key_S);
        QVERIFY(m_view->mapping().span() > zoomed);
        QTest::keyClick(m_view.get(), Qt::Key_Home);
        QCOMPARE(m_view->mapping().span(), span0);
    }

    void wheelZoomsAroundCursor()
    {
        QWidget *vp = m_view->viewport();
        const QRect plot = m_view->plotRect();
        const QPoint pos(plot.left() + 300, plot.top() + 20);
        const TimeNs under = m_view->mapping().toTime(300);
        const TimeNs span0 = m_view->mapping().span();
        sendWheel(vp, pos, QPoint(0, 240));
        QVERIFY(m_view->mapping().span() < span0 * 0.7);
        QVERIFY(std::abs(m_view->mapping().toTime(300) - under) <= TimeNs(m_view->mapping().nsPerPixel() + 1));
        sendWheel(vp, pos, QPoint(0, -240));
        QVERIFY(std::abs(double(m_view->mapping().span() - span0)) <= 2);
        // shift+wheel pans without zooming
        sendWheel(vp, pos, QPoint(0, 120), Qt::ShiftModifier);
        sendWheel(vp, pos, QPoint(0, 120));
        const TimeMapping before = m_view->mapping();
        sendWheel(vp, pos, QPoint(0, -120), Qt::ShiftModifier);
        QCOMPARE(m_view->mapping().span(), before.span());
        QVERIFY(m_view->mapping().start() > before.start());
    }

    void dragPansAndClickSelects()
    {
        // zoom onto step 3 so it is a wide box on the main thread's first row
        const TimelineEvent step{0, m_data->tracks()[0].levels[0].events[3]};
        m_view->showInterval(m_data->start(step), m_data->end(step));
        QWidget *vp = m_view->viewport();
        const QRect r = m_view->eventRect(step);
        QVERIFY(r.width() > 100);
        QSignalSpy sel(m_view.get(), &TimelineView::selectionChanged);
        const QPoint c = r.center();
        sendMouse(vp, QEvent::MouseButtonPress, c, Qt::LeftButton, Qt::LeftButton);
        sendMouse(vp, QEvent::MouseButtonRelease, c, Qt::LeftButton, Qt::NoButton);
        QCOMPARE(sel.count(), 1);
        QCOMPARE(m_view->selectedEvent(), step);

        const TimeNs start = m_view->mapping().start();
        const double nsPerPx = m_view->mapping().nsPerPixel();
        sendMouse(vp, QEvent::MouseButtonPress, c, Qt::LeftButton, Qt::LeftButton);
        sendMouse(vp, QEvent::MouseMove, c - QPoint(50, 0), Qt::NoButton, Qt::LeftButton);
        sendMouse(vp, QEvent::MouseMove, c - QPoint(100, 0), Qt::NoButton, Qt::LeftButton);
        sendMouse(vp, QEvent::MouseButtonRelease, c - QPoint(100, 0), Qt::LeftButton, Qt::NoButton);
        QVERIFY(std::abs(double(m_view->mapping().start() - start) - 100 * nsPerPx) <= nsPerPx);
        QCOMPARE(m_view->selectedEvent(), step); // a drag does not change the selection

        // F zooms to the selection
        QTest::keyClick(m_view.get(), Qt::Key_Home);
        QTest::keyClick(m_view.get(), Qt::Key_F);
        QVERIFY(m_view->mapping().start() <= m_data->start(step));
        QVERIFY(m_view->mapping().end() >= m_data->end(step));
        QVERIFY(m_view->mapping().span() < (m_data->end(step) - m_data->start(step)) * 2);

        // clicking empty space clears it
        sendMouse(vp, QEvent::MouseButtonPress, QPoint(m_view->plotRect().left() + 5, vp->height() - 3),
                  Qt::LeftButton, Qt::LeftButton);
        sendMouse(vp, QEvent::MouseButtonRelease, QPoint(m_view->plotRect().left() + 5, vp->height() - 3),
                  Qt::LeftButton, Qt::NoButton);
        QVERIFY(!m_view->selectedEvent().valid());
    }

    void shiftDragSelectsRange()
    {
        QWidget *vp = m_view->viewport();
        const QRect plot = m_view->plotRect();
        QSignalSpy spy(m_view.get(), &TimelineView::rangeSelectionChanged);
        const QPoint a(plot.left() + 100, plot.top() + 30), b(plot.left() + 400, plot.top() + 30);
        const TimeNs ta = m_view->mapping().toTime(100), tb = m_view->mapping().toTime(400);
        sendMouse(vp, QEvent::MouseButtonPress, a, Qt::LeftButton, Qt::LeftButton, Qt::ShiftModifier);
        sendMouse(vp, QEvent::MouseMove, b, Qt::NoButton, Qt::LeftButton, Qt::ShiftModifier);
        sendMouse(vp, QEvent::MouseButtonRelease, b, Qt::LeftButton, Qt::NoButton, Qt::ShiftModifier);
        QCOMPARE(spy.count(), 1);
        QVERIFY(m_view->hasRangeSelection());
        QCOMPARE(m_view->rangeSelection().first, ta);
        QCOMPARE(m_view->rangeSelection().second, tb);
        // the view follows the mapping's panning; F zooms to the range
        QTest::keyClick(m_view.get(), Qt::Key_F);
        QVERIFY(std::abs(m_view->mapping().start() - ta) <= 1);
        QVERIFY(std::abs(m_view->mapping().end() - tb) <= 1);
        QTest::keyClick(m_view.get(), Qt::Key_Escape);
        QVERIFY(!m_view->hasRangeSelection());
        QCOMPARE(spy.count(), 2);
    }

    void geometryIsCachedAndFolded()
    {
        QWidget *vp = m_view->viewport();
        vp->grab();
        const int builds = m_view->geometryBuilds();
        vp->grab();
        QCOMPARE(m_view->geometryBuilds(), builds); // same range and size: replay only
        const auto &g = m_view->frame().state<SlicesPass::State>(false).boxes;
        // 200 steps x 50 kernels at full zoom-out: folded, bounded by the pixels
        QVERIFY(g.foldedRuns > 0);
        QVERIFY(g.foldedEvents > 10'000);
        const size_t rows = 9;
        const size_t drawn = m_view->frame().drawn(false);
        QVERIFY2(drawn <= rows * size_t(m_view->plotRect().width()), qPrintable(QString::number(drawn)));
        // GPU tracks are pinned by default: their gap bands are in the pinned part
        QVERIFY(!m_view->frame().state<GapBandsPass::State>(true).bands.empty());
        QVERIFY(m_view->frame().state<GapBandsPass::State>(false).bands.empty());
        QVERIFY(!m_view->frame().state<BlockingCallsPass::State>(false).gapCalls.empty());
        m_view->panBy(3);
        vp->grab();
        QCOMPARE(m_view->geometryBuilds(), builds + 1);

        // deep zoom on one kernel: no folding there, and its name is drawn
        const TimelineEvent k{2, m_data->tracks()[2].levels[0].events[100]};
        m_view->showInterval(m_data->start(k), m_data->end(k));
        m_view->revealEvent(k);
        vp->grab();
        bool named = false;
        const QString name = QString::fromUtf8(m_data->name(k).data(), int(m_data->name(k).size()));
        for (const auto &l : m_view->frame().state<SlicesPass::State>(true).labels) // a kernel: pinned
            named |= name.startsWith(l.text.chopped(l.text.endsWith(QChar(0x2026)) ? 1 : 0));
        QVERIFY(named);
    }

    void gapBandCoversTheGap()
    {
        const TimelineGap &g = m_data->gaps()[5];
        const SyncGap &sg = m_data->files()[0].sync.syncGaps[g.gap];
        m_view->showInterval(sg.interval.start, sg.interval.end);
        m_view->viewport()->grab();
        const QRect plot = m_view->plotRect();
        const int l = plot.left() + int(std::floor(m_view->mapping().toPixel(sg.interval.start)));
        const int r = plot.left() + int(std::ceil(m_view->mapping().toPixel(sg.interval.end)));
        bool found = false;
        for (const QRect &b : m_view->frame().state<GapBandsPass::State>(true).bands)
            found |= std::abs(b.left() - l) <= 1 && std::abs(b.left() + b.width() - r) <= 1;
        QVERIFY(found);
    }

    void emptyViewPaints()
    {
        TimelineView v;
        v.resize(400, 300);
        const QImage img = v.viewport()->grab().toImage();
        QVERIFY(!img.isNull());
        QTest::keyClick(&v, Qt::Key_W); // no data: no crash
        QVERIFY(!v.zoomToSelection());
    }
};

QTEST_MAIN(TstTimelineView)
#include "tst_timelineview.moc"
