#include "timeline/syncgapmodel.h"

#include "analysis/jsonwriter.h"
#include "shared/timeformat.h"
#include "common/csv.h"

namespace syncscope::ui {

SyncGapModel::SyncGapModel(QObject *parent) : QAbstractTableModel(parent) {}

void SyncGapModel::setTimelineData(std::shared_ptr<const TimelineData> data)
{
    beginResetModel();
    m_data = std::move(data);
    for (DurationColumn *c : {&m_start, &m_duration, &m_blocked, &m_avoidable})
        c->clear();
    if (m_data)
        for (const TimelineGap &g : m_data->gaps()) {
            const SyncGap &gap = m_data->files()[g.file].sync.syncGaps[g.gap];
            m_start.add(gap.interval.start - m_data->minTime());
            m_duration.add(gap.interval.length());
            m_blocked.add(gap.blocked);
            m_avoidable.add(gap.avoidable);
        }
    endResetModel();
}

int SyncGapModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_data ? 0 : int(m_data->gaps().size());
}

int SyncGapModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

const SyncCall &SyncGapModel::callOf(int row) const
{
    const TimelineGap &g = m_data->gaps()[size_t(row)];
    const SyncAnalysis &sa = m_data->files()[g.file].sync;
    return sa.syncCalls[sa.syncGaps[g.gap].syncCall];
}

QString SyncGapModel::callName(int row) const
{
    return m_data->text(m_data->gaps()[size_t(row)].file, callOf(row).event);
}

QString SyncGapModel::opName(int row, bool root) const
{
    const SyncCall &c = callOf(row);
    return m_data->text(m_data->gaps()[size_t(row)].file, root ? c.rootOp : c.op);
}

QVariant SyncGapModel::data(const QModelIndex &index, int role) const
{
    if (!m_data || !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const int row = index.row();
    const TimelineGap &g = m_data->gaps()[size_t(row)];
    const TimelineFile &file = m_data->files()[g.file];
    const SyncGap &gap = file.sync.syncGaps[g.gap];
    const SyncCall &call = callOf(row);
    const int64_t rank = file.model->info().rank;
    if (role == GapRole)
        return row;
    if (role == Qt::TextAlignmentRole) {
        if (index.column() <= Rank)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    }
    if (role == SortRole) {
        switch (index.column()) {
        case Rank: return rank != kNoValue ? qlonglong(rank) : qlonglong(g.file);
        case Device: return qlonglong(gap.device);
        case Start: return qlonglong(gap.interval.start);
        case Duration: return qlonglong(gap.interval.length());
        case Blocked: return qlonglong(gap.blocked);
        case Avoidable: return qlonglong(gap.avoidable);
        case Step: return qlonglong(gap.step >= 0 ? file.sync.steps[size_t(gap.step)].start : -1);
        default: break;
        }
        role = Qt::DisplayRole;
    }
    if (role == Qt::ToolTipRole) {
        switch (index.column()) {
        case Blocked:
            return tr("The host waited %1 in the blocking call that caused this gap")
                .arg(m_blocked.cell(gap.blocked, true));
        case Avoidable:
            if (gap.avoidable == 0)
                return tr("Device %1 would finish no earlier without this gap's blocking call alone: %2")
                    .arg(gap.device)
                    .arg(whyNothingAvoidable(file.sync, gap.device));
            return tr("Device %1 would finish %2 earlier in a replay of the trace without this "
                      "gap's blocking call alone")
                .arg(gap.device)
                .arg(m_avoidable.cell(gap.avoidable, true));
        case UserFrame:
            if (!file.hasPythonFrames)
                return tr("No Python events in this trace (record with with_stack=True): the op instead");
            break;
        default: break;
        }
    }
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
        const QString none = role == Qt::DisplayRole ? QStringLiteral("—") : QString();
        auto orNone = [&](const QString &s) { return s.isEmpty() ? none : s; };
        switch (index.column()) {
        case Rank: return rank != kNoValue ? QString::number(rank) : QString::number(g.file);
        case Device: return QString::number(gap.device);
        case Start: return m_start.cell(gap.interval.start - m_data->minTime(), role == Qt::ToolTipRole);
        case Duration: return m_duration.cell(gap.interval.length(), role == Qt::ToolTipRole);
        case Blocked: return m_blocked.cell(gap.blocked, role == Qt::ToolTipRole);
        case Avoidable: return m_avoidable.cell(gap.avoidable, role == Qt::ToolTipRole);
        case Call: return callName(row);
        case Op: return orNone(opName(row, false));
        case UserFrame: return orNone(m_data->userFrameText(g.file, call));
        case Step:
            return orNone(gap.step >= 0 ? m_data->text(g.file, file.sync.steps[size_t(gap.step)].name)
                                        : QString());
        case RootOp: return orNone(opName(row, true));
        case PyFrame: return orNone(m_data->text(g.file, call.pyFrame));
        default: break;
        }
    }
    return {};
}

QVariant SyncGapModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return QAbstractTableModel::headerData(section, orientation, role);
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Duration: return tr("How long the GPU sat idle");
        case Blocked: return tr("How long the host waited in the blocking call that caused the gap");
        case Avoidable:
            return tr("How much earlier the device's work would finish in a sync-free "
                      "replay without this gap's blocking call alone");
        case UserFrame:
            return tr("The innermost Python frame that is not library code (the op "
                      "when the trace has no Python events)");
        default: break;
        }
    }
    if (role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    static const char *const names[] = {"Avoidable",     "Blocked",    "Gap", "Start", "Device",  "Rank",
                                        "Blocking call", "User frame", "Op",  "Step",  "Root op", "Py frame"};
    return tr(names[section]);
}

SyncGapSortModel::SyncGapSortModel(QObject *parent) : QSortFilterProxyModel(parent)
{
    setSortRole(SyncGapModel::SortRole);
}

bool SyncGapSortModel::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    if (QSortFilterProxyModel::lessThan(left, right))
        return true;
    if (QSortFilterProxyModel::lessThan(right, left) ||
        (left.column() != SyncGapModel::Avoidable && left.column() != SyncGapModel::Blocked))
        return false;
    // A tie: under the usual descending sort, the longer gap comes first.
    const int role = sortRole();
    return left.siblingAtColumn(SyncGapModel::Duration).data(role).toLongLong() <
           right.siblingAtColumn(SyncGapModel::Duration).data(role).toLongLong();
}

std::string SyncGapModel::toCsv(const std::vector<int> &rows) const
{
    std::string out = "file,rank,device,start_us,gap_us,blocked_us,avoidable_us,sync,op,user_frame,step,"
                      "root_op,py_frame\n";
    if (!m_data)
        return out;
    for (int row : rows) {
        if (row < 0 || row >= rowCount())
            continue;
        const TimelineGap &g = m_data->gaps()[size_t(row)];
        const TimelineFile &file = m_data->files()[g.file];
        const SyncGap &gap = file.sync.syncGaps[g.gap];
        const SyncCall &call = callOf(row);
        const int64_t rank = file.model->info().rank;
        csv::Row r(out);
        r.text(file.model->info().path);
        r.raw(rank != kNoValue ? std::to_string(rank) : std::string());
        r.raw(std::to_string(gap.device));
        r.raw(formatMicros(gap.interval.start));
        r.raw(formatMicros(gap.interval.length()));
        r.raw(formatMicros(gap.blocked));
        r.raw(formatMicros(gap.avoidable));
        r.text(callName(row).toStdString());
        r.text(opName(row, false).toStdString());
        r.text(m_data->text(g.file, call.userFrame).toStdString());
        r.text(gap.step >= 0 ? m_data->text(g.file, file.sync.steps[size_t(gap.step)].name).toStdString()
                             : std::string());
        r.text(opName(row, true).toStdString());
        r.text(m_data->text(g.file, call.pyFrame).toStdString());
        r.end();
    }
    return out;
}

namespace {
void timeField(JsonWriter &w, const std::string &name, TimeNs ns)
{
    w.key(name + "_ns").value(int64_t(ns));
    w.key(name + "_us").micros(ns);
}
void textField(JsonWriter &w, const char *name, const QString &text)
{
    w.key(name);
    if (text.isEmpty())
        w.null();
    else
        w.value(text.toStdString());
}
} // namespace

std::string SyncGapModel::toJson(const std::vector<int> &rows) const
{
    JsonWriter w;
    w.beginObject();
    w.key("sync_gaps").beginArray();
    if (m_data)
        for (int row : rows) {
            if (row < 0 || row >= rowCount())
                continue;
            const TimelineGap &g = m_data->gaps()[size_t(row)];
            const TimelineFile &file = m_data->files()[g.file];
            const SyncGap &gap = file.sync.syncGaps[g.gap];
            const SyncCall &call = callOf(row);
            w.beginObject();
            w.key("file").value(file.model->info().path);
            w.key("rank").optional(file.model->info().rank);
            w.key("device").value(int64_t(gap.device));
            timeField(w, "start", gap.interval.start);
            timeField(w, "dur", gap.interval.length());
            timeField(w, "blocked", gap.blocked);
            timeField(w, "avoidable", gap.avoidable);
            textField(w, "sync", callName(row));
            textField(w, "op", opName(row, false));
            textField(w, "user_frame", m_data->text(g.file, call.userFrame));
            textField(w, "step",
                      gap.step >= 0 ? m_data->text(g.file, file.sync.steps[size_t(gap.step)].name) : QString());
            textField(w, "root_op", opName(row, true));
            textField(w, "py_frame", m_data->text(g.file, call.pyFrame));
            w.endObject();
        }
    w.endArray();
    w.endObject();
    return w.take();
}

} // namespace syncscope::ui
