#include "timeline/syncgapmodel.h"

#include "timeline/timeformat.h"

namespace syncscope::ui {

SyncGapModel::SyncGapModel(QObject *parent) : QAbstractTableModel(parent) {}

void SyncGapModel::setTimelineData(std::shared_ptr<const TimelineData> data)
{
    beginResetModel();
    m_data = std::move(data);
    endResetModel();
}

int SyncGapModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_data ? 0 : int(m_data->gaps().size());
}

int SyncGapModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

static QString eventName(const TimelineData &data, uint32_t file, const EventRef &ref)
{
    if (!ref.valid())
        return {};
    const TraceModel &m = *data.files()[file].model;
    const std::string_view s = m.str(m.tracks()[ref.track].name[ref.index]);
    return QString::fromUtf8(s.data(), int(s.size()));
}

QString SyncGapModel::callName(int row) const
{
    const TimelineGap &g = m_data->gaps()[size_t(row)];
    const SyncAnalysis &sa = m_data->files()[g.file].sync;
    return eventName(*m_data, g.file, sa.syncCalls[sa.syncGaps[g.gap].syncCall].event);
}

QString SyncGapModel::opName(int row, bool root) const
{
    const TimelineGap &g = m_data->gaps()[size_t(row)];
    const SyncAnalysis &sa = m_data->files()[g.file].sync;
    const SyncCall &c = sa.syncCalls[sa.syncGaps[g.gap].syncCall];
    return eventName(*m_data, g.file, root ? c.rootOp : c.op);
}

QVariant SyncGapModel::data(const QModelIndex &index, int role) const
{
    if (!m_data || !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const int row = index.row();
    const TimelineGap &g = m_data->gaps()[size_t(row)];
    const TimelineFile &file = m_data->files()[g.file];
    const SyncGap &gap = file.sync.syncGaps[g.gap];
    const int64_t rank = file.model->info().rank;
    if (role == GapRole)
        return row;
    if (role == Qt::TextAlignmentRole) {
        if (index.column() <= Duration)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    }
    if (role == SortRole) {
        switch (index.column()) {
        case Rank: return rank != kNoValue ? qlonglong(rank) : qlonglong(g.file);
        case Device: return qlonglong(gap.device);
        case Start: return qlonglong(gap.interval.start);
        case Duration: return qlonglong(gap.interval.length());
        default: break;
        }
        role = Qt::DisplayRole;
    }
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
        switch (index.column()) {
        case Rank: return rank != kNoValue ? QString::number(rank) : QString::number(g.file);
        case Device: return QString::number(gap.device);
        case Start: return formatDuration(gap.interval.start - m_data->minTime());
        case Duration: return formatDuration(gap.interval.length());
        case Call: return callName(row);
        case Op: {
            const QString op = opName(row, false);
            return op.isEmpty() && role == Qt::DisplayRole ? QStringLiteral("—") : op;
        }
        case RootOp: {
            const QString op = opName(row, true);
            return op.isEmpty() && role == Qt::DisplayRole ? QStringLiteral("—") : op;
        }
        default: break;
        }
    }
    return {};
}

QVariant SyncGapModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= ColumnCount)
        return QAbstractTableModel::headerData(section, orientation, role);
    static const char *const names[] = {"Rank", "Device", "Start", "Gap", "Blocking call", "Op", "Root op"};
    return tr(names[section]);
}

} // namespace syncscope::ui
