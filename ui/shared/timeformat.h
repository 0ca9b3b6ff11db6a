#pragma once
// Time labels of the ruler and the tables: units follow the magnitude so a label
// never shows more digits than the zoom level can resolve.
#include "common/percent.h"
#include <QString>

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace syncscope::ui {

// The ruler's tick step: the smallest 1, 2 or 5 x 10^k ns that keeps ticks at
// least minPixels apart.
inline int64_t rulerStep(double nsPerPixel, double minPixels = 90)
{
    const double want = std::max(nsPerPixel * minPixels, 1.0);
    int64_t step = 1;
    while (step < int64_t(4e18 / 10)) {
        for (int m : {1, 2, 5})
            if (double(step * m) >= want)
                return step * m;
        step *= 10;
    }
    return step;
}

// |ns| / 10^exp rounded half away from zero to `decimals` fractional digits, as
// text, with integers only: a time is never sent through a double on its way to
// the screen. 0 <= decimals <= exp <= 18.
inline QString formatScaled(int64_t ns, int exp, int decimals)
{
    const bool neg = ns < 0;
    const uint64_t mag = neg ? uint64_t(0) - uint64_t(ns) : uint64_t(ns);
    uint64_t div = 1, scale = 1;
    for (int i = 0; i < exp - decimals; ++i)
        div *= 10;
    for (int i = 0; i < decimals; ++i)
        scale *= 10;
    uint64_t q = mag / div;
    if ((mag % div) >= div - mag % div && div > 1) // remainder >= div / 2, without overflow
        ++q;
    QString s = QString::number(q / scale);
    if (decimals > 0)
        s += QLatin1Char('.') + QString::number(q % scale).rightJustified(decimals, QLatin1Char('0'));
    return neg && q > 0 ? QLatin1Char('-') + s : s;
}

// One duration on its own (a header figure, a sentence, a chart label): the
// unit of its size and 4 significant digits, the rule DurationColumn applies
// to a column of them: "850 ns", "12.45 µs", "3.200 ms", "146.9 ms", "1.500 s".
QString formatDuration(int64_t ns);

// part / whole as a percentage: the core's one formatter (common/percent.h),
// so the app prints what the CLI and the reports print: "12.3%", "-0.2%" for
// -0.15 %, "-" when whole <= 0.
inline QString formatPercent(int64_t part, int64_t whole)
{
    return QString::fromStdString(syncscope::formatPercent(part, whole));
}

// The unit of a set of durations read together (a ruler, a table column): the
// unit of the largest magnitude among them, so one axis or column never mixes
// units. exp: the power of ten of a nanosecond count in that unit.
struct DurationUnit {
    int exp = 0;
    const char *name = "ns";
};
inline DurationUnit durationUnitFor(uint64_t maxAbs)
{
    if (maxAbs < 1'000)
        return {0, "ns"};
    if (maxAbs < 1'000'000)
        return {3, "µs"};
    if (maxAbs < 1'000'000'000)
        return {6, "ms"};
    return {9, "s"};
}

// The fewest decimals (at most exp) that show every multiple of `resolution`
// ns exactly in a unit of 10^exp ns.
inline int exactDecimals(uint64_t resolution, int exp)
{
    int decimals = 0;
    uint64_t unit = 1;
    for (int i = 0; i < exp; ++i)
        unit *= 10;
    while (decimals < exp && (resolution == 0 || resolution % unit != 0)) {
        unit /= 10;
        ++decimals;
    }
    return decimals;
}

// A ruler label at offset ns from the trace start. Every label of one ruler
// takes the unit of its largest label (axisMax, the largest |offset| shown; 0:
// this label's own) and the decimals its step needs to be exact: a 20 µs step
// at 859 ms reads "859.20 ms", not "859200 µs".
inline QString formatTick(int64_t ns, int64_t step, uint64_t axisMax = 0)
{
    const uint64_t mag = ns < 0 ? uint64_t(0) - uint64_t(ns) : uint64_t(ns);
    const uint64_t st = step < 0 ? uint64_t(0) - uint64_t(step) : uint64_t(step);
    const DurationUnit u = durationUnitFor(std::max({axisMax, mag, st}));
    return formatScaled(ns, u.exp, exactDecimals(st, u.exp)) + QLatin1Char(' ') + QString::fromUtf8(u.name);
}

// The durations of one table column, written alike: the column's unit
// (durationUnitFor its largest magnitude) and one number of decimals, enough
// for the largest to show 4 significant digits and the smallest non-zero 2
// (never finer than a ns), so the digits line up and a small value never
// reads as 0: {146.93 ms, 16 µs} reads "146.930 ms",
// "0.016 ms". Exact integers from ns, like formatScaled.
class DurationColumn {
public:
    // A cell's text: in the column's unit for the table, and exactly for its
    // tooltip ("146.930 ms (146930000 ns)").
    QString cell(int64_t ns, bool tooltip) const
    {
        return tooltip ? format(ns) + QStringLiteral(" (%1 ns)").arg(ns) : format(ns);
    }
    void clear() { *this = DurationColumn(); }
    void add(int64_t ns)
    {
        const uint64_t a = ns < 0 ? uint64_t(0) - uint64_t(ns) : uint64_t(ns);
        m_max = std::max(m_max, a);
        if (a > 0)
            m_minNonZero = std::min(m_minNonZero, a);
        m_fitted = false;
    }
    DurationUnit unit() const
    {
        fit();
        return m_unit;
    }
    int decimals() const
    {
        fit();
        return m_decimals;
    }
    QString format(int64_t ns) const
    {
        fit();
        return formatScaled(ns, m_unit.exp, m_decimals) + QLatin1Char(' ') + QString::fromUtf8(m_unit.name);
    }

private:
    uint64_t m_max = 0, m_minNonZero = UINT64_MAX;
    mutable bool m_fitted = false;
    mutable DurationUnit m_unit;
    mutable int m_decimals = 0;

    // Decimals for `a` ns to show `digits` significant digits in 10^exp units.
    static int decimalsForDigits(uint64_t a, int exp, int digits)
    {
        uint64_t unit = 1;
        for (int i = 0; i < exp; ++i)
            unit *= 10;
        int intDigits = 0; // digits before the point
        for (uint64_t q = a / unit; q > 0; q /= 10)
            ++intDigits;
        if (intDigits > 0)
            return std::max(0, digits - intDigits);
        // below 1 unit: zeros after the point, then the digits
        int zeros = 0;
        for (uint64_t t = unit / 10; t > 0 && a < t; t /= 10)
            ++zeros;
        return zeros + digits;
    }
    void fit() const
    {
        if (m_fitted)
            return;
        m_unit = durationUnitFor(m_max);
        int d = m_max > 0 ? decimalsForDigits(m_max, m_unit.exp, 4) : 0;
        if (m_minNonZero != UINT64_MAX)
            d = std::max(d, decimalsForDigits(m_minNonZero, m_unit.exp, 2));
        m_decimals = std::min(d, m_unit.exp);
        m_fitted = true;
    }
};

inline QString formatDuration(int64_t ns)
{
    DurationColumn one;
    one.add(ns);
    return one.format(ns);
}

} // namespace syncscope::ui
