#pragma once
// The per-device figures of every open file, one row per (file, device): what
// the header sums or picks the largest of, named by rank and device, so no
// figure of a job is only in a tooltip. Columns as the report's device table.
#include "shared/timeformat.h"
#include "timeline/timelinedata.h"

#include <QAbstractTableModel>

#include <memory>
#include <string>
#include <vector>

namespace syncscope::ui {

class DeviceTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Rank, Device, Span, Busy, SyncGapTime, Gaps, Avoidable, File, ColumnCount };
    static constexpr int SortRole = Qt::UserRole; // integers: ns, counts, busy in ppm

    explicit DeviceTableModel(QObject *parent = nullptr);
    void setTimelineData(std::shared_ptr<const TimelineData> data);

    struct Entry {
        uint32_t file = 0;
        uint32_t device = 0; // index into files[file].sync.devices
    };
    const std::vector<Entry> &entries() const { return m_entries; }
    // The first drawn GPU track of the row's device, or -1.
    int trackOf(int row) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

    // The rows (indices into entries()) as CSV, times as exact µs, and as JSON
    // {"devices": [...]} with each time as integer ns and exact µs.
    std::string toCsv(const std::vector<int> &rows) const;
    std::string toJson(const std::vector<int> &rows) const;

private:
    std::shared_ptr<const TimelineData> m_data;
    std::vector<Entry> m_entries;
    std::vector<uint64_t> m_gapCount;              // per row
    DurationColumn m_span, m_syncGap, m_avoidable; // one unit per column
    const DeviceActivity &device(int row) const;
    // A row's file, device and rank (distributedInfo.rank, else the file's position).
    struct Cells {
        const TimelineFile &file;
        const DeviceActivity &device;
        int64_t rank;
    };
    Cells cells(int row) const;
};

} // namespace syncscope::ui
