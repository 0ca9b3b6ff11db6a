#include "job/jobheatmapdata.h"

#include "shared/timeformat.h"

#include <QCoreApplication>

#include <algorithm>
#include <map>
#include <numeric>
#include <unordered_map>

namespace syncscope::ui {

namespace {

QString tr(const char *text) { return QCoreApplication::translate("JobHeatMap", text); }

// "ProfilerStep#12" -> ("ProfilerStep#", 12); nullopt without trailing digits.
std::optional<std::pair<QString, uint64_t>> splitNumber(const QString &name)
{
    int i = int(name.size());
    while (i > 0 && name[i - 1].isDigit())
        --i;
    if (i == name.size() || name.size() - i > 18)
        return std::nullopt;
    return std::make_pair(name.left(i), name.mid(i).toULongLong());
}

} // namespace

QString heatMetricName(HeatMetric metric)
{
    switch (metric) {
    case HeatMetric::Avoidable: return tr("Avoidable");
    case HeatMetric::Lateness: return tr("Lateness");
    case HeatMetric::Wait: return tr("Wait");
    }
    return {};
}

QString heatMetricDefinition(HeatMetric metric)
{
    switch (metric) {
    case HeatMetric::Avoidable:
        return tr("How much earlier the job would end without this rank's blocking calls that end "
                  "in the step");
    case HeatMetric::Lateness:
        return tr("How much later than the second-last rank this rank reached the step's "
                  "collectives it was last at");
    case HeatMetric::Wait:
        return tr("How long this rank waited in the step's collectives for the last rank to arrive");
    }
    return {};
}

QString rankOrderName(RankOrder order)
{
    switch (order) {
    case RankOrder::Rank: return tr("Rank");
    case RankOrder::JobAvoidable: return tr("Job avoidable");
    case RankOrder::LastArrivals: return tr("Last arrivals");
    case RankOrder::Wait: return tr("Wait");
    }
    return {};
}

TimeNs heatMetricValue(const RankStep &step, HeatMetric metric)
{
    switch (metric) {
    case HeatMetric::Avoidable: return step.avoidable;
    case HeatMetric::Lateness: return step.lateness;
    case HeatMetric::Wait: return step.wait;
    }
    return 0;
}

JobHeatMapData::JobHeatMapData(std::shared_ptr<const JobScale> job) : m_job(std::move(job))
{
    if (!m_job)
        return;
    const JobScale &j = *m_job;
    std::unordered_map<int64_t, int> rowOfRank;
    for (size_t r = 0; r < j.rankRows.size(); ++r)
        rowOfRank.emplace(j.rankRows[r].rank, int(r));

    // Columns: (name, occurrence within its rank). The order is that of the
    // rank with the most steps, then any key it lacks in order of appearance.
    std::map<std::pair<std::string, int>, int> columnOf;
    std::vector<std::vector<std::pair<std::pair<std::string, int>, size_t>>> perRank(j.rankRows.size());
    {
        std::vector<std::map<std::string, int>> seen(j.rankRows.size());
        for (size_t s = 0; s < j.rankSteps.size(); ++s) {
            const RankStep &st = j.rankSteps[s];
            const auto it = rowOfRank.find(st.rank);
            if (it == rowOfRank.end())
                continue;
            const int occurrence = seen[size_t(it->second)][st.step]++;
            perRank[size_t(it->second)].push_back({{st.step, occurrence}, s});
        }
    }
    std::vector<size_t> byCount(perRank.size());
    std::iota(byCount.begin(), byCount.end(), size_t(0));
    std::stable_sort(byCount.begin(), byCount.end(),
                     [&](size_t a, size_t b) { return perRank[a].size() > perRank[b].size(); });
    std::vector<std::pair<std::string, int>> keys;
    for (size_t r : byCount)
        for (const auto &cell : perRank[r])
            if (columnOf.emplace(cell.first, 0).second)
                keys.push_back(cell.first);
    bool numbered = !keys.empty();
    for (const auto &k : keys)
        numbered = numbered && splitNumber(QString::fromStdString(k.first)).has_value();
    if (numbered)
        std::stable_sort(keys.begin(), keys.end(), [](const auto &a, const auto &b) {
            const auto x = *splitNumber(QString::fromStdString(a.first));
            const auto y = *splitNumber(QString::fromStdString(b.first));
            if (x.first != y.first)
                return x.first < y.first;
            if (x.second != y.second)
                return x.second < y.second;
            return a.second < b.second;
        });
    std::map<std::string, int> occurrences; // how many times a name repeats at most
    for (const auto &k : keys)
        occurrences[k.first] = std::max(occurrences[k.first], k.second + 1);
    for (size_t c = 0; c < keys.size(); ++c) {
        columnOf[keys[c]] = int(c);
        Column col;
        col.name = QString::fromStdString(keys[c].first);
        col.occurrence = keys[c].second;
        col.label = occurrences[keys[c].first] > 1
                        ? QStringLiteral("%1 (%2)").arg(col.name).arg(col.occurrence + 1)
                        : col.name;
        col.shortName = numbered ? QString::number(splitNumber(col.name)->second) : col.label;
        if (numbered && occurrences[keys[c].first] > 1)
            col.shortName += QStringLiteral(" (%1)").arg(col.occurrence + 1);
        m_columns.push_back(col);
    }

    m_cells.assign(j.rankRows.size() * m_columns.size(), -1);
    for (size_t r = 0; r < perRank.size(); ++r)
        for (const auto &cell : perRank[r]) {
            m_cells[r * m_columns.size() + size_t(columnOf[cell.first])] = int32_t(cell.second);
            const RankStep &st = j.rankSteps[cell.second];
            for (HeatMetric m : {HeatMetric::Avoidable, HeatMetric::Lateness, HeatMetric::Wait})
                m_max[int(m)] = std::max(m_max[int(m)], heatMetricValue(st, m));
        }
    setOrder(RankOrder::Rank);
}

void JobHeatMapData::setOrder(RankOrder order)
{
    m_order = order;
    if (!m_job)
        return;
    const auto &ranks = m_job->rankRows;
    m_rowOrder.resize(ranks.size());
    std::iota(m_rowOrder.begin(), m_rowOrder.end(), 0);
    std::stable_sort(m_rowOrder.begin(), m_rowOrder.end(), [&](int a, int b) {
        const JobRank &x = ranks[size_t(a)], &y = ranks[size_t(b)];
        switch (order) {
        case RankOrder::Rank: break;
        case RankOrder::JobAvoidable:
            if (x.jobAvoidable != y.jobAvoidable)
                return x.jobAvoidable > y.jobAvoidable;
            break;
        case RankOrder::LastArrivals:
            if (x.lastArrivals != y.lastArrivals)
                return x.lastArrivals > y.lastArrivals;
            break;
        case RankOrder::Wait:
            if (x.wait != y.wait)
                return x.wait > y.wait;
            break;
        }
        return x.rank < y.rank;
    });
}

int JobHeatMapData::rowOfRankRow(int rankRow) const
{
    const auto it = std::find(m_rowOrder.begin(), m_rowOrder.end(), rankRow);
    return it == m_rowOrder.end() ? -1 : int(it - m_rowOrder.begin());
}

QString JobHeatMapData::columnShortName(int column) const { return m_columns[size_t(column)].shortName; }

int JobHeatMapData::stepAt(int row, int column) const
{
    if (row < 0 || row >= rows() || column < 0 || column >= columns())
        return -1;
    return m_cells[size_t(m_rowOrder[size_t(row)]) * m_columns.size() + size_t(column)];
}

std::optional<TimeNs> JobHeatMapData::value(int row, int column, HeatMetric metric) const
{
    const int s = stepAt(row, column);
    if (s < 0)
        return std::nullopt;
    return heatMetricValue(m_job->rankSteps[size_t(s)], metric);
}

TimeNs JobHeatMapData::maxValue(HeatMetric metric) const { return m_max[int(metric)]; }

QString JobHeatMapData::cellText(int row, int column, HeatMetric metric) const
{
    if (row < 0 || row >= rows() || column < 0 || column >= columns())
        return {};
    const JobRank &rank = m_job->rankRows[size_t(rankRowAt(row))];
    const int s = stepAt(row, column);
    if (s < 0)
        return tr("Rank %1 has no step %2").arg(rank.rank).arg(columnName(column));
    const RankStep &st = m_job->rankSteps[size_t(s)];
    const TimeNs v = heatMetricValue(st, metric);
    return tr("Rank %1, %2\n%3: %4 (%5 ns)\nAvoidable %6 · lateness %7 · wait %8 · step %9\nClick "
              "to show it in the Timeline")
        .arg(rank.rank)
        .arg(columnName(column), heatMetricName(metric), formatDuration(v))
        .arg(v)
        .arg(formatDuration(st.avoidable), formatDuration(st.lateness), formatDuration(st.wait),
             formatDuration(st.dur));
}

} // namespace syncscope::ui
