// The Timeline's press-drag-release state machine on its own, no widget: what
// each zone starts, when a press becomes a drag, and what a release ends.
#include "timeline/timelinedrag.h"

#include <QtTest>

using namespace syncscope::ui;
using Mode = TimelineDrag::Mode;
using Zone = TimelineDrag::Zone;

class TstTimelineDrag : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void eachZoneStartsItsMode()
    {
        QCOMPARE(TimelineDrag::modeFor(Zone::Plot, false), Mode::Pending);
        QCOMPARE(TimelineDrag::modeFor(Zone::Plot, true), Mode::Range); // Shift selects a range
        QCOMPARE(TimelineDrag::modeFor(Zone::Ruler, false), Mode::Range);
        QCOMPARE(TimelineDrag::modeFor(Zone::Labels, false), Mode::LabelPending);
        QCOMPARE(TimelineDrag::modeFor(Zone::Labels, true), Mode::LabelPending);
        QCOMPARE(TimelineDrag::modeFor(Zone::LabelEdge, false), Mode::Resize);
        QCOMPARE(TimelineDrag::modeFor(Zone::PinnedHandle, true), Mode::PinnedResize);
        QCOMPARE(TimelineDrag::modeFor(Zone::Indicator, false), Mode::None);
        QCOMPARE(TimelineDrag::modeFor(Zone::StepBand, false), Mode::None);
    }

    void aPressBecomesADragPastTheDistance()
    {
        TimelineDrag d;
        QVERIFY(!d.held());
        d.press(Zone::Plot, false, QPoint(100, 100));
        QVERIFY(d.held());
        QCOMPARE(d.move(QPoint(102, 101), 4), Mode::Pending); // 3 < 4: still a click
        QCOMPARE(d.move(QPoint(102, 102), 4), Mode::Pan);     // 4: a pan
        QCOMPARE(d.move(QPoint(100, 100), 4), Mode::Pan);     // and it stays one
        QCOMPARE(d.pressPos(), QPoint(100, 100));
        QCOMPARE(d.release(), Mode::Pan);
        QVERIFY(!d.held());
        QCOMPARE(d.release(), Mode::None);
        // A name: a click, or a reorder once dragged; the drop point follows.
        d.press(Zone::Labels, false, QPoint(20, 200));
        QCOMPARE(d.move(QPoint(20, 202), 10), Mode::LabelPending);
        QCOMPARE(d.release(), Mode::LabelPending);
        d.press(Zone::Labels, false, QPoint(20, 200));
        QCOMPARE(d.move(QPoint(20, 240), 10), Mode::Reorder);
        QCOMPARE(d.lastPos(), QPoint(20, 240));
        QCOMPARE(d.release(), Mode::Reorder);
    }

    void resizesAndRangesNeverTurnIntoSomethingElse()
    {
        TimelineDrag d;
        for (Zone z : {Zone::LabelEdge, Zone::PinnedHandle, Zone::Ruler}) {
            d.press(z, false, QPoint(50, 50));
            const Mode m = d.mode();
            QCOMPARE(d.move(QPoint(400, 300), 4), m);
            QCOMPARE(d.release(), m);
        }
        // A press that acted at once holds nothing, however far it moves.
        d.press(Zone::StepBand, false, QPoint(50, 50));
        QVERIFY(!d.held());
        QCOMPARE(d.move(QPoint(400, 300), 4), Mode::None);
    }
};

QTEST_GUILESS_MAIN(TstTimelineDrag)
#include "tst_timelinedrag.moc"
