#pragma once
// Every sync gap of the job as a table: rank, device, start, duration, the
// blocking call that caused it, its op and root op. A thin adapter over TimelineData.
#include "timeline/timelinedata.h"

#include <QAbstractTableModel>

#include <memory>

namespace syncscope::ui {

class SyncGapModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Rank, Device, Start, Duration, Call, Op, RootOp, ColumnCount };
    // Numbers for sorting (durations and times in ns), text columns as text.
    static constexpr int SortRole = Qt::UserRole;
    // Index into TimelineData::gaps().
    static constexpr int GapRole = Qt::UserRole + 1;

    explicit SyncGapModel(QObject *parent = nullptr);

    void setTimelineData(std::shared_ptr<const TimelineData> data);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

    // The names shown for a gap's call, op and root op ("" when there is none).
    QString callName(int row) const;
    QString opName(int row, bool root) const;

private:
    std::shared_ptr<const TimelineData> m_data;
};

} // namespace syncscope::ui
