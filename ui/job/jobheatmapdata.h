#pragma once
// The rank x step grid of a job, as the heat map shows it: one row per rank
// (JobScale::rankRows), one column per step, each cell a RankStep. Pure data,
// no painting, so the values shown can be checked without pixels.
//  - A column is a step name and its occurrence within the rank: a job's ranks
//    share their ProfilerStep#N names, and a rank that misses a step leaves
//    its cell empty rather than shifting the row. Names that all end in a
//    number sort by that number.
//  - A cell's value is one RankStep field (avoidable, lateness or wait), an
//    integer ns; the colour scale runs from 0 to the largest cell.
#include "analysis/jobscale.h"

#include <QString>

#include <memory>
#include <optional>
#include <vector>

namespace syncscope::ui {

enum class HeatMetric { Avoidable = 0, Lateness = 1, Wait = 2 };
// Ties: by rank, ascending. Every order but Rank puts the largest first.
enum class RankOrder { Rank = 0, JobAvoidable = 1, LastArrivals = 2, Wait = 3 };

QString heatMetricName(HeatMetric metric);       // "Avoidable", "Lateness", "Wait"
QString heatMetricDefinition(HeatMetric metric); // one sentence
QString rankOrderName(RankOrder order);
TimeNs heatMetricValue(const RankStep &step, HeatMetric metric);

class JobHeatMapData {
public:
    JobHeatMapData() = default;
    explicit JobHeatMapData(std::shared_ptr<const JobScale> job);

    const std::shared_ptr<const JobScale> &job() const { return m_job; }
    void setOrder(RankOrder order);
    RankOrder order() const { return m_order; }

    int rows() const { return int(m_rowOrder.size()); }
    int columns() const { return int(m_columns.size()); }
    // The rank shown in row `row`: an index into job()->rankRows.
    int rankRowAt(int row) const { return m_rowOrder[size_t(row)]; }
    // The shown row of a rank row, -1 when out of range.
    int rowOfRankRow(int rankRow) const;
    // "ProfilerStep#12", or "train (2)" for the second step named "train".
    const QString &columnName(int column) const { return m_columns[size_t(column)].label; }
    // What the header prints: the trailing number when every name has one.
    QString columnShortName(int column) const;
    // An index into job()->rankSteps, -1 when this rank has no such step.
    int stepAt(int row, int column) const;
    std::optional<TimeNs> value(int row, int column, HeatMetric metric) const;
    // The largest cell (0 when none), the top of the colour scale.
    TimeNs maxValue(HeatMetric metric) const;
    // The cell's sentence for the tooltip: the rank, the step and the exact value.
    QString cellText(int row, int column, HeatMetric metric) const;

private:
    struct Column {
        QString name;
        int occurrence = 0;
        QString label;
        QString shortName;
    };
    std::shared_ptr<const JobScale> m_job;
    std::vector<Column> m_columns;
    std::vector<int32_t> m_cells; // rank row * columns + column -> rankSteps index or -1
    std::vector<int> m_rowOrder;
    RankOrder m_order = RankOrder::Rank;
    TimeNs m_max[3] = {0, 0, 0};
};

} // namespace syncscope::ui
