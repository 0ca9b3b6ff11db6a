#include "explorer/resultsmodel.h"

#include <QBrush>
#include <QColor>
#include <QLocale>

#include <cmath>
#include <stdexcept>

namespace syncscope::ui {

namespace {

// A step time the lab measured in ms, as the integer ns the tables print.
int64_t nsOfMs(double ms) { return std::llround(ms * 1e6); }

} // namespace

ResultsModel::ResultsModel(QObject *parent) : QAbstractTableModel(parent) {}

int ResultsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ResultsModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

const ResultsModel::Run *ResultsModel::findRun(int id) const
{
    for (const auto &r : m_runs)
        if (r.id == id)
            return &r;
    return nullptr;
}

const lab::BenchReport &ResultsModel::report(int runId) const
{
    const Run *r = findRun(runId);
    if (!r)
        throw std::out_of_range("no such run");
    return r->report;
}

QString ResultsModel::runLabel(int runId) const
{
    const Run *r = findRun(runId);
    return r ? r->label : QString();
}

int ResultsModel::runOfRow(int row) const
{
    return row >= 0 && row < rowCount() ? m_rows[static_cast<size_t>(row)].run : 0;
}

const lab::BenchResult &ResultsModel::result(int row) const
{
    const Row &r = m_rows.at(static_cast<size_t>(row));
    return findRun(r.run)->report.results[r.index];
}

int ResultsModel::firstRowOfRun(int runId) const
{
    for (size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].run == runId)
            return static_cast<int>(i);
    return -1;
}

int ResultsModel::addRun(const lab::BenchReport &report, const QString &label)
{
    const int id = m_nextId++;
    const int first = rowCount();
    const int count = static_cast<int>(report.results.size());
    if (count > 0)
        beginInsertRows({}, first, first + count - 1);
    m_runs.push_back({id, label, report});
    for (size_t i = 0; i < report.results.size(); ++i)
        m_rows.push_back({id, i});
    fitTimeColumns();
    if (count > 0)
        endInsertRows();
    // A new run can change a column's unit: every row of it reads anew.
    if (first > 0)
        Q_EMIT dataChanged(index(0, MedianColumn), index(first - 1, FloorColumn),
                           {Qt::DisplayRole, Qt::ToolTipRole});
    return id;
}

void ResultsModel::clear()
{
    beginResetModel();
    m_runs.clear();
    m_rows.clear();
    fitTimeColumns();
    endResetModel();
}

std::optional<double> ResultsModel::timeMs(const lab::BenchResult &r, int column)
{
    if (!r.error.empty())
        return std::nullopt;
    switch (column) {
    case MedianColumn: return r.stats.medianMs;
    case P5Column: return r.stats.p5Ms;
    case P95Column: return r.stats.p95Ms;
    case MeanColumn: return r.stats.meanMs;
    case StdevColumn: return r.stats.stdevMs;
    case FloorColumn: return r.floorMs > 0 ? std::optional<double>(r.floorMs) : std::nullopt;
    default: return std::nullopt;
    }
}

void ResultsModel::fitTimeColumns()
{
    for (DurationColumn &c : m_timeColumns)
        c.clear();
    for (const Row &row : m_rows) {
        const lab::BenchResult &r = findRun(row.run)->report.results[row.index];
        for (int col = MedianColumn; col <= FloorColumn; ++col)
            if (const auto ms = timeMs(r, col))
                m_timeColumns[col - MedianColumn].add(nsOfMs(*ms));
    }
}

QVariant ResultsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    // The time cells carry their column's unit, so the titles name none.
    static const char *names[] = {"Run",      "Variant",    "Device",   "N",     "K",     "B",     "D",
                                  "Pos frac", "Median",     "p5",       "p95",   "Mean",  "Stdev", "Floor",
                                  "× floor",  "Syncs/step", "Peak MiB", "Steps", "Status"};
    static const char *tips[] = {"Which run or loaded file the row belongs to",
                                 nullptr,
                                 nullptr,
                                 "Items per row",
                                 "Samples per row",
                                 "Rows",
                                 "Feature dim",
                                 "Input positive fraction",
                                 "Median step time",
                                 "5th percentile step time",
                                 "95th percentile step time",
                                 "Mean step time",
                                 "Standard deviation of step time",
                                 "One read pass over the same labels",
                                 "Median / floor",
                                 "Host-device syncs per step (CUDA only)",
                                 "Peak device memory (CUDA only)",
                                 "Timed steps",
                                 nullptr};
    if (role == Qt::DisplayRole)
        return QString::fromUtf8(names[section]); // the source is UTF-8 ("× floor")
    if (role == Qt::ToolTipRole && tips[section])
        return QString::fromUtf8(tips[section]);
    return {};
}

QVariant ResultsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &row = m_rows[static_cast<size_t>(index.row())];
    const Run *run = findRun(row.run);
    const lab::BenchResult &r = run->report.results[row.index];
    const bool ok = r.error.empty();
    const int col = index.column();
    // A step time: in its column's unit (the tooltip exactly, in ns).
    auto ms = [&](double v) -> QVariant {
        if (!ok)
            return {};
        if (role == SortRole)
            return v;
        return m_timeColumns[col - MedianColumn].cell(nsOfMs(v), role == Qt::ToolTipRole);
    };
    if (role == Qt::DisplayRole || role == SortRole) {
        switch (col) {
        case RunColumn: return role == SortRole ? QVariant(run->id) : QVariant(run->label);
        case VariantColumn: return QString::fromStdString(r.variant);
        case DeviceColumn: return QString::fromStdString(r.device.empty() ? run->report.device : r.device);
        case NColumn:
            return role == SortRole ? QVariant(static_cast<qlonglong>(r.point.n))
                                    : QLocale().toString(static_cast<qlonglong>(r.point.n));
        case KColumn:
            return role == SortRole ? QVariant(static_cast<qlonglong>(r.point.k))
                                    : QLocale().toString(static_cast<qlonglong>(r.point.k));
        case BatchColumn: return static_cast<qlonglong>(r.point.batch);
        case DimColumn: return static_cast<qlonglong>(r.point.dim);
        case PosFracColumn:
            return role == SortRole ? QVariant(r.point.posFrac) : QString::number(r.point.posFrac, 'g', 3);
        case MedianColumn: return ms(r.stats.medianMs);
        case P5Column: return ms(r.stats.p5Ms);
        case P95Column: return ms(r.stats.p95Ms);
        case MeanColumn: return ms(r.stats.meanMs);
        case StdevColumn: return ms(r.stats.stdevMs);
        case FloorColumn: return r.floorMs > 0 ? ms(r.floorMs) : QVariant();
        case RatioColumn:
            if (!ok || r.floorMs <= 0)
                return {};
            return role == SortRole ? QVariant(r.stats.medianMs / r.floorMs)
                                    : QVariant(QString::number(r.stats.medianMs / r.floorMs, 'f', 1));
        case SyncsColumn:
            if (!r.syncsPerStep)
                return role == SortRole ? QVariant(-1.0) : QVariant(tr("n/m"));
            return role == SortRole ? QVariant(*r.syncsPerStep)
                                    : QVariant(QString::number(*r.syncsPerStep, 'g', 4));
        case PeakColumn:
            if (!r.peakBytes)
                return role == SortRole ? QVariant(-1.0) : QVariant(tr("n/m"));
            return role == SortRole
                       ? QVariant(static_cast<double>(*r.peakBytes))
                       : QVariant(QString::number(static_cast<double>(*r.peakBytes) / 1048576.0, 'f', 1));
        case ItersColumn: return r.iters;
        case StatusColumn: return ok ? tr("ok") : QString::fromStdString(r.error);
        }
        return {};
    }
    if (role == Qt::TextAlignmentRole)
        return col == RunColumn || col == VariantColumn || col == DeviceColumn || col == StatusColumn
                   ? QVariant(int(Qt::AlignLeft | Qt::AlignVCenter))
                   : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
    if (role == Qt::ForegroundRole && !ok)
        return QBrush(QColor(0xb0, 0x00, 0x20));
    if (role == Qt::ToolTipRole) {
        if (!ok)
            return QString::fromStdString(r.error);
        if ((col == SyncsColumn && !r.syncsPerStep) || (col == PeakColumn && !r.peakBytes))
            return tr("Not measured: the %1 cannot count this.").arg(QString::fromStdString(run->report.device));
        if (const auto v = timeMs(r, col))
            return ms(*v);
    }
    return {};
}

} // namespace syncscope::ui
