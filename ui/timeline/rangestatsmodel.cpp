#include "timeline/rangestatsmodel.h"

#include "analysis/jsonwriter.h"
#include "analysis/opstats.h"
#include "shared/timeformat.h"
#include "common/csv.h"

#include <algorithm>
#include <map>

namespace syncscope::ui {

std::vector<RangeStatsModel::Row> RangeStatsModel::compute(const TimelineData &data, TimeNs t0, TimeNs t1,
                                                           const ProgressFn &progress, const CancelToken *cancel)
{
    // Files intern separately: merge by text.
    std::map<std::pair<std::string, std::string>, Row> merged;
    const size_t n = data.files().size();
    for (size_t f = 0; f < n; ++f) {
        const TraceModel &m = *data.files()[f].model;
        ProgressFn sub;
        if (progress)
            sub = [&](double x, const char *msg) { progress((double(f) + x) / double(n), msg); };
        for (const OpStat &s : opStatistics(m, t0, t1, sub, cancel)) {
            const std::string_view name = m.str(s.name), cat = m.str(s.cat);
            Row &r = merged[{std::string(name), std::string(cat)}];
            if (r.count == 0) {
                r.name = QString::fromUtf8(name.data(), int(name.size()));
                r.category = QString::fromUtf8(cat.data(), int(cat.size()));
            }
            r.count += s.count;
            r.total += s.total;
            r.self += s.self;
            r.max = std::max(r.max, s.max);
        }
    }
    std::vector<Row> rows;
    rows.reserve(merged.size());
    for (auto &kv : merged)
        rows.push_back(std::move(kv.second));
    std::stable_sort(rows.begin(), rows.end(), [](const Row &a, const Row &b) { return a.total > b.total; });
    return rows;
}

RangeStatsModel::RangeStatsModel(QObject *parent) : QAbstractTableModel(parent) {}

void RangeStatsModel::setRows(std::vector<Row> rows)
{
    beginResetModel();
    m_rows = std::move(rows);
    for (DurationColumn *c : {&m_total, &m_self, &m_max})
        c->clear();
    for (const Row &r : m_rows) {
        m_total.add(r.total);
        m_self.add(r.self);
        m_max.add(r.max);
    }
    endResetModel();
}

int RangeStatsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int RangeStatsModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant RangeStatsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &r = m_rows[size_t(index.row())];
    if (role == Qt::TextAlignmentRole)
        return index.column() >= Count ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
    if (role == SortRole) {
        switch (index.column()) {
        case Count: return qulonglong(r.count);
        case Total: return qlonglong(r.total);
        case Self: return qlonglong(r.self);
        case Max: return qlonglong(r.max);
        default: break;
        }
        role = Qt::DisplayRole;
    }
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    switch (index.column()) {
    case Name: return r.name;
    case Category: return r.category;
    case Count: return QString::number(r.count);
    case Total: return m_total.cell(r.total, role == Qt::ToolTipRole);
    case Self: return m_self.cell(r.self, role == Qt::ToolTipRole);
    case Max: return m_max.cell(r.max, role == Qt::ToolTipRole);
    default: return {};
    }
}

QVariant RangeStatsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return QAbstractTableModel::headerData(section, orientation, role);
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Count: return tr("Every instance that overlaps the range");
        case Total:
            return tr("Time inside the range, over outermost instances only: an instance inside "
                      "another of the same name and category on its thread is counted once, so "
                      "recursive frames never add up to more than the range");
        case Self: return tr("Each instance minus its direct children, summed");
        default: break;
        }
    }
    if (role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    static const char *const names[] = {"Name", "Category", "Count", "Total", "Self", "Max"};
    return tr(names[section]);
}

QStringList RangeStatsModel::categories() const
{
    QStringList out;
    for (const Row &r : m_rows)
        out << r.category;
    out.sort();
    out.removeDuplicates();
    return out;
}

std::string RangeStatsModel::toCsv(const std::vector<int> &rows) const
{
    std::string out = "name,category,count,total_us,self_us,max_us\n";
    for (int row : rows) {
        if (row < 0 || row >= rowCount())
            continue;
        const Row &r = m_rows[size_t(row)];
        csv::Row c(out);
        c.text(r.name.toStdString());
        c.text(r.category.toStdString());
        c.raw(std::to_string(r.count));
        c.raw(formatMicros(r.total));
        c.raw(formatMicros(r.self));
        c.raw(formatMicros(r.max));
        c.end();
    }
    return out;
}

std::string RangeStatsModel::toJson(const std::vector<int> &rows) const
{
    JsonWriter w;
    auto time = [&w](const std::string &key, TimeNs ns) {
        w.key(key + "_ns").value(int64_t(ns));
        w.key(key + "_us").micros(ns);
    };
    w.beginObject();
    w.key("range").beginObject();
    time("start", m_t0);
    time("end", m_t1);
    time("dur", m_t1 - m_t0);
    w.endObject();
    w.key("ops").beginArray();
    for (int row : rows) {
        if (row < 0 || row >= rowCount())
            continue;
        const Row &r = m_rows[size_t(row)];
        w.beginObject();
        w.key("name").value(r.name.toStdString());
        w.key("category").value(r.category.toStdString());
        w.key("count").value(uint64_t(r.count));
        time("total", r.total);
        time("self", r.self);
        time("max", r.max);
        w.endObject();
    }
    w.endArray();
    w.endObject();
    return w.take();
}

} // namespace syncscope::ui
