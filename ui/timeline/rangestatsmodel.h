#pragma once
// Op statistics of a time range (the timeline's range selection): count, total
// and self time per (name, category), merged over the ranks of the job.
#include "common/progress.h"
#include "timeline/timelinedata.h"

#include <QAbstractTableModel>

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
                                    const ProgressFn &progress = {},
                                    const CancelToken *cancel = nullptr);

    explicit RangeStatsModel(QObject *parent = nullptr);
    void setRows(std::vector<Row> rows);
    void clear() { setRows({}); }
    const std::vector<Row> &rows() const { return m_rows; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::vector<Row> m_rows;
};

} // namespace syncscope::ui
