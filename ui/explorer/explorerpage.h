#pragma once
// Explore: set parameters like your model's, run the variants at one point or
// over a sweep, and read step time, spread, speedup and syncs off the charts.
#include "lab/api/bench.h"
#include "lab/api/capture.h"
#include "lab/api/labinterface.h"

#include <QWidget>

#include <memory>
#include <mutex>
#include <optional>
#include <vector>

QT_BEGIN_NAMESPACE
class QAction;
class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;
class QFrame;
QT_END_NAMESPACE

namespace syncscope::ui {

class ChartPanel;
class JobRunner;
class NoticeBar;
class ParamsForm;
class ProgressRow;
class ResultsModel;

class ExplorerPage : public QWidget {
    Q_OBJECT
public:
    enum ChartKind { StepTimeChart, SweepChart, SpeedupChart, SyncsMemoryChart, StepSamplesChart };

    // Every run goes to `lab`, which outlives the page and its jobs.
    explicit ExplorerPage(lab::LabInterface &lab, QWidget *parent = nullptr);
    ~ExplorerPage() override;

    ParamsForm *params() const { return m_params; }
    ResultsModel *results() const { return m_model; }
    JobRunner *jobs() const { return m_jobs; }
    ChartPanel *chart() const { return m_chart; }
    QTableView *table() const { return m_table; }
    // The step-time chart's log y-axis switch.
    QCheckBox *logScaleBox() const { return m_logScale; }
    bool isBusy() const;

    // Loads a bench JSON (the CLI's format) as a new run; one sentence on failure.
    bool openResults(const QString &path, QString *error);
    // Writes the whole results table (every run), or the selected rows: .json
    // as the CLI's bench JSON, .csv as its CSV.
    enum class SaveScope { All, Selected };
    bool saveResults(const QString &path, QString *error, SaveScope scope = SaveScope::All) const;
    lab::BenchReport tableReport(SaveScope scope) const;
    // Rows of the results model that are selected, sorted.
    std::vector<int> selectedRows() const;
    // All rows unless some (2 or more, not all) are selected; then asks. nullopt: cancelled.
    std::optional<SaveScope> askSaveScope();
    int currentRun() const { return m_currentRun; }
    void setChartKind(ChartKind kind);

    QAction *runAction() const { return m_runAction; }
    QAction *sweepAction() const { return m_sweepAction; }
    QAction *cancelAction() const { return m_cancelAction; }
    QAction *profileAction() const { return m_profileAction; }
    QAction *profileCompareAction() const { return m_profileCompareAction; }
    QAction *saveAction() const { return m_saveAction; }
    QAction *exportCsvAction() const { return m_exportCsvAction; }
    QAction *exportChartAction() const { return m_exportChartAction; }
    QAction *copyChartAction() const { return m_copyChartAction; }

public Q_SLOTS:
    void runPoint();
    void runSweep();
    // The first-launch sweep: CPU, naive/static/fused, N from 10^3 to 10^6.
    void runQuickCpuSweep();
    void cancel();
    void profileRun();
    // Captures the first two checked variants at this point, one trace each
    // with the same inputs and seed, and emits pairCaptured(before, after).
    void profileAndCompare();
    void saveWithDialog();
    void exportCsvWithDialog();

Q_SIGNALS:
    void statusMessage(const QString &text);
    void busyChanged(bool busy);
    // A finished run or a loaded file is in the table.
    void runAdded(int runId);
    // A profiler capture was written; the window opens it in the Timeline.
    void traceCaptured(const QString &path);
    // Every capture of one Profile This Run (one per checked variant), once all are written.
    void tracesCaptured(const QStringList &paths);
    // Two captures of one point (the first and second checked variant).
    void pairCaptured(const QString &before, const QString &after);
    void fileOpened(const QString &path);

private:
    lab::LabInterface &m_lab;
    // The constructor's parts, in the order it calls them.
    void createActions();
    QWidget *buildJobPanel();
    QWidget *buildChartArea(QWidget *parent);
    QFrame *buildWelcome(QWidget *chartArea);
    QTableView *buildResultsTable(QWidget *parent);
    void buildLayout(QWidget *left, QWidget *right);
    void connectSignals();
    void startBench(const lab::BenchRequest &request, const QString &label);
    // The capture of `variant` (the first checked one when empty) at the point shown.
    std::optional<lab::CaptureRequest> captureRequest(const std::string &variant);
    // A job's result, on the GUI thread; each kind of job has its own.
    void onBenchDone(const lab::BenchReport &report);
    void onCapturesDone(const std::vector<lab::CaptureResult> &captures);
    void onPairDone(const lab::CaptureResult &before, const lab::CaptureResult &after);
    void onFailed(quint64 id, const QString &error);
    void onProgress(quint64 id, double fraction, const QString &message);
    void setBusy(bool busy, const QString &title = {});
    void selectRun(int runId);
    void onRowSelected();
    void refreshCharts();
    void updateActions();
    void showError(const QString &text);
    // Adds the points of a cancelled sweep that finished before Cancel.
    void keepFinishedPoints();

    ParamsForm *m_params = nullptr;
    ResultsModel *m_model = nullptr;
    QSortFilterProxyModel *m_proxy = nullptr;
    QTableView *m_table = nullptr;
    JobRunner *m_jobs = nullptr;
    ChartPanel *m_chart = nullptr;
    ChartPanel *m_chart2 = nullptr;
    QComboBox *m_chartKind = nullptr;
    QComboBox *m_baseline = nullptr;
    QCheckBox *m_logScale = nullptr;
    bool m_logScaleChosen = false;
    QLabel *m_runLabel = nullptr;
    QFrame *m_welcome = nullptr;
    ProgressRow *m_progress = nullptr; // follows m_jobs
    QLabel *m_jobLabel = nullptr;      // what the job is doing, or what it did
    NoticeBar *m_jobError = nullptr;   // why the last job failed
    QPushButton *m_cancelButton = nullptr;
    QAction *m_runAction = nullptr;
    QAction *m_sweepAction = nullptr;
    QAction *m_cancelAction = nullptr;
    QAction *m_profileAction = nullptr;
    QAction *m_profileCompareAction = nullptr;
    QAction *m_saveAction = nullptr;
    QAction *m_exportCsvAction = nullptr;
    QAction *m_exportChartAction = nullptr;
    QAction *m_copyChartAction = nullptr;
    QString m_pendingLabel;
    int m_currentRun = 0;
    lab::BenchPoint m_currentPoint;
    // The points a running bench has finished, shared with its worker.
    struct PartialBench {
        std::mutex mutex;
        lab::BenchReport report;
        size_t points = 0;
    };
    std::shared_ptr<PartialBench> m_partial;
    size_t m_partialTotal = 0;
};

} // namespace syncscope::ui
