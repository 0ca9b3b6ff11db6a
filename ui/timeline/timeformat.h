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

// A duration with a unit chosen by its size: "850 ns", "12.5 µs", "3.20 ms", "1.500 s".
inline QString formatDuration(int64_t ns)
{
    const double a = std::fabs(double(ns));
    if (a < 1e3)
        return QStringLiteral("%1 ns").arg(ns);
    if (a < 1e6)
        return QStringLiteral("%1 µs").arg(double(ns) / 1e3, 0, 'f', a < 1e4 ? 2 : 1);
    if (a < 1e9)
        return QStringLiteral("%1 ms").arg(double(ns) / 1e6, 0, 'f', a < 1e7 ? 3 : 2);
    return QStringLiteral("%1 s").arg(double(ns) / 1e9, 0, 'f', 3);
}

// A tick label at offset ns from the trace start, with as many decimals as the
// step needs and the unit of the step ("1.25 ms" for a 10 µs step).
inline QString formatTick(int64_t ns, int64_t step)
{
    struct Unit { double div; const char *name; };
    // The unit of a tenth of a step's magnitude reads best: a 500 µs step
    // labels "1.5 ms", a 20 ns step "0.34 µs".
    Unit u = step >= 100'000'000 ? Unit{1e9, "s"}
             : step >= 100'000   ? Unit{1e6, "ms"}
             : step >= 10        ? Unit{1e3, "µs"}
                                 : Unit{1, "ns"};
    // decimals: enough to show the step in that unit
    int decimals = 0;
    double s = double(step) / u.div;
    while (decimals < 3 && std::fabs(s - std::round(s)) > 1e-9) {
        s *= 10;
        ++decimals;
    }
    return QStringLiteral("%1 %2").arg(double(ns) / u.div, 0, 'f', decimals).arg(QString::fromUtf8(u.name));
}

} // namespace syncscope::ui
