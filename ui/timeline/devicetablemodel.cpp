#include "timeline/devicetablemodel.h"

#include "analysis/jsonwriter.h"
#include "common/csv.h"

namespace syncscope::ui {

DeviceTableModel::DeviceTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void DeviceTableModel::setTimelineData(std::shared_ptr<const TimelineData> data)
{
    beginResetModel();
    m_data = std::move(data);
    m_entries.clear();
    m_gapCount.clear();
    for (DurationColumn *c : {&m_span, &m_syncGap, &m_avoidable})
        c->clear();
    if (m_data)
        for (uint32_t f = 0; f < m_data->files().size(); ++f) {
            const SyncAnalysis &sa = m_data->files()[f].sync;
            for (uint32_t d = 0; d < sa.devices.size(); ++d) {
                m_entries.push_back({f, d});
                uint64_t gaps = 0;
                for (const SyncGap &g : sa.syncGaps)
                    gaps += g.device == sa.devices[d].device;
                m_gapCount.push_back(gaps);
                m_span.add(sa.devices[d].span());
                m_syncGap.add(sa.devices[d].syncGap);
                m_avoidable.add(sa.devices[d].avoidable);
            }
        }
    endResetModel();
}

const DeviceActivity &DeviceTableModel::device(int row) const
{
    const Entry &e = m_entries[size_t(row)];
    return m_data->files()[e.file].sync.devices[e.device];
}

DeviceTableModel::Cells DeviceTableModel::cells(int row) const
{
    const Entry &e = m_entries[size_t(row)];
    const TimelineFile &file = m_data->files()[e.file];
    const int64_t rank = file.model->info().rank;
    return {file, device(row), rank != kNoValue ? rank : int64_t(e.file)};
}

int DeviceTableModel::trackOf(int row) const
{
    if (!m_data || row < 0 || row >= rowCount())
        return -1;
    const Entry &e = m_entries[size_t(row)];
    const int64_t id = device(row).device;
    for (const TimelineFile::DeviceGaps &dg : m_data->files()[e.file].deviceGaps)
        if (dg.device == id && !dg.tracks.empty())
            return dg.tracks.front();
    // A device without gaps: its first GPU track in the layout.
    for (size_t t = 0; t < m_data->tracks().size(); ++t) {
        const TimelineTrack &tt = m_data->tracks()[t];
        if (tt.file == e.file && tt.gpu && tt.device == id)
            return int(t);
    }
    return -1;
}

int DeviceTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_entries.size());
}

int DeviceTableModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant DeviceTableModel::data(const QModelIndex &index, int role) const
{
    if (!m_data || !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const int row = index.row();
    const Cells x = cells(row);
    const TimelineFile &file = x.file;
    const DeviceActivity &d = x.device;
    const int64_t busyPpm = d.span() > 0 ? int64_t((__int128(d.busy) * 1'000'000) / d.span()) : 0;
    if (role == Qt::TextAlignmentRole)
        return index.column() != File ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
    if (role == SortRole) {
        switch (index.column()) {
        case Rank: return qlonglong(x.rank);
        case Device: return qlonglong(d.device);
        case Span: return qlonglong(d.span());
        case Busy: return qlonglong(busyPpm);
        case SyncGapTime: return qlonglong(d.syncGap);
        case Gaps: return qulonglong(m_gapCount[size_t(row)]);
        case Avoidable: return qlonglong(d.avoidable);
        case File: return file.label;
        default: return {};
        }
    }
    const bool tip = role == Qt::ToolTipRole;
    if (role != Qt::DisplayRole && !tip)
        return {};
    switch (index.column()) {
    case Rank: return QString::number(x.rank);
    case Device:
        return d.name.empty() ? tr("GPU %1").arg(d.device)
                              : tr("GPU %1 (%2)").arg(d.device).arg(QString::fromStdString(d.name));
    case Span: return m_span.cell(d.span(), tip);
    case Busy: return formatPercent(d.busy, d.span());
    case SyncGapTime: return m_syncGap.cell(d.syncGap, tip);
    case Gaps: return QString::number(m_gapCount[size_t(row)]);
    case Avoidable:
        return tip ? tr("This device would finish %1 earlier in a replay of its own trace without "
                        "every blocking call (on this rank alone; the Job view says what it costs the job)")
                         .arg(m_avoidable.cell(d.avoidable, true))
                   : m_avoidable.format(d.avoidable);
    case File: return tip ? QString::fromStdString(file.model->info().path) : file.label;
    default: return {};
    }
}

QVariant DeviceTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case Rank: return tr("Rank");
        case Device: return tr("Device");
        case Span: return tr("Span");
        case Busy: return tr("GPU busy");
        case SyncGapTime: return tr("Sync-gap time");
        case Gaps: return tr("Gaps");
        case Avoidable: return tr("Avoidable");
        case File: return tr("File");
        default: return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Rank: return tr("distributedInfo.rank of the file, else its position");
        case Span: return tr("First to last GPU activity of the device");
        case Busy: return tr("The union of the device's activity over its streams, of its span");
        case SyncGapTime: return tr("GPU idle while the host blocked, summed");
        case Avoidable:
            return tr("How much earlier the device would finish without every blocking call "
                      "of its trace (the single-rank replay)");
        default: return {};
        }
    }
    return {};
}

std::string DeviceTableModel::toCsv(const std::vector<int> &rows) const
{
    std::string out = "rank,file,device,span_us,busy_percent,sync_gap_us,gaps,avoidable_us\n";
    for (int row : rows) {
        if (row < 0 || row >= rowCount())
            continue;
        const Cells x = cells(row);
        const DeviceActivity &d = x.device;
        csv::Row c(out);
        c.raw(std::to_string(x.rank));
        c.text(x.file.model->info().path);
        c.raw(std::to_string(d.device));
        c.raw(formatMicros(d.span()));
        c.raw(formatPercent(d.busy, d.span()).chopped(1).toStdString());
        c.raw(formatMicros(d.syncGap));
        c.raw(std::to_string(m_gapCount[size_t(row)]));
        c.raw(formatMicros(d.avoidable));
        c.end();
    }
    return out;
}

std::string DeviceTableModel::toJson(const std::vector<int> &rows) const
{
    JsonWriter w;
    auto time = [&w](const std::string &key, TimeNs ns) {
        w.key(key + "_ns").value(int64_t(ns));
        w.key(key + "_us").micros(ns);
    };
    w.beginObject();
    w.key("devices").beginArray();
    for (int row : rows) {
        if (row < 0 || row >= rowCount())
            continue;
        const Cells x = cells(row);
        const DeviceActivity &d = x.device;
        w.beginObject();
        w.key("rank").value(x.rank);
        w.key("file").value(x.file.model->info().path);
        w.key("device").value(d.device);
        time("span", d.span());
        time("busy", d.busy);
        time("sync_gap", d.syncGap);
        w.key("gaps").value(uint64_t(m_gapCount[size_t(row)]));
        time("avoidable", d.avoidable);
        w.endObject();
    }
    w.endArray();
    w.endObject();
    return w.take();
}

} // namespace syncscope::ui
