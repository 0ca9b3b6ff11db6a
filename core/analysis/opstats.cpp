#include "analysis/opstats.h"

#include "common/error.h"
#include "trace/categories.h"

#include <algorithm>
#include <unordered_map>

namespace syncscope {

namespace {

// Each GPU activity's count and duration onto its launching call: the first
// cuda_runtime/cuda_driver event (track order, then start) with its correlation.
void attributeGpuWork(const TraceModel &model,
                      std::vector<std::unordered_map<uint32_t, std::pair<uint64_t, TimeNs>>> &launched)
{
    const category::Ids cats(model);
    if (cats.runtime == kNoStr && cats.driver == kNoStr)
        return;
    const auto &tracks = model.tracks();
    std::unordered_map<int64_t, std::pair<uint32_t, uint32_t>> launchOf;
    for (uint32_t ti = 0; ti < tracks.size(); ++ti) {
        const Track &t = tracks[ti];
        for (uint32_t i = 0; i < t.size(); ++i)
            if (cats.runtimeCall(t.cat[i]) && t.correlation[i] != kNoValue)
                launchOf.emplace(t.correlation[i], std::make_pair(ti, i));
    }
    for (uint32_t ti = 0; ti < tracks.size(); ++ti) {
        const Track &t = tracks[ti];
        for (uint32_t i = 0; i < t.size(); ++i) {
            const StrId cat = t.cat[i];
            if (!cats.gpuActivity(cat) || t.correlation[i] == kNoValue)
                continue;
            auto it = launchOf.find(t.correlation[i]);
            if (it == launchOf.end())
                continue;
            auto &w = launched[it->second.first][it->second.second];
            ++w.first;
            w.second += t.dur[i];
        }
    }
}

// clip: whether to restrict to [t0, t1).
std::vector<OpStat> compute(const TraceModel &model, bool clip, TimeNs t0, TimeNs t1,
                            const ProgressFn &progress, const CancelToken *cancel)
{
    std::unordered_map<uint64_t, OpStat> stats;
    std::vector<TimeNs> childTime;
    const auto &tracks = model.tracks();
    // GPU work per launching call (whole trace only): track -> index -> (count, time).
    std::vector<std::unordered_map<uint32_t, std::pair<uint64_t, TimeNs>>> launched(tracks.size());
    if (!clip)
        attributeGpuWork(model, launched);
    std::vector<std::pair<uint64_t, TimeNs>> subtree;
    for (size_t ti = 0; ti < tracks.size(); ++ti) {
        checkCancel(cancel);
        if (progress)
            progress(double(ti) / double(tracks.size()), "op statistics");
        const Track &t = tracks[ti];
        size_t b = 0, e = t.size();
        if (clip)
            std::tie(b, e) = t.candidates(t0, t1);
        auto clipped = [&](size_t i) -> TimeNs {
            if (!clip)
                return t.dur[i];
            return std::min(t.end(i), t1) - std::max(t.start[i], t0);
        };
        auto inside = [&](size_t i) {
            if (!clip)
                return true;
            if (t.dur[i] == 0)
                return t.start[i] >= t0 && t.start[i] < t1;
            return clipped(i) > 0;
        };
        childTime.assign(e - b, 0);
        // GPU work in each event's subtree: children follow their parent.
        subtree.assign(e - b, {0, 0});
        for (const auto &kv : launched[ti])
            subtree[kv.first - b] = kv.second;
        if (!launched[ti].empty())
            for (size_t i = e; i-- > b;)
                if (const int32_t p = t.parent[i]; p >= static_cast<int32_t>(b)) {
                    subtree[static_cast<size_t>(p) - b].first += subtree[i - b].first;
                    subtree[static_cast<size_t>(p) - b].second += subtree[i - b].second;
                }
        // Children follow their parent, so a parent before b has no child stats to
        // collect here; only parents inside [b, e) are credited.
        for (size_t i = b; i < e; ++i) {
            const int32_t p = t.parent[i];
            if (p >= static_cast<int32_t>(b) && inside(i))
                childTime[static_cast<size_t>(p) - b] += clipped(i);
        }
        for (size_t i = b; i < e; ++i) {
            if (!inside(i))
                continue;
            const TimeNs d = clipped(i);
            const uint64_t key = (static_cast<uint64_t>(t.name[i]) << 32) | t.cat[i];
            OpStat &s = stats[key];
            if (s.count == 0) {
                s.name = t.name[i];
                s.cat = t.cat[i];
                s.min = d;
                s.max = d;
            }
            ++s.count;
            // Total time over outermost instances: one inside another of the
            // same name and category on this thread is already counted.
            bool nested = false;
            for (int32_t a = t.parent[i]; a >= 0 && !nested; a = t.parent[a])
                nested = t.name[a] == t.name[i] && t.cat[a] == t.cat[i];
            if (!nested) {
                s.total += d;
                s.gpuCount += subtree[i - b].first;
                s.gpuTime += subtree[i - b].second;
            }
            s.self += std::max<TimeNs>(0, d - childTime[i - b]);
            s.min = std::min(s.min, d);
            s.max = std::max(s.max, d);
        }
    }
    std::vector<OpStat> out;
    out.reserve(stats.size());
    for (auto &kv : stats)
        out.push_back(kv.second);
    std::sort(out.begin(), out.end(), [](const OpStat &a, const OpStat &b) {
        if (a.total != b.total)
            return a.total > b.total;
        if (a.name != b.name)
            return a.name < b.name;
        return a.cat < b.cat;
    });
    if (progress)
        progress(1.0, "done");
    return out;
}

} // namespace

std::vector<OpStat> opStatistics(const TraceModel &model, const ProgressFn &progress,
                                 const CancelToken *cancel)
{
    return compute(model, false, 0, 0, progress, cancel);
}

std::vector<OpStat> opStatistics(const TraceModel &model, TimeNs t0, TimeNs t1,
                                 const ProgressFn &progress, const CancelToken *cancel)
{
    if (t1 < t0)
        std::swap(t0, t1);
    return compute(model, true, t0, t1, progress, cancel);
}

} // namespace syncscope
