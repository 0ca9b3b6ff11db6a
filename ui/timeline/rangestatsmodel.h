#pragma once
// Op statistics of a time range (the timeline's range selection): count, total
// and self time per (name, category), merged over the ranks of the job.
#include "common/progress.h"
#include "shared/timeformat.h"
#include "timeline/timelinedata.h"

#include <QAbstractTableModel>
#include <QStringList>

#include <string>
#include <utility>
#include <vector>

namespace syncscope::ui {

class RangeStatsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Category, Count, Total, Self, Max, ColumnCount };
    static constexpr int SortRole = Qt::UserRole;

    struct Row {
        QString name, category;
        uint64_t count = 0;
        TimeNs total = 0, self = 0, max = 0;
    };

    // Clipped to [t0, t1) (see opStatistics); longest total first. Runs on a
    // worker thread; throws Cancelled.
    static std::vector<Row> compute(const TimelineData &data, TimeNs t0, TimeNs t1,
                                    const ProgressFn &progress = {}, const CancelToken *cancel = nullptr);

    explicit RangeStatsModel(QObject *parent = nullptr);
    void setRows(std::vector<Row> rows);
    void clear() { setRows({}); }
    const std::vector<Row> &rows() const { return m_rows; }
    // The range the rows describe (set with them by the page; for the exports).
    void setRange(TimeNs t0, TimeNs t1)
    {
        m_t0 = t0;
        m_t1 = t1;
    }
    std::pair<TimeNs, TimeNs> range() const { return {m_t0, m_t1}; }
    // Categories of the rows, sorted, each once (the page's category filter).
    QStringList categories() const;

    // The given rows (indices into rows(), in this order) as CSV with a header
    // line, times in exact microseconds; and as JSON {"range": {...}, "ops":
    // [...]}, each time as integer ns ("total_ns") and exact microseconds
    // ("total_us").
    std::string toCsv(const std::vector<int> &rows) const;
    std::string toJson(const std::vector<int> &rows) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::vector<Row> m_rows;
    TimeNs m_t0 = 0, m_t1 = 0;
    DurationColumn m_total, m_self, m_max; // one unit per column
};

} // namespace syncscope::ui
