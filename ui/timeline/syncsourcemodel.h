#pragma once
// The sync sources of the job, "which line do I fix first": blocking calls rolled
// up by (sync name, op, user frame) with their count, the sync gaps they cause
// and what removing all of them would save (avoidable). A thin adapter over
// TimelineData; the page sorts it by avoidable.
#include "shared/timeformat.h"
#include "timeline/timelinedata.h"

#include <QAbstractTableModel>

#include <memory>
#include <string>

namespace syncscope::ui {

class SyncSourceModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // Avoidable and the user frame first: "which line do I fix first".
    // Advice: the title of what to write instead (docs/analysis.md "What to change").
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

    // What-if: each row's check box (in the Avoidable column) picks the
    // source for a replay without all checked sources together. A new trace
    // clears the checks.
    bool isChecked(int row) const;
    void setChecked(int row, bool checked);
    void clearChecks();
    std::vector<int> checkedRows() const; // ascending

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;

    // The rows (in this order) as CSV with a header line; times in exact
    // microseconds (formatMicros).
    std::string toCsv(const std::vector<int> &rows) const;
    // The same rows as JSON: {"sync_sources": [...]}, times as integer ns
    // ("gap_time_ns") and exact microseconds ("gap_time_us"); absent names null.
    std::string toJson(const std::vector<int> &rows) const;

Q_SIGNALS:
    // The set of checked sources changed (not on a reset).
    void checkedChanged();

private:
    std::shared_ptr<const TimelineData> m_data;
    std::vector<Entry> m_entries;
    std::vector<char> m_checked;           // per row
    DurationColumn m_gapTime, m_avoidable; // one unit per column
};

} // namespace syncscope::ui
