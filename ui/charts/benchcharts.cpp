#include "charts/benchcharts.h"

#include "lab/api/variants.h"

#include <QAreaSeries>

#include <cmath>
#include <optional>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPen>
#include <QScatterSeries>
#include <QCategoryAxis>
#include <QStackedBarSeries>
#include <QValueAxis>

#include <algorithm>
#include <array>
#include <functional>
#include <cmath>
#include <map>
#include <optional>

namespace syncscope::ui {

namespace {

QColor variantColor(const std::string &variant)
{
    static const QColor palette[] = {QColor(0xd6, 0x4f, 0x3c), QColor(0x3b, 0x7d, 0xd8), QColor(0x2e, 0xa0, 0x5a),
                                     QColor(0x9b, 0x59, 0xb6), QColor(0xe6, 0x9b, 0x22), QColor(0x16, 0xa0, 0xa8)};
    const auto &all = lab::allVariants();
    size_t idx = all.size() + std::hash<std::string>{}(variant) % 3;
    for (size_t i = 0; i < all.size(); ++i)
        if (all[i].name == variant)
            idx = i;
    return palette[idx % (sizeof(palette) / sizeof(palette[0]))];
}

QChart *newChart(const QString &title)
{
    auto *chart = new QChart;
    chart->setTitle(title);
    QFont f = chart->titleFont();
    f.setPointSizeF(f.pointSizeF() * 1.15);
    f.setBold(true);
    chart->setTitleFont(f);
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setMargins(QMargins(6, 6, 6, 6));
    return chart;
}

void hideFromLegend(QChart *chart, QAbstractSeries *series)
{
    for (QLegendMarker *m : chart->legend()->markers(series))
        m->setVisible(false);
}

bool ok(const lab::BenchResult &r) { return r.error.empty() && r.stats.medianMs > 0; }

struct BarItem {
    QString label;
    QColor color;
    double value = 0, lo = 0, hi = 0;
};

QAbstractAxis *makeAxis(bool log, const QString &title, double lo, double hi);

// An I-shaped whisker from lo to hi at category x.
QLineSeries *whiskerSeries(double x, double lo, double hi)
{
    auto *w = new QLineSeries;
    const double cap = 0.08;
    w->append(x - cap, lo);
    w->append(x + cap, lo);
    w->append(x, lo);
    w->append(x, hi);
    w->append(x - cap, hi);
    w->append(x + cap, hi);
    QPen pen(QColor(0x22, 0x22, 0x22));
    pen.setWidthF(1.6);
    w->setPen(pen);
    return w;
}

// A dashed horizontal reference line at y across `categories` bars.
QLineSeries *referenceSeries(const QString &name, double y, size_t categories)
{
    auto *line = new QLineSeries;
    line->setName(name);
    line->append(-0.5, y);
    line->append(static_cast<double>(categories) - 0.5, y);
    QPen pen(QColor(0x55, 0x55, 0x55));
    pen.setStyle(Qt::DashLine);
    pen.setWidthF(1.4);
    line->setPen(pen);
    return line;
}

QChart *logBarChart(const QString &title, const QString &yTitle, const std::vector<BarItem> &items,
                    std::optional<double> ref, const QString &refName);

// One bar per item in its own colour (a stacked series where each set fills only
// its own category), a whisker from lo to hi, and an optional reference line.
// logY draws the same on a log axis (bars as areas from the axis floor).
QChart *barChart(const QString &title, const QString &yTitle, const std::vector<BarItem> &items,
                 std::optional<double> ref, const QString &refName, bool whiskers, bool logY = false)
{
    if (logY)
        return logBarChart(title, yTitle, items, ref, refName);
    QChart *chart = newChart(title);
    auto *bars = new QStackedBarSeries;
    QStringList categories;
    for (const auto &it : items)
        categories << it.label;
    for (size_t i = 0; i < items.size(); ++i) {
        auto *set = new QBarSet(items[i].label);
        for (size_t j = 0; j < items.size(); ++j)
            *set << (i == j ? items[i].value : 0.0);
        set->setColor(items[i].color);
        set->setBorderColor(items[i].color.darker(130));
        bars->append(set);
    }
    bars->setBarWidth(0.55);
    chart->addSeries(bars);
    auto *axisX = new QBarCategoryAxis;
    axisX->append(categories);
    auto *axisY = new QValueAxis;
    axisY->setTitleText(yTitle);
    axisY->setLabelFormat(QStringLiteral("%.6g")); // nice numbers, never in exponent form
    chart->addAxis(axisX, Qt::AlignBottom);
    chart->addAxis(axisY, Qt::AlignLeft);
    bars->attachAxis(axisX);
    bars->attachAxis(axisY);
    double top = 0;
    for (size_t i = 0; i < items.size(); ++i) {
        top = std::max(top, whiskers ? items[i].hi : items[i].value);
        if (!whiskers)
            continue;
        QLineSeries *w = whiskerSeries(static_cast<double>(i), items[i].lo, items[i].hi);
        chart->addSeries(w);
        w->attachAxis(axisX);
        w->attachAxis(axisY);
        hideFromLegend(chart, w);
    }
    if (ref) {
        top = std::max(top, *ref);
        QLineSeries *line = referenceSeries(refName, *ref, items.size());
        chart->addSeries(line);
        line->attachAxis(axisX);
        line->attachAxis(axisY);
    }
    axisY->setRange(0, top > 0 ? top * 1.12 : 1.0);
    axisY->applyNiceNumbers();
    // The per-bar sets already name the categories on the axis.
    for (QLegendMarker *m : chart->legend()->markers(bars))
        m->setVisible(false);
    return chart;
}

QAbstractAxis *makeAxis(bool log, const QString &title, double lo, double hi)
{
    if (log) {
        auto *a = new QLogValueAxis;
        a->setBase(10);
        // Plain numbers on every tick: "%g" would print 1e+06 beside 100000.
        a->setLabelFormat(QStringLiteral("%.10g"));
        a->setMinorTickCount(8);
        a->setTitleText(title);
        // A quarter of a decade's room at each end, so the end markers are not
        // cut at the plot edge; whole decades when that would hide every label.
        const double plo = lo / 1.25, phi = hi * 1.25;
        if (std::floor(std::log10(phi)) > std::floor(std::log10(plo)))
            a->setRange(plo, phi);
        else
            a->setRange(std::pow(10, std::floor(std::log10(plo))), std::pow(10, std::ceil(std::log10(phi))));
        return a;
    }
    auto *a = new QValueAxis;
    a->setLabelFormat(QStringLiteral("%.10g"));
    a->setTitleText(title);
    const double pad = (hi - lo) * 0.05 + (hi == lo ? std::abs(hi) * 0.1 + 0.01 : 0);
    a->setRange(lo - pad, hi + pad);
    return a;
}

// The bars of barChart on a log axis: QBarSeries cannot start a bar at zero
// there, so each bar is an area from the axis floor, on a category axis.
QChart *logBarChart(const QString &title, const QString &yTitle, const std::vector<BarItem> &items,
                    std::optional<double> ref, const QString &refName)
{
    QChart *chart = newChart(title);
    double lo = INFINITY, hi = 0;
    for (const auto &it : items) {
        for (double v : {it.value, it.lo, it.hi})
            if (v > 0) {
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
    }
    if (ref && *ref > 0) {
        lo = std::min(lo, *ref);
        hi = std::max(hi, *ref);
    }
    auto *axisX = new QCategoryAxis;
    axisX->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    axisX->setRange(-0.5, static_cast<double>(items.size()) - 0.5);
    for (size_t i = 0; i < items.size(); ++i)
        axisX->append(items[i].label, static_cast<double>(i));
    QAbstractAxis *axisY = makeAxis(true, yTitle, lo, hi);
    const double base = std::pow(10, std::floor(std::log10(lo)));
    chart->addAxis(axisX, Qt::AlignBottom);
    chart->addAxis(axisY, Qt::AlignLeft);
    auto add = [&](QAbstractSeries *series) {
        chart->addSeries(series);
        series->attachAxis(axisX);
        series->attachAxis(axisY);
    };
    for (size_t i = 0; i < items.size(); ++i) {
        const double x = static_cast<double>(i), half = 0.55 / 2;
        auto *upper = new QLineSeries, *lower = new QLineSeries;
        upper->append(x - half, std::max(items[i].value, base));
        upper->append(x + half, std::max(items[i].value, base));
        lower->append(x - half, base);
        lower->append(x + half, base);
        auto *bar = new QAreaSeries(upper, lower);
        bar->setName(items[i].label);
        bar->setBrush(items[i].color);
        bar->setPen(QPen(items[i].color.darker(130)));
        add(bar);
        hideFromLegend(chart, bar);
        if (!(items[i].lo > 0 && items[i].hi > 0))
            continue;
        QLineSeries *w = whiskerSeries(x, items[i].lo, items[i].hi);
        add(w);
        hideFromLegend(chart, w);
    }
    if (ref && *ref > 0) {
        add(referenceSeries(refName, *ref, items.size()));
    }
    return chart;
}

struct Line {
    QColor color;
    QString name;
    std::map<double, std::array<double, 3>> points; // x -> lo, mid, hi
};

// One line per variant with its spread as a translucent band, plus reference
// lines (the floors: dashed grey, then dotted dark red); log axes where every
// value allows it.
QChart *lineChart(const QString &title, const QString &xTitle, const QString &yTitle,
                  const std::vector<Line> &lines, const std::vector<Line> &refs)
{
    QChart *chart = newChart(title);
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    auto extend = [&](const Line &l) {
        for (const auto &[x, v] : l.points) {
            xlo = std::min(xlo, x);
            xhi = std::max(xhi, x);
            ylo = std::min({ylo, v[0], v[1]});
            yhi = std::max({yhi, v[2], v[1]});
        }
    };
    for (const auto &l : lines)
        extend(l);
    for (const auto &r : refs)
        extend(r);
    const bool logX = xlo > 0, logY = ylo > 0;
    QAbstractAxis *axisX = makeAxis(logX, xTitle, xlo, xhi);
    QAbstractAxis *axisY = makeAxis(logY, yTitle, ylo, yhi);
    chart->addAxis(axisX, Qt::AlignBottom);
    chart->addAxis(axisY, Qt::AlignLeft);
    auto add = [&](QAbstractSeries *s) {
        chart->addSeries(s);
        s->attachAxis(axisX);
        s->attachAxis(axisY);
    };
    for (const auto &l : lines) {
        auto *upper = new QLineSeries, *lower = new QLineSeries, *mid = new QLineSeries;
        for (const auto &[x, v] : l.points) {
            lower->append(x, v[0]);
            mid->append(x, v[1]);
            upper->append(x, v[2]);
        }
        auto *band = new QAreaSeries(upper, lower);
        QColor fill = l.color;
        fill.setAlpha(50);
        band->setBrush(fill);
        band->setPen(Qt::NoPen);
        add(band);
        hideFromLegend(chart, band);
        mid->setName(l.name);
        QPen pen(l.color);
        pen.setWidthF(2.2);
        mid->setPen(pen);
        mid->setPointsVisible(true);
        mid->setMarkerSize(7);
        add(mid);
    }
    for (size_t i = 0; i < refs.size(); ++i) {
        auto *r = new QLineSeries;
        for (const auto &[x, v] : refs[i].points)
            r->append(x, v[1]);
        r->setName(refs[i].name);
        QPen pen(i == 0 ? QColor(0x55, 0x55, 0x55) : QColor(0x8b, 0x1a, 0x1a));
        pen.setStyle(i == 0 ? Qt::DashLine : Qt::DotLine);
        pen.setWidthF(i == 0 ? 1.6 : 2.0);
        r->setPen(pen);
        add(r);
    }
    return chart;
}

bool fail(QString *why, const QString &text)
{
    if (why)
        *why = text;
    return false;
}

QString deviceName(const lab::BenchReport &r)
{
    return QString::fromStdString(r.device.empty() ? std::string("unknown device") : r.device).toUpper();
}

} // namespace

QString sweepAxisLabel(SweepAxis axis)
{
    switch (axis) {
    case SweepAxis::N: return QStringLiteral("N (items per row)");
    case SweepAxis::Batch: return QStringLiteral("B (rows)");
    case SweepAxis::PosFrac: return QStringLiteral("input positive fraction");
    case SweepAxis::None: break;
    }
    return QString();
}

double sweepValue(const lab::BenchPoint &p, SweepAxis axis)
{
    switch (axis) {
    case SweepAxis::N: return static_cast<double>(p.n);
    case SweepAxis::Batch: return static_cast<double>(p.batch);
    case SweepAxis::PosFrac: return p.posFrac;
    case SweepAxis::None: break;
    }
    return 0;
}

SweepAxis detectSweepAxis(const lab::BenchReport &report)
{
    for (SweepAxis axis : {SweepAxis::N, SweepAxis::Batch, SweepAxis::PosFrac}) {
        std::vector<double> values;
        for (const auto &r : report.results)
            values.push_back(sweepValue(r.point, axis));
        std::sort(values.begin(), values.end());
        if (std::unique(values.begin(), values.end()) - values.begin() > 1)
            return axis;
    }
    return SweepAxis::None;
}

bool samePoint(const lab::BenchPoint &a, const lab::BenchPoint &b)
{
    return a.n == b.n && a.k == b.k && a.batch == b.batch && a.dim == b.dim && a.posFrac == b.posFrac &&
           a.ignoreFrac == b.ignoreFrac && a.targetPosFraction == b.targetPosFraction;
}

QString describePoint(const lab::BenchPoint &p)
{
    QString s = QStringLiteral("N=%1, K=%2, B=%3, D=%4, p=%5")
                    .arg(p.n)
                    .arg(p.k)
                    .arg(p.batch)
                    .arg(p.dim)
                    .arg(p.posFrac, 0, 'g', 3);
    if (p.ignoreFrac > 0)
        s += QStringLiteral(", ignored=%1").arg(p.ignoreFrac, 0, 'g', 3);
    if (p.targetPosFraction != 0.5)
        s += QStringLiteral(", f=%1").arg(p.targetPosFraction, 0, 'g', 3);
    return s;
}

std::vector<std::string> reportVariants(const lab::BenchReport &report)
{
    std::vector<std::string> out;
    for (const auto &r : report.results)
        if (std::find(out.begin(), out.end(), r.variant) == out.end())
            out.push_back(r.variant);
    return out;
}

lab::BenchPoint defaultPoint(const lab::BenchReport &report)
{
    for (auto it = report.results.rbegin(); it != report.results.rend(); ++it)
        if (ok(*it))
            return it->point;
    return report.results.empty() ? lab::BenchPoint{} : report.results.back().point;
}

std::string defaultBaseline(const lab::BenchReport &report)
{
    const auto v = reportVariants(report);
    if (std::find(v.begin(), v.end(), "naive") != v.end())
        return "naive";
    return v.empty() ? std::string() : v.front();
}

bool stepTimeSpansDecades(const lab::BenchReport &report, const lab::BenchPoint &point)
{
    double lo = INFINITY, hi = 0;
    for (const auto &r : report.results) {
        if (!ok(r) || !samePoint(r.point, point))
            continue;
        lo = std::min(lo, r.stats.medianMs);
        hi = std::max(hi, r.stats.medianMs);
    }
    return hi > 0 && hi > 100.0 * lo;
}

static QChart *makeStepTimeChartBare(const lab::BenchReport &report, const lab::BenchPoint &point, QString *why,
                                     std::optional<bool> logY)
{
    std::vector<BarItem> items;
    std::vector<double> floors;
    for (const auto &r : report.results) {
        if (!ok(r) || !samePoint(r.point, point))
            continue;
        items.push_back({QString::fromStdString(r.variant), variantColor(r.variant), r.stats.medianMs,
                         r.stats.p5Ms, r.stats.p95Ms});
        if (r.floorMs > 0)
            floors.push_back(r.floorMs);
    }
    if (items.empty())
        return fail(why,
                    QStringLiteral("The results hold no successful measurement at %1.").arg(describePoint(point))),
               nullptr;
    std::optional<double> floor;
    if (!floors.empty()) {
        std::nth_element(floors.begin(), floors.begin() + floors.size() / 2, floors.end());
        floor = floors[floors.size() / 2];
    }
    return barChart(QStringLiteral("Step time on %1 at %2 (median, whiskers p5–p95)")
                        .arg(deviceName(report), describePoint(point)),
                    QStringLiteral("ms per step"), items, floor,
                    QStringLiteral("floor: one read pass over the labels"), true,
                    logY.value_or(stepTimeSpansDecades(report, point)));
}

static QChart *makeStepSamplesChartBare(const lab::BenchReport &report, const lab::BenchPoint &point, QString *why)
{
    struct Strip {
        std::string variant;
        const std::vector<double> *samples;
        double median;
    };
    std::vector<Strip> strips;
    double lo = INFINITY, hi = -INFINITY;
    for (const auto &r : report.results) {
        if (!ok(r) || !samePoint(r.point, point) || r.samplesMs.empty())
            continue;
        strips.push_back({r.variant, &r.samplesMs, r.stats.medianMs});
        for (double v : r.samplesMs)
            if (std::isfinite(v) && v > 0) {
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
    }
    if (strips.empty() || !(hi > 0))
        return fail(why, QStringLiteral("No result at %1 carries its per-step times (results saved before "
                                        "samples_ms existed have only the summary).")
                             .arg(describePoint(point))),
               nullptr;
    QChart *chart = newChart(QStringLiteral("Every timed step at %1 on %2 (dots: steps; bar: median)")
                                 .arg(describePoint(point), deviceName(report)));
    auto *axisX = new QCategoryAxis;
    axisX->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    axisX->setRange(-0.5, static_cast<double>(strips.size()) - 0.5);
    for (size_t i = 0; i < strips.size(); ++i)
        axisX->append(QString::fromStdString(strips[i].variant), static_cast<double>(i));
    axisX->setTitleText(QStringLiteral("variant"));
    // A log axis when the steps span more than a decade, so a bimodal
    // distribution and its fast mode both stay visible.
    QAbstractAxis *axisY = makeAxis(hi / lo > 10.0, QStringLiteral("ms per step"), lo, hi);
    chart->addAxis(axisX, Qt::AlignBottom);
    chart->addAxis(axisY, Qt::AlignLeft);
    for (size_t i = 0; i < strips.size(); ++i) {
        const QColor color = variantColor(strips[i].variant);
        auto *dots = new QScatterSeries;
        dots->setName(QString::fromStdString(strips[i].variant));
        dots->setMarkerSize(6);
        QColor fill = color;
        fill.setAlpha(140);
        dots->setColor(fill);
        dots->setBorderColor(color);
        const auto &v = *strips[i].samples;
        for (size_t j = 0; j < v.size(); ++j) {
            if (!(std::isfinite(v[j]) && v[j] > 0))
                continue;
            // deterministic jitter (golden-ratio sequence) inside +-0.3 of the strip
            const double jitter = std::fmod(static_cast<double>(j) * 0.6180339887, 1.0) * 0.6 - 0.3;
            dots->append(static_cast<double>(i) + jitter, v[j]);
        }
        chart->addSeries(dots);
        dots->attachAxis(axisX);
        dots->attachAxis(axisY);
        auto *median = new QLineSeries;
        median->append(static_cast<double>(i) - 0.4, strips[i].median);
        median->append(static_cast<double>(i) + 0.4, strips[i].median);
        QPen pen(color.darker(160));
        pen.setWidthF(3);
        median->setPen(pen);
        chart->addSeries(median);
        median->attachAxis(axisX);
        median->attachAxis(axisY);
        hideFromLegend(chart, median);
    }
    return chart;
}

static QChart *makeSweepChartBare(const lab::BenchReport &report, QString *why)
{
    const SweepAxis axis = detectSweepAxis(report);
    if (axis == SweepAxis::None)
        return fail(why, QStringLiteral("The results hold a single point; a sweep chart needs N, B or "
                                        "the positive fraction to vary.")),
               nullptr;
    std::vector<Line> lines;
    Line floor{QColor(), QStringLiteral("floor: one read pass"), {}};
    Line gatherFloor{QColor(), QStringLiteral("gather floor: labels read, K rows gathered"), {}};
    std::map<double, std::vector<double>> floorsAt, gatherAt;
    for (const auto &name : reportVariants(report)) {
        Line l{variantColor(name), QString::fromStdString(name), {}};
        for (const auto &r : report.results) {
            if (r.variant != name || !ok(r))
                continue;
            const double x = sweepValue(r.point, axis);
            l.points[x] = {std::max(r.stats.p5Ms, 1e-9), r.stats.medianMs, r.stats.p95Ms};
            if (r.floorMs > 0)
                floorsAt[x].push_back(r.floorMs);
            if (r.gatherFloorMs && *r.gatherFloorMs > 0)
                gatherAt[x].push_back(*r.gatherFloorMs);
        }
        if (!l.points.empty())
            lines.push_back(std::move(l));
    }
    if (lines.empty())
        return fail(why, QStringLiteral("The results hold no successful measurement to plot.")), nullptr;
    // One value per x: the floors are measured once per point and repeated
    // in every variant's result.
    auto medianPerX = [](std::map<double, std::vector<double>> &at, Line &line) {
        for (auto &[x, v] : at) {
            std::sort(v.begin(), v.end());
            const double m = v[v.size() / 2];
            line.points[x] = {m, m, m};
        }
    };
    medianPerX(floorsAt, floor);
    medianPerX(gatherAt, gatherFloor);
    std::vector<Line> refs;
    if (!floor.points.empty())
        refs.push_back(std::move(floor));
    if (!gatherFloor.points.empty())
        refs.push_back(std::move(gatherFloor));
    return lineChart(QStringLiteral("Step time vs %1 on %2 (median, band p5–p95)")
                         .arg(sweepAxisLabel(axis), deviceName(report)),
                     sweepAxisLabel(axis), QStringLiteral("ms per step"), lines, refs);
}

static QChart *makeSpeedupChartBare(const lab::BenchReport &report, const std::string &baseline, QString *why)
{
    const auto variants = reportVariants(report);
    if (std::find(variants.begin(), variants.end(), baseline) == variants.end())
        return fail(why, QStringLiteral("The baseline variant '%1' is not in the results.")
                             .arg(QString::fromStdString(baseline))),
               nullptr;
    const SweepAxis axis = detectSweepAxis(report);
    auto baseAt = [&](const lab::BenchPoint &p) -> const lab::BenchResult * {
        for (const auto &r : report.results)
            if (r.variant == baseline && ok(r) && samePoint(r.point, p))
                return &r;
        return nullptr;
    };
    const QString title = QStringLiteral("Speedup over %1 on %2 (baseline median / variant median)")
                              .arg(QString::fromStdString(baseline), deviceName(report));
    if (axis == SweepAxis::None) {
        const lab::BenchPoint point = defaultPoint(report);
        const lab::BenchResult *base = baseAt(point);
        if (!base)
            return fail(why, QStringLiteral("The baseline '%1' has no successful measurement.")
                                 .arg(QString::fromStdString(baseline))),
                   nullptr;
        std::vector<BarItem> items;
        for (const auto &r : report.results) {
            if (!ok(r) || !samePoint(r.point, point))
                continue;
            items.push_back({QString::fromStdString(r.variant), variantColor(r.variant),
                             base->stats.medianMs / r.stats.medianMs,
                             base->stats.p5Ms / std::max(r.stats.p95Ms, 1e-12),
                             base->stats.p95Ms / std::max(r.stats.p5Ms, 1e-12)});
        }
        return barChart(title + QStringLiteral("\nat ") + describePoint(point),
                        QStringLiteral("× faster than ") + QString::fromStdString(baseline), items, 1.0,
                        QStringLiteral("baseline (1×)"), true);
    }
    std::vector<Line> lines;
    for (const auto &name : variants) {
        if (name == baseline)
            continue;
        Line l{variantColor(name), QString::fromStdString(name), {}};
        for (const auto &r : report.results) {
            if (r.variant != name || !ok(r))
                continue;
            const lab::BenchResult *base = baseAt(r.point);
            if (!base)
                continue;
            l.points[sweepValue(r.point, axis)] = {base->stats.p5Ms / std::max(r.stats.p95Ms, 1e-12),
                                                   base->stats.medianMs / r.stats.medianMs,
                                                   base->stats.p95Ms / std::max(r.stats.p5Ms, 1e-12)};
        }
        if (!l.points.empty())
            lines.push_back(std::move(l));
    }
    if (lines.empty())
        return fail(why, QStringLiteral("No variant shares a measured point with the baseline '%1'.")
                             .arg(QString::fromStdString(baseline))),
               nullptr;
    Line one{QColor(), QStringLiteral("baseline (1×)"), {}};
    for (const auto &l : lines)
        for (const auto &[x, v] : l.points)
            one.points[x] = {1, 1, 1};
    return lineChart(title, sweepAxisLabel(axis), QStringLiteral("× faster (band: p5/p95 spread)"), lines, {one});
}

namespace {
QChart *measuredChart(const lab::BenchReport &report, const lab::BenchPoint &point, QString *why, bool syncs)
{
    std::vector<BarItem> items;
    for (const auto &r : report.results) {
        if (!r.error.empty() || !samePoint(r.point, point))
            continue;
        if (syncs && r.syncsPerStep)
            items.push_back({QString::fromStdString(r.variant), variantColor(r.variant), *r.syncsPerStep, 0, 0});
        if (!syncs && r.peakBytes)
            items.push_back({QString::fromStdString(r.variant), variantColor(r.variant),
                             static_cast<double>(*r.peakBytes) / (1024.0 * 1024.0), 0, 0});
    }
    if (items.empty()) {
        const QString what = syncs ? QStringLiteral("Syncs per step") : QStringLiteral("Peak device memory");
        return fail(why, report.device == lab::deviceName(lab::Device::Cpu)
                             ? QStringLiteral("%1: not measured on CPU.").arg(what)
                             : QStringLiteral("%1: not measured in these results.").arg(what)),
               nullptr;
    }
    return barChart(syncs ? QStringLiteral("Host-device syncs per step at %1").arg(describePoint(point))
                          : QStringLiteral("Peak device memory at %1").arg(describePoint(point)),
                    syncs ? QStringLiteral("syncs per step") : QStringLiteral("MiB"), items, std::nullopt,
                    QString(), false);
}
} // namespace

static QChart *makeSyncsChartBare(const lab::BenchReport &report, const lab::BenchPoint &point, QString *why)
{
    return measuredChart(report, point, why, true);
}

static QChart *makeMemoryChartBare(const lab::BenchReport &report, const lab::BenchPoint &point, QString *why)
{
    return measuredChart(report, point, why, false);
}

// The run behind a chart, for a chart that leaves the window (an export, a
// report): its point (or the swept range), threads, device and LibTorch.
QString runCaption(const lab::BenchReport &report, const lab::BenchPoint *point)
{
    QStringList parts;
    if (point) {
        parts << describePoint(*point);
    } else if (const SweepAxis axis = detectSweepAxis(report); axis != SweepAxis::None) {
        double lo = INFINITY, hi = -INFINITY;
        for (const auto &r : report.results) {
            lo = std::min(lo, sweepValue(r.point, axis));
            hi = std::max(hi, sweepValue(r.point, axis));
        }
        QString rest;
        if (!report.results.empty()) {
            const lab::BenchPoint &p = report.results.front().point;
            if (axis != SweepAxis::N)
                rest += QStringLiteral(", N=%1").arg(p.n);
            rest += QStringLiteral(", D=%1").arg(p.dim);
            if (axis != SweepAxis::Batch)
                rest += QStringLiteral(", B=%1").arg(p.batch);
            if (axis != SweepAxis::PosFrac)
                rest += QStringLiteral(", p=%1").arg(p.posFrac, 0, 'g', 3);
        }
        parts << QStringLiteral("%1 from %2 to %3%4")
                     .arg(sweepAxisLabel(axis))
                     .arg(lo, 0, 'g', 7)
                     .arg(hi, 0, 'g', 7)
                     .arg(rest);
    }
    // K as a fraction of N: the point's, or the run's where every point shares
    // it (K = N x K/N rounded: the largest N's ratio, within one K of each point).
    std::optional<double> kOverN;
    if (point && point->n > 0) {
        kOverN = double(point->k) / double(point->n);
    } else if (!report.results.empty()) {
        const lab::BenchPoint *largest = &report.results.front().point;
        for (const auto &r : report.results)
            if (r.point.n > largest->n)
                largest = &r.point;
        if (largest->n > 0) {
            kOverN = double(largest->k) / double(largest->n);
            for (const auto &r : report.results)
                if (!(std::abs(double(r.point.k) - *kOverN * double(r.point.n)) <= 1.0)) {
                    kOverN.reset();
                    break;
                }
        }
    }
    if (kOverN && std::isfinite(*kOverN))
        parts << QStringLiteral("K/N=%1").arg(*kOverN, 0, 'g', 4);
    // Warm-up and timed steps: the timed count is each result's, the same in one run.
    int timed = 0;
    for (const auto &r : report.results)
        if (ok(r) && (!point || samePoint(r.point, *point)))
            timed = std::max(timed, r.iters);
    if (report.warmup && timed > 0)
        parts << QStringLiteral("%1 warm-up + %2 timed steps").arg(*report.warmup).arg(timed);
    else if (timed > 0)
        parts << QStringLiteral("%1 timed steps").arg(timed);
    if (report.seed)
        parts << QStringLiteral("seed %1").arg(*report.seed);
    parts << (report.threads > 0 ? QStringLiteral("%1 thread(s)").arg(report.threads)
                                 : QStringLiteral("all cores"));
    parts << QString::fromStdString(report.device);
    if (!report.torchVersion.empty())
        parts << QStringLiteral("LibTorch %1").arg(QString::fromStdString(report.torchVersion));
    return parts.join(QStringLiteral(" · "));
}

namespace {

// The title is rich text: the caption goes on a line of its own, in plain weight.
QChart *captioned(QChart *chart, const QString &caption)
{
    if (chart)
        chart->setTitle(
            chart->title().toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>")) +
            QStringLiteral("<br><span style=\"font-weight:normal\">%1</span>").arg(caption.toHtmlEscaped()));
    return chart;
}

} // namespace

QChart *makeStepTimeChart(const lab::BenchReport &report, const lab::BenchPoint &point, QString *why,
                          std::optional<bool> logY)
{
    return captioned(makeStepTimeChartBare(report, point, why, logY), runCaption(report, &point));
}

QChart *makeStepSamplesChart(const lab::BenchReport &report, const lab::BenchPoint &point, QString *why)
{
    return captioned(makeStepSamplesChartBare(report, point, why), runCaption(report, &point));
}

QChart *makeSweepChart(const lab::BenchReport &report, QString *why)
{
    return captioned(makeSweepChartBare(report, why), runCaption(report, nullptr));
}

QChart *makeSpeedupChart(const lab::BenchReport &report, const std::string &baseline, QString *why)
{
    const SweepAxis axis = detectSweepAxis(report);
    const lab::BenchPoint point = defaultPoint(report);
    return captioned(makeSpeedupChartBare(report, baseline, why),
                     runCaption(report, axis == SweepAxis::None ? &point : nullptr));
}

QChart *makeSyncsChart(const lab::BenchReport &report, const lab::BenchPoint &point, QString *why)
{
    return captioned(makeSyncsChartBare(report, point, why), runCaption(report, &point));
}

QChart *makeMemoryChart(const lab::BenchReport &report, const lab::BenchPoint &point, QString *why)
{
    return captioned(makeMemoryChartBare(report, point, why), runCaption(report, &point));
}

} // namespace syncscope::ui
