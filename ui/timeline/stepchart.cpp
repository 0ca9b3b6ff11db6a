#include "timeline/stepchart.h"

#include "shared/timeformat.h"
#include "timeline/timelinedata.h"

#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QDialog>
#include <QToolButton>
#include <QComboBox>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QLabel>
#include <QLegend>
#include <QLineSeries>
#include <QToolTip>
#include <QHBoxLayout>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace syncscope::ui {

StepChart::StepChart(QWidget *parent) : QWidget(parent)
{
    m_picker = new QComboBox(this);
    m_picker->setToolTip(tr("The device whose steps are charted"));
    m_enlarge = new QToolButton(this);
    m_enlarge->setText(tr("Open in Window"));
    m_enlarge->setToolTip(tr("Show this chart in a window of its own, which can be resized"));
    connect(m_enlarge, &QToolButton::clicked, this, [this] { openInWindow(); });
    m_view = new QChartView(this);
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->setMinimumHeight(160);
    // Hover and click land on the nearest point, not only on the lines.
    m_view->viewport()->setMouseTracking(true);
    m_view->viewport()->installEventFilter(this);
    m_message = new QLabel(this);
    m_message->setWordWrap(true);
    m_message->setAlignment(Qt::AlignCenter);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    auto *top = new QHBoxLayout;
    top->addWidget(m_picker, 1);
    top->addWidget(m_enlarge);
    layout->addLayout(top);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_message, 1);
    connect(m_picker, qOverload<int>(&QComboBox::currentIndexChanged), this, &StepChart::setCurrentDevice);
    setTimelineData(nullptr);
}

void StepChart::setTimelineData(std::shared_ptr<const TimelineData> data)
{
    m_data = std::move(data);
    if (m_windowChart && m_window && m_window->isVisible())
        m_windowChart->setTimelineData(m_data);
    m_devices.clear();
    if (m_data)
        for (uint32_t f = 0; f < m_data->files().size(); ++f) {
            const SyncAnalysis &sa = m_data->files()[f].sync;
            for (const DeviceActivity &d : sa.devices)
                if (std::any_of(sa.stepStats.begin(), sa.stepStats.end(),
                                [&](const StepDeviceStats &s) { return s.device == d.device; }))
                    m_devices.push_back({f, d.device});
        }
    {
        const QSignalBlocker block(m_picker);
        m_picker->clear();
        for (const Device &d : m_devices)
            m_picker->addItem(m_data->files().size() > 1
                                  ? tr("%1 · GPU %2").arg(m_data->files()[d.file].label).arg(d.device)
                                  : tr("GPU %1").arg(d.device));
        m_picker->setVisible(m_devices.size() > 1);
    }
    // Start on the device with the most avoidable time, as the header does.
    int best = m_devices.empty() ? -1 : 0;
    for (int i = 0; i < int(m_devices.size()); ++i) {
        const SyncAnalysis &sa = m_data->files()[m_devices[size_t(i)].file].sync;
        const SyncAnalysis &sb = m_data->files()[m_devices[size_t(best)].file].sync;
        if (sa.devices[sa.deviceIndex(m_devices[size_t(i)].device)].avoidable >
            sb.devices[sb.deviceIndex(m_devices[size_t(best)].device)].avoidable)
            best = i;
    }
    m_current = -1;
    setCurrentDevice(best);
}

void StepChart::setCurrentDevice(int index)
{
    if (index >= int(m_devices.size()))
        return;
    m_current = index;
    if (index >= 0 && m_picker->currentIndex() != index) {
        const QSignalBlocker block(m_picker);
        m_picker->setCurrentIndex(index);
    }
    rebuild();
}

QLineSeries *StepChart::series(int which) const { return which >= 0 && which < 3 ? m_series[which] : nullptr; }

int StepChart::timelineStepOf(int point) const
{
    return point >= 0 && point < int(m_points.size()) ? m_points[size_t(point)] : -1;
}

QString StepChart::message() const { return m_message->isHidden() ? QString() : m_message->text(); }

StepChart *StepChart::openInWindow()
{
    if (!m_window) {
        m_window = new QDialog(this);
        m_window->setWindowTitle(tr("Steps"));
        m_window->setSizeGripEnabled(true);
        auto *layout = new QVBoxLayout(m_window);
        m_windowChart = new StepChart(m_window);
        m_windowChart->m_enlarge->hide();
        m_windowChart->m_compact = false;
        layout->addWidget(m_windowChart);
        m_window->resize(960, 540);
        // A point clicked there zooms the Timeline as one clicked here does.
        connect(m_windowChart, &StepChart::stepClicked, this, &StepChart::stepClicked);
    }
    m_windowChart->setTimelineData(m_data);
    m_windowChart->setCurrentDevice(m_current);
    m_window->show();
    m_window->raise();
    return m_windowChart;
}

void StepChart::rebuild()
{
    m_points.clear();
    for (auto &s : m_series)
        s = nullptr;
    QChart *old = m_view->chart();
    if (!m_data || m_current < 0) {
        m_view->setChart(new QChart);
        delete old;
        m_view->hide();
        m_message->setText(!m_data ? tr("No trace open.")
                           : m_data->steps().empty()
                               ? tr("No steps in this trace: it has no ProfilerStep#N events "
                                    "(torch.profiler schedule) and no event matches the step "
                                    "pattern of the analysis options.")
                               : tr("The steps hold no GPU activity."));
        m_message->show();
        return;
    }
    const Device dev = m_devices[size_t(m_current)];
    const SyncAnalysis &sa = m_data->files()[dev.file].sync;
    // Position of each of the file's steps in TimelineData::steps().
    std::vector<int> timelineIndex(sa.steps.size(), -1);
    for (size_t i = 0; i < m_data->steps().size(); ++i)
        if (m_data->steps()[i].file == dev.file)
            timelineIndex[m_data->steps()[i].step] = int(i);

    auto *chart = new QChart;
    if (!m_compact)
        chart->setTitle(tr("Per step on GPU %1: busy, sync-gap and avoidable time").arg(dev.device));
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setMargins(QMargins(2, 2, 2, 2));
    const QColor colors[3] = {QColor(0x59, 0xa1, 0x4f), QColor(0xe1, 0x57, 0x59), QColor(0x78, 0x00, 0xa0)};
    TimeNs maxBusy = 0, maxSync = 0;
    for (const StepDeviceStats &s : sa.stepStats)
        if (s.device == dev.device) {
            maxBusy = std::max(maxBusy, s.gpuBusy);
            maxSync = std::max({maxSync, s.syncGapTime, s.avoidable});
        }
    // Each axis in the unit of its largest value, as the ruler and the tables.
    const DurationUnit busyUnit = durationUnitFor(uint64_t(std::max<TimeNs>(0, maxBusy)));
    const DurationUnit syncUnit = durationUnitFor(uint64_t(std::max<TimeNs>(0, maxSync)));
    const QString busyName = QString::fromUtf8(busyUnit.name), syncName = QString::fromUtf8(syncUnit.name);
    // Compact, each series names its unit and its axis is coloured like it;
    // in the window the axes have titles too.
    const QString names[3] = {m_compact ? tr("GPU busy (%1)").arg(busyName) : tr("GPU busy"),
                              m_compact ? tr("sync gaps (%1)").arg(syncName) : tr("sync gaps"),
                              m_compact ? tr("avoidable (%1)").arg(syncName) : tr("avoidable")};
    for (int k = 0; k < 3; ++k) {
        m_series[k] = new QLineSeries(chart);
        m_series[k]->setName(names[k]);
        m_series[k]->setColor(colors[k]);
        m_series[k]->setPointsVisible(true);
        m_series[k]->setMarkerSize(7); // a point to aim the mouse at
    }
    const double busyScale = std::pow(10.0, busyUnit.exp), syncScale = std::pow(10.0, syncUnit.exp);
    for (const StepDeviceStats &s : sa.stepStats) {
        if (s.device != dev.device)
            continue;
        const double x = double(s.step);
        const TimeNs ys[3] = {s.gpuBusy, s.syncGapTime, s.avoidable};
        for (int k = 0; k < 3; ++k) // plotted in the axis' unit; the hover text comes from the integers
            m_series[k]->append(x, double(ys[k]) / (k == 0 ? busyScale : syncScale));
        m_points.push_back(timelineIndex[s.step]);
    }
    const int n = int(sa.steps.size());
    // The x axis names the steps (at most about 12 labels, evenly spaced), by
    // what tells them apart: "10" for ProfilerStep#10 when every name starts so.
    QStringList stepNames;
    for (const Step &st : sa.steps)
        stepNames << m_data->text(dev.file, st.name);
    QString common = stepNames.value(0);
    for (const QString &name : stepNames) {
        int same = 0;
        while (same < common.size() && same < name.size() && common[same] == name[same])
            ++same;
        common.truncate(same);
    }
    while (!common.isEmpty() && common.back().isDigit()) // "ProfilerStep#1" of #10..#19
        common.chop(1);
    const bool shortNames = n > 0 && !common.isEmpty() &&
                            std::all_of(stepNames.begin(), stepNames.end(),
                                        [&](const QString &name) { return name.size() > common.size(); });
    auto *axisX = new QCategoryAxis(chart);
    if (!m_compact)
        axisX->setTitleText(shortNames ? common : tr("step"));
    axisX->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    axisX->setRange(-0.5, std::max(0.5, double(n) - 0.5));
    const int every = std::max(1, (n + 11) / 12);
    for (int i = 0; i < n; i += every)
        axisX->append(shortNames ? stepNames[i].mid(common.size()) : stepNames[i], double(i));
    if (n > 4 && !shortNames)
        axisX->setLabelsAngle(-30);
    // Busy time on the left; the far smaller sync-gap and avoidable times get
    // their own scale on the right, so an outlier step among them shows.
    auto *axisBusy = new QValueAxis(chart);
    axisBusy->setLabelsBrush(colors[0].darker(120));
    axisBusy->setRange(0, std::max(0.001, double(maxBusy) / busyScale * 1.08));
    axisBusy->applyNiceNumbers();
    auto *axisSync = new QValueAxis(chart);
    axisSync->setLabelsBrush(colors[1].darker(120));
    axisSync->setRange(0, std::max(0.001, double(maxSync) / syncScale * 1.08));
    axisSync->applyNiceNumbers();
    if (!m_compact) {
        axisBusy->setTitleText(tr("GPU busy (%1)").arg(busyName));
        axisBusy->setTitleBrush(colors[0]);
        axisSync->setTitleText(tr("gaps, avoidable (%1)").arg(syncName));
        axisSync->setTitleBrush(colors[1]);
    }
    chart->addAxis(axisX, Qt::AlignBottom);
    chart->addAxis(axisBusy, Qt::AlignLeft);
    chart->addAxis(axisSync, Qt::AlignRight);
    for (int k = 0; k < 3; ++k) {
        QLineSeries *series = m_series[k];
        chart->addSeries(series);
        series->attachAxis(axisX);
        series->attachAxis(k == 0 ? axisBusy : axisSync);
        connect(series, &QLineSeries::clicked, this, [this, series](const QPointF &p) {
            // The nearest point of this series by x (x is the step position).
            const auto pts = series->points();
            int best = -1;
            for (int i = 0; i < pts.size(); ++i)
                if (best < 0 || std::abs(pts[i].x() - p.x()) < std::abs(pts[best].x() - p.x()))
                    best = i;
            const int step = timelineStepOf(best);
            if (step >= 0)
                Q_EMIT stepClicked(step);
        });
    }
    m_view->setChart(chart);
    delete old;
    m_message->hide();
    m_view->show();
}

QPoint StepChart::pointPosition(int which, int point) const
{
    QLineSeries *series = this->series(which);
    if (!series || point < 0 || point >= series->count() || !m_view->chart())
        return {};
    const QPointF inChart = m_view->chart()->mapToPosition(series->at(point), series);
    return m_view->mapFromScene(m_view->chart()->mapToScene(inChart));
}

int StepChart::pointAt(const QPoint &viewportPos) const
{
    constexpr int kReach = 8; // pixels
    int best = -1, bestDist = kReach * kReach + 1;
    for (int k = 0; k < 3; ++k)
        for (int i = 0; m_series[k] && i < m_series[k]->count(); ++i) {
            const QPoint d = pointPosition(k, i) - viewportPos;
            const int dist = d.x() * d.x() + d.y() * d.y();
            if (dist < bestDist) {
                bestDist = dist;
                best = i;
            }
        }
    return best;
}

QString StepChart::toolTipAt(const QPoint &viewportPos) const
{
    const int step = timelineStepOf(pointAt(viewportPos));
    if (step < 0 || m_current < 0)
        return {};
    const Device dev = m_devices[size_t(m_current)];
    const SyncAnalysis &a = m_data->files()[dev.file].sync;
    const TimelineStep &ts = m_data->steps()[size_t(step)];
    for (const StepDeviceStats &s : a.stepStats)
        if (s.step == ts.step && s.device == dev.device)
            return tr("%1 (%2)\nGPU busy %3\n%n sync gap(s): %4\navoidable %5\nclick to zoom to the step", nullptr,
                      int(s.syncGaps))
                .arg(m_data->text(ts.file, m_data->step(ts).name),
                     formatDuration(m_data->step(ts).end - m_data->step(ts).start), formatDuration(s.gpuBusy),
                     formatDuration(s.syncGapTime), formatDuration(s.avoidable));
    return {};
}

bool StepChart::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_view->viewport()) {
        if (event->type() == QEvent::MouseMove || event->type() == QEvent::ToolTip) {
            const QPoint pos = event->type() == QEvent::ToolTip ? static_cast<QHelpEvent *>(event)->pos()
                                                                : static_cast<QMouseEvent *>(event)->pos();
            const QString tip = toolTipAt(pos);
            if (tip.isEmpty())
                QToolTip::hideText();
            else
                QToolTip::showText(m_view->viewport()->mapToGlobal(pos), tip, m_view->viewport());
            if (event->type() == QEvent::ToolTip)
                return true;
        } else if (event->type() == QEvent::MouseButtonRelease &&
                   static_cast<QMouseEvent *>(event)->button() == Qt::LeftButton) {
            const int step = timelineStepOf(pointAt(static_cast<QMouseEvent *>(event)->pos()));
            if (step >= 0) {
                Q_EMIT stepClicked(step);
                return true;
            }
        }
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace syncscope::ui
