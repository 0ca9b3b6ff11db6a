#include "timeline/timelinepage.h"

#include "shared/sentence.h"

#include "common/error.h"
#include "jobs/jobrunner.h"
#include "shared/elide.h"
#include "shared/timeformat.h"
#include "timeline/advicepanel.h"
#include "timeline/analysisoptionsdialog.h"
#include "timeline/devicetablemodel.h"
#include "timeline/eventdetailspanel.h"
#include "timeline/namematcher.h"
#include "timeline/rangestatsmodel.h"
#include "timeline/stepchart.h"
#include "timeline/syncgapmodel.h"
#include "timeline/syncsourcemodel.h"
#include "timeline/timelinedata.h"
#include "timeline/timelineview.h"
#include "trace/traceloader.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QItemSelectionModel>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QProgressBar>
#include <QRegularExpression>
#include <QResizeEvent>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSortFilterProxyModel>
#include <QScrollBar>
#include <QSettings>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

namespace syncscope::ui {

namespace {

QTableView *makeTable(QAbstractItemModel *model, QWidget *parent)
{
    auto *t = new QTableView(parent);
    t->setModel(model);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setSelectionMode(QAbstractItemView::SingleSelection);
    t->setSortingEnabled(true);
    t->setAlternatingRowColors(true);
    t->setWordWrap(false);
    t->verticalHeader()->setVisible(false);
    t->verticalHeader()->setDefaultSectionSize(t->fontMetrics().height() + 6);
    t->horizontalHeader()->setStretchLastSection(true);
    t->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    // Long names (ops, frames) lose their middle, not their ends; the tooltip has all.
    t->setTextElideMode(Qt::ElideMiddle);
    return t;
}

} // namespace

TimelinePage::TimelinePage(QWidget *parent) : QWidget(parent)
{
    m_loader = new JobRunner(this);
    m_loader->setObjectName(QStringLiteral("loader"));
    m_statsRunner = new JobRunner(this);
    m_whatIfRunner = new JobRunner(this);
    m_reportRunner = new JobRunner(this);
    m_findRunner = new JobRunner(this);
    m_options = AnalysisOptionsDialog::loadSettings();

    // Header: the job's sync summary, then find.
    m_header = new QLabel(this);
    m_header->setTextFormat(Qt::RichText);
    m_header->setWordWrap(true); // the avoidable figure first, then the rest on a second line if need be
    m_header->setText(tr("No trace open"));
    m_findEdit = new QLineEdit(this);
    m_findEdit->setPlaceholderText(tr("Find by name (Ctrl+F)"));
    m_findEdit->setClearButtonEnabled(true);
    m_findEdit->setMinimumWidth(220);
    m_findRegex = new QCheckBox(tr("Regex"), this);
    m_findRegex->setToolTip(tr("Match names with a regular expression instead of a substring"));
    m_findCase = new QToolButton(this);
    m_findCase->setText(QStringLiteral("Aa"));
    m_findCase->setCheckable(true);
    m_findCase->setToolTip(tr("Match case (plain text and regular expressions)"));
    auto *prev = new QToolButton(this);
    prev->setArrowType(Qt::UpArrow);
    prev->setToolTip(tr("Previous match (Shift+F3)"));
    auto *next = new QToolButton(this);
    next->setArrowType(Qt::DownArrow);
    next->setToolTip(tr("Next match (F3, Enter)"));
    m_findStatus = new QLabel(this);
    m_findStatus->setMinimumWidth(120);
    auto *top = new QHBoxLayout;
    top->addWidget(m_header, 1);
    top->addWidget(m_findEdit);
    top->addWidget(m_findRegex);
    top->addWidget(m_findCase);
    top->addWidget(prev);
    top->addWidget(next);
    top->addWidget(m_findStatus);

    m_progressRow = new QWidget(this);
    m_progressLabel = new QLabel(m_progressRow);
    m_progress = new QProgressBar(m_progressRow);
    m_progress->setRange(0, 1000);
    m_cancel = new QPushButton(tr("Cancel"), m_progressRow);
    auto *progressLayout = new QHBoxLayout(m_progressRow);
    progressLayout->setContentsMargins(0, 0, 0, 0);
    progressLayout->addWidget(m_progressLabel);
    progressLayout->addWidget(m_progress, 1);
    progressLayout->addWidget(m_cancel);
    m_progressRow->hide();

    m_error = new QLabel(this);
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // As wide as the page gives it, never wider: a long path loses its middle.
    m_error->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_error->hide();

    m_view = new TimelineView(this);
    m_gapModel = new SyncGapModel(this);
    m_gapProxy = new SyncGapSortModel(this);
    m_gapProxy->setSourceModel(m_gapModel);
    m_gapTable = makeTable(m_gapProxy, this);
    // What removing the gap's cause would save first: the gap to look at.
    m_gapTable->sortByColumn(SyncGapModel::Avoidable, Qt::DescendingOrder);
    m_gapTable->setSelectionMode(QAbstractItemView::ExtendedSelection);

    m_sourceModel = new SyncSourceModel(this);
    m_sourceProxy = new QSortFilterProxyModel(this);
    m_sourceProxy->setSourceModel(m_sourceModel);
    m_sourceProxy->setSortRole(SyncSourceModel::SortRole);
    m_sourceTable = makeTable(m_sourceProxy, this);
    m_sourceTable->sortByColumn(SyncSourceModel::Avoidable, Qt::DescendingOrder);
    // The numbers first, the names after them: in a narrow panel the names elide.
    {
        QHeaderView *h = m_sourceTable->horizontalHeader();
        int to = 1;
        for (int c : {int(SyncSourceModel::Count), int(SyncSourceModel::Gaps), int(SyncSourceModel::GapTime),
                      int(SyncSourceModel::Rank)})
            h->moveSection(h->visualIndex(c), to++);
    }
    m_stepChart = new StepChart(this);

    m_rangeModel = new RangeStatsModel(this);
    m_rangeProxy = new QSortFilterProxyModel(this);
    m_rangeProxy->setSourceModel(m_rangeModel);
    m_rangeProxy->setSortRole(RangeStatsModel::SortRole);
    m_rangeTable = makeTable(m_rangeProxy, this);
    m_rangeTable->sortByColumn(RangeStatsModel::Total, Qt::DescendingOrder);
    m_rangeProxy->setFilterKeyColumn(RangeStatsModel::Category);
    // Op names are long: the user sizes the name column; it starts readable.
    m_rangeTable->horizontalHeader()->setSectionResizeMode(RangeStatsModel::Name, QHeaderView::Interactive);
    m_rangeTable->setColumnWidth(RangeStatsModel::Name, 220);
    m_rangeTable->setTextElideMode(Qt::ElideMiddle);
    m_rangeCategory = new QComboBox(this);
    m_rangeCategory->setToolTip(tr("Show the ops of one category only"));
    m_rangeCategory->addItem(tr("All categories"));
    m_rangeCategory->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    connect(m_rangeCategory, &QComboBox::currentIndexChanged, this, [this](int index) {
        // Item data holds the category itself ("" is a category too).
        m_rangeProxy->setFilterRegularExpression(
            index <= 0 ? QString()
                       : QLatin1Char('^') + QRegularExpression::escape(m_rangeCategory->itemData(index).toString())
                             + QLatin1Char('$'));
    });
    m_deviceModel = new DeviceTableModel(this);
    m_deviceProxy = new QSortFilterProxyModel(this);
    m_deviceProxy->setSourceModel(m_deviceModel);
    m_deviceProxy->setSortRole(DeviceTableModel::SortRole);
    m_deviceTable = makeTable(m_deviceProxy, this);
    m_deviceTable->sortByColumn(DeviceTableModel::Avoidable, Qt::DescendingOrder);
    m_deviceTable->setTextElideMode(Qt::ElideMiddle);
    // As the sources: the rank and the numbers first, the names after them.
    {
        QHeaderView *h = m_deviceTable->horizontalHeader();
        int to = 1;
        for (int c : {int(DeviceTableModel::Avoidable), int(DeviceTableModel::SyncGapTime), int(DeviceTableModel::Gaps),
                      int(DeviceTableModel::Busy), int(DeviceTableModel::Span)})
            h->moveSection(h->visualIndex(c), to++);
    }
    m_deviceTable->setToolTip(tr("Every device of every open file; click one to show its track"));
    connect(m_deviceTable, &QTableView::clicked, this, [this](const QModelIndex &index) {
        const int track = m_deviceModel->trackOf(m_deviceProxy->mapToSource(index).row());
        if (track >= 0)
            m_view->ensureTrackVisible(track, 0);
    });
    for (QTableView *t : {m_gapTable, m_sourceTable, m_rangeTable, m_deviceTable}) {
        t->setContextMenuPolicy(Qt::CustomContextMenu);
        connect(t, &QWidget::customContextMenuRequested, this, [this, t](const QPoint &pos) { tableMenu(t, pos); });
    }
    m_rangeLabel = new QLabel(tr("Shift+drag across the timeline (or drag on the ruler) to "
                                 "see op statistics for a time range."), this);
    m_rangeLabel->setWordWrap(true);
    auto *rangePage = new QWidget(this);
    auto *rangeLayout = new QVBoxLayout(rangePage);
    rangeLayout->setContentsMargins(2, 2, 2, 2);
    rangeLayout->addWidget(m_rangeLabel);
    auto *filterRow = new QHBoxLayout;
    filterRow->addWidget(new QLabel(tr("Category:"), rangePage));
    filterRow->addWidget(m_rangeCategory);
    filterRow->addStretch(1);
    rangeLayout->addLayout(filterRow);
    rangeLayout->addWidget(m_rangeTable, 1);

    m_details = new EventDetailsPanel(this);
    m_sideTabs = new QTabWidget(this);
    m_sideTabs->addTab(m_details, tr("Details"));
    m_sideTabs->addTab(rangePage, tr("Range"));
    m_sideTabs->setTabToolTip(1, tr("Op statistics for a time range (Shift+drag across the timeline)"));
    m_sideTabs->addTab(m_stepChart, tr("Steps"));
    m_advice = new AdvicePanel(this);
    m_sideTabs->addTab(m_advice, tr("Advice"));
    m_sideTabs->setTabToolTip(3, tr("What to write instead of the selected sync source"));
    m_sideTabs->addTab(m_deviceTable, tr("Devices"));
    m_sideTabs->setTabToolTip(4, tr("The figures of every device of every open file (rank), "
                                    "each named by its rank and device"));

    auto *gapPanel = new QWidget(this);
    auto *gapLayout = new QVBoxLayout(gapPanel);
    gapLayout->setContentsMargins(2, 2, 2, 2);
    auto *gapTitle = new QLabel(tr("<b>Sync gaps</b> — GPU idle while the host blocked; "
                                   "click one to zoom to it"), gapPanel);
    gapTitle->setWordWrap(true);
    gapLayout->addWidget(gapTitle);
    gapLayout->addWidget(m_gapTable, 1);

    auto *sourcePanel = new QWidget(this);
    auto *sourceLayout = new QVBoxLayout(sourcePanel);
    sourceLayout->setContentsMargins(2, 2, 2, 2);
    auto *sourceTitle = new QLabel(tr("<b>Sync sources</b> — blocking calls by (sync, op, user frame), "
                                      "by what removing all of them would save; click one to select "
                                      "its gaps"), sourcePanel);
    sourceTitle->setWordWrap(true);
    sourceLayout->addWidget(sourceTitle);
    sourceLayout->addWidget(m_sourceTable, 1);
    // Long host calls that are not syncs: the host waited inside them. Shown
    // beside the syncs, never counted in their figures; the link selects the longest.
    m_longCalls = new QLabel(sourcePanel);
    m_longCalls->setWordWrap(true);
    m_longCalls->setTextInteractionFlags(Qt::LinksAccessibleByMouse | Qt::LinksAccessibleByKeyboard);
    m_longCalls->hide();
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
    sourceLayout->addWidget(m_longCalls);

    auto *side = new QSplitter(Qt::Vertical, this);
    side->addWidget(sourcePanel);
    side->addWidget(gapPanel);
    side->addWidget(m_sideTabs);
    auto *split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_view);
    split->addWidget(side);
    // A handle that can be seen and grabbed.
    split->setHandleWidth(6);
    split->setStyleSheet(QStringLiteral("QSplitter::handle:horizontal { background: palette(mid); margin: 0 2px; }"));
    m_split = split;
    side->setSizes({260, 320, 300});
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    split->setSizes({900, 380});
    // A width the user drags to is theirs: kept, and reopened next time.
    connect(split, &QSplitter::splitterMoved, this, [this] {
        m_sideDragged = true;
        QSettings().setValue(QStringLiteral("timeline/sideWidth"), m_split->sizes().value(1));
    });

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(m_progressRow);
    layout->addWidget(m_error);
    layout->addWidget(split, 1);

    m_findTimer = new QTimer(this);
    m_findTimer->setSingleShot(true);
    m_findTimer->setInterval(250);
    connect(m_findTimer, &QTimer::timeout, this, &TimelinePage::updateMatcher);
    connect(m_findEdit, &QLineEdit::textChanged, this, &TimelinePage::onFindTextChanged);
    connect(m_findRegex, &QCheckBox::toggled, this, &TimelinePage::onFindTextChanged);
    connect(m_findCase, &QToolButton::toggled, this, &TimelinePage::onFindTextChanged);
    connect(m_findRunner, &JobRunner::failed, this, [this](quint64, const QString &error) {
        m_pendingFind = 0;
        m_findStatus->setText(error);
    });
    connect(m_findEdit, &QLineEdit::returnPressed, this, &TimelinePage::findNext);
    connect(next, &QToolButton::clicked, this, &TimelinePage::findNext);
    connect(prev, &QToolButton::clicked, this, &TimelinePage::findPrevious);

    connect(m_cancel, &QPushButton::clicked, this, &TimelinePage::cancelLoad);
    connect(m_loader, &JobRunner::started, this, [this](quint64, const QString &title) {
        // "Loading trace.json": a long file name loses its middle, not the window its width.
        m_progressLabel->setText(m_progressLabel->fontMetrics().elidedText(title, Qt::ElideMiddle, std::max(200, width() / 2)));
        m_progressLabel->setToolTip(title);
        m_progress->setValue(0);
        m_progressRow->show();
    });
    connect(m_loader, &JobRunner::progress, this, [this](quint64, double f, const QString &msg) {
        m_progress->setValue(int(f * 1000));
        m_progress->setFormat(msg.isEmpty() ? QStringLiteral("%p%") : msg + QStringLiteral(" — %p%"));
    });
    connect(m_loader, &JobRunner::failed, this, [this](quint64, const QString &error) {
        m_progressRow->hide();
        const QString sentence = refusalSentence(error);
        showError(sentence);
        Q_EMIT loadFailed(sentence);
    });
    connect(m_loader, &JobRunner::cancelled, this, [this](quint64) {
        if (!m_loader->isRunning()) {
            m_progressRow->hide();
            Q_EMIT statusMessage(tr("Loading cancelled"));
        }
        Q_EMIT loadCancelled();
    });

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
        Q_EMIT statusMessage(tr("Zoomed to %1 (%2)").arg(data->text(ts.file, st.name), formatDuration(st.end - st.start)));
    });
    connect(m_statsRunner, &JobRunner::failed, this, [this](quint64, const QString &error) {
        m_rangeLabel->setText(tr("Range statistics failed: %1").arg(error));
    });

    createActions();
}

void TimelinePage::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    if (!m_error->isHidden())
        setErrorText(m_errorText);
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
    const int side = saved > 0 ? std::clamp(saved, std::min(kMinSideWidth, total / 2), std::max(total / 2, total - 400))
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
    make(tr("Fit All"), {QKeySequence(Qt::CTRL | Qt::Key_0), QKeySequence(Qt::Key_Home)},
         [this] { m_view->fitAll(); }, tr("Show the whole trace"));
    make(tr("Zoom to Selection"), {QKeySequence(Qt::Key_F)}, [this] { m_view->zoomToSelection(); },
         tr("Zoom to the range selection, else the selected event"));
    make(tr("Find…"), {QKeySequence::Find}, [this] { focusFind(); });
    make(tr("Find Next"), {QKeySequence::FindNext}, [this] { findNext(); });
    make(tr("Find Previous"), {QKeySequence::FindPrevious}, [this] { findPrevious(); });
    make(tr("Next Sync Gap"), {QKeySequence(Qt::Key_BracketRight)}, [this] { nextGap(); });
    make(tr("Previous Sync Gap"), {QKeySequence(Qt::Key_BracketLeft)}, [this] { previousGap(); });
    make(tr("Analysis Options…"), {QKeySequence(Qt::CTRL | Qt::Key_Comma)}, [this] { showAnalysisOptions(); },
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
    connect(m_reportRunner, &JobRunner::failed, this, [this](quint64, const QString &error) {
        Q_EMIT reportFailed(error);
    });
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
    m_error->hide();
    // Reopening the trace on show (it changed on disk, or Open Recent): the
    // old model goes first, or both would be in memory at the peak of the load.
    if (paths == m_files)
        releaseData();
    m_pendingFiles = paths;
    std::vector<std::string> files;
    for (const QString &p : paths)
        files.push_back(QFile::encodeName(p).toStdString());
    const QString title = paths.size() == 1
                              ? tr("Loading %1").arg(QFileInfo(paths.front()).fileName())
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
    m_error->hide();
    m_pendingFiles = m_files;
    m_keepView = true;
    Q_EMIT statusMessage(tr("Re-analysing with the new options…"));
    m_loader->start(
        tr("Re-analysing"),
        [models = data->models(), options = m_options](const ProgressFn &progress,
                                                       const CancelToken *cancel) {
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
    m_error->setStyleSheet(QStringLiteral("QLabel { color: #a00000; }"));
    setErrorText(text);
    m_error->show();
    Q_EMIT statusMessage(text);
}

void TimelinePage::setErrorText(const QString &text)
{
    m_errorText = text;
    // The page's width less its margins: the label's own is not laid out yet.
    const QString shown = elideLongWords(text, m_error->fontMetrics(), std::max(120, width() - 16));
    m_error->setText(shown);
    m_error->setToolTip(shown == text ? QString() : text);
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
    m_sideNeed = std::max({numbers(m_gapTable, {SyncGapModel::Avoidable, SyncGapModel::Blocked, SyncGapModel::Duration,
                                                SyncGapModel::Start, SyncGapModel::Device, SyncGapModel::Rank}),
                           numbers(m_sourceTable, {SyncSourceModel::Avoidable, SyncSourceModel::Count,
                                                   SyncSourceModel::Gaps, SyncSourceModel::GapTime,
                                                   SyncSourceModel::Rank}),
                           numbers(m_deviceTable, {DeviceTableModel::Rank, DeviceTableModel::Avoidable,
                                                   DeviceTableModel::SyncGapTime, DeviceTableModel::Gaps,
                                                   DeviceTableModel::Busy, DeviceTableModel::Span})}) +
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
        m_error->setStyleSheet(QStringLiteral("QLabel { color: #8a5a00; }"));
        setErrorText(tr("%n problem(s) in the trace were skipped; the first: %1", nullptr, int(s.warnings)).arg(first));
        m_error->show();
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
            m_rangeLabel->setText(tr("%1 selected: %n distinct op(s)", nullptr, int(count))
                                      .arg(formatDuration(s1 - s0)));
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
        m_gapTable->selectionModel()->setCurrentIndex(
            proxy, selected ? QItemSelectionModel::NoUpdate
                            : QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    }
    Q_EMIT statusMessage(tr("Sync gap %1 of %2: %3 on device %4, caused by %5")
                             .arg(gap + 1).arg(data->gaps().size())
                             .arg(formatDuration(sg.interval.length())).arg(sg.device)
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
    m_rangeProxy->setFilterRegularExpression(
        keep > 0 ? QLatin1Char('^') + QRegularExpression::escape(current) + QLatin1Char('$') : QString());
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
