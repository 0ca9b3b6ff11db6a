#include "explorer/explorerpage.h"

#include "charts/benchcharts.h"
#include "charts/chartexport.h"
#include "charts/chartpanel.h"
#include "common/error.h"
#include "explorer/paramsform.h"
#include "explorer/resultsmodel.h"
#include "jobs/jobrunner.h"
#include "jobs/progressrow.h"
#include "lab/api/capture.h"
#include "shared/noticebar.h"
#include "shared/savefolder.h"
#include "shared/tables.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStandardPaths>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <mutex>

namespace syncscope::ui {

namespace {
constexpr qint64 kMaxResultsBytes = 256LL * 1024 * 1024;

} // namespace

ExplorerPage::ExplorerPage(lab::LabInterface &lab, QWidget *parent) : QWidget(parent), m_lab(lab)
{
    m_jobs = new JobRunner(this);
    m_model = new ResultsModel(this);
    m_params = new ParamsForm(lab, this);
    createActions(); // first: the buttons below and the window's menus share them
    QWidget *left = buildJobPanel();
    auto *right = new QSplitter(Qt::Vertical, this);
    right->addWidget(buildChartArea(right));
    right->addWidget(buildResultsTable(right));
    right->setStretchFactor(0, 3);
    right->setStretchFactor(1, 2);
    buildLayout(left, right);
    connectSignals();
    setBusy(false);
    m_jobLabel->clear();
    refreshCharts();
}

void ExplorerPage::createActions()
{
    m_runAction = new QAction(QIcon::fromTheme("media-playback-start"), tr("&Run at One Point"), this);
    m_runAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    m_runAction->setToolTip(tr("Benchmark the checked variants at the parameters shown (Ctrl+R)"));
    m_sweepAction = new QAction(QIcon::fromTheme("view-statistics"), tr("&Sweep"), this);
    m_sweepAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
    m_sweepAction->setToolTip(tr("Benchmark the checked variants over the sweep range (Ctrl+Shift+R)"));
    m_cancelAction = new QAction(QIcon::fromTheme("process-stop"), tr("&Cancel Job"), this);
    m_cancelAction->setShortcut(QKeySequence(Qt::Key_Escape));
    m_cancelAction->setToolTip(tr("Stop the running job (Esc)"));
    m_profileAction = new QAction(QIcon::fromTheme("media-record"), tr("&Profile This Run"), this);
    m_profileAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_P));
    m_profileAction->setToolTip(tr("Capture a profiler trace of each checked variant at this point and "
                                   "open them in the Timeline, one rank per variant (Ctrl+P)"));
    m_profileCompareAction = new QAction(tr("Profile and C&ompare"), this);
    m_profileCompareAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    m_profileCompareAction->setToolTip(tr("Capture a trace of each of the first two checked variants at this "
                                          "point (same inputs) and open the pair side by side (Ctrl+Shift+P)"));
    m_saveAction = new QAction(QIcon::fromTheme("document-save"), tr("&Save Results…"), this);
    m_saveAction->setShortcut(QKeySequence::Save);
    m_exportCsvAction = new QAction(tr("Export Results as &CSV…"), this);
    m_exportChartAction = new QAction(tr("&Export Chart…"), this);
    m_exportChartAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    m_copyChartAction = new QAction(tr("Cop&y Chart"), this);
    m_copyChartAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    // Page-local shortcuts: Distribution and Timeline reuse Ctrl+R and Esc for their own jobs.
    for (QAction *a : {m_runAction, m_sweepAction, m_cancelAction, m_profileAction, m_profileCompareAction,
                       m_exportChartAction, m_copyChartAction}) {
        a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        addAction(a);
    }
    connect(m_runAction, &QAction::triggered, this, &ExplorerPage::runPoint);
    connect(m_sweepAction, &QAction::triggered, this, &ExplorerPage::runSweep);
    connect(m_cancelAction, &QAction::triggered, this, &ExplorerPage::cancel);
    connect(m_profileAction, &QAction::triggered, this, &ExplorerPage::profileRun);
    connect(m_profileCompareAction, &QAction::triggered, this, &ExplorerPage::profileAndCompare);
    connect(m_saveAction, &QAction::triggered, this, &ExplorerPage::saveWithDialog);
    connect(m_exportCsvAction, &QAction::triggered, this, &ExplorerPage::exportCsvWithDialog);
}

// Left: parameters and the job controls.
QWidget *ExplorerPage::buildJobPanel()
{
    auto *left = new QWidget(this);
    auto *leftLayout = new QVBoxLayout(left);
    auto *scroll = new QScrollArea(left);
    scroll->setWidget(m_params);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    leftLayout->addWidget(scroll, 1);
    auto *buttons = new QHBoxLayout;
    auto *runButton = new QPushButton(tr("Run"), left);
    auto *sweepButton = new QPushButton(tr("Sweep"), left);
    m_cancelButton = new QPushButton(tr("Cancel"), left);
    auto *profileButton = new QPushButton(tr("Profile"), left);
    runButton->setToolTip(m_runAction->toolTip());
    sweepButton->setToolTip(m_sweepAction->toolTip());
    m_cancelButton->setToolTip(m_cancelAction->toolTip());
    profileButton->setToolTip(m_profileAction->toolTip());
    connect(runButton, &QPushButton::clicked, m_runAction, &QAction::trigger);
    connect(sweepButton, &QPushButton::clicked, m_sweepAction, &QAction::trigger);
    connect(m_cancelButton, &QPushButton::clicked, m_cancelAction, &QAction::trigger);
    connect(profileButton, &QPushButton::clicked, m_profileAction, &QAction::trigger);
    connect(m_runAction, &QAction::changed, runButton, [=] { runButton->setEnabled(m_runAction->isEnabled()); });
    connect(m_sweepAction, &QAction::changed, sweepButton,
            [=] { sweepButton->setEnabled(m_sweepAction->isEnabled()); });
    connect(m_cancelAction, &QAction::changed, m_cancelButton,
            [this] { m_cancelButton->setEnabled(m_cancelAction->isEnabled()); });
    connect(m_profileAction, &QAction::changed, profileButton,
            [=] { profileButton->setEnabled(m_profileAction->isEnabled()); });
    runButton->setDefault(true);
    for (QPushButton *b : {runButton, sweepButton, m_cancelButton, profileButton})
        buttons->addWidget(b);
    leftLayout->addLayout(buttons);
    m_progress = new ProgressRow(m_jobs, ProgressRow::thinBar(), left);
    m_jobLabel = new QLabel(left);
    m_jobLabel->setWordWrap(true);
    m_jobError = new NoticeBar(left, NoticeBar::Look::Line);
    leftLayout->addWidget(m_progress);
    leftLayout->addWidget(m_jobLabel);
    leftLayout->addWidget(m_jobError);
    // No fixed minimum: the splitter keeps the panel at its layout's minimum
    // (the four job buttons side by side), never narrower.
    return left;
}

// Right, above: chart controls, charts (or the first-launch welcome).
QWidget *ExplorerPage::buildChartArea(QWidget *parent)
{
    auto *chartArea = new QWidget(parent);
    auto *chartLayout = new QVBoxLayout(chartArea);
    chartLayout->setContentsMargins(0, 0, 0, 0);
    auto *controls = new QHBoxLayout;
    m_chartKind = new QComboBox(chartArea);
    m_chartKind->addItem(tr("Step time at one point"), StepTimeChart);
    m_chartKind->addItem(tr("Sweep: step time vs parameter"), SweepChart);
    m_chartKind->addItem(tr("Speedup vs baseline"), SpeedupChart);
    m_chartKind->addItem(tr("Syncs per step and peak memory"), SyncsMemoryChart);
    m_chartKind->addItem(tr("Every step at one point"), StepSamplesChart);
    m_baseline = new QComboBox(chartArea);
    m_baseline->setToolTip(tr("The variant the speedup is measured against"));
    m_runLabel = new QLabel(chartArea);
    // Wraps rather than widening the page: a long file name must not push
    // the window past a 1024-pixel screen.
    m_runLabel->setWordWrap(true);
    m_runLabel->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    controls->addWidget(new QLabel(tr("Chart:"), chartArea));
    controls->addWidget(m_chartKind);
    controls->addWidget(new QLabel(tr("Baseline:"), chartArea));
    controls->addWidget(m_baseline);
    m_logScale = new QCheckBox(tr("Log scale"), chartArea);
    m_logScale->setToolTip(tr("A log y-axis for the step-time chart; on by default when the medians span "
                              "more than 100×"));
    controls->addWidget(m_logScale);
    controls->addWidget(m_runLabel, 1);
    chartLayout->addLayout(controls);

    chartLayout->addWidget(buildWelcome(chartArea), 1);
    auto *charts = new QHBoxLayout;
    m_chart = new ChartPanel(chartArea);
    m_chart2 = new ChartPanel(chartArea);
    m_chart2->hide();
    charts->addWidget(m_chart, 1);
    charts->addWidget(m_chart2, 1);
    chartLayout->addLayout(charts, 1);
    return chartArea;
}

// What the chart area shows before the first run: what the page is for, and a first sweep.
QFrame *ExplorerPage::buildWelcome(QWidget *chartArea)
{
    m_welcome = new QFrame(chartArea);
    m_welcome->setFrameShape(QFrame::StyledPanel);
    auto *wl = new QVBoxLayout(m_welcome);
    auto *title = new QLabel(tr("<h2>Which sampler wins on this machine?</h2>"
                                "<p>Set N, K, batch and imbalance like your model's on the left, then "
                                "<b>Run</b> one point or <b>Sweep</b> a range. Every variant is timed "
                                "after warm-up on rotated inputs; charts show the median and the p5–p95 "
                                "spread, against the floor of one read pass over the labels.</p>"
                                "<p>Or start with a CPU sweep of N from 10³ to 10⁶ (naive, static, fused; "
                                "about half a minute):</p>"),
                             m_welcome);
    title->setWordWrap(true);
    title->setTextFormat(Qt::RichText);
    auto *quick = new QPushButton(tr("Run CPU Sweep"), m_welcome);
    quick->setMinimumHeight(36);
    connect(quick, &QPushButton::clicked, this, &ExplorerPage::runQuickCpuSweep);
    auto *openHint = new QLabel(tr("<p>Results from <code>syncscope-cli bench --json</code> on another "
                                   "machine open with File ▸ Open (Ctrl+O) and plot the same way.</p>"),
                                m_welcome);
    openHint->setWordWrap(true);
    wl->addWidget(title);
    wl->addWidget(quick, 0, Qt::AlignLeft);
    wl->addWidget(openHint);
    wl->addStretch(1);
    return m_welcome;
}

// Right, below: every run of the session.
QTableView *ExplorerPage::buildResultsTable(QWidget *parent)
{
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(ResultsModel::SortRole);
    m_table = makeTable(m_proxy, parent);
    m_table->sortByColumn(-1, Qt::AscendingOrder); // the order of the runs until a header is clicked
    // Several rows may be selected: Save Results then asks whether to save them or all.
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->setToolTip(tr("Every run of this session. Select a row to chart its run at its point."));
    return m_table;
}

void ExplorerPage::buildLayout(QWidget *left, QWidget *right)
{
    auto *split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(left);
    split->addWidget(right);
    split->setChildrenCollapsible(false);
    split->setStretchFactor(1, 1);
    split->setSizes({360, 900});
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(split);
}

void ExplorerPage::connectSignals()
{
    connect(m_exportChartAction, &QAction::triggered, m_chart, &ChartPanel::exportWithDialog);
    connect(m_copyChartAction, &QAction::triggered, m_chart, &ChartPanel::copyToClipboard);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &ExplorerPage::onRowSelected);
    connect(m_chartKind, &QComboBox::currentIndexChanged, this, &ExplorerPage::refreshCharts);
    connect(m_baseline, &QComboBox::currentIndexChanged, this, &ExplorerPage::refreshCharts);
    connect(m_logScale, &QCheckBox::toggled, this, [this] {
        m_logScaleChosen = true; // the user's choice holds until another run is selected
        refreshCharts();
    });
    connect(m_params, &ParamsForm::validityChanged, this, &ExplorerPage::updateActions);
    connect(m_params, &ParamsForm::variantsChanged, this, &ExplorerPage::updateActions);
    connect(m_jobs, &JobRunner::progress, this, &ExplorerPage::onProgress);
    connect(m_jobs, &JobRunner::failed, this, &ExplorerPage::onFailed);
    connect(m_jobs, &JobRunner::cancelled, this, [this] {
        setBusy(false);
        m_jobLabel->setText(tr("Cancelled."));
        Q_EMIT statusMessage(tr("Job cancelled."));
        keepFinishedPoints();
    });
}

ExplorerPage::~ExplorerPage()
{
    m_partial.reset();
    m_jobs->cancel();
    m_jobs->waitForDone();
}

bool ExplorerPage::isBusy() const { return m_jobs->isRunning(); }

void ExplorerPage::updateActions()
{
    const bool busy = isBusy();
    const bool valid = m_params->isValid();
    m_runAction->setEnabled(!busy && valid);
    m_sweepAction->setEnabled(!busy && valid);
    m_profileAction->setEnabled(!busy && valid);
    m_profileCompareAction->setEnabled(!busy && valid && m_params->checkedVariants().size() >= 2);
    m_cancelAction->setEnabled(busy);
    const bool haveRows = m_model->rowCount() > 0;
    m_saveAction->setEnabled(haveRows);
    m_exportCsvAction->setEnabled(haveRows);
    m_exportChartAction->setEnabled(m_chart->hasChart());
    m_copyChartAction->setEnabled(m_chart->hasChart());
}

void ExplorerPage::setBusy(bool busy, const QString &title)
{
    if (busy) {
        m_jobLabel->setText(title);
        m_jobError->clear();
    }
    if (m_model->runCount() == 0) {
        m_welcome->setVisible(!busy);
        m_chart->setVisible(busy);
        m_chart->clear(busy ? tr("Measuring… the charts appear when the job finishes.") : tr("No results yet."));
    }
    updateActions();
    Q_EMIT busyChanged(busy);
}

void ExplorerPage::showError(const QString &text)
{
    m_jobLabel->clear();
    m_jobError->showMessage(text);
    Q_EMIT statusMessage(text);
}

void ExplorerPage::runPoint()
{
    QString error;
    const auto request = m_params->pointRequest(&error);
    if (!request)
        return showError(error);
    startBench(*request, tr("point %1").arg(describePoint(request->points.front())));
}

void ExplorerPage::runSweep()
{
    QString error;
    const auto request = m_params->sweepRequest(&error);
    if (!request)
        return showError(error);
    startBench(*request, tr("sweep of %1").arg(sweepAxisLabel(m_params->sweepAxis())));
}

void ExplorerPage::runQuickCpuSweep()
{
    m_params->setDevice(QStringLiteral("cpu"));
    m_params->setVariantsChecked({QStringLiteral("naive"), QStringLiteral("static"), QStringLiteral("fused")});
    m_params->setSweep(SweepAxis::N, QStringLiteral("1000"), QStringLiteral("1000000"), 7);
    runSweep();
}

void ExplorerPage::startBench(const lab::BenchRequest &request, const QString &label)
{
    if (isBusy())
        return;
    try {
        m_lab.validateBench(request);
    } catch (const std::exception &e) {
        return showError(QString::fromUtf8(e.what()));
    }
    QSettings settings;
    m_params->save(settings);
    m_pendingLabel = QStringLiteral("#%1 %2 · %3")
                         .arg(m_model->runCount() + 1)
                         .arg(label, QString::fromLatin1(lab::deviceName(request.device)));
    // Point by point, each finished point kept where cancel() finds it: a
    // sweep cancelled half-way keeps the points it measured. Each point gets
    // the seed runBench gives it within the whole request, so its inputs are
    // those of `syncscope-cli bench` with the same parameters.
    auto partial = std::make_shared<PartialBench>();
    m_partial = partial;
    m_jobs->start(
        tr("Benchmarking %1").arg(label),
        [&lab = m_lab, request, partial](const ProgressFn &progress, const CancelToken *cancel) {
            const size_t count = request.points.size();
            for (size_t pi = 0; pi < count; ++pi) {
                lab::BenchRequest one = request;
                one.points = {request.points[pi]};
                one.seed = lab::pointSeed(request.seed, pi);
                const ProgressFn sub = [&](double f, const char *m) {
                    progress((static_cast<double>(pi) + f) / static_cast<double>(count), m);
                };
                lab::BenchReport r = lab.runBench(one, sub, cancel);
                const std::lock_guard<std::mutex> lock(partial->mutex);
                if (pi == 0) {
                    partial->report.device = r.device;
                    partial->report.torchVersion = r.torchVersion;
                    partial->report.threads = r.threads;
                    // The run's parameters: each point ran with pointSeed of this seed.
                    partial->report.warmup = request.warmup;
                    partial->report.seed = request.seed;
                }
                for (auto &x : r.results)
                    partial->report.results.push_back(std::move(x));
                partial->points = pi + 1;
            }
            const std::lock_guard<std::mutex> lock(partial->mutex);
            return partial->report;
        },
        this, [this](const lab::BenchReport &report) { onBenchDone(report); });
    m_partialTotal = request.points.size();
    setBusy(true, tr("Benchmarking %1…").arg(label));
    Q_EMIT statusMessage(tr("Benchmarking %1…").arg(label));
}

namespace {

// Where the app keeps its captures: the cache folder, named by time, variant and point.
QString capturePath(const lab::CaptureRequest &capture, QString *error)
{
    const QString dir =
        QDir(QStandardPaths::writableLocation(QStandardPaths::CacheLocation)).filePath(QStringLiteral("captures"));
    if (!QDir().mkpath(dir)) {
        *error = QObject::tr("Cannot create the capture folder '%1'.").arg(dir);
        return {};
    }
    const QString fileName = QStringLiteral("%1-%2-%3-n%4.json.gz")
                                 .arg(QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss-zzz")),
                                      QString::fromStdString(capture.variant),
                                      QString::fromLatin1(lab::deviceName(capture.device)))
                                 .arg(capture.point.n);
    return QDir(dir).filePath(fileName);
}

} // namespace

std::optional<lab::CaptureRequest> ExplorerPage::captureRequest(const std::string &variant)
{
    QString error;
    const auto request = m_params->pointRequest(&error);
    if (!request) {
        showError(error);
        return std::nullopt;
    }
    lab::CaptureRequest capture;
    capture.variant = variant.empty() ? request->variants.front() : variant;
    capture.point = request->points.front();
    capture.device = request->device;
    capture.seed = request->seed;
    capture.threads = request->threads;
    capture.steps = 5;
    const QString path = capturePath(capture, &error);
    if (path.isEmpty()) {
        showError(error);
        return std::nullopt;
    }
    capture.outPath = path.toStdString();
    return capture;
}

void ExplorerPage::profileRun()
{
    if (isBusy())
        return;
    // Every checked variant, one trace each, the same inputs and seed.
    const QStringList variants = m_params->checkedVariants();
    std::vector<lab::CaptureRequest> captures;
    for (const QString &v : variants) {
        const auto capture = captureRequest(v.toStdString());
        if (!capture)
            return;
        captures.push_back(*capture);
    }
    if (captures.empty())
        return showError(tr("Check at least one variant to profile."));
    const QString title =
        tr("Profiling %1 at %2").arg(variants.join(QStringLiteral(", ")), describePoint(captures.front().point));
    m_jobs->start(
        title,
        [&lab = m_lab, captures](const ProgressFn &progress, const CancelToken *cancel) {
            std::vector<lab::CaptureResult> results;
            const double n = static_cast<double>(captures.size());
            for (size_t i = 0; i < captures.size(); ++i) {
                const ProgressFn sub = [&](double f, const char *m) {
                    progress((static_cast<double>(i) + f) / n, m);
                };
                results.push_back(lab.captureTrace(captures[i], sub, cancel));
            }
            return results;
        },
        this, [this](const std::vector<lab::CaptureResult> &results) { onCapturesDone(results); });
    setBusy(true, title + QStringLiteral("…"));
}

void ExplorerPage::profileAndCompare()
{
    if (isBusy())
        return;
    const QStringList variants = m_params->checkedVariants();
    if (variants.size() < 2)
        return showError(
            tr("Check two variants to profile and compare: the first is 'before', the second 'after'."));
    const auto before = captureRequest(variants.at(0).toStdString());
    if (!before)
        return;
    auto after = captureRequest(variants.at(1).toStdString());
    if (!after)
        return;
    const QString title =
        tr("Profiling %1 and %2 at %3").arg(variants.at(0), variants.at(1), describePoint(before->point));
    m_jobs->start(
        title,
        [&lab = m_lab, b = *before, a = *after](const ProgressFn &progress, const CancelToken *cancel) {
            // One job, two captures of the same point and seed, one after the other.
            ProgressFn first = [&](double f, const char *m) { progress(0.5 * f, m); };
            ProgressFn second = [&](double f, const char *m) { progress(0.5 + 0.5 * f, m); };
            lab::CaptureResult rb = lab.captureTrace(b, first, cancel);
            lab::CaptureResult ra = lab.captureTrace(a, second, cancel);
            return std::make_pair(std::move(rb), std::move(ra));
        },
        this,
        [this](const std::pair<lab::CaptureResult, lab::CaptureResult> &pair) {
            onPairDone(pair.first, pair.second);
        });
    setBusy(true, title + QStringLiteral("…"));
}

void ExplorerPage::cancel()
{
    if (isBusy())
        m_jobs->cancel();
}

void ExplorerPage::keepFinishedPoints()
{
    // The points measured before Cancel go into the table; the one in flight
    // is dropped with the job.
    const std::shared_ptr<PartialBench> partial = std::move(m_partial);
    if (!partial)
        return;
    lab::BenchReport report;
    size_t points = 0;
    {
        const std::lock_guard<std::mutex> lock(partial->mutex);
        report = partial->report;
        points = partial->points;
    }
    if (report.results.empty())
        return;
    const QString label =
        tr("%1 (cancelled after %2 of %3 points)").arg(m_pendingLabel).arg(points).arg(m_partialTotal);
    const int id = m_model->addRun(report, label);
    const QString text = tr("Cancelled; kept the %n point(s) measured before.", nullptr, int(points));
    m_jobLabel->setText(text);
    Q_EMIT statusMessage(text);
    selectRun(id);
    Q_EMIT runAdded(id);
}

// The bar (m_progress) follows the runner itself; the label takes the work's words.
void ExplorerPage::onProgress(quint64, double, const QString &message)
{
    if (!message.isEmpty())
        m_jobLabel->setText(message);
}

void ExplorerPage::onFailed(quint64, const QString &error)
{
    m_partial.reset();
    setBusy(false);
    showError(error);
}

void ExplorerPage::onPairDone(const lab::CaptureResult &before, const lab::CaptureResult &after)
{
    m_partial.reset();
    setBusy(false);
    const QString text = tr("Captured %1 and %2 (%3 profiler); opening them side by side.")
                             .arg(QString::fromStdString(before.path), QString::fromStdString(after.path),
                                  QString::fromStdString(before.profiler));
    m_jobLabel->setText(text);
    Q_EMIT statusMessage(text);
    Q_EMIT pairCaptured(QString::fromStdString(before.path), QString::fromStdString(after.path));
}

void ExplorerPage::onCapturesDone(const std::vector<lab::CaptureResult> &captures)
{
    m_partial.reset();
    setBusy(false);
    if (captures.empty())
        return showError(tr("The capture returned no trace."));
    const lab::CaptureResult &first = captures.front();
    QStringList paths;
    for (const auto &c : captures)
        paths << QString::fromStdString(c.path);
    QString text = captures.size() == 1
                       ? tr("Captured %1 steps with the %2 profiler into %3.")
                             .arg(first.steps)
                             .arg(QString::fromStdString(first.profiler), paths.front())
                       : tr("Captured %1 steps of each of %2 variants with the %3 profiler into %4; "
                            "they open as the ranks of one job.")
                             .arg(first.steps)
                             .arg(captures.size())
                             .arg(QString::fromStdString(first.profiler), paths.join(QStringLiteral(", ")));
    if (!first.note.empty())
        text += QLatin1Char(' ') + QString::fromStdString(first.note);
    m_jobLabel->setText(text);
    Q_EMIT statusMessage(text);
    for (const QString &p : paths)
        Q_EMIT traceCaptured(p);
    Q_EMIT tracesCaptured(paths);
}

void ExplorerPage::onBenchDone(const lab::BenchReport &report)
{
    m_partial.reset();
    setBusy(false);
    const int id = m_model->addRun(report, m_pendingLabel);
    int failures = 0;
    for (const auto &r : report.results)
        failures += r.error.empty() ? 0 : 1;
    // Say what was measured: variants at points, not a bare count of rows.
    QStringList variants;
    for (const auto &r : report.results)
        if (!variants.contains(QString::fromStdString(r.variant)))
            variants << QString::fromStdString(r.variant);
    const int points = variants.isEmpty() ? 0 : int(report.results.size()) / int(variants.size());
    const QString what = tr("%n variant(s)", nullptr, int(variants.size())) + tr(" at ") +
                         tr("%n point(s)", nullptr, points);
    const QString text = failures ? tr("Finished %1: %2; %3 of %4 measurements failed; see the Status column.")
                                        .arg(m_pendingLabel, what)
                                        .arg(failures)
                                        .arg(report.results.size())
                                  : tr("Finished %1: %2.").arg(m_pendingLabel, what);
    m_jobLabel->setText(text);
    Q_EMIT statusMessage(text);
    selectRun(id);
    Q_EMIT runAdded(id);
}

void ExplorerPage::selectRun(int runId)
{
    m_currentRun = runId;
    m_logScaleChosen = false;
    const lab::BenchReport &report = m_model->report(runId);
    m_currentPoint = defaultPoint(report);
    {
        const QSignalBlocker block(m_baseline);
        m_baseline->clear();
        for (const auto &v : reportVariants(report))
            m_baseline->addItem(QString::fromStdString(v));
        m_baseline->setCurrentText(QString::fromStdString(defaultBaseline(report)));
    }
    {
        const QSignalBlocker block(m_chartKind);
        m_chartKind->setCurrentIndex(detectSweepAxis(report) == SweepAxis::None ? StepTimeChart : SweepChart);
    }
    // The row selected is the one charted: the run's row at the point shown.
    int row = m_model->firstRowOfRun(runId);
    for (int r = row; r >= 0 && r < m_model->rowCount() && m_model->runOfRow(r) == runId; ++r)
        if (samePoint(m_model->result(r).point, m_currentPoint)) {
            row = r;
            break;
        }
    if (row >= 0) {
        const QSignalBlocker block(m_table->selectionModel());
        const QModelIndex idx = m_proxy->mapFromSource(m_model->index(row, 0));
        m_table->selectionModel()->setCurrentIndex(idx, QItemSelectionModel::ClearAndSelect |
                                                            QItemSelectionModel::Rows);
        m_table->scrollTo(idx);
    }
    m_table->resizeColumnsToContents();
    refreshCharts();
}

void ExplorerPage::onRowSelected()
{
    const QModelIndex idx = m_proxy->mapToSource(m_table->currentIndex());
    if (!idx.isValid())
        return;
    const int run = m_model->runOfRow(idx.row());
    if (run != m_currentRun) {
        selectRun(run);
    }
    m_currentPoint = m_model->result(idx.row()).point;
    refreshCharts();
}

void ExplorerPage::setChartKind(ChartKind kind) { m_chartKind->setCurrentIndex(kind); }

void ExplorerPage::refreshCharts()
{
    const bool haveRun = m_model->hasRun(m_currentRun);
    // Decided from state, not isVisible(): before the window is shown nothing is visible.
    const bool welcome = !haveRun && !isBusy() && m_model->runCount() == 0;
    m_welcome->setVisible(welcome);
    m_chart->setVisible(!welcome);
    m_chart2->hide();
    if (!haveRun) {
        m_runLabel->clear();
        m_chart->clear(tr("No results yet."));
        updateActions();
        return;
    }
    const lab::BenchReport report = m_model->report(m_currentRun);
    m_runLabel->setText(tr("Run %1 · LibTorch %2")
                            .arg(m_model->runLabel(m_currentRun),
                                 QString::fromStdString(report.torchVersion.empty() ? "?" : report.torchVersion)));
    const lab::BenchPoint point = m_currentPoint;
    const std::string baseline = m_baseline->currentText().toStdString();
    m_baseline->setEnabled(m_chartKind->currentData().toInt() == SpeedupChart);
    m_logScale->setVisible(m_chartKind->currentData().toInt() == StepTimeChart);
    if (!m_logScaleChosen) {
        const QSignalBlocker block(m_logScale);
        m_logScale->setChecked(stepTimeSpansDecades(report, point));
    }
    const bool logY = m_logScale->isChecked();
    switch (m_chartKind->currentData().toInt()) {
    case StepTimeChart:
        m_chart->setSuggestedName(QStringLiteral("steptime"));
        m_chart->setFactory([report, point, logY](QString *why) {
            return makeStepTimeChart(report, point, why, logY);
        });
        break;
    case SweepChart:
        m_chart->setSuggestedName(QStringLiteral("sweep"));
        m_chart->setFactory([report](QString *why) { return makeSweepChart(report, why); });
        break;
    case SpeedupChart:
        m_chart->setSuggestedName(QStringLiteral("speedup"));
        m_chart->setFactory([report, baseline](QString *why) { return makeSpeedupChart(report, baseline, why); });
        break;
    case SyncsMemoryChart:
        m_chart->setSuggestedName(QStringLiteral("syncs"));
        m_chart->setFactory([report, point](QString *why) { return makeSyncsChart(report, point, why); });
        m_chart2->setSuggestedName(QStringLiteral("memory"));
        m_chart2->setFactory([report, point](QString *why) { return makeMemoryChart(report, point, why); });
        m_chart2->show();
        break;
    case StepSamplesChart:
        m_chart->setSuggestedName(QStringLiteral("steps"));
        m_chart->setFactory([report, point](QString *why) { return makeStepSamplesChart(report, point, why); });
        break;
    }
    updateActions();
}

bool ExplorerPage::openResults(const QString &path, QString *error)
{
    QFile file(path);
    auto fail = [&](const QString &why) {
        if (error)
            *error = tr("Cannot open '%1': %2").arg(QFileInfo(path).fileName(), why);
        return false;
    };
    if (!file.open(QIODevice::ReadOnly))
        return fail(file.errorString() + QLatin1Char('.'));
    if (file.size() > kMaxResultsBytes)
        return fail(tr("the file is larger than 256 MiB, too large for bench results."));
    lab::BenchReport report;
    try {
        report = lab::benchReportFromJson(file.readAll().toStdString());
    } catch (const std::exception &e) {
        return fail(QString::fromUtf8(e.what()) + QLatin1Char('.'));
    }
    if (report.results.empty())
        return fail(tr("it holds no results."));
    const int id = m_model->addRun(
        report, QStringLiteral("#%1 %2").arg(m_model->runCount() + 1).arg(QFileInfo(path).fileName()));
    selectRun(id);
    QSettings().setValue("explore/lastDir", QFileInfo(path).absolutePath());
    Q_EMIT statusMessage(tr("Opened %1 results from %2 (%3).")
                             .arg(report.results.size())
                             .arg(QFileInfo(path).fileName(), QString::fromStdString(report.device)));
    Q_EMIT fileOpened(path);
    Q_EMIT runAdded(id);
    return true;
}

std::vector<int> ExplorerPage::selectedRows() const
{
    std::vector<int> rows;
    if (!m_table->selectionModel())
        return rows;
    for (const QModelIndex &i : m_table->selectionModel()->selectedRows())
        rows.push_back(m_proxy->mapToSource(i).row());
    std::sort(rows.begin(), rows.end());
    return rows;
}

lab::BenchReport ExplorerPage::tableReport(SaveScope scope) const
{
    // The table in model order (runs as they came); the first run's device,
    // LibTorch and threads head the file, and every result keeps its own device.
    std::vector<int> rows;
    if (scope == SaveScope::Selected) {
        rows = selectedRows();
    } else {
        for (int r = 0; r < m_model->rowCount(); ++r)
            rows.push_back(r);
    }
    lab::BenchReport out;
    if (rows.empty())
        return out;
    const lab::BenchReport &first = m_model->report(m_model->runOfRow(rows.front()));
    out.device = first.device;
    out.torchVersion = first.torchVersion;
    out.threads = first.threads;
    out.warmup = first.warmup;
    out.seed = first.seed;
    for (int r : rows) {
        const lab::BenchReport &run = m_model->report(m_model->runOfRow(r));
        // Rows of runs with other parameters: the file cannot state one value.
        if (run.warmup != out.warmup)
            out.warmup.reset();
        if (run.seed != out.seed)
            out.seed.reset();
        out.results.push_back(m_model->result(r));
    }
    return out;
}

bool ExplorerPage::saveResults(const QString &path, QString *error, SaveScope scope) const
{
    const lab::BenchReport report = tableReport(scope);
    if (report.results.empty()) {
        if (error)
            *error = scope == SaveScope::Selected ? tr("No rows are selected: there is nothing to save.")
                                                  : tr("There are no results to save yet.");
        return false;
    }
    const bool csv = QFileInfo(path).suffix().compare(QLatin1String("csv"), Qt::CaseInsensitive) == 0;
    const std::string text = csv ? lab::benchReportToCsv(report) : lab::benchReportToJson(report);
    return writeFileAtomically(path, QByteArray::fromStdString(text), error);
}

std::optional<ExplorerPage::SaveScope> ExplorerPage::askSaveScope()
{
    // The whole table unless some rows (not all) are selected; then ask.
    const size_t selected = selectedRows().size();
    if (selected < 2 || selected >= static_cast<size_t>(m_model->rowCount()))
        return SaveScope::All;
    QMessageBox box(QMessageBox::Question, tr("Save Results"),
                    tr("Save all %n row(s) of the table, or only the %1 selected?", nullptr, m_model->rowCount())
                        .arg(selected),
                    QMessageBox::Cancel, this);
    box.setObjectName(QStringLiteral("saveScopeBox"));
    QPushButton *all = box.addButton(tr("All Rows"), QMessageBox::AcceptRole);
    QPushButton *some = box.addButton(tr("Selected Rows"), QMessageBox::AcceptRole);
    all->setObjectName(QStringLiteral("saveAll"));
    some->setObjectName(QStringLiteral("saveSelected"));
    box.setDefaultButton(all);
    box.exec();
    if (box.clickedButton() == all)
        return SaveScope::All;
    if (box.clickedButton() == some)
        return SaveScope::Selected;
    return std::nullopt;
}

void ExplorerPage::saveWithDialog()
{
    if (m_model->rowCount() == 0)
        return;
    const auto scope = askSaveScope();
    if (!scope)
        return;
    const QString path = QFileDialog::getSaveFileName(this, tr("Save Results"),
                                                      defaultSavePath(QStringLiteral("bench.json")),
                                                      tr("Bench JSON (*.json);;CSV (*.csv)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!saveResults(path, &error, *scope))
        QMessageBox::warning(this, tr("Save Results"), error);
    else {
        rememberSaveFolder(path);
        Q_EMIT statusMessage(tr("Saved %1.").arg(path));
        Q_EMIT fileOpened(path);
    }
}

void ExplorerPage::exportCsvWithDialog()
{
    if (m_model->rowCount() == 0)
        return;
    const auto scope = askSaveScope();
    if (!scope)
        return;
    const QString path = QFileDialog::getSaveFileName(this, tr("Export Results as CSV"),
                                                      defaultSavePath(QStringLiteral("bench.csv")),
                                                      tr("CSV (*.csv)"));
    if (path.isEmpty())
        return;
    QString error;
    const QString csv = path.endsWith(QLatin1String(".csv"), Qt::CaseInsensitive) ? path : path + ".csv";
    if (!saveResults(csv, &error, *scope)) {
        QMessageBox::warning(this, tr("Export Results"), error);
    } else {
        rememberSaveFolder(csv);
        Q_EMIT statusMessage(tr("Exported %1.").arg(csv));
    }
}

} // namespace syncscope::ui
