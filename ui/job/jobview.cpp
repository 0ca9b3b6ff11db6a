#include "job/jobview.h"

#include "charts/chartexport.h"
#include "charts/exportdialog.h"
#include "job/jobheatmap.h"
#include "job/jobtablemodels.h"
#include "shared/savefolder.h"
#include "shared/tables.h"
#include "shared/timeformat.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QPainter>
#include <QResizeEvent>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

namespace syncscope::ui {

namespace {

// The legend above the heat map: it stays in view while the ranks scroll.
class HeatLegend : public QWidget {
public:
    HeatLegend(JobHeatMap *map, QWidget *parent) : QWidget(parent), m_map(map)
    {
        setMinimumHeight(2 * fontMetrics().height() + 8);
        setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    }

protected:
    void paintEvent(QPaintEvent *) override
    {
        QPainter p(this);
        JobHeatMap::paintLegend(&p, rect().adjusted(2, 0, -2, 0), m_map->metric(),
                                m_map->data().maxValue(m_map->metric()));
    }

private:
    JobHeatMap *m_map;
};

std::vector<int> shownOrder(const QSortFilterProxyModel *proxy)
{
    std::vector<int> rows;
    for (int r = 0; r < proxy->rowCount(); ++r)
        rows.push_back(proxy->mapToSource(proxy->index(r, 0)).row());
    return rows;
}

} // namespace

JobView::JobView(QWidget *parent) : QWidget(parent)
{
    m_headline = new QLabel(this);
    m_headline->setTextFormat(Qt::RichText);
    m_headline->setWordWrap(true);
    m_headline->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_warnings = new QLabel(this);
    m_warnings->setWordWrap(true);
    m_warnings->setStyleSheet(QStringLiteral("QLabel { color: #8a5a00; }"));
    m_warnings->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_warnings->hide();

    m_heatMap = new JobHeatMap(this);
    m_heatMap->setContextMenuPolicy(Qt::CustomContextMenu);
    m_metric = new QComboBox(this);
    for (HeatMetric m : {HeatMetric::Avoidable, HeatMetric::Lateness, HeatMetric::Wait}) {
        m_metric->addItem(heatMetricName(m), int(m));
        m_metric->setItemData(m_metric->count() - 1, heatMetricDefinition(m), Qt::ToolTipRole);
    }
    m_metric->setToolTip(tr("What each cell shows"));
    m_order = new QComboBox(this);
    for (RankOrder o : {RankOrder::Rank, RankOrder::JobAvoidable, RankOrder::LastArrivals, RankOrder::Wait})
        m_order->addItem(rankOrderName(o), int(o));
    m_order->setToolTip(tr("The order of the rows: by rank, or the largest first"));
    m_legend = new HeatLegend(m_heatMap, this);

    auto *controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("<b>Rank × step</b>"), this));
    controls->addWidget(new QLabel(tr("Show:"), this));
    controls->addWidget(m_metric);
    controls->addWidget(new QLabel(tr("Sort ranks by:"), this));
    controls->addWidget(m_order);
    controls->addSpacing(12);
    controls->addWidget(m_legend, 1);

    m_heatScroll = new QScrollArea(this);
    m_heatScroll->setWidget(m_heatMap);
    m_heatScroll->setWidgetResizable(true);
    m_heatScroll->setFrameShape(QFrame::NoFrame);

    auto *heatPanel = new QWidget(this);
    auto *heatLayout = new QVBoxLayout(heatPanel);
    heatLayout->setContentsMargins(2, 2, 2, 2);
    heatLayout->addLayout(controls);
    heatLayout->addWidget(m_heatScroll, 1);
    auto *hint = new QLabel(
        tr("Hover a cell for its exact value; click it to show that rank's step in the Timeline."), heatPanel);
    hint->setStyleSheet(QStringLiteral("QLabel { color: palette(placeholder-text); }"));
    heatLayout->addWidget(hint);

    m_rankModel = new JobRankModel(this);
    m_rankProxy = new QSortFilterProxyModel(this);
    m_rankProxy->setSourceModel(m_rankModel);
    m_rankProxy->setSortRole(JobRankModel::SortRole);
    m_rankTable = makeTable(m_rankProxy, this);
    m_rankTable->sortByColumn(JobRankModel::JobAvoidable, Qt::DescendingOrder);

    m_blameModel = new CollectiveBlameModel(this);
    m_blameProxy = new QSortFilterProxyModel(this);
    m_blameProxy->setSourceModel(m_blameModel);
    m_blameProxy->setSortRole(CollectiveBlameModel::SortRole);
    m_blameTable = makeTable(m_blameProxy, this);
    m_blameTable->sortByColumn(CollectiveBlameModel::Lateness, Qt::DescendingOrder);

    // The three costs side by side need a key: the rank's own GPU (local),
    // the job without that rank's calls, and the job without every rank's.
    m_costKey = new QLabel(this);
    m_costKey->setWordWrap(true);
    m_costKey->setTextFormat(Qt::RichText);
    m_costKey->setStyleSheet(QStringLiteral("QLabel { color: palette(placeholder-text); }"));
    auto *rankPanel = titled(tr("<b>Ranks</b> — what each rank's blocking calls cost the job, largest first"),
                             m_rankTable, this);
    qobject_cast<QVBoxLayout *>(rankPanel->layout())->insertWidget(1, m_costKey);
    connect(m_rankTable->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &JobView::updateCostKey);
    connect(m_rankProxy, &QAbstractItemModel::layoutChanged, this, &JobView::updateCostKey);

    auto *tables = new QSplitter(Qt::Horizontal, this);
    tables->addWidget(rankPanel);
    tables->addWidget(
        titled(tr("<b>Collectives' blame</b> — who arrived last, how late, and the sync that made it "
                  "late; click one to see it"),
               m_blameTable, this));
    tables->setSizes({600, 600});
    auto *split = new QSplitter(Qt::Vertical, this);
    m_split = split;
    m_heatPanel = heatPanel;
    split->addWidget(heatPanel);
    split->addWidget(tables);
    split->setStretchFactor(0, 0); // a taller page gives the tables the room
    split->setStretchFactor(1, 1);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_headline);
    layout->addWidget(m_warnings);
    layout->addWidget(split, 1);

    m_exportAction = new QAction(tr("&Export Heat Map…"), this);
    m_exportAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    m_copyAction = new QAction(tr("Cop&y Heat Map"), this);
    m_copyAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    for (QAction *a : {m_exportAction, m_copyAction}) {
        a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        a->setEnabled(false);
        addAction(a);
    }
    connect(m_exportAction, &QAction::triggered, this, &JobView::exportHeatMapWithDialog);
    connect(m_copyAction, &QAction::triggered, this, &JobView::copyHeatMap);

    connect(m_metric, &QComboBox::currentIndexChanged, this, [this] {
        m_heatMap->setMetric(HeatMetric(m_metric->currentData().toInt()));
        m_legend->update();
    });
    connect(m_order, &QComboBox::currentIndexChanged, this,
            [this] { m_heatMap->setOrder(RankOrder(m_order->currentData().toInt())); });
    connect(m_heatMap, &JobHeatMap::cellClicked, this, &JobView::showCell);
    connect(m_heatMap, &QWidget::customContextMenuRequested, this, [this](const QPoint &pos) {
        QMenu menu(this);
        menu.addAction(m_exportAction);
        menu.addAction(m_copyAction);
        menu.exec(m_heatMap->mapToGlobal(pos));
    });
    for (QTableView *t : {m_rankTable, m_blameTable})
        connect(t, &QWidget::customContextMenuRequested, this,
                [this, t](const QPoint &pos) { tableMenu(t, pos); });
    auto blameClicked = [this](const QModelIndex &index) {
        if (index.isValid())
            showBlame(m_blameProxy->mapToSource(index).row());
    };
    connect(m_blameTable, &QTableView::clicked, this, blameClicked);
    connect(m_blameTable, &QTableView::activated, this, blameClicked);

    setJob(nullptr);
}

void JobView::setJob(std::shared_ptr<const JobScale> job)
{
    m_job = std::move(job);
    m_heatMap->setJob(m_job);
    m_rankModel->setJob(m_job);
    m_blameModel->setJob(m_job);
    m_legend->update();
    const bool any = m_job && m_heatMap->data().rows() > 0 && m_heatMap->data().columns() > 0;
    m_exportAction->setEnabled(any);
    m_copyAction->setEnabled(any);
    for (QTableView *t : {m_rankTable, m_blameTable}) {
        t->resizeColumnsToContents();
        for (int c = 0; c < t->model()->columnCount(); ++c)
            t->setColumnWidth(c, std::min(t->columnWidth(c), 320));
    }
    updateHeadline();
    updateCostKey();
    m_sized = false;
    fitSplitter();
}

void JobView::updateCostKey()
{
    if (!m_job || m_rankProxy->rowCount() == 0) {
        m_costKey->clear();
        m_costKey->hide();
        return;
    }
    // The current row's figures as its cells print them, and the headline's.
    const QModelIndex current = m_rankTable->currentIndex();
    const int row = current.isValid() ? current.row() : 0;
    auto cell = [&](int column) { return m_rankProxy->index(row, column).data().toString(); };
    const QString rank = cell(JobRankModel::Rank);
    m_costKey->setText(
        tr("<b>Local avoidable</b> %1: rank %2's own GPU, its trace replayed without its syncs "
           "&nbsp;·&nbsp; <b>Job avoidable</b> %3: the whole job without rank %2's syncs (the other "
           "ranks still hold it at the collectives) &nbsp;·&nbsp; <b>Headline</b> %4: the job without "
           "every rank's syncs")
            .arg(cell(JobRankModel::LocalAvoidable), rank, cell(JobRankModel::JobAvoidable),
                 formatDuration(m_job->avoidable)));
    m_costKey->show();
}

void JobView::fitSplitter()
{
    // The heat map takes what its rows need, up to two thirds of the page;
    // the tables get the rest.
    const QList<int> sizes = m_split->sizes();
    const int total = sizes.value(0) + sizes.value(1);
    if (!m_job || total <= 0)
        return;
    const int chrome = m_heatPanel->sizeHint().height() - m_heatScroll->sizeHint().height();
    const int want = std::min(total * 2 / 3, std::max(160, chrome + m_heatMap->sizeHint().height() + 8));
    m_split->setSizes({want, total - want});
    m_sized = true;
}

void JobView::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    if (!m_sized) // the first time the page has a height, once its layout has run
        QTimer::singleShot(0, this, [this] {
            if (!m_sized)
                fitSplitter();
        });
}

void JobView::updateHeadline()
{
    if (!m_job) {
        m_headline->setText(tr("No job analysed"));
        m_warnings->hide();
        return;
    }
    const JobScale &j = *m_job;
    m_headline->setText(tr("<b>The job would finish up to %1 earlier without host waits</b> (%2 of its span of %3)"
                           "<br>%4 ranks · %5 collectives matched across the ranks, %6 unmatched (not coupled)")
                            .arg(formatDuration(j.avoidable), formatPercent(j.avoidable, j.span),
                                 formatDuration(j.span))
                            .arg(j.ranks)
                            .arg(j.collectives)
                            .arg(j.unmatched));
    m_headline->setToolTip(tr("How much earlier the job's last GPU activity would end, on the aligned clock, with "
                              "every blocking call of every rank removed (an upper bound: it assumes every sync "
                              "can go). The span runs from the first to the last GPU activity of any rank."));
    if (j.warnings.empty()) {
        m_warnings->hide();
        return;
    }
    constexpr size_t kShown = 3;
    QStringList lines;
    for (size_t i = 0; i < std::min(kShown, j.warnings.size()); ++i)
        lines << QString::fromStdString(j.warnings[i]);
    if (j.warnings.size() > kShown)
        lines << tr("… and %1 more (hover to see all)").arg(j.warnings.size() - kShown);
    QStringList all;
    for (const std::string &w : j.warnings)
        all << QString::fromStdString(w);
    m_warnings->setText((j.warnings.size() == 1 ? tr("1 warning: ") : tr("%1 warnings: ").arg(j.warnings.size())) +
                        lines.join(QStringLiteral("\n")));
    m_warnings->setToolTip(all.join(QLatin1Char('\n')));
    m_warnings->show();
}

QString JobView::headlineText() const { return m_headline->text(); }
QString JobView::warningsText() const { return m_warnings->isHidden() ? QString() : m_warnings->text(); }

void JobView::showCell(int rankRow, int step)
{
    if (!m_job || rankRow < 0 || rankRow >= int(m_job->rankRows.size()) || step < 0 ||
        step >= int(m_job->rankSteps.size()))
        return;
    const RankStep &s = m_job->rankSteps[size_t(step)];
    Q_EMIT showRankWindow(rankRow, s.start, s.end);
    Q_EMIT statusMessage(tr("Rank %1, %2: %3 %4")
                             .arg(s.rank)
                             .arg(QString::fromStdString(s.step), heatMetricName(m_heatMap->metric()).toLower(),
                                  formatDuration(heatMetricValue(s, m_heatMap->metric()))));
}

void JobView::showBlame(int blameRow)
{
    if (!m_job || blameRow < 0 || blameRow >= int(m_job->blame.size()))
        return;
    const CollectiveBlame &b = m_job->blame[size_t(blameRow)];
    const auto it = std::find_if(m_job->rankRows.begin(), m_job->rankRows.end(),
                                 [&](const JobRank &r) { return r.rank == b.lastRank; });
    if (it == m_job->rankRows.end())
        return;
    // The blame's times are on the aligned clock; the rank's steps, and the
    // Timeline, are in the clock the rank was analysed in.
    const TimeNs offset = it->analysedOffset;
    const TimeNs start = b.start + offset, end = b.end + offset;
    // What made the rank late happened before the collective, on the host:
    // show from the start of the latest step that began by then.
    TimeNs from = start, to = end;
    for (const RankStep &s : m_job->rankSteps)
        if (s.rank == b.lastRank && s.start <= start) {
            from = s.start;
            to = std::max(end, s.end);
        }
    CollectiveBlame inRankClock = b;
    inRankClock.start = start;
    inRankClock.end = end;
    Q_EMIT showBlameWindow(int(it - m_job->rankRows.begin()), from, to, inRankClock);
    Q_EMIT statusMessage(tr("Collective %1 #%2: rank %3 arrived %4 late%5")
                             .arg(QString::fromStdString(b.group))
                             .arg(b.seq)
                             .arg(b.lastRank)
                             .arg(formatDuration(b.lateness))
                             .arg(b.hasCause ? tr(", after %1").arg(CollectiveBlameModel::causeText(b))
                                             : QString()));
}

// ---- exports ---------------------------------------------------------------

QString JobView::exportBaseName() const
{
    if (!m_job || m_job->rankRows.empty())
        return QStringLiteral("job");
    return QFileInfo(QString::fromStdString(m_job->rankRows.front().file))
               .completeBaseName()
               .section(QLatin1Char('.'), 0, 0) +
           QStringLiteral("-job");
}

bool JobView::exportTable(Table table, const QString &path, QString *error) const
{
    const bool json = QFileInfo(path).suffix().compare(QLatin1String("json"), Qt::CaseInsensitive) == 0;
    std::string text;
    if (table == Table::Ranks) {
        const auto rows = shownOrder(m_rankProxy);
        text = json ? m_rankModel->toJson(rows) : m_rankModel->toCsv(rows);
    } else {
        const auto rows = shownOrder(m_blameProxy);
        text = json ? m_blameModel->toJson(rows) : m_blameModel->toCsv(rows);
    }
    return writeTextAtomically(path, text, error);
}

QString JobView::suggestedExportPath(Table table, bool json) const
{
    return defaultSavePath(exportBaseName() +
                           (table == Table::Ranks ? QStringLiteral("-ranks")
                                                  : QStringLiteral("-collective-blame")) +
                           (json ? QStringLiteral(".json") : QStringLiteral(".csv")));
}

void JobView::exportTableWithDialog(Table table, bool json)
{
    const QString title = table == Table::Ranks ? tr("Export Ranks") : tr("Export Collectives' Blame");
    const QString path = ui::exportTableWithDialog(this, title, suggestedExportPath(table, json), json,
                                                   [&](const QString &p, QString *error) {
                                                       return exportTable(table, p, error);
                                                   });
    if (path.isEmpty())
        return;
    Q_EMIT statusMessage(tr("Wrote %1").arg(QDir::toNativeSeparators(QFileInfo(path).absoluteFilePath())));
}

void JobView::tableMenu(QTableView *table, const QPoint &pos)
{
    const Table which = table == m_rankTable ? Table::Ranks : Table::Blame;
    QMenu menu(this);
    QAction *csv = menu.addAction(tr("Export CSV…"));
    QAction *json = menu.addAction(tr("Export JSON…"));
    const bool any = table->model()->rowCount() > 0;
    csv->setEnabled(any);
    json->setEnabled(any);
    QAction *chosen = menu.exec(table->viewport()->mapToGlobal(pos));
    if (chosen == csv || chosen == json)
        exportTableWithDialog(which, chosen == json);
}

QSize JobView::heatMapExportSize() const
{
    const int h = fontMetrics().height();
    const int rows = m_heatMap->data().rows();
    const int grid = std::max(rows * std::clamp(560 / std::max(1, rows), 4, 28), 120);
    return QSize(std::clamp(m_heatScroll->viewport()->width(), 640, 16384),
                 std::clamp(12 + h + 8 + h + 6 + grid + 44 + 12, 240, 16384));
}

bool JobView::exportHeatMap(const QString &path, const QSize &size, QString *error) const
{
    if (!m_exportAction->isEnabled()) {
        if (error)
            *error = tr("There is no heat map to export: the job has no steps.");
        return false;
    }
    return exportPainted([this](QPainter *p, const QSize &sz) { m_heatMap->paintAll(p, sz); }, size, path,
                         m_heatMap->title(), error);
}

QImage JobView::heatMapImage(const QSize &size, qreal scale) const
{
    return renderPaintedImage([this](QPainter *p, const QSize &sz) { m_heatMap->paintAll(p, sz); }, size, scale);
}

void JobView::exportHeatMapWithDialog()
{
    if (!m_exportAction->isEnabled())
        return;
    ExportDialog dialog(this, exportBaseName() + QStringLiteral("-heatmap"));
    dialog.setRenderer([this](const QSize &size, const QString &path, QString *error) {
        return exportHeatMap(path, size, error);
    });
    if (dialog.exec() != QDialog::Accepted)
        return;
    ExportDialog::announce(this, dialog.path());
}

void JobView::copyHeatMap()
{
    if (!m_copyAction->isEnabled())
        return;
    QApplication::clipboard()->setImage(heatMapImage(heatMapExportSize(), devicePixelRatioF()));
    Q_EMIT statusMessage(tr("Copied the heat map"));
}

} // namespace syncscope::ui
