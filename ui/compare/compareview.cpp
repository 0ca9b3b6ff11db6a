#include "compare/compareview.h"

#include "analysis/jsonwriter.h"
#include "charts/chartexport.h"
#include "common/error.h"
#include "compare/comparedata.h"
#include "jobs/jobrunner.h"
#include "jobs/progressrow.h"
#include "shared/noticebar.h"
#include "shared/savefolder.h"
#include "shared/tables.h"
#include "shared/timeformat.h"
#include "timeline/timelinedata.h"
#include "timeline/timelineview.h"
#include "trace/categories.h"

#include <QAction>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace syncscope::ui {

namespace {

// "before → after (Δ, %)": the three read together, so in one unit, as a
// table column of them would be (DurationColumn).
QString change(TimeNs b, TimeNs a)
{
    DurationColumn unit;
    for (TimeNs t : {b, a, a - b})
        unit.add(t);
    const QString delta = unit.format(a - b);
    QString t = QStringLiteral("%1 → %2 (%3")
                    .arg(unit.format(b), unit.format(a), a > b ? QLatin1Char('+') + delta : delta);
    if (b > 0)
        t += QStringLiteral(", %1%2").arg(a >= b ? QStringLiteral("+") : QString(), formatPercent(a - b, b));
    return t + QLatin1Char(')');
}

// The earliest event of a side named `name` whose category is `cat`, or for
// kernels (gpu = true) any GPU activity category.
TimelineEvent firstEvent(const TimelineData &d, const std::string &name, const std::string *cat, bool gpu)
{
    const TimelineFile &f = d.files().front();
    const TraceModel &m = *f.model;
    const StrId n = m.findString(name);
    if (n == kNoStr)
        return {};
    TimelineEvent best;
    TimeNs bestStart = 0;
    for (size_t t = 0; t < m.tracks().size(); ++t) {
        const Track &tr = m.tracks()[t];
        for (size_t i = 0; i < tr.size(); ++i) {
            if (tr.name[i] != n)
                continue;
            const std::string_view c = m.str(tr.cat[i]);
            const bool match = gpu ? category::isGpuActivity(c) : c == *cat;
            if (!match || (best.valid() && tr.start[i] >= bestStart))
                continue;
            const TimelineEvent e = d.eventOf(0, {uint32_t(t), uint32_t(i)});
            if (e.valid()) {
                best = e;
                bestStart = tr.start[i];
            }
        }
    }
    return best;
}

} // namespace

CompareView::CompareView(QWidget *parent) : QWidget(parent)
{
    setWindowTitle(tr("Compare — syncscope"));
    addCloseAction();
    auto *layout = new QVBoxLayout(this);
    buildHeader(layout);
    auto *split = new QSplitter(Qt::Vertical, this);
    for (int s = 0; s < 2; ++s)
        split->addWidget(buildSide(s, split));
    split->addWidget(buildTabs(split));
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 2);
    split->setStretchFactor(2, 3);
    layout->addWidget(split, 1);
    layout->addLayout(buildExportRow());
    connect(m_loader, &JobRunner::failed, this, [this](quint64, const QString &error) {
        showError(error);
        Q_EMIT loadFailed(error);
    });
    resize(1280, 900);
}

// Ctrl+W and Esc close the window, as a window of its own should.
void CompareView::addCloseAction()
{
    auto *closeWindow = new QAction(tr("Close Window"), this);
    closeWindow->setShortcuts({QKeySequence(QKeySequence::Close), QKeySequence(Qt::Key_Escape)});
    closeWindow->setShortcutContext(Qt::WindowShortcut);
    connect(closeWindow, &QAction::triggered, this, &QWidget::close);
    addAction(closeWindow);
}

// Above: what is compared, why it failed, the loading bar.
void CompareView::buildHeader(QVBoxLayout *layout)
{
    m_header = new QLabel(tr("Open two traces to compare: File ▸ Compare With…"), this);
    m_header->setWordWrap(true);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_header);
    m_error = new NoticeBar(this, NoticeBar::Look::Line);
    m_error->setObjectName(QStringLiteral("compareError"));
    layout->addWidget(m_error);
    m_loader = new JobRunner(this);
    // The bar alone, with Cancel: the title would only repeat the window's.
    m_progressRow = new ProgressRow(m_loader, ProgressRow::Style{false, false}, this);
    layout->addWidget(m_progressRow);
}

// One side (0 before, 1 after): its title, the step it is aligned at, its timeline.
QWidget *CompareView::buildSide(int s, QWidget *parent)
{
    auto *box = new QWidget(parent);
    auto *bl = new QVBoxLayout(box);
    bl->setContentsMargins(0, 0, 0, 0);
    auto *row = new QHBoxLayout;
    m_titles[s] = new QLabel(s ? tr("<b>After</b>") : tr("<b>Before</b>"), box);
    m_titles[s]->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_align[s] = new QComboBox(box);
    m_align[s]->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_align[s]->setToolTip(tr("The step whose start lines up with the other trace's aligned step"));
    row->addWidget(m_titles[s], 1);
    row->addWidget(new QLabel(tr("Align at:"), box));
    row->addWidget(m_align[s]);
    bl->addLayout(row);
    m_views[s] = new TimelineView(box);
    m_views[s]->setMinimumHeight(140);
    bl->addWidget(m_views[s], 1);
    connect(m_views[s], &TimelineView::visibleRangeChanged, this, [this, s] { lockFrom(s); });
    connect(m_align[s], qOverload<int>(&QComboBox::activated), this,
            [this, s](int i) { setAlignStep(s, m_align[s]->itemData(i).toInt()); });
    return box;
}

// Below: a table per section, then the chart per step.
QTabWidget *CompareView::buildTabs(QWidget *parent)
{
    m_tabs = new QTabWidget(parent);
    m_tabs->addTab(makeTablePage(DiffTableModel::Sources), tr("Sync sources"));
    m_tabs->addTab(makeTablePage(DiffTableModel::Steps), tr("Steps"));
    m_tabs->addTab(makeTablePage(DiffTableModel::Ops), tr("Ops"));
    m_tabs->addTab(makeTablePage(DiffTableModel::Kernels), tr("Kernels"));
    m_tabs->addTab(buildChartPage(), tr("Chart per step"));
    return m_tabs;
}

// The chart per step: which figure, the chart, its export.
QWidget *CompareView::buildChartPage()
{
    auto *page = new QWidget(m_tabs);
    auto *vl = new QVBoxLayout(page);
    auto *row = new QHBoxLayout;
    m_metric = new QComboBox(page);
    for (StepMetric m : {StepMetric::StepTime, StepMetric::GpuBusy, StepMetric::Avoidable})
        m_metric->addItem(stepMetricTitle(m), int(m));
    connect(m_metric, qOverload<int>(&QComboBox::activated), this,
            [this](int i) { setStepMetric(StepMetric(m_metric->itemData(i).toInt())); });
    auto *exportButton = new QPushButton(tr("Export Chart…"), page);
    connect(exportButton, &QPushButton::clicked, this, [this] {
        saveWithDialog(tr("Export Chart"), QStringLiteral("steps.png"), tr("Images (*.png *.svg *.pdf)"),
                       [this](const QString &path, QString *error) {
                           return exportStepChart(path, QSize(1200, 700), error);
                       });
    });
    row->addWidget(new QLabel(tr("Per step:"), page));
    row->addWidget(m_metric);
    row->addStretch(1);
    row->addWidget(exportButton);
    vl->addLayout(row);
    m_chartView = new QChartView(page);
    m_chartView->setRenderHint(QPainter::Antialiasing);
    vl->addWidget(m_chartView, 1);
    return page;
}

// Asks where to save (under the last folder saved to), then saves with `save`;
// its error is a warning dialog.
void CompareView::saveWithDialog(const QString &title, const QString &defaultName, const QString &filter,
                                 const std::function<bool(const QString &, QString *)> &save)
{
    const QString path = QFileDialog::getSaveFileName(this, title, defaultSavePath(defaultName), filter);
    if (path.isEmpty())
        return;
    QString error;
    if (!save(path, &error))
        QMessageBox::warning(this, title, error);
    else
        rememberSaveFolder(path);
}

// At the bottom: the whole comparison exported.
QHBoxLayout *CompareView::buildExportRow()
{
    auto *bottom = new QHBoxLayout;
    auto *exportAll = new QPushButton(tr("Export Comparison…"), this);
    exportAll->setToolTip(tr("The whole comparison as `syncscope-cli diff` writes it: JSON or CSV"));
    connect(exportAll, &QPushButton::clicked, this, [this] {
        saveWithDialog(tr("Export Comparison"), QStringLiteral("diff.json"), tr("JSON or CSV (*.json *.csv)"),
                       [this](const QString &path, QString *error) { return exportComparison(path, error); });
    });
    bottom->addStretch(1);
    bottom->addWidget(exportAll);
    return bottom;
}

CompareView::~CompareView()
{
    m_loader->cancel();
    m_loader->waitForDone();
}

QWidget *CompareView::makeTablePage(DiffTableModel::Section s)
{
    auto *page = new QWidget(this);
    auto *vl = new QVBoxLayout(page);
    m_models[s] = new DiffTableModel(s, this);
    m_proxies[s] = new QSortFilterProxyModel(this);
    m_proxies[s]->setSourceModel(m_models[s]);
    m_proxies[s]->setSortRole(DiffTableModel::SortRole);
    // Long op and kernel names keep both ends; the columns keep their widths.
    m_tables[s] = makeTable(m_proxies[s], page, Qt::ElideMiddle);
    m_tables[s]->sortByColumn(-1, Qt::AscendingOrder); // the diff's own order until a header is clicked
    m_tables[s]->horizontalHeader()->setStretchLastSection(false);
    connect(m_tables[s], &QTableView::clicked, this,
            [this, s](const QModelIndex &i) { activateRow(s, m_proxies[s]->mapToSource(i).row()); });
    vl->addWidget(m_tables[s], 1);
    auto *row = new QHBoxLayout;
    auto *exportButton = new QPushButton(tr("Export Table…"), page);
    exportButton->setToolTip(tr("This table as CSV or JSON, in the order shown"));
    connect(exportButton, &QPushButton::clicked, this, [this, s] { exportTableWithDialog(s); });
    row->addStretch(1);
    row->addWidget(exportButton);
    vl->addLayout(row);
    return page;
}

void CompareView::openFiles(const QString &before, const QString &after)
{
    m_error->clear();
    m_loader->start(
        tr("Comparing"),
        [before, after](const ProgressFn &progress, const CancelToken *cancel) {
            return CompareData::build(before, after, progress, cancel);
        },
        this,
        [this](std::shared_ptr<const CompareData> data) {
            m_progressRow->hide();
            setData(std::move(data));
            Q_EMIT loaded();
        });
}

bool CompareView::isLoading() const { return m_loader->isRunning(); }

void CompareView::showError(const QString &text) { m_error->showMessage(text); }

void CompareView::setData(std::shared_ptr<const CompareData> data)
{
    m_data = std::move(data);
    for (int s = 0; s < 2; ++s) {
        m_titles[s]->setText(QStringLiteral("<b>%1</b> %2")
                                 .arg(s ? tr("After") : tr("Before"),
                                      (s ? m_data->afterPath : m_data->beforePath).toHtmlEscaped()));
        m_views[s]->setData(s ? m_data->after : m_data->before);
    }
    for (DiffTableModel *m : m_models)
        m->setData(m_data);
    // Every figure as wide as it reads; the name columns share the rest and
    // elide, so the changes at the right end are never cut.
    for (int s = 0; s < 4; ++s) {
        QTableView *t = m_tables[s];
        t->resizeColumnsToContents();
        for (int c = 0; c < m_models[s]->columnCount(); ++c)
            t->horizontalHeader()->setSectionResizeMode(c, m_models[s]->isNameColumn(c)
                                                               ? QHeaderView::Stretch
                                                               : QHeaderView::Interactive);
    }
    m_header->setText(headerText());
    // Open on the first table that has something to say.
    const TraceDiff &d = m_data->diff;
    m_tabs->setCurrentIndex(!d.sources.empty() ? DiffTableModel::Sources
                            : !d.steps.empty() ? DiffTableModel::Steps
                                               : DiffTableModel::Ops);
    fillAlignCombos();
    // First view: the aligned steps, as wide as the longer of the two.
    TimeNs width = 0;
    for (int s = 0; s < 2; ++s) {
        const SyncAnalysis &a = m_data->side(s).files().front().sync;
        if (m_alignStep[s] >= 0)
            width = std::max(width, a.steps[size_t(m_alignStep[s])].end - a.steps[size_t(m_alignStep[s])].start);
    }
    if (width > 0)
        m_views[0]->showInterval(anchor(0), anchor(0) + width);
    else
        m_views[0]->fitAll();
    lockFrom(0);
    rebuildChart();
}

void CompareView::fillAlignCombos()
{
    for (int s = 0; s < 2; ++s) {
        const SyncAnalysis &a = m_data->side(s).files().front().sync;
        const TraceModel &m = *m_data->side(s).files().front().model;
        m_align[s]->clear();
        m_align[s]->addItem(tr("trace start"), -1);
        for (size_t i = 0; i < a.steps.size(); ++i)
            m_align[s]->addItem(QStringLiteral("%1 (step %2)")
                                    .arg(QString::fromUtf8(m.str(a.steps[i].name).data(),
                                                           int(m.str(a.steps[i].name).size())))
                                    .arg(i),
                                int(i));
        m_alignStep[s] = a.steps.size() >= 2 ? 1 : a.steps.empty() ? -1 : 0;
        m_align[s]->setCurrentIndex(m_align[s]->findData(m_alignStep[s]));
    }
}

TimeNs CompareView::anchor(int side) const
{
    if (!m_data)
        return 0;
    const TimelineData &d = m_data->side(side);
    const SyncAnalysis &a = d.files().front().sync;
    const int step = m_alignStep[side];
    if (step >= 0 && size_t(step) < a.steps.size())
        return a.steps[size_t(step)].start;
    return d.minTime();
}

void CompareView::setAlignStep(int side, int step)
{
    if (!m_data)
        return;
    const SyncAnalysis &a = m_data->side(side).files().front().sync;
    m_alignStep[side] = step >= 0 && size_t(step) < a.steps.size() ? step : -1;
    const int i = m_align[side]->findData(m_alignStep[side]);
    if (i != m_align[side]->currentIndex())
        m_align[side]->setCurrentIndex(i);
    // The side that did not change leads: the changed one moves to line up.
    lockFrom(1 - side);
}

void CompareView::lockFrom(int side)
{
    if (m_locking || !m_data)
        return;
    m_locking = true;
    const TimeMapping &m = m_views[side]->mapping();
    const TimeNs offset = m.start() - anchor(side);
    const TimeNs t0 = anchor(1 - side) + offset;
    m_views[1 - side]->setVisibleRange(t0, t0 + m.span());
    // Each view keeps itself within its own trace (plus a margin). Where that
    // moved the follower, the leader follows it back, so the pair stays aligned
    // as far as both traces reach.
    const TimeMapping &f = m_views[1 - side]->mapping();
    const TimeNs moved = f.start() - anchor(1 - side);
    if (moved != offset && f.span() == m.span())
        m_views[side]->setVisibleRange(anchor(side) + moved, anchor(side) + moved + f.span());
    m_locking = false;
}

void CompareView::activateRow(DiffTableModel::Section s, int row)
{
    if (!m_data || row < 0 || row >= m_models[s]->rowCount())
        return;
    const TraceDiff &d = m_data->diff;
    TimelineEvent ev[2];
    switch (s) {
    case DiffTableModel::Sources: {
        const SourceDiff &src = d.sources[size_t(row)];
        const size_t idx[2] = {src.beforeIndex, src.afterIndex};
        for (int side = 0; side < 2; ++side) {
            const TimelineFile &f = m_data->side(side).files().front();
            if (idx[side] == kNoIndex || f.sync.sources[idx[side]].calls.empty())
                continue;
            const SyncCall &c = f.sync.syncCalls[f.sync.sources[idx[side]].calls.front()];
            ev[side] = m_data->side(side).eventOf(0, c.event);
        }
        break;
    }
    case DiffTableModel::Steps: {
        // A step row also aligns both timelines at that step.
        const size_t i = d.steps[size_t(row)].index;
        for (int side = 0; side < 2; ++side) {
            const TimelineFile &f = m_data->side(side).files().front();
            if (i < f.sync.steps.size()) {
                ev[side] = m_data->side(side).eventOf(0, f.sync.steps[i].event);
                m_alignStep[side] = int(i);
                m_align[side]->setCurrentIndex(m_align[side]->findData(int(i)));
            }
        }
        break;
    }
    case DiffTableModel::Ops: {
        const OpDiff &o = d.ops[size_t(row)];
        for (int side = 0; side < 2; ++side)
            if (side ? bool(o.after) : bool(o.before))
                ev[side] = firstEvent(m_data->side(side), o.name, &o.cat, false);
        break;
    }
    case DiffTableModel::Kernels: {
        const KernelDiff &k = d.kernels[size_t(row)];
        for (int side = 0; side < 2; ++side)
            if (side ? bool(k.after) : bool(k.before))
                ev[side] = firstEvent(m_data->side(side), k.name, nullptr, true);
        break;
    }
    }
    // Select in both without moving them, then reveal in one: the lock moves the other.
    for (int side = 0; side < 2; ++side)
        m_views[side]->selectEvent(ev[side], false);
    const int lead = ev[0].valid() ? 0 : 1;
    if (ev[lead].valid()) {
        const TimelineData &dd = m_data->side(lead);
        m_views[lead]->revealEvent(ev[lead]);
        if (ev[1 - lead].valid())
            m_views[1 - lead]->revealEvent(ev[1 - lead]);
        m_views[lead]->showInterval(dd.start(ev[lead]), dd.end(ev[lead]));
    }
    lockFrom(lead);
}

QString CompareView::headerText() const
{
    if (!m_data)
        return m_header->text();
    const TraceDiff &d = m_data->diff;
    QStringList parts;
    const StepTime &sb = d.stepTimeBefore, &sa = d.stepTimeAfter;
    if (fewSteps(sb, sa)) {
        // A median of a few steps hides a change in one of them: every step.
        QStringList steps;
        for (const StepDiff &s : d.steps)
            steps << (s.before && s.after ? tr("#%1 %2").arg(s.index).arg(change(s.before->dur, s.after->dur))
                                          : tr("#%1 in one trace only").arg(s.index));
        parts << tr("<b>Step time</b> (each of %1 → %2 steps): %3")
                     .arg(sb.count)
                     .arg(sa.count)
                     .arg(steps.join(QStringLiteral(", ")));
    } else if (sb.count && sa.count)
        parts << tr("<b>Step time</b> (median of %1 → %2 steps): %3")
                     .arg(sb.count)
                     .arg(sa.count)
                     .arg(change(sb.median, sa.median));
    else
        parts << tr("<b>Step time</b>: no ProfilerStep#N steps in %1")
                     .arg(sb.count   ? tr("after")
                          : sa.count ? tr("before")
                                     : tr("either trace"));
    const DiffTotals &tb = d.totalsBefore, &ta = d.totalsAfter;
    if (tb.devices || ta.devices) {
        parts << tr("<b>GPU busy</b>: %1 → %2")
                     .arg(formatPercent(tb.busy, tb.span), formatPercent(ta.busy, ta.span));
        parts << tr("<b>Sync-gap time</b>: %1").arg(change(tb.syncGap, ta.syncGap));
        parts << tr("<b>Avoidable</b>: %1").arg(change(tb.avoidable, ta.avoidable));
    } else {
        parts << tr("<b>GPU</b>: no GPU activity in either trace");
    }
    parts << tr("<b>Sync calls</b>: %1 → %2").arg(tb.syncCalls).arg(ta.syncCalls);
    return parts.join(QStringLiteral(" &nbsp;·&nbsp; "));
}

bool CompareView::exportTable(DiffTableModel::Section s, const QString &path, QString *error)
{
    std::vector<int> rows;
    for (int r = 0; r < m_proxies[s]->rowCount(); ++r)
        rows.push_back(m_proxies[s]->mapToSource(m_proxies[s]->index(r, 0)).row());
    const bool json = path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive);
    if (!json && !path.endsWith(QLatin1String(".csv"), Qt::CaseInsensitive)) {
        if (error)
            *error = tr("'%1' must end in .csv or .json.").arg(path);
        return false;
    }
    if (rows.empty() && m_models[s]->rowCount() == 0 && !m_data) {
        if (error)
            *error = tr("There is no comparison to export yet.");
        return false;
    }
    const std::string text = json ? m_models[s]->toJson(rows) : m_models[s]->toCsv(rows);
    return writeFileAtomically(path, QByteArray::fromStdString(text), error);
}

bool CompareView::exportComparison(const QString &path, QString *error)
{
    const bool json = path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive);
    if (!m_data || (!json && !path.endsWith(QLatin1String(".csv"), Qt::CaseInsensitive))) {
        if (error)
            *error = m_data ? tr("'%1' must end in .csv or .json.").arg(path)
                            : tr("There is no comparison to export yet.");
        return false;
    }
    const std::string text = json ? traceDiffToJson(m_data->diff) : traceDiffToCsv(m_data->diff);
    return writeFileAtomically(path, QByteArray::fromStdString(text), error);
}

void CompareView::exportTableWithDialog(DiffTableModel::Section s)
{
    static const char *names[] = {"sources", "steps", "ops", "kernels"};
    saveWithDialog(tr("Export Table"), QStringLiteral("%1.csv").arg(QLatin1String(names[s])),
                   tr("CSV or JSON (*.csv *.json)"),
                   [this, s](const QString &path, QString *error) { return exportTable(s, path, error); });
}

void CompareView::setStepMetric(StepMetric metric)
{
    m_stepMetric = metric;
    m_metric->setCurrentIndex(m_metric->findData(int(metric)));
    rebuildChart();
}

void CompareView::rebuildChart()
{
    if (!m_data)
        return;
    QString why;
    QChart *chart = makeStepCompareChart(m_data->diff, m_stepMetric, &why);
    if (!chart) {
        chart = new QChart;
        chart->setTitle(why);
    }
    QChart *old = m_chartView->chart();
    m_chartView->setChart(chart);
    delete old;
}

bool CompareView::exportStepChart(const QString &path, const QSize &size, QString *error)
{
    if (!m_data) {
        if (error)
            *error = tr("There is no comparison to export yet.");
        return false;
    }
    QString why;
    std::unique_ptr<QChart> chart(makeStepCompareChart(m_data->diff, m_stepMetric, &why));
    if (!chart) {
        if (error)
            *error = why;
        return false;
    }
    return exportChart(chart.get(), size, path, error);
}

} // namespace syncscope::ui
