#pragma once
// Compare: two traces stacked, before above after, each timeline with its
// sync-gap bands; zoom and pan locked together with both aligned at a chosen
// step start (by default the second step of each, index 1, since the first often
// carries warm-up; the first step or the trace start when there are fewer).
// Below, the headline deltas, tables of sync sources, steps, ops and kernels
// (sortable, exported to CSV and JSON; a row click selects the matching events
// in both timelines) and the before/after chart per step.
#include "analysis/tracediff.h"
#include "compare/difftablemodel.h"
#include "compare/stepchart.h"

#include <QString>
#include <QWidget>

#include <functional>
#include <memory>

class QComboBox;
class QHBoxLayout;
class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;
class QVBoxLayout;

QT_BEGIN_NAMESPACE
class QChartView;
QT_END_NAMESPACE

namespace syncscope::ui {

struct CompareData;
class JobRunner;
class NoticeBar;
class ProgressRow;
class TimelineView;

class CompareView : public QWidget {
    Q_OBJECT
public:
    explicit CompareView(QWidget *parent = nullptr);
    ~CompareView() override;

    // Loads both in the background; replaces what is shown once both load.
    void openFiles(const QString &before, const QString &after);
    bool isLoading() const;
    const std::shared_ptr<const CompareData> &compareData() const { return m_data; }

    TimelineView *view(int side) const { return m_views[side]; }
    QComboBox *alignCombo(int side) const { return m_align[side]; }
    // The aligned step of a side (index into its steps, -1: the trace start) and
    // the time the lock pairs with the other side's.
    void setAlignStep(int side, int step);
    int alignStep(int side) const { return m_alignStep[side]; }
    TimeNs anchor(int side) const;

    DiffTableModel *model(DiffTableModel::Section s) const { return m_models[s]; }
    QTableView *table(DiffTableModel::Section s) const { return m_tables[s]; }
    // What a click on a row does: select the matching events in both timelines.
    // row is a row of the model (not of the sorted view).
    void activateRow(DiffTableModel::Section s, int row);

    // .csv or .json by the extension; one sentence in *error on failure.
    bool exportTable(DiffTableModel::Section s, const QString &path, QString *error);
    bool exportComparison(const QString &path, QString *error); // the whole `diff` JSON or CSV
    bool exportStepChart(const QString &path, const QSize &size, QString *error);
    void setStepMetric(StepMetric metric);
    QString headerText() const;

Q_SIGNALS:
    void loaded();
    void loadFailed(const QString &error);

private:
    void setData(std::shared_ptr<const CompareData> data);
    void lockFrom(int side);
    void fillAlignCombos();
    void rebuildChart();
    void addCloseAction();
    void buildHeader(QVBoxLayout *layout);
    QWidget *buildSide(int side, QWidget *parent);
    QTabWidget *buildTabs(QWidget *parent);
    QWidget *buildChartPage();
    QHBoxLayout *buildExportRow();
    void saveWithDialog(const QString &title, const QString &defaultName, const QString &filter,
                        const std::function<bool(const QString &, QString *)> &save);
    QWidget *makeTablePage(DiffTableModel::Section s);
    void exportTableWithDialog(DiffTableModel::Section s);
    void showError(const QString &text);

    JobRunner *m_loader = nullptr;
    std::shared_ptr<const CompareData> m_data;
    TimelineView *m_views[2] = {nullptr, nullptr};
    QLabel *m_titles[2] = {nullptr, nullptr};
    QComboBox *m_align[2] = {nullptr, nullptr};
    int m_alignStep[2] = {-1, -1};
    bool m_locking = false;
    QLabel *m_header = nullptr;
    NoticeBar *m_error = nullptr;
    ProgressRow *m_progressRow = nullptr;
    QTabWidget *m_tabs = nullptr;
    DiffTableModel *m_models[4] = {};
    QSortFilterProxyModel *m_proxies[4] = {};
    QTableView *m_tables[4] = {};
    QComboBox *m_metric = nullptr;
    QChartView *m_chartView = nullptr;
    StepMetric m_stepMetric = StepMetric::StepTime;
};

} // namespace syncscope::ui
