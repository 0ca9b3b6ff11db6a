#include "timeline/timelinepage.h"

#include "shared/sentence.h"

#include "common/error.h"
#include "jobs/jobrunner.h"
#include "jobs/progressrow.h"
#include "shared/noticebar.h"
#include "shared/timeformat.h"
#include "timeline/advicepanel.h"
#include "timeline/analysisoptionsdialog.h"
#include "timeline/devicetablemodel.h"
#include "timeline/eventdetailspanel.h"
#include "timeline/findbar.h"
#include "timeline/namematcher.h"
#include "timeline/rangestatsmodel.h"
#include "timeline/stepchart.h"
#include "timeline/syncgapmodel.h"
#include "timeline/syncsourcemodel.h"
#include "timeline/tablespanel.h"
#include "timeline/timelinedata.h"
#include "timeline/timelineview.h"
#include "trace/traceloader.h"

#include <QAction>
#include <QComboBox>
#include <QFileInfo>
#include <QItemSelectionModel>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QRegularExpression>
#include <QSignalBlocker>
#include <QSortFilterProxyModel>
#include <QScrollBar>
#include <QSettings>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

namespace syncscope::ui {

TimelinePage::TimelinePage(QWidget *parent) : QWidget(parent)
{
    createRunners();
    m_options = AnalysisOptionsDialog::loadSettings();
    buildHeader();
    buildStatusRows();
    buildSplit();
    buildLayout();
    connectFind();
    connectLoader();
    connectSelection();
    connectTables();
    createActions();
}

void TimelinePage::createRunners()
{
    m_loader = new JobRunner(this);
    m_loader->setObjectName(QStringLiteral("loader"));
    m_statsRunner = new JobRunner(this);
    m_whatIfRunner = new JobRunner(this);
    m_reportRunner = new JobRunner(this);
    m_findRunner = new JobRunner(this);
}

// The job's sync summary, then find.
void TimelinePage::buildHeader()
{
    m_header = new QLabel(this);
    m_header->setTextFormat(Qt::RichText);
    m_header->setWordWrap(true); // the avoidable figure first, then the rest on a second line if need be
    m_header->setText(tr("No trace open"));
    m_findBar = new FindBar(this);
}

// Under the header: the load's progress, and its error or warnings.
void TimelinePage::buildStatusRows()
{
    m_progressRow = new ProgressRow(m_loader, this);
    m_error = new NoticeBar(this, NoticeBar::Look::Line);
    m_error->setObjectName(QStringLiteral("timelineError"));
    // As wide as the page gives it, never wider: a long path loses its middle.
    m_error->setElideLongWords(true);
}

// The timeline, and beside it the tables.
void TimelinePage::buildSplit()
{
    m_view = new TimelineView(this);
    m_tables = new TablesPanel(this);
    m_gapModel = m_tables->gapModel();
    m_gapProxy = m_tables->gapProxy();
    m_gapTable = m_tables->gapTable();
    m_sourceModel = m_tables->sourceModel();
    m_sourceProxy = m_tables->sourceProxy();
    m_sourceTable = m_tables->sourceTable();
    m_longCalls = m_tables->longCallsLabel();
    m_stepChart = m_tables->stepChart();
    m_rangeModel = m_tables->rangeModel();
    m_rangeProxy = m_tables->rangeProxy();
    m_rangeTable = m_tables->rangeTable();
    m_rangeCategory = m_tables->rangeCategoryBox();
    m_rangeLabel = m_tables->rangeLabel();
    m_deviceModel = m_tables->deviceModel();
    m_deviceProxy = m_tables->deviceProxy();
    m_deviceTable = m_tables->deviceTable();
    m_details = m_tables->details();
    m_advice = m_tables->advice();
    m_sideTabs = m_tables->tabs();

    m_split = new QSplitter(Qt::Horizontal, this);
    m_split->addWidget(m_view);
    m_split->addWidget(m_tables);
    // A handle that can be seen and grabbed.
    m_split->setHandleWidth(6);
    m_split->setStyleSheet(
        QStringLiteral("QSplitter::handle:horizontal { background: palette(mid); margin: 0 2px; }"));
    m_split->setStretchFactor(0, 3);
    m_split->setStretchFactor(1, 1);
    m_split->setSizes({900, 380});
    // A width the user drags to is theirs: kept, and reopened next time.
    connect(m_split, &QSplitter::splitterMoved, this, [this] {
        m_sideDragged = true;
        QSettings().setValue(QStringLiteral("timeline/sideWidth"), m_split->sizes().value(1));
    });
}

void TimelinePage::buildLayout()
{
    auto *top = new QHBoxLayout;
    top->addWidget(m_header, 1);
    top->addWidget(m_findBar);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(m_progressRow);
    layout->addWidget(m_error);
    layout->addWidget(m_split, 1);
}

void TimelinePage::connectFind()
{
    connect(m_findBar, &FindBar::queryChanged, this, &TimelinePage::updateMatcher);
    connect(m_findBar, &FindBar::nextRequested, this, &TimelinePage::findNext);
    connect(m_findBar, &FindBar::previousRequested, this, &TimelinePage::findPrevious);
    connect(m_findRunner, &JobRunner::failed, this, [this](quint64, const QString &error) {
        m_pendingFind = 0;
        m_findBar->setStatus(error);
    });
}

// The progress row follows the loader on its own; the page says how a load ended.
void TimelinePage::connectLoader()
{
    connect(m_loader, &JobRunner::failed, this, [this](quint64, const QString &error) {
        const QString sentence = refusalSentence(error);
        showError(sentence);
        Q_EMIT loadFailed(sentence);
    });
    connect(m_loader, &JobRunner::cancelled, this, [this](quint64) {
        if (!m_loader->isRunning())
            Q_EMIT statusMessage(tr("Loading cancelled"));
        Q_EMIT loadCancelled();
    });
}

// What is selected in the view, the tables and the step chart, shown in the others.
void TimelinePage::connectSelection()
{
    connect(m_view, &TimelineView::selectionChanged, this, &TimelinePage::onSelectionChanged);
    connect(m_view, &TimelineView::rangeSelectionChanged, this, &TimelinePage::onRangeChanged);
    connect(m_details, &EventDetailsPanel::eventRequested, this,
            [this](const TimelineEvent &e) { m_view->selectEvent(e, true); });
    connect(m_gapTable, &QTableView::clicked, this, &TimelinePage::onGapActivated);
    connect(m_gapTable, &QTableView::activated, this, &TimelinePage::onGapActivated);
    connect(m_sourceTable, &QTableView::clicked, this, &TimelinePage::onSourceActivated);
    connect(m_sourceModel, &SyncSourceModel::checkedChanged, this, &TimelinePage::startWhatIf);
    connect(m_whatIfRunner, &JobRunner::failed, this, [this](quint64, const QString &error) {
        m_whatIfPending = false;
        updateHeader();
        Q_EMIT statusMessage(tr("What-if failed: %1").arg(error));
        Q_EMIT whatIfReady();
    });
    // What to write instead follows the current source, by mouse or keyboard.
    connect(m_sourceTable->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                showAdvice(current.isValid() ? m_sourceProxy->mapToSource(current).row() : -1);
                if (current.isValid())
                    m_sideTabs->setCurrentWidget(m_advice);
            });
    connect(m_sourceTable, &QTableView::activated, this, &TimelinePage::onSourceActivated);
    connect(m_stepChart, &StepChart::stepClicked, m_view, &TimelineView::activateStep);
    connect(m_view, &TimelineView::stepActivated, this, [this](int step) {
        const auto data = m_view->data();
        if (!data || step < 0 || step >= int(data->steps().size()))
            return;
        const TimelineStep &ts = data->steps()[size_t(step)];
        const Step &st = data->step(ts);
        Q_EMIT statusMessage(
            tr("Zoomed to %1 (%2)").arg(data->text(ts.file, st.name), formatDuration(st.end - st.start)));
    });
    connect(m_statsRunner, &JobRunner::failed, this, [this](quint64, const QString &error) {
        m_rangeLabel->setText(tr("Range statistics failed: %1").arg(error));
    });
}

// The tables' menus, a device's track, the longest long host call.
void TimelinePage::connectTables()
{
    connect(m_deviceTable, &QTableView::clicked, this, [this](const QModelIndex &index) {
        const int track = m_deviceModel->trackOf(m_deviceProxy->mapToSource(index).row());
        if (track >= 0)
            m_view->ensureTrackVisible(track, 0);
    });
    for (QTableView *t : m_tables->tables())
        connect(t, &QWidget::customContextMenuRequested, this,
                [this, t](const QPoint &pos) { tableMenu(t, pos); });
    connect(m_longCalls, &QLabel::linkActivated, this, [this] {
        const auto data = m_view->data();
        if (!data)
            return;
        const SyncCall *longest = nullptr;
        uint32_t file = 0;
        for (uint32_t f = 0; f < data->files().size(); ++f)
            for (const SyncCall &c : data->files()[f].sync.longCalls)
                if (!longest || c.dur > longest->dur) {
                    longest = &c;
                    file = f;
                }
        if (longest)
            m_view->selectEvent(data->eventOf(file, longest->event));
    });
}

QLineEdit *TimelinePage::findEdit() const { return m_findBar->edit(); }
QCheckBox *TimelinePage::findRegexBox() const { return m_findBar->regexBox(); }
QToolButton *TimelinePage::findCaseButton() const { return m_findBar->caseButton(); }

void TimelinePage::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    // After the layout has given the splitter its new width.
    QTimer::singleShot(0, this, &TimelinePage::fitSidePanel);
}

namespace {
constexpr int kMinSideWidth = 360;
} // namespace

void TimelinePage::fitSidePanel()
{
    const int total = m_split ? m_split->width() : 0;
    // A page never shown has no width of its own yet: it is fitted when shown.
    if (m_sideNeed <= 0 || total <= 0 || !isVisible() || m_sideDragged)
        return;
    // The numbers' width takes at most half the page; a width the user chose,
    // all but the timeline's last 400 px.
    const int saved = QSettings().value(QStringLiteral("timeline/sideWidth"), 0).toInt();
    const int side = saved > 0
                         ? std::clamp(saved, std::min(kMinSideWidth, total / 2), std::max(total / 2, total - 400))
                         : std::clamp(m_sideNeed, std::min(kMinSideWidth, total / 2), total / 2);
    if (!m_sideSized || m_split->sizes().value(1) < side) {
        m_split->setSizes({total - side, side});
        m_sideSized = true;
    }
}

TimelinePage::~TimelinePage()
{
    m_loader->cancel();
    m_statsRunner->cancel();
    m_whatIfRunner->cancel();
    m_reportRunner->cancel();
    m_findRunner->cancel();
    m_loader->waitForDone();
    m_statsRunner->waitForDone();
    m_whatIfRunner->waitForDone();
    m_reportRunner->waitForDone();
    m_findRunner->waitForDone();
}

void TimelinePage::createActions()
{
    auto make = [this](const QString &text, std::initializer_list<QKeySequence> keys, auto slot,
                       const QString &tip = {}) {
        auto *a = new QAction(text, this);
        a->setShortcuts(QList<QKeySequence>(keys));
        a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        a->setToolTip(tip.isEmpty() ? text : tip);
        connect(a, &QAction::triggered, this, slot);
        addAction(a);
        m_actions.append(a);
        return a;
    };
    make(tr("Zoom In"), {QKeySequence(Qt::Key_W), QKeySequence::ZoomIn}, [this] { m_view->zoomIn(); });
    make(tr("Zoom Out"), {QKeySequence(Qt::Key_S), QKeySequence::ZoomOut}, [this] { m_view->zoomOut(); });
    make(tr("Pan Left"), {QKeySequence(Qt::Key_A)}, [this] { m_view->panLeft(); });
    make(tr("Pan Right"), {QKeySequence(Qt::Key_D)}, [this] { m_view->panRight(); });
    make(
        tr("Fit All"), {QKeySequence(Qt::CTRL | Qt::Key_0), QKeySequence(Qt::Key_Home)},
        [this] { m_view->fitAll(); }, tr("Show the whole trace"));
    make(
        tr("Zoom to Selection"), {QKeySequence(Qt::Key_F)}, [this] { m_view->zoomToSelection(); },
        tr("Zoom to the range selection, else the selected event"));
    make(tr("Find…"), {QKeySequence::Find}, [this] { focusFind(); });
    make(tr("Find Next"), {QKeySequence::FindNext}, [this] { findNext(); });
    make(tr("Find Previous"), {QKeySequence::FindPrevious}, [this] { findPrevious(); });
    make(tr("Next Sync Gap"), {QKeySequence(Qt::Key_BracketRight)}, [this] { nextGap(); });
    make(tr("Previous Sync Gap"), {QKeySequence(Qt::Key_BracketLeft)}, [this] { previousGap(); });
    make(
        tr("Analysis Options…"), {QKeySequence(Qt::CTRL | Qt::Key_Comma)}, [this] { showAnalysisOptions(); },
        tr("Library prefixes for the user frame and a step pattern; re-analyses the trace"));
    // Enabled only while a load runs.
    QAction *cancelLoading = make(tr("Cancel Loading"), {}, [this] { cancelLoad(); });
    cancelLoading->setEnabled(m_loader->isRunning());
    connect(m_loader, &JobRunner::started, cancelLoading, [cancelLoading] { cancelLoading->setEnabled(true); });
    connect(m_loader, &JobRunner::idle, cancelLoading, [cancelLoading] { cancelLoading->setEnabled(false); });
    m_exportReport = new QAction(tr("Export &Report…"), this);
    m_exportReport->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    m_exportReport->setToolTip(tr("Save a report to share: the headline, per-step chart, sync sources with what "
                                  "to change and top gaps, as one HTML page or Markdown (Ctrl+Shift+E)"));
    m_exportReport->setEnabled(false);
    connect(m_exportReport, &QAction::triggered, this, &TimelinePage::exportReportWithDialog);
    connect(this, &TimelinePage::loadFinished, m_exportReport, [this] { m_exportReport->setEnabled(hasTrace()); });
    connect(m_reportRunner, &JobRunner::failed, this,
            [this](quint64, const QString &error) { Q_EMIT reportFailed(error); });
    QAction *python = m_view->showPythonAction(); // the view owns its state
    python->setShortcut(QKeySequence(Qt::Key_P));
    python->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    addAction(python);
    m_actions.append(python);
}

QList<QAction *> TimelinePage::pageActions() const { return m_actions; }
bool TimelinePage::isLoading() const { return m_loader->isRunning(); }
bool TimelinePage::hasTrace() const { return m_view->data() != nullptr; }
std::shared_ptr<const TimelineData> TimelinePage::data() const { return m_view->data(); }

void TimelinePage::openFiles(const QStringList &paths)
{
    if (paths.isEmpty())
        return;
    m_error->clear();
    // Reopening the trace on show (it changed on disk, or Open Recent): the
    // old model goes first, or both would be in memory at the peak of the load.
    if (paths == m_files)
        releaseData();
    m_pendingFiles = paths;
    std::vector<std::string> files;
    for (const QString &p : paths)
        files.push_back(QFile::encodeName(p).toStdString());
    const QString title = paths.size() == 1 ? tr("Loading %1").arg(QFileInfo(paths.front()).fileName())
                                            : tr("Loading %n ranks", nullptr, int(paths.size()));
    Q_EMIT statusMessage(title + QStringLiteral("…"));
    m_keepView = false;
    Q_EMIT loadStarting(paths);
    m_loader->start(
        title,
        [files, options = m_options](const ProgressFn &progress, const CancelToken *cancel) {
            ProgressFn load = [&](double f, const char *msg) { progress(0.8 * f, msg); };
            auto models = loadTraces(files, load, cancel);
            ProgressFn index = [&](double f, const char *msg) { progress(0.8 + 0.2 * f, msg); };
            return TimelineData::build(std::move(models), options, index, cancel);
        },
        this, [this](std::shared_ptr<const TimelineData> data) { onLoaded(std::move(data)); });
}

void TimelinePage::releaseData()
{
    // Every holder of the TimelineData (and so of its trace models) lets go:
    // the range statistics job is waited for, as it holds a reference.
    m_loader->cancel();
    m_loader->waitForDone();
    m_statsRunner->cancel();
    m_statsRunner->waitForDone();
    m_whatIfRunner->cancel();
    m_whatIfRunner->waitForDone();
    m_reportRunner->cancel();
    m_reportRunner->waitForDone();
    if (m_exportReport)
        m_exportReport->setEnabled(false);
    m_whatIf.reset();
    m_whatIfPending = false;
    m_findRunner->cancel();
    m_findRunner->waitForDone();
    m_matcher.reset();
    m_matcherData.reset();
    m_view->setHighlightedNames(nullptr);
    m_rangeModel->clear();
    m_gapModel->setTimelineData(nullptr);
    m_sourceModel->setTimelineData(nullptr);
    m_longCalls->hide();
    m_deviceModel->setTimelineData(nullptr);
    m_advice->clear();
    m_stepChart->setTimelineData(nullptr);
    m_view->setData(nullptr);
    m_details->setEvent(nullptr, {}, {});
    m_files.clear();
    updateHeader();
}

void TimelinePage::setAnalysisOptions(const AnalysisOptions &options)
{
    m_options = options;
    AnalysisOptionsDialog::saveSettings(options);
    reanalyse();
}

void TimelinePage::reanalyse()
{
    const auto data = m_view->data();
    if (!data)
        return;
    m_error->clear();
    m_pendingFiles = m_files;
    m_keepView = true;
    Q_EMIT statusMessage(tr("Re-analysing with the new options…"));
    m_loader->start(
        tr("Re-analysing"),
        [models = data->models(), options = m_options](const ProgressFn &progress, const CancelToken *cancel) {
            return TimelineData::build(models, options, progress, cancel);
        },
        this, [this](std::shared_ptr<const TimelineData> data) { onLoaded(std::move(data)); });
}

void TimelinePage::showAnalysisOptions()
{
    AnalysisOptionsDialog dialog(this);
    dialog.setOptions(m_options);
    if (dialog.exec() == QDialog::Accepted)
        setAnalysisOptions(dialog.options());
}

void TimelinePage::cancelLoad()
{
    if (m_loader->isRunning())
        m_loader->cancel();
}

void TimelinePage::showError(const QString &text)
{
    m_error->showMessage(text);
    Q_EMIT statusMessage(text);
}

void TimelinePage::onLoaded(std::shared_ptr<const TimelineData> data)
{
    m_progressRow->hide();
    if (data)
        setData(std::move(data), m_pendingFiles);
}

void TimelinePage::setData(std::shared_ptr<const TimelineData> data, const QStringList &paths)
{
    m_statsRunner->cancel();
    m_rangeModel->clear();
    updateRangeCategories();
    const bool keepView = m_keepView && m_view->data();
    m_keepView = false;
    const TimeNs t0 = m_view->mapping().start(), t1 = m_view->mapping().end();
    m_gapModel->setTimelineData(data);
    m_sourceModel->setTimelineData(data); // drops the checks: the what-if goes with them
    m_deviceModel->setTimelineData(data);
    m_whatIfRunner->cancel();
    m_whatIf.reset();
    m_whatIfPending = false;
    m_advice->clear();
    m_stepChart->setTimelineData(data);
    m_view->setData(data);
    updateLongCalls();
    if (keepView) // a re-analysis: the same trace, keep the place
        m_view->setVisibleRange(t0, t1);
    m_files = paths;
    // The rank columns only say something for a job of several ranks.
    m_gapTable->setColumnHidden(SyncGapModel::Rank, data->files().size() < 2);
    m_sourceTable->setColumnHidden(SyncSourceModel::Rank, data->files().size() < 2);
    for (QTableView *t : {m_gapTable, m_sourceTable, m_deviceTable}) {
        t->resizeColumnsToContents();
        for (int c = 0; c < t->model()->columnCount(); ++c)
            t->setColumnWidth(c, std::min(t->columnWidth(c), 260));
    }
    // The side panel opens wide enough for every number of its tables (the
    // user's own width is kept once they drag it).
    auto numbers = [](QTableView *t, std::initializer_list<int> cols) {
        int w = 0;
        for (int c : cols)
            if (!t->isColumnHidden(c))
                w += t->columnWidth(c);
        return w;
    };
    m_sideNeed =
        std::max({numbers(m_gapTable, {SyncGapModel::Avoidable, SyncGapModel::Blocked, SyncGapModel::Duration,
                                       SyncGapModel::Start, SyncGapModel::Device, SyncGapModel::Rank}),
                  numbers(m_sourceTable, {SyncSourceModel::Avoidable, SyncSourceModel::Count,
                                          SyncSourceModel::Gaps, SyncSourceModel::GapTime, SyncSourceModel::Rank}),
                  numbers(m_deviceTable,
                          {DeviceTableModel::Rank, DeviceTableModel::Avoidable, DeviceTableModel::SyncGapTime,
                           DeviceTableModel::Gaps, DeviceTableModel::Busy, DeviceTableModel::Span})}) +
        m_gapTable->verticalScrollBar()->sizeHint().width() + 24;
    fitSidePanel();
    updateHeader();
    updateMatcher();
    const TimelineSummary &s = data->summary();
    QString msg = tr("Opened %1: %2 events, %3 sync gaps")
                      .arg(paths.size() == 1 ? QFileInfo(paths.front()).fileName()
                                             : tr("%n ranks", nullptr, int(paths.size())))
                      .arg(QLocale().toString(qulonglong(s.events)))
                      .arg(s.syncGaps);
    if (s.warnings > 0) {
        // Per-event problems are counted, the load goes on: say so, with the first one.
        QString first;
        for (const TimelineFile &f : data->files())
            if (!f.model->warnings().first.empty()) {
                first = QString::fromStdString(f.model->warnings().first.front());
                break;
            }
        msg += tr(" (%n warning(s))", nullptr, int(s.warnings));
        m_error->showMessage(
            tr("%n problem(s) in the trace were skipped; the first: %1", nullptr, int(s.warnings)).arg(first),
            NoticeBar::Tone::Warning);
    }
    Q_EMIT statusMessage(msg);
    Q_EMIT loadFinished(paths);
}

QString TimelinePage::headerText() const { return m_header->text(); }

void TimelinePage::onSelectionChanged()
{
    const TimelineEvent e = m_view->selectedEvent();
    m_details->setEvent(m_view->data(), e, m_view->links(), m_view->selectedWith());
    updateFindOrdinal();
    if (e.valid()) {
        m_sideTabs->setCurrentWidget(m_details);
        const std::string_view name = m_view->data()->name(e);
        Q_EMIT statusMessage(tr("Selected %1 (%2)")
                                 .arg(QString::fromUtf8(name.data(), int(std::min<size_t>(name.size(), 120))),
                                      formatDuration(m_view->data()->end(e) - m_view->data()->start(e))));
    }
}

void TimelinePage::onRangeChanged()
{
    const auto data = m_view->data();
    if (!data || !m_view->hasRangeSelection()) {
        m_statsRunner->cancel();
        m_rangeModel->clear();
        updateRangeCategories();
        m_rangeLabel->setText(tr("Shift+drag across the timeline (or drag on the ruler) to see op "
                                 "statistics for a time range."));
        return;
    }
    const auto [t0, t1] = m_view->rangeSelection();
    m_rangeLabel->setText(tr("Computing statistics for %1…").arg(formatDuration(t1 - t0)));
    m_sideTabs->setCurrentIndex(1);
    m_statsRunner->start(
        tr("Range statistics"),
        [data, t0 = t0, t1 = t1](const ProgressFn &progress, const CancelToken *cancel) {
            return RangeStatsModel::compute(*data, t0, t1, progress, cancel);
        },
        this,
        [this](std::vector<RangeStatsModel::Row> rows) {
            const size_t count = rows.size();
            m_rangeModel->setRows(std::move(rows));
            m_rangeModel->setRange(m_view->rangeSelection().first, m_view->rangeSelection().second);
            updateRangeCategories();
            const auto [s0, s1] = m_view->rangeSelection();
            m_rangeLabel->setText(
                tr("%1 selected: %n distinct op(s)", nullptr, int(count)).arg(formatDuration(s1 - s0)));
            Q_EMIT rangeStatsReady();
        });
}

void TimelinePage::showGap(int gap) { showGapImpl(gap, false); }

void TimelinePage::showGapImpl(int gap, bool keepTableSelection)
{
    const auto data = m_view->data();
    if (!data || gap < 0 || gap >= int(data->gaps().size()))
        return;
    const TimelineGap &g = data->gaps()[size_t(gap)];
    const SyncAnalysis &sa = data->files()[g.file].sync;
    const SyncGap &sg = sa.syncGaps[g.gap];
    const SyncCall &call = sa.syncCalls[sg.syncCall];
    m_view->setHighlightedGap(gap);
    m_view->selectEvent(data->eventOf(g.file, call.event), false);
    // Cause and effect together: the blocking call and the idle GPU.
    m_view->showInterval(std::min(sg.interval.start, call.start), std::max(sg.interval.end, call.end()));
    m_view->revealGap(gap);
    const QModelIndex src = m_gapModel->index(gap, 0);
    const QModelIndex proxy = m_gapProxy->mapFromSource(src);
    if (keepTableSelection) {
        m_gapTable->selectionModel()->setCurrentIndex(proxy, QItemSelectionModel::NoUpdate);
        m_gapTable->scrollTo(proxy);
    } else {
        if (!m_view->markedGaps().empty())
            m_view->setMarkedGaps({});
        // A gap inside a (ctrl-click) multi-selection keeps it; any other selects itself.
        const bool selected = m_gapTable->selectionModel()->isRowSelected(proxy.row(), proxy.parent());
        m_gapTable->selectionModel()->setCurrentIndex(proxy, selected ? QItemSelectionModel::NoUpdate
                                                                      : QItemSelectionModel::ClearAndSelect |
                                                                            QItemSelectionModel::Rows);
    }
    Q_EMIT statusMessage(tr("Sync gap %1 of %2: %3 on device %4, caused by %5")
                             .arg(gap + 1)
                             .arg(data->gaps().size())
                             .arg(formatDuration(sg.interval.length()))
                             .arg(sg.device)
                             .arg(m_gapModel->callName(gap)));
}

void TimelinePage::onGapActivated(const QModelIndex &index)
{
    if (!index.isValid())
        return;
    showGap(m_gapProxy->mapToSource(index).row());
}

void TimelinePage::nextGap()
{
    const auto data = m_view->data();
    if (!data || data->gaps().empty())
        return;
    const int cur = m_view->highlightedGap();
    showGap(cur < 0 ? 0 : (cur + 1) % int(data->gaps().size()));
}

void TimelinePage::previousGap()
{
    const auto data = m_view->data();
    if (!data || data->gaps().empty())
        return;
    const int n = int(data->gaps().size());
    const int cur = m_view->highlightedGap();
    showGap(cur < 0 ? n - 1 : (cur + n - 1) % n);
}

void TimelinePage::updateRangeCategories()
{
    const QString current = m_rangeCategory->currentIndex() > 0 ? m_rangeCategory->currentData().toString()
                                                                : QString();
    const bool filtered = m_rangeCategory->currentIndex() > 0;
    const QSignalBlocker block(m_rangeCategory);
    while (m_rangeCategory->count() > 1)
        m_rangeCategory->removeItem(1);
    for (const QString &c : m_rangeModel->categories())
        m_rangeCategory->addItem(c.isEmpty() ? tr("(no category)") : c, c);
    // Keep the filter across selections while its category is still there.
    const int keep = filtered ? m_rangeCategory->findData(current) : -1;
    m_rangeCategory->setCurrentIndex(std::max(0, keep));
    m_rangeProxy->setFilterRegularExpression(keep > 0 ? QLatin1Char('^') + QRegularExpression::escape(current) +
                                                            QLatin1Char('$')
                                                      : QString());
}

QString TimelinePage::longCallsText() const { return m_longCalls->isHidden() ? QString() : m_longCalls->text(); }

void TimelinePage::updateLongCalls()
{
    const auto data = m_view->data();
    size_t count = 0;
    TimeNs total = 0;
    const SyncCall *longest = nullptr;
    uint32_t file = 0;
    if (data)
        for (uint32_t f = 0; f < data->files().size(); ++f)
            for (const SyncCall &c : data->files()[f].sync.longCalls) {
                ++count;
                total += c.dur;
                if (!longest || c.dur > longest->dur) {
                    longest = &c;
                    file = f;
                }
            }
    if (!longest) {
        m_longCalls->hide();
        return;
    }
    QString what = data->text(file, longest->event);
    if (longest->op.valid())
        what += tr(" in %1").arg(data->text(file, longest->op));
    m_longCalls->setText(tr("<b>%n long host call(s)</b> that are not syncs, %1 in all: the host waited inside "
                            "them (a full launch queue or a module load, for example); not counted above. "
                            "<a href=\"longest\">The longest</a>: %2, %3.",
                            nullptr, int(count))
                             .arg(formatDuration(total), what.toHtmlEscaped(), formatDuration(longest->dur)));
    m_longCalls->show();
}

} // namespace syncscope::ui
