// Time <-> pixel mapping and the ruler's units (ui/timeline/timemapping.h, timeformat.h).
#include "shared/timeformat.h"
#include "timeline/timemapping.h"

#include <QtTest>

using syncscope::ui::TimeMapping;

class TstTimeMapping : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void roundTrip()
    {
        const TimeMapping m(1'000, 11'000, 1000.0); // 10 ns per pixel
        QCOMPARE(m.nsPerPixel(), 10.0);
        QCOMPARE(m.toPixel(1'000), 0.0);
        QCOMPARE(m.toPixel(11'000), 1000.0);
        QCOMPARE(m.toPixel(6'000), 500.0);
        QCOMPARE(m.toTime(0), int64_t(1'000));
        QCOMPARE(m.toTime(250.0), int64_t(3'500));
        QCOMPARE(m.toPixels(100), 10.0);
        QCOMPARE(m.toDuration(3.0), int64_t(30));
        for (int64_t t = 1'000; t <= 11'000; t += 370)
            QCOMPARE(m.toTime(m.toPixel(t)), t);
        // outside the range maps outside [0, width]
        QVERIFY(m.toPixel(0) < 0);
        QVERIFY(m.toPixel(20'000) > 1000);
    }

    void zeroLengthRange()
    {
        const TimeMapping m(5'000, 5'000, 800.0);
        QCOMPARE(m.span(), int64_t(0));
        QVERIFY(std::isfinite(m.nsPerPixel()));
        QVERIFY(m.nsPerPixel() > 0);
        QCOMPARE(m.toPixel(5'000), 0.0);
        QVERIFY(std::isfinite(m.toPixel(6'000)));
        QCOMPARE(m.toTime(0), int64_t(5'000));
        // fitted() widens an empty range into a window centred on it
        const TimeMapping f = TimeMapping::fitted(5'000, 5'000, 800.0, 1'000);
        QCOMPARE(f.span(), int64_t(1'000));
        QVERIFY(f.start() <= 5'000 && f.end() >= 5'000);
        QCOMPARE(f.toPixel(5'000), 400.0);
        // an inverted range is treated the same way, never negative
        const TimeMapping inv(9'000, 2'000, 100.0);
        QCOMPARE(inv.span(), int64_t(0));
        // zooming a zero-length range stays finite and positive
        const TimeMapping z = m.zoomedAround(400, 2.0, 10);
        QVERIFY(z.span() >= 10);
        // zero width is clamped to a pixel
        const TimeMapping w(0, 100, 0.0);
        QCOMPARE(w.width(), 1.0);
    }

    void zoomKeepsAnchor()
    {
        const TimeMapping m(0, 1'000'000, 1000.0);
        const int64_t anchor = m.toTime(300.0);
        const TimeMapping z = m.zoomedAround(300.0, 4.0);
        QCOMPARE(z.span(), int64_t(250'000));
        QVERIFY(std::abs(z.toTime(300.0) - anchor) <= 1);
        const TimeMapping back = z.zoomedAround(300.0, 0.25);
        QCOMPARE(back.span(), int64_t(1'000'000));
        QVERIFY(std::abs(back.start() - m.start()) <= 1);
        // never below the minimum span
        QCOMPARE(m.zoomedAround(500.0, 1e12, 20).span(), int64_t(20));
        // a non-positive factor changes nothing
        QCOMPARE(m.zoomedAround(10, 0.0), m);
    }

    void panAndClamp()
    {
        const TimeMapping m(0, 1'000, 100.0);
        const TimeMapping p = m.panned(10.0);
        QCOMPARE(p.start(), int64_t(100));
        QCOMPARE(p.span(), int64_t(1'000));
        QCOMPARE(m.panned(-10.0).start(), int64_t(-100));
        const TimeMapping c = TimeMapping(5'000, 6'000, 100.0).clampedTo(0, 4'000);
        QCOMPARE(c.end(), int64_t(4'000));
        QCOMPARE(c.span(), int64_t(1'000));
        const TimeMapping wide = TimeMapping(-50'000, 50'000, 100.0).clampedTo(0, 4'000, 100);
        QCOMPARE(wide.start(), int64_t(-100));
        QCOMPARE(wide.end(), int64_t(4'100));
    }

    void rulerUnits()
    {
        using namespace syncscope::ui;
        QCOMPARE(rulerStep(1.0, 90), int64_t(100));
        QCOMPARE(rulerStep(10.0, 90), int64_t(1'000));
        QCOMPARE(rulerStep(30.0, 90), int64_t(5'000));
        QCOMPARE(rulerStep(1e6, 100), int64_t(100'000'000));
        QCOMPARE(formatTick(1'500'000, 500'000), QStringLiteral("1.5 ms"));
        QCOMPARE(formatTick(2'000'000'000, 1'000'000'000), QStringLiteral("2 s"));
        QCOMPARE(formatTick(250, 50), QStringLiteral("250 ns"));
        QCOMPARE(formatTick(7, 1), QStringLiteral("7 ns"));
        QCOMPARE(formatTick(300'000'000, 100'000'000), QStringLiteral("300 ms"));
        QCOMPARE(formatTick(12'340, 10), QStringLiteral("12.34 µs"));
        // One unit per ruler, the largest label's, with the step's decimals:
        // a 20 µs step at 859.2 ms, and the first label of a ruler reaching there.
        QCOMPARE(formatTick(859'200'000, 20'000), QStringLiteral("859.20 ms"));
        QCOMPARE(formatTick(1'000'000, 20'000, 859'200'000), QStringLiteral("1.00 ms"));
        QCOMPARE(formatTick(40'000, 20'000, 859'200'000), QStringLiteral("0.04 ms"));
        QCOMPARE(formatTick(999'999'999, 1, 1'000'000'000), QStringLiteral("0.999999999 s"));
        QCOMPARE(formatDuration(850), QStringLiteral("850 ns"));
        QCOMPARE(formatDuration(12'500), QStringLiteral("12.50 µs")); // 4 significant digits
        QCOMPARE(formatDuration(3'200'000), QStringLiteral("3.200 ms"));
        QCOMPARE(formatDuration(1'500'000'000), QStringLiteral("1.500 s"));
    }

    void aColumnHasOneUnitAndOnePrecision()
    {
        using namespace syncscope::ui;
        DurationColumn c;
        for (int64_t ns : {146'930'000, 16'000, 0})
            c.add(ns);
        QCOMPARE(c.format(146'930'000), QStringLiteral("146.930 ms"));
        QCOMPARE(c.format(16'000), QStringLiteral("0.016 ms")); // 2 significant digits, not "0.0"
        QCOMPARE(c.format(0), QStringLiteral("0.000 ms"));
        // 4 significant digits of the largest when the smallest needs fewer
        DurationColumn d;
        d.add(8'989'000);
        d.add(1'500'000);
        QCOMPARE(d.format(8'989'000), QStringLiteral("8.989 ms"));
        QCOMPARE(d.format(1'500'000), QStringLiteral("1.500 ms"));
        // never finer than a ns; integers all the way: 12.45 µs is not 12.4
        DurationColumn e;
        e.add(2'000'000'000);
        e.add(50);
        QCOMPARE(e.format(50), QStringLiteral("0.000000050 s"));
        QCOMPARE(e.format(2'000'000'000), QStringLiteral("2.000000000 s"));
        DurationColumn f;
        f.add(12'450);
        f.add(-999);
        QCOMPARE(f.format(12'450), QStringLiteral("12.45 µs"));
        QCOMPARE(f.format(-999), QStringLiteral("-1.00 µs")); // 2 significant digits
        DurationColumn ns;
        ns.add(850);
        ns.add(3);
        QCOMPARE(ns.format(3), QStringLiteral("3 ns"));
        QCOMPARE(DurationColumn().format(0), QStringLiteral("0 ns"));
    }

    // Labels come from integer ns: a double would print 12.45 us as "12.4" (it
    // holds 12.4499...) and cannot hold 16 integer digits of microseconds.
    void exactFromIntegers()
    {
        using namespace syncscope::ui;
        QCOMPARE(formatDuration(12'450), QStringLiteral("12.45 µs"));
        QCOMPARE(formatDuration(-12'450), QStringLiteral("-12.45 µs"));
        QCOMPARE(formatDuration(12'345), QStringLiteral("12.35 µs")); // half away from zero
        QCOMPARE(formatDuration(1'004'999), QStringLiteral("1.005 ms"));
        QCOMPARE(formatDuration(1'004'499), QStringLiteral("1.004 ms"));
        QCOMPARE(formatDuration(999), QStringLiteral("999 ns"));
        QCOMPARE(formatDuration(-999), QStringLiteral("-999 ns"));
        QCOMPARE(formatDuration(9'995), QStringLiteral("9.995 µs"));
        QCOMPARE(formatDuration(999'950), QStringLiteral("1000.0 µs")); // rounds up, keeps the unit of its size
        QCOMPARE(formatDuration(1'712'195'495'519'689'047), QStringLiteral("1712195496 s")); // .519 s rounds up
        QCOMPARE(formatScaled(1'712'195'495'519'689'047, 3, 3), QStringLiteral("1712195495519689.047"));
        QCOMPARE(formatScaled(INT64_MIN, 9, 3), QStringLiteral("-9223372036.855"));
        QCOMPARE(formatScaled(-400, 3, 0), QStringLiteral("0"));
        QCOMPARE(formatScaled(500, 3, 0), QStringLiteral("1"));
        QCOMPARE(formatTick(1'712'195'495'519'689'047, 1), QStringLiteral("1712195495.519689047 s"));
        QCOMPARE(formatTick(1'712'195'495'519'689'000, 1'000), QStringLiteral("1712195495.519689 s"));
    }
};

QTEST_GUILESS_MAIN(TstTimeMapping)
#include "tst_timemapping.moc"
