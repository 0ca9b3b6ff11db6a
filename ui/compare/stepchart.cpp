#include "compare/stepchart.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QValueAxis>

#include <algorithm>

namespace syncscope::ui {

QString stepMetricTitle(StepMetric metric)
{
    switch (metric) {
    case StepMetric::StepTime: return QObject::tr("Step time");
    case StepMetric::GpuBusy: return QObject::tr("GPU busy");
    case StepMetric::Avoidable: break;
    }
    return QObject::tr("Avoidable idle");
}

namespace {

std::optional<TimeNs> value(const std::optional<StepFigures> &f, StepMetric metric)
{
    if (!f)
        return std::nullopt;
    switch (metric) {
    case StepMetric::StepTime: return f->dur;
    case StepMetric::GpuBusy: return f->gpuBusy;
    case StepMetric::Avoidable: break;
    }
    return f->avoidable;
}

} // namespace

QChart *makeStepCompareChart(const TraceDiff &diff, StepMetric metric, QString *why)
{
    if (diff.steps.empty()) {
        if (why)
            *why = QObject::tr("Neither trace marks steps (ProfilerStep#N annotations), so there is no per-step "
                               "chart.");
        return nullptr;
    }
    auto *chart = new QChart;
    chart->setTitle(QObject::tr("%1 per step, before and after").arg(stepMetricTitle(metric)));
    QFont f = chart->titleFont();
    f.setBold(true);
    chart->setTitleFont(f);
    auto *before = new QBarSet(QObject::tr("before"));
    auto *after = new QBarSet(QObject::tr("after"));
    before->setColor(QColor(0x9e, 0x9e, 0x9e));
    after->setColor(QColor(0x1f, 0x77, 0xb4));
    QStringList categories;
    double maxMs = 0;
    for (const StepDiff &s : diff.steps) {
        // Drawing needs doubles; the tables and exports keep the exact integers.
        const auto b = value(s.before, metric), a = value(s.after, metric);
        const double bm = b ? double(*b) / 1e6 : 0.0, am = a ? double(*a) / 1e6 : 0.0;
        *before << bm;
        *after << am;
        maxMs = std::max({maxMs, bm, am});
        categories << QString::number(qulonglong(s.index));
    }
    auto *series = new QBarSeries;
    series->append(before);
    series->append(after);
    chart->addSeries(series);
    auto *x = new QBarCategoryAxis;
    x->append(categories);
    x->setTitleText(QObject::tr("step (i-th of each trace)"));
    auto *y = new QValueAxis;
    y->setTitleText(QObject::tr("%1 (ms)").arg(stepMetricTitle(metric)));
    y->setRange(0, maxMs > 0 ? maxMs * 1.1 : 1.0);
    y->setLabelFormat(QStringLiteral("%.6g")); // nice numbers, never in exponent form
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(x);
    series->attachAxis(y);
    chart->legend()->setAlignment(Qt::AlignBottom);
    return chart;
}

} // namespace syncscope::ui
