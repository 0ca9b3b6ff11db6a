#pragma once
// The sync sources of the job, "which line do I fix first": blocking calls rolled
// up by (sync name, op, user frame) with their count, the sync gaps they cause
// and what removing all of them would save (avoidable). A thin adapter over
// TimelineData; the page sorts it by avoidable.
#include "timeline/timelinedata.h"

#include <QAbstractTableModel>

#include <memory>
#include <string>

namespace syncscope::ui {

class SyncSourceModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // Avoidable and the user frame first: "which line do I fix first".
    // Advice: the title of what to write instead (README "What to change").
    enum Column { Avoidable, UserFrame, Advice, Sync, Op, Count, Gaps, GapTime, Rank, ColumnCount };
    static constexpr int SortRole = Qt::UserRole;

    struct Entry {
        uint32_t file = 0;
        uint32_t source = 0; // index into files[file].sync.sources
    };

    explicit SyncSourceModel(QObject *parent = nullptr);

    void setTimelineData(std::shared_ptr<const TimelineData> data);
    const std::vector<Entry> &entries() const { return m_entries; }
    const SyncSource &source(int row) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

    // The rows (in this order) as CSV with a header line; times in exact
    // microseconds (formatMicros).
    std::string toCsv(const std::vector<int> &rows) const;
    // The same rows as JSON: {"sync_sources": [...]}, times as integer ns
    // ("gap_time_ns") and exact microseconds ("gap_time_us"); absent names null.
    std::string toJson(const std::vector<int> &rows) const;

private:
    std::shared_ptr<const TimelineData> m_data;
    std::vector<Entry> m_entries;
};

} // namespace syncscope::ui
