#include "compare/difftablemodel.h"

#include "common/csv.h"
#include "analysis/jsonwriter.h"
#include "compare/comparedata.h"
#include "shared/timeformat.h"

#include <cstring>
#include <limits>
#include <map>

namespace syncscope::ui {

namespace {

using Cell = DiffTableModel::Cell;

Cell text(std::optional<std::string> s) { return {Cell::Text, std::move(s), std::nullopt}; }
Cell count(std::optional<uint64_t> v)
{
    return {Cell::Count, std::nullopt, v ? std::optional<int64_t>(int64_t(*v)) : std::nullopt};
}
Cell time(std::optional<TimeNs> v) { return {Cell::Time, std::nullopt, v}; }

template <typename T, typename F> std::optional<F> pick(const std::optional<T> &v, F T::*field)
{
    if (!v)
        return std::nullopt;
    return (*v).*field;
}
template <typename T>
std::optional<TimeNs> delta(const std::optional<T> &b, const std::optional<T> &a, TimeNs T::*f)
{
    return (a ? (*a).*f : 0) - (b ? (*b).*f : 0);
}

const char *status(bool before, bool after)
{
    return before && after ? "in both" : before ? "disappeared" : "appeared";
}

} // namespace

DiffTableModel::DiffTableModel(Section section, QObject *parent) : QAbstractTableModel(parent), m_section(section)
{
}

const std::vector<DiffTableModel::Column> &DiffTableModel::columns() const
{
    static const std::vector<Column> sources = {{"status", "Status"},
                                                {"sync", "Sync call"},
                                                {"op", "Op"},
                                                {"user_frame", "User frame"},
                                                {"count_before", "Calls before"},
                                                {"count_after", "Calls after"},
                                                {"gap_before_us", "Gap time before (µs)"},
                                                {"gap_after_us", "Gap time after (µs)"},
                                                {"avoidable_before_us", "Avoidable before (µs)"},
                                                {"avoidable_after_us", "Avoidable after (µs)"},
                                                {"avoidable_delta_us", "Δ avoidable (µs)"}};
    static const std::vector<Column> steps = {{"index", "#"},
                                              {"step_before", "Step before"},
                                              {"step_after", "Step after"},
                                              {"dur_before_us", "Step time before (µs)"},
                                              {"dur_after_us", "Step time after (µs)"},
                                              {"dur_delta_us", "Δ step time (µs)"},
                                              {"gpu_busy_before_us", "GPU busy before (µs)"},
                                              {"gpu_busy_after_us", "GPU busy after (µs)"},
                                              {"sync_gaps_before", "Sync gaps before"},
                                              {"sync_gaps_after", "Sync gaps after"},
                                              {"avoidable_before_us", "Avoidable before (µs)"},
                                              {"avoidable_after_us", "Avoidable after (µs)"}};
    static const std::vector<Column> ops = {{"name", "Op"},
                                            {"cat", "Category"},
                                            {"count_before", "Count before"},
                                            {"count_after", "Count after"},
                                            {"total_before_us", "Total before (µs)"},
                                            {"total_after_us", "Total after (µs)"},
                                            {"self_before_us", "Self before (µs)"},
                                            {"self_after_us", "Self after (µs)"},
                                            {"self_delta_us", "Δ self (µs)"}};
    static const std::vector<Column> kernels = {{"name", "Kernel"},
                                                {"count_before", "Count before"},
                                                {"count_after", "Count after"},
                                                {"total_before_us", "Total before (µs)"},
                                                {"total_after_us", "Total after (µs)"},
                                                {"total_delta_us", "Δ total (µs)"}};
    switch (m_section) {
    case Sources: return sources;
    case Steps: return steps;
    case Ops: return ops;
    case Kernels: break;
    }
    return kernels;
}

void DiffTableModel::setData(std::shared_ptr<const CompareData> data)
{
    beginResetModel();
    m_data = std::move(data);
    // One unit per figure: its before, after and change columns are read
    // side by side, so they share the unit their values together ask for.
    const std::vector<std::string> keys = columnKeys();
    auto figure = [](std::string key) {
        for (const char *side : {"_before_us", "_after_us", "_delta_us"})
            if (key.size() > std::strlen(side) &&
                key.compare(key.size() - std::strlen(side), std::string::npos, side) == 0)
                return key.substr(0, key.size() - std::strlen(side));
        return key;
    };
    std::map<std::string, DurationColumn> units;
    for (int r = 0; r < rowCount(); ++r)
        for (int c = 0; c < columnCount(); ++c) {
            const Cell cl = cell(r, c);
            if (cl.kind == Cell::Time && cl.number)
                units[figure(keys[size_t(c)])].add(*cl.number);
        }
    m_timeColumns.assign(size_t(columnCount()), DurationColumn());
    for (int c = 0; c < columnCount(); ++c)
        m_timeColumns[size_t(c)] = units[figure(keys[size_t(c)])];
    endResetModel();
}

int DiffTableModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid() || !m_data)
        return 0;
    const TraceDiff &d = m_data->diff;
    switch (m_section) {
    case Sources: return int(d.sources.size());
    case Steps: return int(d.steps.size());
    case Ops: return int(d.ops.size());
    case Kernels: break;
    }
    return int(d.kernels.size());
}

int DiffTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(columns().size());
}

std::vector<std::string> DiffTableModel::columnKeys() const
{
    std::vector<std::string> keys;
    for (const Column &c : columns())
        keys.push_back(c.key);
    return keys;
}

bool DiffTableModel::isNameColumn(int column) const
{
    if (column < 0 || column >= columnCount())
        return false;
    const std::string key = columns()[size_t(column)].key;
    for (const char *name : {"sync", "op", "user_frame", "step_before", "step_after", "name"})
        if (key == name)
            return true;
    return false;
}

DiffTableModel::Cell DiffTableModel::cell(int row, int column) const
{
    const TraceDiff &d = m_data->diff;
    const size_t r = size_t(row);
    switch (m_section) {
    case Sources: {
        const SourceDiff &s = d.sources[r];
        switch (column) {
        case 0: return text(std::string(status(bool(s.before), bool(s.after))));
        case 1: return text(s.sync);
        case 2: return text(s.op);
        case 3: return text(s.userFrame);
        case 4: return count(pick(s.before, &SourceFigures::count));
        case 5: return count(pick(s.after, &SourceFigures::count));
        case 6: return time(pick(s.before, &SourceFigures::gapTime));
        case 7: return time(pick(s.after, &SourceFigures::gapTime));
        case 8: return time(pick(s.before, &SourceFigures::avoidable));
        case 9: return time(pick(s.after, &SourceFigures::avoidable));
        default: return time(delta(s.before, s.after, &SourceFigures::avoidable));
        }
    }
    case Steps: {
        const StepDiff &s = d.steps[r];
        switch (column) {
        case 0: return count(uint64_t(s.index));
        case 1: return text(pick(s.before, &StepFigures::step));
        case 2: return text(pick(s.after, &StepFigures::step));
        case 3: return time(pick(s.before, &StepFigures::dur));
        case 4: return time(pick(s.after, &StepFigures::dur));
        case 5: return time(s.before && s.after ? delta(s.before, s.after, &StepFigures::dur) : std::nullopt);
        case 6: return time(pick(s.before, &StepFigures::gpuBusy));
        case 7: return time(pick(s.after, &StepFigures::gpuBusy));
        case 8: return count(pick(s.before, &StepFigures::syncGaps));
        case 9: return count(pick(s.after, &StepFigures::syncGaps));
        case 10: return time(pick(s.before, &StepFigures::avoidable));
        default: return time(pick(s.after, &StepFigures::avoidable));
        }
    }
    case Ops: {
        const OpDiff &o = d.ops[r];
        switch (column) {
        case 0: return text(o.name);
        case 1: return text(o.cat);
        case 2: return count(pick(o.before, &OpFigures::count));
        case 3: return count(pick(o.after, &OpFigures::count));
        case 4: return time(pick(o.before, &OpFigures::total));
        case 5: return time(pick(o.after, &OpFigures::total));
        case 6: return time(pick(o.before, &OpFigures::self));
        case 7: return time(pick(o.after, &OpFigures::self));
        default: return time(delta(o.before, o.after, &OpFigures::self));
        }
    }
    case Kernels: break;
    }
    const KernelDiff &k = d.kernels[r];
    switch (column) {
    case 0: return text(k.name);
    case 1: return count(pick(k.before, &KernelFigures::count));
    case 2: return count(pick(k.after, &KernelFigures::count));
    case 3: return time(pick(k.before, &KernelFigures::total));
    case 4: return time(pick(k.after, &KernelFigures::total));
    default: return time(delta(k.before, k.after, &KernelFigures::total));
    }
}

QVariant DiffTableModel::data(const QModelIndex &index, int role) const
{
    if (!m_data || !index.isValid() || index.row() >= rowCount() || index.column() >= columnCount())
        return {};
    const Cell c = cell(index.row(), index.column());
    if (role == Qt::DisplayRole) {
        if (c.missing())
            return c.kind == Cell::Text && index.column() > 0 ? QStringLiteral("—") : QStringLiteral("absent");
        if (c.kind == Cell::Text)
            return QString::fromStdString(*c.text);
        if (c.kind == Cell::Time) // one unit per column; the tooltip and exports keep exact µs
            return m_timeColumns[size_t(index.column())].format(*c.number);
        return QString::number(*c.number);
    }
    if (role == SortRole) {
        if (c.kind == Cell::Text)
            return c.text ? QString::fromStdString(*c.text) : QString();
        return c.number ? QVariant(qlonglong(*c.number)) : QVariant(std::numeric_limits<qlonglong>::min());
    }
    if (role == Qt::TextAlignmentRole && c.kind != Cell::Text)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && c.kind == Cell::Text && c.text)
        return QString::fromStdString(*c.text);
    if (role == Qt::ToolTipRole && c.kind == Cell::Time && c.number)
        return tr("%1 µs exactly").arg(QString::fromStdString(formatMicros(*c.number)));
    return {};
}

QVariant DiffTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= columnCount())
        return {};
    // The cells carry their column's unit, so the titles name none; the side
    // goes on a line of its own ("Gap time" over "before"), so the figures,
    // not their titles, set the columns' widths.
    QString title = QString::fromUtf8(columns()[size_t(section)].title);
    title.remove(QStringLiteral(" (µs)"));
    for (const QString side : {QStringLiteral(" before"), QStringLiteral(" after")})
        if (title.endsWith(side))
            title[title.size() - side.size()] = QLatin1Char('\n');
    return title;
}


std::string DiffTableModel::toCsv(const std::vector<int> &rowsIn) const
{
    std::vector<int> rows = rowsIn;
    if (rows.empty())
        for (int r = 0; r < rowCount(); ++r)
            rows.push_back(r);
    std::string out;
    const auto keys = columnKeys();
    for (size_t c = 0; c < keys.size(); ++c)
        out += (c ? "," : "") + keys[c];
    out += '\n';
    for (int r : rows) {
        for (int c = 0; c < columnCount(); ++c) {
            const Cell cl = cell(r, c);
            if (c)
                out += ',';
            if (cl.text)
                out += csvField(*cl.text);
            else if (cl.number)
                out += cl.kind == Cell::Time ? formatMicros(*cl.number) : std::to_string(*cl.number);
        }
        out += '\n';
    }
    return out;
}

std::string DiffTableModel::toJson(const std::vector<int> &rowsIn) const
{
    std::vector<int> rows = rowsIn;
    if (rows.empty())
        for (int r = 0; r < rowCount(); ++r)
            rows.push_back(r);
    const auto keys = columnKeys();
    JsonWriter w(1);
    w.beginArray();
    for (int r : rows) {
        w.beginObject();
        for (int c = 0; c < columnCount(); ++c) {
            const Cell cl = cell(r, c);
            w.key(keys[size_t(c)]);
            if (cl.text)
                w.value(*cl.text);
            else if (!cl.number)
                w.null();
            else if (cl.kind == Cell::Time)
                w.micros(*cl.number);
            else
                w.value(*cl.number);
        }
        w.endObject();
    }
    w.endArray();
    return w.take();
}

} // namespace syncscope::ui
