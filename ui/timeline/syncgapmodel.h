#pragma once
// Every sync gap of the job as a table: rank, device, start, length, how long the
// host blocked, what removing its cause alone would save (avoidable), the
// blocking call, its op, user frame, step, root op and Python frame. A thin
// adapter over TimelineData; the page sorts it by avoidable.
#include "shared/timeformat.h"
#include "timeline/timelinedata.h"

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>

#include <memory>
#include <string>

namespace syncscope::ui {

class SyncGapModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // Avoidable first: the side panel is narrow and it is the column to read.
    enum Column {
        Avoidable,
        Blocked,
        Duration,
        Start,
        Device,
        Rank,
        Call,
        UserFrame,
        Op,
        Step,
        RootOp,
        PyFrame,
        ColumnCount
    };
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

    // The rows (in this order) as CSV with a header line; times in exact
    // microseconds with 3 decimals (formatMicros), never through a double.
    std::string toCsv(const std::vector<int> &rows) const;
    // The same rows as JSON: {"sync_gaps": [...]}, each time twice, as integer
    // ns ("start_ns") and as exact microseconds ("start_us", formatMicros);
    // names absent from the trace are null.
    std::string toJson(const std::vector<int> &rows) const;

private:
    const SyncCall &callOf(int row) const;
    std::shared_ptr<const TimelineData> m_data;
    DurationColumn m_start, m_duration, m_blocked, m_avoidable; // one unit per column
};

// Sorts a SyncGapModel by SortRole; equal avoidable or blocked times fall back
// to the longer gap first, as the CLI lists them.
class SyncGapSortModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit SyncGapSortModel(QObject *parent = nullptr);

protected:
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;
};

} // namespace syncscope::ui
