#pragma once
// The Timeline page's side panel: the sync sources over the sync gaps, and
// under them the tabs of the selection (Details, Range, Steps, Advice,
// Devices). It builds the tables with their models and sorted proxies; the
// page fills the models and acts on clicks.
#include <QSplitter>

class QComboBox;
class QLabel;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;

namespace syncscope::ui {

class AdvicePanel;
class DeviceTableModel;
class EventDetailsPanel;
class RangeStatsModel;
class StepChart;
class SyncGapModel;
class SyncSourceModel;

class TablesPanel : public QSplitter {
    Q_OBJECT
public:
    explicit TablesPanel(QWidget *parent = nullptr);

    SyncGapModel *gapModel() const { return m_gapModel; }
    QSortFilterProxyModel *gapProxy() const { return m_gapProxy; }
    QTableView *gapTable() const { return m_gapTable; }
    SyncSourceModel *sourceModel() const { return m_sourceModel; }
    QSortFilterProxyModel *sourceProxy() const { return m_sourceProxy; }
    QTableView *sourceTable() const { return m_sourceTable; }
    // Under the sources: long host calls that are not syncs (a link selects the longest).
    QLabel *longCallsLabel() const { return m_longCalls; }
    RangeStatsModel *rangeModel() const { return m_rangeModel; }
    QSortFilterProxyModel *rangeProxy() const { return m_rangeProxy; }
    QTableView *rangeTable() const { return m_rangeTable; }
    QLabel *rangeLabel() const { return m_rangeLabel; }
    // "All categories", then each category of the range statistics.
    QComboBox *rangeCategoryBox() const { return m_rangeCategory; }
    DeviceTableModel *deviceModel() const { return m_deviceModel; }
    QSortFilterProxyModel *deviceProxy() const { return m_deviceProxy; }
    QTableView *deviceTable() const { return m_deviceTable; }
    StepChart *stepChart() const { return m_stepChart; }
    EventDetailsPanel *details() const { return m_details; }
    AdvicePanel *advice() const { return m_advice; }
    QTabWidget *tabs() const { return m_tabs; }
    // The four tables, for what the page does to each (a context menu).
    QList<QTableView *> tables() const { return {m_gapTable, m_sourceTable, m_rangeTable, m_deviceTable}; }

private:
    void buildGapTable();
    void buildSourceTable();
    void buildRangeTable();
    void buildDeviceTable();
    QWidget *buildRangePage();
    void buildTabs(QWidget *rangePage);
    QWidget *buildGapPanel();
    QWidget *buildSourcePanel();

    SyncGapModel *m_gapModel = nullptr;
    QSortFilterProxyModel *m_gapProxy = nullptr;
    QTableView *m_gapTable = nullptr;
    SyncSourceModel *m_sourceModel = nullptr;
    QSortFilterProxyModel *m_sourceProxy = nullptr;
    QTableView *m_sourceTable = nullptr;
    QLabel *m_longCalls = nullptr;
    RangeStatsModel *m_rangeModel = nullptr;
    QSortFilterProxyModel *m_rangeProxy = nullptr;
    QTableView *m_rangeTable = nullptr;
    QLabel *m_rangeLabel = nullptr;
    QComboBox *m_rangeCategory = nullptr;
    DeviceTableModel *m_deviceModel = nullptr;
    QSortFilterProxyModel *m_deviceProxy = nullptr;
    QTableView *m_deviceTable = nullptr;
    StepChart *m_stepChart = nullptr;
    EventDetailsPanel *m_details = nullptr;
    AdvicePanel *m_advice = nullptr;
    QTabWidget *m_tabs = nullptr;
};

} // namespace syncscope::ui
