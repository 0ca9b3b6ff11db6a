#include "analysis/replaybuild.h"

#include "analysis/handoffs.h"
#include "common/cores.h"

#include "trace/argfield.h"
#include "trace/categories.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace syncscope {

bool isCollectiveKernel(std::string_view name)
{
    for (size_t i = 0; i + 4 <= name.size(); ++i) {
        const char a = static_cast<char>(std::tolower(static_cast<unsigned char>(name[i])));
        if (a != 'n' && a != 'r')
            continue;
        const char b = static_cast<char>(std::tolower(static_cast<unsigned char>(name[i + 1])));
        const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(name[i + 2])));
        const char d = static_cast<char>(std::tolower(static_cast<unsigned char>(name[i + 3])));
        if (b == 'c' && c == 'c' && d == 'l')
            return true;
    }
    return false;
}

namespace {

// The blocking calls with what each waits for: the stream, device or event
// record its cuda_sync record names, or the stream of the copy it makes.
void addBlockingCalls(const TraceModel &model, ReplayInput &in, const std::vector<SyncCall> &calls,
                      const std::vector<CudaSyncEvent> &syncEvents, const CorrelationIndex &launchOf,
                      const std::map<std::pair<int64_t, int64_t>, uint32_t> &streamIndex)
{
    const auto tracks = model.tracks();
    const StrId streamSync = model.findString("Stream Sync"), contextSync = model.findString("Context Sync"),
                eventSync = model.findString("Event Sync");
    std::unordered_map<int64_t, size_t> recordOf; // call correlation -> its first record
    for (size_t k = 0; k < syncEvents.size(); ++k) {
        const CudaSyncEvent &e = syncEvents[k];
        const int64_t corr = tracks[e.event.track].correlation[e.event.index];
        if (corr != kNoValue)
            recordOf.emplace(corr, k);
    }
    // What each call waits for; a copy call's correlation -> its first
    // activity's stream: only those correlations are looked for (kNoStream
    // until found).
    std::vector<BlockKind> kinds(calls.size());
    constexpr uint32_t kNoStream = UINT32_MAX;
    std::unordered_map<int64_t, uint32_t> activityOf;
    for (size_t i = 0; i < calls.size(); ++i) {
        const SyncCall &c = calls[i];
        const Track t = tracks[c.event.track];
        kinds[i] = blockKindOf(model.str(t.name[c.event.index]), c.pageableCopy);
        const int64_t corr = t.correlation[c.event.index];
        if (corr != kNoValue && kinds[i] == BlockKind::Copy)
            activityOf.emplace(corr, kNoStream);
    }
    if (!activityOf.empty())
        for (const ReplayActivity &a : in.activities)
            if (a.correlation != kNoValue)
                if (auto it = activityOf.find(a.correlation); it != activityOf.end() && it->second == kNoStream)
                    it->second = a.stream;
    auto denseStream = [&](int64_t device, int64_t stream) -> int32_t {
        auto it = streamIndex.find({device, stream});
        return it != streamIndex.end() ? static_cast<int32_t>(it->second) : -1;
    };
    in.calls.reserve(calls.size());
    for (size_t i = 0; i < calls.size(); ++i) {
        const SyncCall &c = calls[i];
        const Track t = tracks[c.event.track];
        ReplayBlocking b{c.event.track, c.start, c.end()};
        b.kind = kinds[i];
        const int64_t corr = t.correlation[c.event.index];
        auto rec = corr != kNoValue ? recordOf.find(corr) : recordOf.end();
        const CudaSyncEvent *r = rec != recordOf.end() ? &syncEvents[rec->second] : nullptr;
        if (b.kind == BlockKind::Copy) {
            auto a = corr != kNoValue ? activityOf.find(corr) : activityOf.end();
            if (a != activityOf.end() && a->second != kNoStream)
                b.stream = static_cast<int32_t>(a->second);
        } else if (b.kind == BlockKind::Stream && r && r->kind == streamSync) {
            b.stream = denseStream(r->device, r->stream);
        } else if (b.kind == BlockKind::Device && r && r->kind == contextSync) {
            const auto d = std::lower_bound(in.deviceIds.begin(), in.deviceIds.end(), r->device);
            bool hasActivity = false;
            for (const auto &sid : in.streamIds)
                hasActivity = hasActivity || sid.first == r->device;
            if (d != in.deviceIds.end() && *d == r->device && hasActivity)
                b.device = static_cast<int32_t>(d - in.deviceIds.begin());
        } else if (b.kind == BlockKind::Event && r && r->kind == eventSync) {
            const Track rt = tracks[r->event.track];
            const std::string_view args = model.args(rt.args[r->event.index]);
            const auto onStream = argInt(args, "wait_on_stream");
            if (onStream) {
                b.stream = denseStream(r->device, *onStream);
                if (b.stream >= 0) {
                    const auto recCorr = argInt(args, "wait_on_cuda_event_record_corr_id");
                    const HostCallRef *recCall = recCorr ? launchOf.find(*recCorr) : nullptr;
                    b.cut = recCall ? recCall->start : c.start;
                }
            }
        }
        in.calls.push_back(b);
    }
}

// The process group of a collective kernel: its own "Process Group Name", else
// that of the innermost enclosing op of its launch call that has one.
std::string collectiveGroup(const TraceModel &model, const GpuActivityRef &a, const HostCallRef *launch,
                            int64_t stream)
{
    const auto tracks = model.tracks();
    const Track kt = tracks[a.track];
    if (auto g = argString(model.args(kt.args[a.index]), "Process Group Name"))
        return *g;
    if (launch) {
        const Track t = tracks[launch->track];
        for (int32_t p = t.parent[launch->index]; p >= 0; p = t.parent[static_cast<size_t>(p)])
            if (auto g = argString(model.args(t.args[static_cast<size_t>(p)]), "Process Group Name"))
                return *g;
    }
    return "stream " + std::to_string(stream);
}

// Sorts v by `before` (a strict total order) by merging the runs it is sorted
// in already: a device's activities come stream by stream, each stream in
// order of start and, as its work runs one after another, of end too.
template <class Before> void sortRuns(std::vector<uint32_t> &v, const Before &before)
{
    std::vector<size_t> bounds{0};
    for (size_t i = 1; i < v.size(); ++i)
        if (before(v[i], v[i - 1]))
            bounds.push_back(i);
    bounds.push_back(v.size());
    if (bounds.size() > 64) { // not runs: sort
        std::sort(v.begin(), v.end(), before);
        return;
    }
    while (bounds.size() > 2) {
        std::vector<size_t> merged{0};
        for (size_t k = 0; k + 2 < bounds.size(); k += 2) {
            std::inplace_merge(v.begin() + static_cast<std::ptrdiff_t>(bounds[k]),
                               v.begin() + static_cast<std::ptrdiff_t>(bounds[k + 1]),
                               v.begin() + static_cast<std::ptrdiff_t>(bounds[k + 2]), before);
            merged.push_back(bounds[k + 2]);
        }
        if (bounds.size() % 2 == 0) // an odd number of runs: the last waits a round
            merged.push_back(bounds.back());
        bounds.swap(merged);
    }
}

} // namespace

BlockKind blockKindOf(std::string_view name, bool pageableCopy)
{
    if (pageableCopy)
        return BlockKind::Copy;
    if (name == "cudaStreamSynchronize" || name == "cuStreamSynchronize" || name == "hipStreamSynchronize")
        return BlockKind::Stream;
    if (name == "cudaDeviceSynchronize" || name == "cuCtxSynchronize" || name == "hipDeviceSynchronize" ||
        name == "hipCtxSynchronize")
        return BlockKind::Device;
    if (name == "cudaEventSynchronize" || name == "cuEventSynchronize" || name == "hipEventSynchronize")
        return BlockKind::Event;
    return BlockKind::Copy;
}

std::future<Handoffs> handoffsAside(const TraceModel &model, size_t threads)
{
    const bool aside = (threads ? threads : usableCores()) > 1;
    return std::async(aside ? std::launch::async : std::launch::deferred,
                      [&model] { return findHandoffs(model); });
}

ReplayInput buildReplayInput(const TraceModel &model, const std::vector<GpuActivityRef> &acts,
                             const CorrelationIndex &launchOf, const std::vector<SyncCall> &calls,
                             const std::vector<CudaSyncEvent> &syncEvents, const std::vector<int64_t> &deviceIds,
                             Handoffs handoffs)
{
    ReplayInput in;
    in.deviceIds = deviceIds;
    in.threads = static_cast<uint32_t>(model.tracks().size());
    size_t nameChars = 0;
    for (const Track &t : model.tracks())
        nameChars += model.str(t.tid.text).size();
    in.threadNames.reserve(model.tracks().size(), nameChars);
    for (const Track &t : model.tracks())
        in.threadNames.push_back(model.str(t.tid.text));
    auto denseDevice = [&](int64_t device) {
        return static_cast<uint32_t>(std::lower_bound(in.deviceIds.begin(), in.deviceIds.end(), device) -
                                     in.deviceIds.begin());
    };
    std::map<std::pair<int64_t, int64_t>, uint32_t> streamIndex;
    in.activities.reserve(acts.size());
    for (const GpuActivityRef &a : acts) {
        auto s = streamIndex.try_emplace(std::make_pair(a.device, a.stream),
                                         static_cast<uint32_t>(streamIndex.size()));
        if (s.second)
            in.streamIds.push_back({a.device, a.stream});
        in.activities.push_back({denseDevice(a.device), s.first->second, a.start, a.end, a.correlation});
    }
    // Launches sorted by correlation, so the summary is the same from run to run.
    in.launches.reserve(launchOf.size());
    for (const auto &kv : launchOf) // by correlation already
        in.launches.push_back({kv.second.track, kv.second.start, kv.second.end, kv.first});
    in.handoffs = std::move(handoffs.list);
    in.threadMode = handoffs.mode;
    addBlockingCalls(model, in, calls, syncEvents, launchOf, streamIndex);

    auto launchOfAct = [&](size_t a) -> const HostCallRef * {
        if (acts[a].correlation == kNoValue)
            return nullptr;
        return launchOf.find(acts[a].correlation);
    };

    // Per stream: its launched activities by launch start (stable: stream order).
    const size_t nStreams = in.streamIds.size();
    std::vector<std::vector<std::pair<TimeNs, uint32_t>>> byLaunch(nStreams);
    for (uint32_t a = 0; a < acts.size(); ++a)
        if (const HostCallRef *l = launchOfAct(a))
            byLaunch[in.activities[a].stream].push_back({l->start, a});
    const auto byLaunchStart = [](const auto &x, const auto &y) { return x.first < y.first; };
    for (auto &v : byLaunch)
        if (!std::is_sorted(v.begin(), v.end(), byLaunchStart)) // a stream's launches come in order, as a rule
            std::stable_sort(v.begin(), v.end(), byLaunchStart);

    const StrId waitKind = model.findString("Stream Wait Event");
    bool exact = false;
    for (const CudaSyncEvent &e : syncEvents)
        exact = exact || (waitKind != kNoStr && e.kind == waitKind);
    if (exact) {
        in.waitMode = WaitMode::Exact;
        const auto tracks = model.tracks();
        for (const CudaSyncEvent &e : syncEvents) {
            if (e.kind != waitKind)
                continue;
            const Track t = tracks[e.event.track];
            const std::string_view args = model.args(t.args[e.event.index]);
            const auto onStream = argInt(args, "wait_on_stream");
            const auto recordCorr = argInt(args, "wait_on_cuda_event_record_corr_id");
            const int64_t corr = t.correlation[e.event.index];
            if (!onStream || !recordCorr || corr == kNoValue || e.stream == kNoValue || e.device == kNoValue)
                continue;
            const HostCallRef *rec = launchOf.find(*recordCorr);
            const HostCallRef *wait = launchOf.find(corr);
            auto from = streamIndex.find({e.device, *onStream});
            auto to = streamIndex.find({e.device, e.stream});
            if (!rec || !wait || from == streamIndex.end() || to == streamIndex.end())
                continue;
            const auto &fv = byLaunch[from->second];
            const auto &tv = byLaunch[to->second];
            // The last launched on wait_on_stream at or before the record call...
            auto f = std::upper_bound(fv.begin(), fv.end(), rec->start,
                                      [](TimeNs v, const auto &x) { return v < x.first; });
            // ...and the first launched on the waiting stream at or after the wait call.
            auto g = std::lower_bound(tv.begin(), tv.end(), wait->start,
                                      [](const auto &x, TimeNs v) { return x.first < v; });
            if (f == fv.begin() || g == tv.end() || g->second == std::prev(f)->second)
                continue;
            in.deps.push_back({g->second, std::prev(f)->second});
        }
    } else {
        // Inferred: an activity that started well after its launch and its stream
        // predecessor waited on the latest activity of another stream of its device
        // that ended just before it started.
        std::vector<std::vector<uint32_t>> byEnd(in.deviceIds.size());
        for (uint32_t a = 0; a < acts.size(); ++a)
            byEnd[in.activities[a].device].push_back(a);
        const auto byEndOrder = [&](uint32_t x, uint32_t y) {
            const ReplayActivity &p = in.activities[x], &q = in.activities[y];
            if (p.end != q.end)
                return p.end < q.end;
            if (p.start != q.start)
                return p.start < q.start;
            return x < y;
        };
        for (auto &v : byEnd)
            sortRuns(v, byEndOrder);
        for (uint32_t a = 0; a < acts.size(); ++a) {
            const HostCallRef *l = launchOfAct(a);
            const ReplayActivity &act = in.activities[a];
            if (!l || act.start <= l->end + kLaunchSlack)
                continue;
            const bool hasPred = a > 0 && in.activities[a - 1].stream == act.stream;
            if (hasPred && act.start <= in.activities[a - 1].end + kDependencySlack)
                continue;
            const auto &v = byEnd[act.device];
            auto hi = std::upper_bound(v.begin(), v.end(), act.start,
                                       [&](TimeNs t, uint32_t x) { return t < in.activities[x].end; });
            for (auto it = hi; it != v.begin();) {
                const uint32_t b = *--it;
                if (in.activities[b].end < act.start - kDependencySlack)
                    break;
                if (in.activities[b].stream == act.stream)
                    continue;
                in.deps.push_back({a, b});
                break;
            }
        }
    }
    std::sort(in.deps.begin(), in.deps.end(), [](const StreamDependency &x, const StreamDependency &y) {
        return x.activity != y.activity ? x.activity < y.activity : x.on < y.on;
    });
    in.deps.erase(std::unique(in.deps.begin(), in.deps.end(),
                              [](const StreamDependency &x, const StreamDependency &y) {
                                  return x.activity == y.activity && x.on == y.on;
                              }),
                  in.deps.end());

    // Collectives, by start; seq within each group.
    const StrId catKernel = model.findString(category::kKernel);
    const auto tracks = model.tracks();
    std::unordered_map<StrId, bool> collectiveName;
    // A stream's activities share a track: its view is made once per run of them.
    Track t;
    uint32_t viewed = UINT32_MAX;
    for (uint32_t a = 0; a < acts.size(); ++a) {
        if (acts[a].track != viewed) {
            viewed = acts[a].track;
            t = tracks[viewed];
        }
        if (t.cat[acts[a].index] != catKernel)
            continue;
        const StrId name = t.name[acts[a].index];
        auto it = collectiveName.find(name);
        if (it == collectiveName.end())
            it = collectiveName.emplace(name, isCollectiveKernel(model.str(name))).first;
        if (!it->second)
            continue;
        in.collectives.push_back({a, collectiveGroup(model, acts[a], launchOfAct(a), acts[a].stream),
                                  std::string(model.str(name)), 0});
    }
    std::stable_sort(in.collectives.begin(), in.collectives.end(),
                     [&](const CollectiveKernel &x, const CollectiveKernel &y) {
                         return in.activities[x.activity].start < in.activities[y.activity].start;
                     });
    std::map<std::string, uint32_t> nextSeq;
    for (CollectiveKernel &c : in.collectives)
        c.seq = nextSeq[c.group]++;
    return in;
}

} // namespace syncscope
