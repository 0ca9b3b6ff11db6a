#pragma once
// Every bench run of the session as one table: a thin adapter over the
// BenchReport values, one row per (run, variant, point).
#include "lab/api/bench.h"
#include "shared/timeformat.h"

#include <QAbstractTableModel>

#include <optional>
#include <vector>

namespace syncscope::ui {

class ResultsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        RunColumn,
        VariantColumn,
        DeviceColumn,
        NColumn,
        KColumn,
        BatchColumn,
        DimColumn,
        PosFracColumn,
        MedianColumn,
        P5Column,
        P95Column,
        MeanColumn,
        StdevColumn,
        FloorColumn,
        RatioColumn,
        SyncsColumn,
        PeakColumn,
        ItersColumn,
        StatusColumn,
        ColumnCount
    };
    // Raw value for sorting (numbers as doubles, text as text).
    static constexpr int SortRole = Qt::UserRole + 1;

    explicit ResultsModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // Appends a run; returns its id (1, 2, ...).
    int addRun(const lab::BenchReport &report, const QString &label);
    void clear();
    int runCount() const { return static_cast<int>(m_runs.size()); }
    int lastRunId() const { return m_runs.empty() ? 0 : m_runs.back().id; }
    bool hasRun(int id) const { return findRun(id) != nullptr; }
    const lab::BenchReport &report(int runId) const;
    QString runLabel(int runId) const;
    int runOfRow(int row) const;
    const lab::BenchResult &result(int row) const;
    // The first row of a run, or -1.
    int firstRowOfRun(int runId) const;

private:
    struct Run {
        int id = 0;
        QString label;
        lab::BenchReport report;
    };
    struct Row {
        int run = 0;
        size_t index = 0;
    };
    const Run *findRun(int id) const;
    // The step times of a column, as the lab measured them (ms), or null.
    static std::optional<double> timeMs(const lab::BenchResult &r, int column);
    void fitTimeColumns();

    std::vector<Run> m_runs;
    std::vector<Row> m_rows;
    int m_nextId = 1;
    // One unit per time column (Median to Floor), fitted to every row.
    DurationColumn m_timeColumns[FloorColumn - MedianColumn + 1];
};

} // namespace syncscope::ui
