#pragma once
// Time labels of the ruler and the tables: units follow the magnitude so a label
// never shows more digits than the zoom level can resolve.
#include <QString>

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

// A duration with a unit chosen by its size: "850 ns", "12.5 µs", "3.200 ms", "1.500 s".
inline QString formatDuration(int64_t ns)
{
    const uint64_t a = ns < 0 ? uint64_t(0) - uint64_t(ns) : uint64_t(ns);
    if (a < 1'000)
        return QStringLiteral("%1 ns").arg(ns);
    if (a < 1'000'000)
        return formatScaled(ns, 3, a < 10'000 ? 2 : 1) + QStringLiteral(" µs");
    if (a < 1'000'000'000)
        return formatScaled(ns, 6, a < 10'000'000 ? 3 : 2) + QStringLiteral(" ms");
    return formatScaled(ns, 9, 3) + QStringLiteral(" s");
}

// part / whole as a percentage with one decimal, rounded half up, from the
// integers: "12.3%"; "0.0%" when whole <= 0.
inline QString formatPercent(int64_t part, int64_t whole)
{
    if (whole <= 0)
        return QStringLiteral("0.0%");
    const __int128 permille = (__int128(part) * 2000 + whole) / (2 * __int128(whole));
    const int64_t pm = int64_t(permille);
    const bool neg = pm < 0;
    const uint64_t mag = neg ? uint64_t(0) - uint64_t(pm) : uint64_t(pm);
    return QStringLiteral("%1%2.%3%").arg(neg ? QStringLiteral("-") : QString()).arg(mag / 10).arg(mag % 10);
}

// A tick label at offset ns from the trace start, with as many decimals as the
// step needs and the unit of the step ("1.25 ms" for a 10 µs step).
inline QString formatTick(int64_t ns, int64_t step)
{
    // The unit of a tenth of a step's magnitude reads best: a 500 µs step
    // labels "1.5 ms", a 20 ns step "0.34 µs".
    struct Unit { int exp; const char *name; };
    const Unit u = step >= 100'000'000 ? Unit{9, "s"}
                   : step >= 100'000   ? Unit{6, "ms"}
                   : step >= 10        ? Unit{3, "µs"}
                                       : Unit{0, "ns"};
    // decimals: enough to show the step in that unit (at most 3)
    int decimals = 0;
    int64_t unit = 1;
    for (int i = 0; i < u.exp; ++i)
        unit *= 10;
    while (decimals < 3 && decimals < u.exp && step % unit != 0) {
        unit /= 10;
        ++decimals;
    }
    return formatScaled(ns, u.exp, decimals) + QLatin1Char(' ') + QString::fromUtf8(u.name);
}

} // namespace syncscope::ui
