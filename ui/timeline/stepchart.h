#pragma once
// The per-step chart of the Timeline: for one device, each step's GPU busy time,
// sync-gap time and avoidable time (replay without the step's blocking calls),
// so an outlier step stands out, against the steps by name. Hovering a point
// shows the exact figures; clicking one asks to zoom to that step; the chart
// opens in a resizable window of its own too. In the side panel it is
// compact: no title, the units in the legend, the steps by what tells them
// apart ("10" of "ProfilerStep#10"), so nothing is cut in a small panel.
#include <QWidget>

#include <memory>
#include <vector>

QT_BEGIN_NAMESPACE
class QChart;
class QChartView;
class QComboBox;
class QDialog;
class QToolButton;
class QEvent;
class QLabel;
class QLineSeries;
QT_END_NAMESPACE

namespace syncscope::ui {

class TimelineData;

class StepChart : public QWidget {
    Q_OBJECT
public:
    explicit StepChart(QWidget *parent = nullptr);

    void setTimelineData(std::shared_ptr<const TimelineData> data);

    // The (file, device) pairs that have step statistics, as offered in the picker.
    int deviceCount() const { return int(m_devices.size()); }
    void setCurrentDevice(int index);
    int currentDevice() const { return m_current; }
    // Series of the current device: busy, sync gap, avoidable (y in ms; x the
    // step's position among the file's steps). Null when there is no chart.
    QLineSeries *series(int which) const;
    // Index into TimelineData::steps() of a point of the current chart, or -1.
    int timelineStepOf(int point) const;
    // Where a point of a series is drawn, in the chart view's viewport.
    QPoint pointPosition(int which, int point) const;
    // The point (its index) of any series within a few pixels of a viewport
    // position, or -1; and what hovering there shows ("" for nothing).
    int pointAt(const QPoint &viewportPos) const;
    QString toolTipAt(const QPoint &viewportPos) const;
    QChartView *chartView() const { return m_view; }
    QString message() const;
    // The same chart in a resizable window of its own (made once, then reused);
    // it follows new data while shown. Returns its chart.
    StepChart *openInWindow();

Q_SIGNALS:
    // Index into TimelineData::steps().
    void stepClicked(int step);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void rebuild();
    bool m_compact = true; // in the side panel; the window's chart is not

    struct Device {
        uint32_t file = 0;
        int64_t device = 0;
    };
    std::shared_ptr<const TimelineData> m_data;
    std::vector<Device> m_devices;
    int m_current = -1;
    std::vector<int> m_points; // per point of the current chart: index into steps()
    QComboBox *m_picker = nullptr;
    QChartView *m_view = nullptr;
    QLabel *m_message = nullptr;
    QToolButton *m_enlarge = nullptr;
    QDialog *m_window = nullptr;
    StepChart *m_windowChart = nullptr;
    QLineSeries *m_series[3] = {nullptr, nullptr, nullptr};
};

} // namespace syncscope::ui
