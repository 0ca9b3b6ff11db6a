#pragma once
// Distribution: many runs of one sampler on one fixed input, to see whether it
// picks items uniformly and orders its output uniformly, with the test stated.
#include "lab/api/labinterface.h"
#include "lab/api/samplerun.h"

#include <QWidget>

#include <optional>

QT_BEGIN_NAMESPACE
class QAction;
class QComboBox;
class QDoubleSpinBox;
class QGroupBox;
class QImage;
class QSize;
class QLabel;
class QSettings;
class QSpinBox;
QT_END_NAMESPACE

namespace syncscope::ui {

class ChartPanel;
class ChartGrid;
class JobRunner;
class NoticeBar;
class ProgressRow;

class DistributionPage : public QWidget {
    Q_OBJECT
public:
    // Every run goes to `lab`, which outlives the page and its jobs.
    explicit DistributionPage(lab::LabInterface &lab, QWidget *parent = nullptr);
    ~DistributionPage() override;

    // The request the form describes, or nullopt with the first problem (also shown inline).
    std::optional<lab::SampleRequest> request(QString *error);
    int64_t runs() const;
    void setRequest(const lab::SampleRequest &request, int64_t runs);
    bool isBusy() const;
    bool hasResult() const { return m_stats.runs > 0; }
    const lab::DistributionStats &stats() const { return m_stats; }
    JobRunner *jobs() const { return m_jobs; }
    QList<ChartPanel *> charts() const;
    QString summaryText() const;

    QAction *runAction() const { return m_runAction; }
    QAction *cancelAction() const { return m_cancelAction; }
    // The page's charts as one picture (distributionexport.cpp): Export Chart…
    // and Copy Chart act on these while this page is shown.
    QAction *exportChartsAction() const { return m_exportChartsAction; }
    QAction *copyChartsAction() const { return m_copyChartsAction; }
    // The charts that have something to draw, in reading order.
    QList<ChartPanel *> drawnCharts() const;
    // Those charts in a grid of two columns over `size` (PNG, SVG or PDF by
    // the path's suffix), written atomically; false with one sentence.
    bool exportCharts(const QSize &size, const QString &path, QString *error) const;
    QImage chartsImage(const QSize &size, qreal scale = 1.0) const;

    void save(QSettings &settings) const;
    void restore(QSettings &settings);

    // The charts' grid (its columns follow the width), for tests.
    ChartGrid *chartGrid() const { return m_chartGrid; }

public Q_SLOTS:
    void run();
    void cancel();
    void exportChartsWithDialog();
    void copyCharts();

Q_SIGNALS:
    void statusMessage(const QString &text);
    void busyChanged(bool busy);
    void finished();
    // Asks the window for Explore's current point, variant and seed.
    void takeFromExploreRequested();
    // Export Chart… wrote the page's charts to this file.
    void chartsExported(const QString &path);

private:
    lab::LabInterface &m_lab;
    ChartGrid *m_chartGrid = nullptr;
    // The constructor's parts, in the order it calls them.
    void createActions();
    QGroupBox *buildForm();
    QWidget *buildJobPanel();
    QWidget *buildChartPanel();
    void buildLayout(QWidget *left, QWidget *right);
    void connectSignals();
    void validateForm();
    void onFinished(lab::DistributionStats stats);
    void setBusy(bool busy);
    void refresh();
    void updateChartActions();

    JobRunner *m_jobs = nullptr;
    QComboBox *m_variant = nullptr;
    QComboBox *m_device = nullptr;
    QSpinBox *m_n = nullptr, *m_k = nullptr, *m_batch = nullptr, *m_runs = nullptr;
    QSpinBox *m_inputSeed = nullptr, *m_seed = nullptr;
    QDoubleSpinBox *m_posFrac = nullptr, *m_ignoreFrac = nullptr, *m_targetFrac = nullptr;
    NoticeBar *m_formError = nullptr; // what is wrong with the form, or why the run failed
    QLabel *m_summary = nullptr;
    ProgressRow *m_progress = nullptr; // follows m_jobs
    QAction *m_runAction = nullptr;
    QAction *m_cancelAction = nullptr;
    QAction *m_exportChartsAction = nullptr;
    QAction *m_copyChartsAction = nullptr;
    ChartPanel *m_counts = nullptr, *m_selection = nullptr, *m_order = nullptr, *m_rows = nullptr;
    lab::SampleRequest m_request;
    lab::DistributionStats m_stats;
};

} // namespace syncscope::ui
