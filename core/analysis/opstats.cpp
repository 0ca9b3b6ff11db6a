#include "analysis/opstats.h"

#include "analysis/correlationindex.h"

#include "common/error.h"
#include "trace/categories.h"

#include <algorithm>
#include <unordered_map>

namespace syncscope {

namespace {

// GPU work launched by one call: the index of the call on its track and one
// activity's duration (a call that launches several appears once per activity).
struct Launched {
    uint32_t index;
    TimeNs dur;
};

// Each GPU activity's count and duration onto its launching call: the first
// cuda_runtime/cuda_driver event (track order, then start) with its correlation.
// Per track, in no particular order.
struct LaunchedByTrack {
    // A list per track that launches and an empty one shared by the rest: a
    // trace of a million threads launches from a few.
    std::vector<uint32_t> listOf; // per track: its list in lists, or 0 (the empty one)
    std::vector<std::vector<Launched>> lists{1};
    void add(uint32_t track, Launched l)
    {
        if (listOf.empty())
            return;
        uint32_t &k = listOf[track];
        if (k == 0) {
            k = uint32_t(lists.size());
            lists.emplace_back();
        }
        lists[k].push_back(l);
    }
    const std::vector<Launched> &of(size_t track) const { return lists[listOf.empty() ? 0 : listOf[track]]; }
};

void attributeGpuWork(const TraceModel &model, LaunchedByTrack &launched)
{
    const category::Ids cats(model);
    if (cats.runtime == kNoStr && cats.driver == kNoStr)
        return;
    const auto &tracks = model.tracks();
    CorrelationIndexOf<CallRef> launchOf;
    for (uint32_t ti = 0; ti < tracks.size(); ++ti) {
        const Track &t = tracks[ti];
        for (uint32_t i = 0; i < t.size(); ++i)
            if (cats.runtimeCall(t.cat[i]) && t.correlation[i] != kNoValue)
                launchOf.add(t.correlation[i], CallRef{ti, i});
    }
    launchOf.finish();
    launched.listOf.assign(tracks.size(), 0);
    for (uint32_t ti = 0; ti < tracks.size(); ++ti) {
        const Track &t = tracks[ti];
        for (uint32_t i = 0; i < t.size(); ++i) {
            const StrId cat = t.cat[i];
            if (!cats.gpuActivity(cat) || t.correlation[i] == kNoValue)
                continue;
            if (const CallRef *call = launchOf.find(t.correlation[i]))
                launched.add(call->track, {call->index, t.dur[i]});
        }
    }
}

// clip: whether to restrict to [t0, t1).
std::vector<OpStat> compute(const TraceModel &model, bool clip, TimeNs t0, TimeNs t1, const ProgressFn &progress,
                            const CancelToken *cancel)
{
    // One row per (name, category), found through an open-addressing table
    // of (name << 32 | category) -> row: one probe per event, no node per key.
    std::vector<OpStat> stats;
    std::vector<uint64_t> keys(1024, ~uint64_t(0));
    std::vector<uint32_t> rows(1024, 0);
    auto slotOf = [](const std::vector<uint64_t> &k, uint64_t key) {
        // The product's top bits, which every bit of the key moves (its low
        // bits see only the category: keys of one category would share a slot).
        const size_t mask = k.size() - 1; // a power of two
        const int bits = __builtin_ctzll(k.size());
        size_t s = size_t((key * 0x9E3779B97F4A7C15ull) >> (64 - bits));
        while (k[s] != key && k[s] != ~uint64_t(0))
            s = (s + 1) & mask;
        return s;
    };
    auto rowOf = [&](StrId name, StrId cat) -> OpStat & {
        const uint64_t key = (static_cast<uint64_t>(name) << 32) | cat;
        size_t s = slotOf(keys, key);
        if (keys[s] == key)
            return stats[rows[s]];
        if (2 * (stats.size() + 1) > keys.size()) { // at most half full
            std::vector<uint64_t> k(2 * keys.size(), ~uint64_t(0));
            std::vector<uint32_t> r(2 * keys.size(), 0);
            for (size_t i = 0; i < keys.size(); ++i)
                if (keys[i] != ~uint64_t(0)) {
                    const size_t t = slotOf(k, keys[i]);
                    k[t] = keys[i];
                    r[t] = rows[i];
                }
            keys.swap(k);
            rows.swap(r);
            s = slotOf(keys, key);
        }
        keys[s] = key;
        rows[s] = uint32_t(stats.size());
        stats.push_back({});
        return stats.back();
    };
    std::vector<TimeNs> childTime;
    const auto &tracks = model.tracks();
    // GPU work per launching call (whole trace only), per track.
    LaunchedByTrack launched;
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
        const std::vector<Launched> &launchedHere = launched.of(ti);
        for (const Launched &l : launchedHere) {
            ++subtree[l.index - b].first;
            subtree[l.index - b].second += l.dur;
        }
        if (!launchedHere.empty())
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
            OpStat &s = rowOf(t.name[i], t.cat[i]);
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
    std::vector<OpStat> out = std::move(stats);
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

std::vector<OpStat> opStatistics(const TraceModel &model, const ProgressFn &progress, const CancelToken *cancel)
{
    return compute(model, false, 0, 0, progress, cancel);
}

std::vector<OpStat> opStatistics(const TraceModel &model, TimeNs t0, TimeNs t1, const ProgressFn &progress,
                                 const CancelToken *cancel)
{
    if (t1 < t0)
        std::swap(t0, t1);
    return compute(model, true, t0, t1, progress, cancel);
}

} // namespace syncscope
