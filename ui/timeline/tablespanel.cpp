#include "timeline/tablespanel.h"

#include "shared/tables.h"
#include "timeline/advicepanel.h"
#include "timeline/devicetablemodel.h"
#include "timeline/eventdetailspanel.h"
#include "timeline/rangestatsmodel.h"
#include "timeline/stepchart.h"
#include "timeline/syncgapmodel.h"
#include "timeline/syncsourcemodel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace syncscope::ui {

namespace {

// The columns `first` right after the first one, in this order.
void moveColumnsForward(QTableView *table, std::initializer_list<int> first)
{
    QHeaderView *h = table->horizontalHeader();
    int to = 1;
    for (int c : first)
        h->moveSection(h->visualIndex(c), to++);
}

} // namespace

TablesPanel::TablesPanel(QWidget *parent) : QSplitter(Qt::Vertical, parent)
{
    buildGapTable();
    buildSourceTable();
    m_stepChart = new StepChart(this);
    buildRangeTable();
    buildDeviceTable();
    QWidget *rangePage = buildRangePage();
    buildTabs(rangePage);
    QWidget *gapPanel = buildGapPanel();
    addWidget(buildSourcePanel());
    addWidget(gapPanel);
    addWidget(m_tabs);
    setSizes({260, 320, 300});
}

void TablesPanel::buildGapTable()
{
    m_gapModel = new SyncGapModel(this);
    m_gapProxy = new SyncGapSortModel(this);
    m_gapProxy->setSourceModel(m_gapModel);
    m_gapTable = makeTable(m_gapProxy, this, Qt::ElideMiddle);
    // What removing the gap's cause would save first: the gap to look at.
    m_gapTable->sortByColumn(SyncGapModel::Avoidable, Qt::DescendingOrder);
    m_gapTable->setSelectionMode(QAbstractItemView::ExtendedSelection);
}

void TablesPanel::buildSourceTable()
{
    m_sourceModel = new SyncSourceModel(this);
    m_sourceProxy = new QSortFilterProxyModel(this);
    m_sourceProxy->setSourceModel(m_sourceModel);
    m_sourceProxy->setSortRole(SyncSourceModel::SortRole);
    m_sourceTable = makeTable(m_sourceProxy, this, Qt::ElideMiddle);
    m_sourceTable->sortByColumn(SyncSourceModel::Avoidable, Qt::DescendingOrder);
    // The numbers first, the names after them: in a narrow panel the names elide.
    moveColumnsForward(m_sourceTable, {SyncSourceModel::Count, SyncSourceModel::Gaps, SyncSourceModel::GapTime,
                                       SyncSourceModel::Rank});
}

void TablesPanel::buildRangeTable()
{
    m_rangeModel = new RangeStatsModel(this);
    m_rangeProxy = new QSortFilterProxyModel(this);
    m_rangeProxy->setSourceModel(m_rangeModel);
    m_rangeProxy->setSortRole(RangeStatsModel::SortRole);
    m_rangeTable = makeTable(m_rangeProxy, this, Qt::ElideMiddle);
    m_rangeTable->sortByColumn(RangeStatsModel::Total, Qt::DescendingOrder);
    m_rangeProxy->setFilterKeyColumn(RangeStatsModel::Category);
    // Op names are long: the user sizes the name column; it starts readable.
    m_rangeTable->horizontalHeader()->setSectionResizeMode(RangeStatsModel::Name, QHeaderView::Interactive);
    m_rangeTable->setColumnWidth(RangeStatsModel::Name, 220);
    m_rangeCategory = new QComboBox(this);
    m_rangeCategory->setToolTip(tr("Show the ops of one category only"));
    m_rangeCategory->addItem(tr("All categories"));
    m_rangeCategory->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    connect(m_rangeCategory, &QComboBox::currentIndexChanged, this, [this](int index) {
        // Item data holds the category itself ("" is a category too).
        m_rangeProxy->setFilterRegularExpression(
            index <= 0
                ? QString()
                : QLatin1Char('^') + QRegularExpression::escape(m_rangeCategory->itemData(index).toString()) +
                      QLatin1Char('$'));
    });
}

void TablesPanel::buildDeviceTable()
{
    m_deviceModel = new DeviceTableModel(this);
    m_deviceProxy = new QSortFilterProxyModel(this);
    m_deviceProxy->setSourceModel(m_deviceModel);
    m_deviceProxy->setSortRole(DeviceTableModel::SortRole);
    m_deviceTable = makeTable(m_deviceProxy, this, Qt::ElideMiddle);
    m_deviceTable->sortByColumn(DeviceTableModel::Avoidable, Qt::DescendingOrder);
    // As the sources: the rank and the numbers first, the names after them.
    moveColumnsForward(m_deviceTable, {DeviceTableModel::Avoidable, DeviceTableModel::SyncGapTime,
                                       DeviceTableModel::Gaps, DeviceTableModel::Busy, DeviceTableModel::Span});
    m_deviceTable->setToolTip(tr("Every device of every open file; click one to show its track"));
}

QWidget *TablesPanel::buildRangePage()
{
    m_rangeLabel = new QLabel(tr("Shift+drag across the timeline (or drag on the ruler) to "
                                 "see op statistics for a time range."),
                              this);
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
    return rangePage;
}

void TablesPanel::buildTabs(QWidget *rangePage)
{
    m_details = new EventDetailsPanel(this);
    m_tabs = new QTabWidget(this);
    m_tabs->addTab(m_details, tr("Details"));
    m_tabs->addTab(rangePage, tr("Range"));
    m_tabs->setTabToolTip(1, tr("Op statistics for a time range (Shift+drag across the timeline)"));
    m_tabs->addTab(m_stepChart, tr("Steps"));
    m_advice = new AdvicePanel(this);
    m_tabs->addTab(m_advice, tr("Advice"));
    m_tabs->setTabToolTip(3, tr("What to write instead of the selected sync source"));
    m_tabs->addTab(m_deviceTable, tr("Devices"));
    m_tabs->setTabToolTip(4, tr("The figures of every device of every open file (rank), "
                                "each named by its rank and device"));
}

QWidget *TablesPanel::buildGapPanel()
{
    return titled(tr("<b>Sync gaps</b> — GPU idle while the host blocked; "
                     "click one to zoom to it"),
                  m_gapTable, this);
}

QWidget *TablesPanel::buildSourcePanel()
{
    QWidget *panel = titled(tr("<b>Sync sources</b> — blocking calls by (sync, op, user frame), "
                               "by what removing all of them would save; click one to select "
                               "its gaps"),
                            m_sourceTable, this);
    // Long host calls that are not syncs: the host waited inside them. Shown
    // beside the syncs, never counted in their figures.
    m_longCalls = new QLabel(panel);
    m_longCalls->setWordWrap(true);
    m_longCalls->setTextInteractionFlags(Qt::LinksAccessibleByMouse | Qt::LinksAccessibleByKeyboard);
    m_longCalls->hide();
    panel->layout()->addWidget(m_longCalls);
    return panel;
}

} // namespace syncscope::ui
