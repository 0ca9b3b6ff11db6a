#include "timeline/syncsourcemodel.h"

#include "analysis/advice.h"
#include "analysis/jsonwriter.h"
#include "analysis/limittext.h"
#include "shared/timeformat.h"
#include "common/csv.h"

namespace syncscope::ui {

SyncSourceModel::SyncSourceModel(QObject *parent) : QAbstractTableModel(parent) {}

void SyncSourceModel::setTimelineData(std::shared_ptr<const TimelineData> data)
{
    beginResetModel();
    m_data = std::move(data);
    m_entries.clear();
    if (m_data)
        for (uint32_t f = 0; f < m_data->files().size(); ++f)
            for (uint32_t s = 0; s < m_data->files()[f].sync.sources.size(); ++s)
                m_entries.push_back({f, s});
    m_checked.assign(m_entries.size(), 0);
    m_gapTime.clear();
    m_avoidable.clear();
    for (const Entry &e : m_entries) {
        const SyncSource &s = m_data->files()[e.file].sync.sources[e.source];
        m_gapTime.add(s.gapTime);
        m_avoidable.add(s.avoidable);
    }
    endResetModel();
}

bool SyncSourceModel::isChecked(int row) const
{
    return row >= 0 && size_t(row) < m_checked.size() && m_checked[size_t(row)];
}

void SyncSourceModel::setChecked(int row, bool checked)
{
    if (row < 0 || size_t(row) >= m_checked.size() || bool(m_checked[size_t(row)]) == checked)
        return;
    m_checked[size_t(row)] = checked;
    const QModelIndex i = index(row, Avoidable);
    Q_EMIT dataChanged(i, i, {Qt::CheckStateRole});
    Q_EMIT checkedChanged();
}

void SyncSourceModel::clearChecks()
{
    bool any = false;
    for (size_t r = 0; r < m_checked.size(); ++r)
        if (m_checked[r]) {
            m_checked[r] = 0;
            any = true;
            const QModelIndex i = index(int(r), Avoidable);
            Q_EMIT dataChanged(i, i, {Qt::CheckStateRole});
        }
    if (any)
        Q_EMIT checkedChanged();
}

std::vector<int> SyncSourceModel::checkedRows() const
{
    std::vector<int> out;
    for (size_t r = 0; r < m_checked.size(); ++r)
        if (m_checked[r])
            out.push_back(int(r));
    return out;
}

Qt::ItemFlags SyncSourceModel::flags(const QModelIndex &index) const
{
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (index.isValid() && index.column() == Avoidable)
        f |= Qt::ItemIsUserCheckable;
    return f;
}

bool SyncSourceModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (role != Qt::CheckStateRole || !index.isValid() || index.column() != Avoidable)
        return false;
    setChecked(index.row(), value.toInt() == Qt::Checked);
    return true;
}

const SyncSource &SyncSourceModel::source(int row) const
{
    const Entry &e = m_entries[size_t(row)];
    return m_data->files()[e.file].sync.sources[e.source];
}

int SyncSourceModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_entries.size());
}

int SyncSourceModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant SyncSourceModel::data(const QModelIndex &index, int role) const
{
    if (!m_data || !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Entry &e = m_entries[size_t(index.row())];
    const TimelineFile &file = m_data->files()[e.file];
    const SyncSource &s = file.sync.sources[e.source];
    const int64_t rank = file.model->info().rank;
    if (role == Qt::CheckStateRole)
        return index.column() == Avoidable ? QVariant(isChecked(index.row()) ? Qt::Checked : Qt::Unchecked)
                                           : QVariant();
    if (role == Qt::TextAlignmentRole) {
        if (index.column() == Avoidable || index.column() >= Count)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    }
    if (role == SortRole) {
        switch (index.column()) {
        case Count: return qulonglong(s.count);
        case Gaps: return qulonglong(s.gaps);
        case GapTime: return qlonglong(s.gapTime);
        case Avoidable: return qlonglong(s.avoidable);
        case Rank: return rank != kNoValue ? qlonglong(rank) : qlonglong(e.file);
        default: break;
        }
        role = Qt::DisplayRole;
    }
    if (role == Qt::ToolTipRole) {
        switch (index.column()) {
        case UserFrame:
            if (!file.hasPythonFrames)
                return tr("No Python events in this trace (record with with_stack=True): the op instead");
            break;
        case Avoidable:
            // Where the saving stopped: a small or 0 figure says why where it is read.
            return tr("The devices would finish %1 earlier (summed over devices) in a replay of the "
                      "trace without all %n call(s) of this source",
                      nullptr, int(s.count))
                       .arg(m_avoidable.cell(s.avoidable, true)) +
                   (file.model && s.limitDevice < file.sync.devices.size()
                        ? tr("\nLimited by (GPU %1): %2")
                              .arg(file.sync.devices[s.limitDevice].device)
                              .arg(QString::fromStdString(limitSentence(s.limit, *file.model, file.sync)))
                        : QString());
        case Advice: {
            if (s.advice < 0)
                return tr("No advice rule matches these calls: no known rewrite");
            const AdviceRule &r = builtinAdviceRules().rules[size_t(s.advice)];
            QString tip = QString::fromStdString(r.why) + QLatin1Char('\n') + QString::fromStdString(r.rewrite);
            if (s.adviceCalls < s.count)
                tip += QLatin1Char('\n') + tr("For %1 of its %2 calls; the others match other rules or none.")
                                               .arg(s.adviceCalls)
                                               .arg(s.count);
            return tip;
        }
        default: break;
        }
    }
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
        const QString none = role == Qt::DisplayRole ? QStringLiteral("—") : QString();
        auto orNone = [&](const QString &t) { return t.isEmpty() ? none : t; };
        switch (index.column()) {
        case Sync: return m_data->text(e.file, s.sync);
        case Op: return orNone(m_data->text(e.file, s.op));
        case UserFrame: return orNone(m_data->text(e.file, file.hasPythonFrames ? s.userFrame : s.op));
        case Advice:
            if (s.advice < 0)
                return tr("no known rewrite");
            return QString::fromStdString(builtinAdviceRules().rules[size_t(s.advice)].title) +
                   (s.adviceCalls < s.count ? tr(" (%1 of %2)").arg(s.adviceCalls).arg(s.count) : QString());
        case Count: return QString::number(s.count);
        case Gaps: return QString::number(s.gaps);
        case GapTime: return m_gapTime.cell(s.gapTime, role == Qt::ToolTipRole);
        case Avoidable: return m_avoidable.cell(s.avoidable, role == Qt::ToolTipRole);
        case Rank: return rank != kNoValue ? QString::number(rank) : QString::number(e.file);
        default: break;
        }
    }
    return {};
}

QVariant SyncSourceModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return QAbstractTableModel::headerData(section, orientation, role);
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Count: return tr("Blocking calls of this source, whether they cause a gap or not");
        case Gaps: return tr("Sync gaps these calls cause");
        case GapTime: return tr("Total length of the sync gaps these calls cause");
        case Avoidable:
            return tr("How much earlier the devices would finish (summed over devices) "
                      "in a sync-free replay without all calls of this source. Check "
                      "sources to see, in the header, what removing them together saves");
        case UserFrame:
            return tr("The innermost Python frame that is not library code (the op "
                      "when the trace has no Python events)");
        case Advice:
            return tr("What to write instead: the advice rule most of its calls match; "
                      "select the source for the rewrite");
        default: break;
        }
    }
    if (role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    static const char *const names[] = {"Avoidable", "User frame", "What to change", "Sync", "Op",
                                        "Calls",     "Gaps",       "Gap time",       "Rank"};
    return tr(names[section]);
}

std::string SyncSourceModel::toCsv(const std::vector<int> &rows) const
{
    std::string out = "file,rank,sync,op,user_frame,count,gaps,gap_us,avoidable_us,advice\n";
    if (!m_data)
        return out;
    for (int row : rows) {
        if (row < 0 || row >= rowCount())
            continue;
        const Entry &e = m_entries[size_t(row)];
        const TimelineFile &file = m_data->files()[e.file];
        const SyncSource &s = file.sync.sources[e.source];
        const int64_t rank = file.model->info().rank;
        csv::Row r(out);
        r.text(file.model->info().path);
        r.raw(rank != kNoValue ? std::to_string(rank) : std::string());
        r.text(m_data->text(e.file, s.sync).toStdString());
        r.text(m_data->text(e.file, s.op).toStdString());
        r.text(m_data->text(e.file, s.userFrame).toStdString());
        r.raw(std::to_string(s.count));
        r.raw(std::to_string(s.gaps));
        r.raw(formatMicros(s.gapTime));
        r.raw(formatMicros(s.avoidable));
        r.text(s.advice >= 0 ? builtinAdviceRules().rules[size_t(s.advice)].id : std::string());
        r.end();
    }
    return out;
}

std::string SyncSourceModel::toJson(const std::vector<int> &rows) const
{
    auto text = [&](JsonWriter &w, const char *key, uint32_t file, StrId id) {
        w.key(key);
        const QString t = m_data->text(file, id);
        if (t.isEmpty())
            w.null();
        else
            w.value(t.toStdString());
    };
    JsonWriter w;
    w.beginObject();
    w.key("sync_sources").beginArray();
    if (m_data)
        for (int row : rows) {
            if (row < 0 || row >= rowCount())
                continue;
            const Entry &e = m_entries[size_t(row)];
            const TimelineFile &file = m_data->files()[e.file];
            const SyncSource &s = file.sync.sources[e.source];
            w.beginObject();
            w.key("file").value(file.model->info().path);
            w.key("rank").optional(file.model->info().rank);
            text(w, "sync", e.file, s.sync);
            text(w, "op", e.file, s.op);
            text(w, "user_frame", e.file, s.userFrame);
            w.key("count").value(uint64_t(s.count));
            w.key("gaps").value(uint64_t(s.gaps));
            w.key("gap_time_ns").value(int64_t(s.gapTime));
            w.key("gap_time_us").micros(s.gapTime);
            w.key("avoidable_ns").value(int64_t(s.avoidable));
            w.key("avoidable_us").micros(s.avoidable);
            w.key("advice");
            if (s.advice >= 0)
                w.value(builtinAdviceRules().rules[size_t(s.advice)].id);
            else
                w.null();
            w.endObject();
        }
    w.endArray();
    w.endObject();
    return w.take();
}

} // namespace syncscope::ui
