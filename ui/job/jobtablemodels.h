#pragma once
// The Job view's tables, thin adapters over a JobScale: the ranks (what each
// rank's blocking calls cost the job) and the collectives' blame (who arrived
// last at each collective, how late, and which sync made it late). Sorted by
// a QSortFilterProxyModel on SortRole (integer ns, counts); exported in the
// shown order as CSV or JSON with integer "_ns" and exact "_us" fields.
#include "analysis/jobscale.h"
#include "shared/timeformat.h"

#include <QAbstractTableModel>

#include <memory>
#include <string>
#include <vector>

namespace syncscope::ui {

class JobRankModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Rank,
        JobAvoidable,
        LocalAvoidable,
        LastArrivals,
        Wait,
        ClockOffset,
        ClockSpread,
        Device,
        File,
        ColumnCount
    };
    static constexpr int SortRole = Qt::UserRole;

    explicit JobRankModel(QObject *parent = nullptr);
    void setJob(std::shared_ptr<const JobScale> job);
    const JobRank &rank(int row) const { return m_job->rankRows[size_t(row)]; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

    std::string toCsv(const std::vector<int> &rows) const;
    // {"ranks": [...]}, the keys of `analyze --json` with _ns beside each _us.
    std::string toJson(const std::vector<int> &rows) const;

private:
    std::shared_ptr<const JobScale> m_job;
    DurationColumn m_jobAvoidable, m_localAvoidable, m_wait, m_offset; // one unit per column
};

class CollectiveBlameModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Lateness, LastRank, Cause, Saves, Group, Seq, Name, ColumnCount };
    static constexpr int SortRole = Qt::UserRole;

    explicit CollectiveBlameModel(QObject *parent = nullptr);
    void setJob(std::shared_ptr<const JobScale> job);
    const CollectiveBlame &blame(int row) const { return m_job->blame[size_t(row)]; }
    // "cudaStreamSynchronize in aten::item at train.py(42): step"; "" without a cause.
    static QString causeText(const CollectiveBlame &b);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

    std::string toCsv(const std::vector<int> &rows) const;
    // {"collective_blame": [...]}; "cause" is null when no sync moves the collective.
    std::string toJson(const std::vector<int> &rows) const;

private:
    std::shared_ptr<const JobScale> m_job;
    DurationColumn m_lateness, m_saves; // one unit per column
};

} // namespace syncscope::ui
