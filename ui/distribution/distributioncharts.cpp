#include "distribution/distributioncharts.h"

#include "charts/decimate.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLocale>
#include <QStackedBarSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace syncscope::ui {

namespace {
const QColor kPos(0xd6, 0x4f, 0x3c), kNeg(0x3b, 0x7d, 0xd8), kPad(0xa0, 0xa0, 0xa0);

QChart *newChart(const QString &title)
{
    auto *chart = new QChart;
    chart->setTitle(title);
    QFont f = chart->titleFont();
    f.setBold(true);
    chart->setTitleFont(f);
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setMargins(QMargins(4, 4, 4, 4));
    return chart;
}

QChart *fail(QString *why, const QString &text)
{
    if (why)
        *why = text;
    return nullptr;
}

int64_t sum(const std::vector<int64_t> &v)
{
    int64_t s = 0;
    for (int64_t x : v)
        s += x;
    return s;
}

// Ratio observed / expected per position, its decimated line and a binned mean.
QChart *ratioChart(const QString &title, const QString &xTitle, const std::vector<double> &xs,
                   const std::vector<double> &observed, const std::vector<double> &expected,
                   const std::vector<int> &cls, int maxPoints)
{
    QChart *chart = newChart(title);
    auto *axisX = new QValueAxis;
    axisX->setTitleText(xTitle);
    axisX->setLabelFormat("%.0f");
    auto *axisY = new QValueAxis;
    axisY->setTitleText(QStringLiteral("observed / expected (1 = fair)"));
    chart->addAxis(axisX, Qt::AlignBottom);
    chart->addAxis(axisY, Qt::AlignLeft);
    double ylo = 1, yhi = 1, xhi = 1;
    const QString names[] = {QStringLiteral("positives"), QStringLiteral("negatives")};
    axisX->setTitleText(xTitle + QStringLiteral("; thin line: each one"));
    const QColor colors[] = {kPos, kNeg};
    // Negatives first, so the usually rarer positives are drawn on top.
    for (int c : {1, 0}) {
        QList<QPointF> pts;
        for (size_t i = 0; i < xs.size(); ++i)
            if (cls[i] == c && expected[i] > 0)
                pts.push_back(QPointF(xs[i], observed[i] / expected[i]));
        if (pts.isEmpty())
            continue;
        auto *line = new QLineSeries;
        line->setName(names[c]);
        QColor light = colors[c];
        light.setAlpha(110);
        QPen pen(light);
        pen.setWidthF(1.0);
        line->setPen(pen);
        line->append(decimateMinMax(pts, maxPoints));
        chart->addSeries(line);
        line->attachAxis(axisX);
        line->attachAxis(axisY);
        // Mean over 40 bins of eligible positions: a trend the noise hides.
        const int bins = static_cast<int>(std::min<qsizetype>(40, pts.size()));
        auto *mean = new QLineSeries;
        mean->setName(names[c].left(3) + QStringLiteral(". mean of 40 bins"));
        for (int b = 0; b < bins; ++b) {
            const qsizetype begin = b * pts.size() / bins, end = (b + 1) * pts.size() / bins;
            double s = 0;
            for (qsizetype i = begin; i < end; ++i)
                s += pts[i].y();
            mean->append((pts[begin].x() + pts[end - 1].x()) / 2, s / double(end - begin));
        }
        QPen meanPen(colors[c].darker(120));
        meanPen.setWidthF(2.4);
        mean->setPen(meanPen);
        chart->addSeries(mean);
        mean->attachAxis(axisX);
        mean->attachAxis(axisY);
        for (const auto &p : pts) {
            ylo = std::min(ylo, p.y());
            yhi = std::max(yhi, p.y());
            xhi = std::max(xhi, p.x());
        }
    }
    auto *fair = new QLineSeries;
    fair->setName(QStringLiteral("fair"));
    fair->append(0, 1);
    fair->append(xhi, 1);
    QPen dash(QColor(0x33, 0x33, 0x33));
    dash.setStyle(Qt::DashLine);
    dash.setWidthF(1.4);
    fair->setPen(dash);
    chart->addSeries(fair);
    fair->attachAxis(axisX);
    fair->attachAxis(axisY);
    axisX->setRange(0, xhi);
    axisX->applyNiceNumbers();
    axisY->setRange(std::max(0.0, ylo - 0.05), yhi + 0.05);
    axisY->applyNiceNumbers();
    return chart;
}
} // namespace

QChart *makeCountsChart(const lab::DistributionStats &st, QString *why)
{
    if (st.runs == 0)
        return fail(why, QStringLiteral("No sampling run yet."));
    const int64_t reqPos = sum(st.requestedPos), reqNeg = sum(st.requestedNeg);
    const int64_t gotPos = sum(st.obtainedPos), gotNeg = sum(st.obtainedNeg), gotPad = sum(st.padding);
    const int64_t reqPad = st.batch * st.k - reqPos - reqNeg;
    QChart *chart = newChart(st.batch > 1
                                 ? QStringLiteral("Requested vs obtained, summed over %1 rows").arg(st.batch)
                                 : QStringLiteral("Requested vs obtained per sample of K = %1").arg(st.k));
    auto *series = new QBarSeries;
    auto *req = new QBarSet(QStringLiteral("requested (floor(K·f) positives, the rest negatives)"));
    *req << reqPos << reqNeg << reqPad;
    auto *got = new QBarSet(QStringLiteral("obtained (input permitting)"));
    *got << gotPos << gotNeg << gotPad;
    req->setColor(QColor(0xbb, 0xbb, 0xbb));
    got->setColor(QColor(0x2e, 0xa0, 0x5a));
    series->append(req);
    series->append(got);
    series->setLabelsVisible(true);
    series->setLabelsPosition(QAbstractBarSeries::LabelsOutsideEnd);
    chart->addSeries(series);
    auto *axisX = new QBarCategoryAxis;
    axisX->append({QStringLiteral("positives"), QStringLiteral("negatives"), QStringLiteral("padding")});
    auto *axisY = new QValueAxis;
    axisY->setLabelFormat("%.0f");
    axisY->setTitleText(QStringLiteral("items"));
    axisY->setRange(0, std::max<double>({1.0, double(reqPos), double(reqNeg), double(gotPos), double(gotNeg),
                                         double(gotPad)}) *
                           1.15);
    axisY->applyNiceNumbers();
    chart->addAxis(axisX, Qt::AlignBottom);
    chart->addAxis(axisY, Qt::AlignLeft);
    series->attachAxis(axisX);
    series->attachAxis(axisY);
    return chart;
}

QChart *makeSelectionChart(const lab::DistributionStats &st, int maxPoints, QString *why)
{
    if (st.runs == 0)
        return fail(why, QStringLiteral("No sampling run yet."));
    std::vector<double> xs, observed, expected;
    std::vector<int> cls;
    for (int64_t b = 0; b < st.batch; ++b) {
        int64_t P = 0, Q = 0;
        for (int64_t i = 0; i < st.n; ++i) {
            const int64_t l = st.inputLabels[size_t(b * st.n + i)];
            P += l == 1;
            Q += l == 0;
        }
        const double ratePos = P ? double(st.obtainedPos[size_t(b)]) / double(P) : 0;
        const double rateNeg = Q ? double(st.obtainedNeg[size_t(b)]) / double(Q) : 0;
        for (int64_t i = 0; i < st.n; ++i) {
            const int64_t l = st.inputLabels[size_t(b * st.n + i)];
            if (l != 0 && l != 1)
                continue;
            xs.push_back(double(b * st.n + i));
            observed.push_back(double(st.selectedCount[size_t(b * st.n + i)]));
            expected.push_back(double(st.runs) * (l == 1 ? ratePos : rateNeg));
            cls.push_back(l == 1 ? 0 : 1);
        }
    }
    if (xs.empty())
        return fail(why, QStringLiteral("The input has no eligible items (every label is ignored)."));
    return ratioChart(QStringLiteral("How often each input position was selected (selection p = %1)")
                          .arg(st.selectionP, 0, 'g', 3),
                      st.batch > 1 ? QStringLiteral("input position, row-major over B×N")
                                   : QStringLiteral("input position"),
                      xs, observed, expected, cls, maxPoints);
}

QChart *makeOrderChart(const lab::DistributionStats &st, int maxPoints, QString *why)
{
    if (st.runs == 0)
        return fail(why, QStringLiteral("No sampling run yet."));
    std::vector<double> xs, observed, expected;
    std::vector<int> cls;
    for (int64_t j = 0; j < st.k; ++j) {
        double e = 0;
        for (int64_t b = 0; b < st.batch; ++b) {
            const int64_t valid = st.obtainedPos[size_t(b)] + st.obtainedNeg[size_t(b)];
            if (j < valid)
                e += double(st.runs) * double(st.obtainedPos[size_t(b)]) / double(valid);
        }
        if (e <= 0)
            continue;
        xs.push_back(double(j));
        observed.push_back(double(st.positiveSlotCount[size_t(j)]));
        expected.push_back(e);
        cls.push_back(0);
    }
    if (xs.empty())
        return fail(why, QStringLiteral("No positives were selected, so their output order cannot be tested."));
    return ratioChart(
        QStringLiteral("Where positives land in the output (order p = %1)").arg(st.orderP, 0, 'g', 3),
        QStringLiteral("output slot"), xs, observed, expected, cls, maxPoints);
}

QChart *makeRowBalanceChart(const lab::DistributionStats &st, int maxRows, QString *why)
{
    if (st.runs == 0)
        return fail(why, QStringLiteral("No sampling run yet."));
    if (st.batch < 2)
        return fail(why, QStringLiteral("Per-row balance needs B > 1; this run has one row."));
    const int rows = static_cast<int>(std::min<int64_t>(st.batch, maxRows));
    QChart *chart = newChart(rows < st.batch
                                 ? QStringLiteral("Per-row balance (first %1 of %2 rows)").arg(rows).arg(st.batch)
                                 : QStringLiteral("Per-row balance (%1 rows)").arg(rows));
    auto *series = new QStackedBarSeries;
    auto *pos = new QBarSet(QStringLiteral("positives"));
    auto *neg = new QBarSet(QStringLiteral("negatives"));
    auto *pad = new QBarSet(QStringLiteral("padding"));
    pos->setColor(kPos);
    neg->setColor(kNeg);
    pad->setColor(kPad);
    QStringList cats;
    for (int b = 0; b < rows; ++b) {
        *pos << double(st.obtainedPos[size_t(b)]);
        *neg << double(st.obtainedNeg[size_t(b)]);
        *pad << double(st.padding[size_t(b)]);
        cats << QString::number(b);
    }
    series->append(pos);
    series->append(neg);
    series->append(pad);
    series->setBarWidth(0.8);
    chart->addSeries(series);
    auto *axisX = new QBarCategoryAxis;
    axisX->append(cats);
    axisX->setTitleText(QStringLiteral("row"));
    auto *axisY = new QValueAxis;
    axisY->setRange(0, double(st.k));
    axisY->setLabelFormat("%.0f");
    axisY->setTitleText(QStringLiteral("slots of K = %1").arg(st.k));
    chart->addAxis(axisX, Qt::AlignBottom);
    chart->addAxis(axisY, Qt::AlignLeft);
    series->attachAxis(axisX);
    series->attachAxis(axisY);
    if (rows > 24)
        axisX->setLabelsVisible(false);
    return chart;
}

QString describeDistribution(const lab::SampleRequest &r, const lab::DistributionStats &st)
{
    auto verdict = [](double p, double dof) {
        if (dof <= 0)
            return QStringLiteral("<i>not applicable</i> (nothing to choose between)");
        if (p < 0.001)
            return QStringLiteral("<b style='color:#b00020'>bias detected</b> (p &lt; 0.001)");
        return QStringLiteral("<b style='color:#1e7d3c'>no bias detected</b> at this number of runs");
    };
    const QLocale loc;
    QString s = QStringLiteral("<b>%1 runs</b> of <b>%2</b> with sampler seeds %3 to %4 on one fixed input "
                               "(input seed %5; N = %6, K = %7, B = %8, positive fraction %9, ")
                    .arg(loc.toString(qlonglong(st.runs)), QString::fromStdString(r.variant))
                    .arg(r.seed)
                    .arg(r.seed + uint64_t(st.runs) - 1)
                    .arg(r.input.seed)
                    .arg(loc.toString(qlonglong(st.n)), loc.toString(qlonglong(st.k)))
                    .arg(st.batch)
                    .arg(r.input.posFrac, 0, 'g', 3);
    s += QStringLiteral("ignored %1, f = %2).<br>")
             .arg(r.input.ignoreFrac, 0, 'g', 3)
             .arg(r.targetPosFraction, 0, 'g', 3);
    s += QStringLiteral("<b>Selection</b>: Pearson chi-square test that every eligible item of a row and class is "
                        "equally likely to be picked: χ² = %1 on %2 degrees of freedom, p = %3 — %4.<br>")
             .arg(st.selectionChi2, 0, 'f', 1)
             .arg(st.selectionDof, 0, 'f', 0)
             .arg(st.selectionP, 0, 'g', 3)
             .arg(verdict(st.selectionP, st.selectionDof));
    s += QStringLiteral("<b>Order</b>: chi-square test that positives are spread uniformly over the valid output "
                        "slots: χ² = %1 on %2 degrees of freedom, p = %3 — %4.<br>")
             .arg(st.orderChi2, 0, 'f', 1)
             .arg(st.orderDof, 0, 'f', 0)
             .arg(st.orderP, 0, 'g', 3)
             .arg(verdict(st.orderP, st.orderDof));
    s += QStringLiteral(
        "<span style='color:#555'>A fair sampler gives p below 0.001 in 1 of 1000 experiments. A larger "
        "p means no bias was found, not that there is none: more runs detect smaller biases.</span>");
    return s;
}

} // namespace syncscope::ui
