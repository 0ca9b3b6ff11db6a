#include "analysis/syncphases.h"

#include "analysis/runtime.h"
#include "analysis/windowsearch.h"
#include "common/cores.h"
#include "common/error.h"
#include "common/threadsperrun.h"
#include "trace/categories.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <memory>
#include <regex>
#include <tuple>

namespace syncscope::phases {

namespace {

// "GPU 3", "GPU:3", "CUDA GPU 3 (NVIDIA H200)" -> 3; kNoValue when no GPU number.
int64_t deviceFromProcessName(std::string_view name)
{
    const size_t at = name.find("GPU");
    if (at == name.npos)
        return kNoValue;
    size_t i = at + 3;
    while (i < name.size() && (name[i] == ' ' || name[i] == ':'))
        ++i;
    if (i == name.size() || name[i] < '0' || name[i] > '9')
        return kNoValue;
    int64_t v = 0;
    for (; i < name.size() && name[i] >= '0' && name[i] <= '9' && v < 1'000'000; ++i)
        v = v * 10 + (name[i] - '0');
    return v;
}

// Whether an event is a step: a match of the step pattern, or a ProfilerStep#N
// of category cpu_op, user_annotation or none (the legacy profiler, LibTorch
// without Kineto, writes its steps without a category). Memoized per name.
class StepNames {
public:
    StepNames(const TraceModel &model, const AnalysisOptions &options, const category::Ids &cats)
        : m_model(model), m_cats(cats)
    {
        if (!options.stepRegex.empty()) {
            try {
                m_re = std::make_unique<std::regex>(options.stepRegex, std::regex::ECMAScript);
            } catch (const std::regex_error &e) {
                throw Error("the step pattern '" + options.stepRegex + "' is not a valid regular expression (" +
                            e.what() + ")");
            }
        }
    }

    bool operator()(StrId name, StrId cat)
    {
        auto it = m_byName.find(name);
        if (it == m_byName.end()) {
            const std::string_view n = m_model.str(name);
            const bool step = m_re && std::regex_search(n.begin(), n.end(), *m_re);
            it = m_byName.emplace(name, step).first;
        }
        if (it->second)
            return true;
        return (cat == m_cats.cpuOp || cat == m_cats.userAnnotation || cat == kEmptyStr) &&
               m_model.str(name).rfind("ProfilerStep#", 0) == 0;
    }

private:
    const TraceModel &m_model;
    const category::Ids &m_cats;
    std::unique_ptr<std::regex> m_re;
    std::unordered_map<StrId, bool> m_byName;
};

TimeNs sum(const std::vector<TimeNs> &v)
{
    TimeNs s = 0;
    for (TimeNs x : v)
        s += x;
    return s;
}

} // namespace

Collected collectEvents(const TraceModel &model, const AnalysisOptions &options, const ProgressFn &progress,
                        const CancelToken *cancel)
{
    Collected out;
    const category::Ids cats(model);
    // kNoStr never matches a stored id, so absent categories cost nothing.
    StepNames stepName(model, options, cats);

    // Devices of string pids, from the process-name metadata.
    std::unordered_map<StrId, int64_t> deviceOfPidText;
    for (const Process &p : model.processes())
        if (!p.pid.isNumber())
            deviceOfPidText[p.pid.text] = deviceFromProcessName(model.str(p.name));

    std::unordered_map<int64_t, StrId> &copyName = out.copyName;
    std::unordered_map<StrId, bool> blockingByName, asyncCopyByName;
    std::vector<SyncCall> memcpyAsyncCalls; // candidates for hidden syncs
    std::vector<int64_t> memcpyAsyncCorrelation;

    const auto &tracks = model.tracks();
    auto attribute = [&](SyncCall &call, uint32_t ti, uint32_t i) {
        const Track &t = tracks[ti];
        call.event = {ti, i};
        call.start = t.start[i];
        call.dur = t.dur[i];
        for (int32_t p = t.parent[i]; p >= 0; p = t.parent[p]) {
            if (t.cat[p] == cats.cpuOp || t.cat[p] == cats.userAnnotation) {
                if (!call.op.valid())
                    call.op = {ti, static_cast<uint32_t>(p)};
                call.rootOp = {ti, static_cast<uint32_t>(p)};
            }
        }
    };
    for (uint32_t ti = 0; ti < tracks.size(); ++ti) {
        checkCancel(cancel);
        if (progress)
            progress(0.4 * double(ti) / double(tracks.size()), "collecting GPU activity");
        const Track &t = tracks[ti];
        for (uint32_t i = 0; i < t.size(); ++i) {
            const StrId cat = t.cat[i];
            if (cats.gpuActivity(cat)) {
                int64_t device = t.device[i] != kNoValue ? t.device[i] : t.pid.num;
                if (device == kNoValue) {
                    auto it = deviceOfPidText.find(t.pid.text);
                    if (it != deviceOfPidText.end())
                        device = it->second;
                }
                if (device == kNoValue) {
                    ++out.unplacedActivities;
                    continue;
                }
                const int64_t stream = t.stream[i] != kNoValue ? t.stream[i] : t.tid.num;
                out.activities.push_back({device, stream, t.start[i], t.end(i), t.correlation[i], ti, i});
                DeviceActivity &d = out.devices[device];
                d.device = device;
                (cat == cats.kernel ? d.kernels : cat == cats.memcpy ? d.memcpys : d.memsets) += 1;
                if (cat == cats.memcpy && t.correlation[i] != kNoValue)
                    copyName.emplace(t.correlation[i], t.name[i]);
            } else if (cats.runtimeCall(cat)) {
                if (t.correlation[i] != kNoValue)
                    out.launchOf.add(t.correlation[i], HostCallRef{ti, i, t.start[i], t.end(i)});
                if (t.dur[i] >= options.longCallThreshold) {
                    SyncCall call;
                    attribute(call, ti, i);
                    out.longCalls.push_back(call);
                }
                auto copy = asyncCopyByName.find(t.name[i]);
                if (copy == asyncCopyByName.end())
                    copy = asyncCopyByName.emplace(t.name[i], isAsyncCopyCall(model.str(t.name[i]))).first;
                if (copy->second && t.correlation[i] != kNoValue) {
                    SyncCall call;
                    attribute(call, ti, i);
                    call.pageableCopy = true;
                    memcpyAsyncCalls.push_back(call);
                    memcpyAsyncCorrelation.push_back(t.correlation[i]);
                    continue;
                }
                auto it = blockingByName.find(t.name[i]);
                if (it == blockingByName.end())
                    it = blockingByName.emplace(t.name[i], isBlockingSyncCall(model.str(t.name[i]))).first;
                if (!it->second)
                    continue;
                SyncCall call;
                attribute(call, ti, i);
                out.syncCalls.push_back(call);
            } else if (cat != kNoStr && cat == cats.cudaSync) {
                CudaSyncEvent e;
                e.event = {ti, i};
                e.kind = t.syncKind[i] != kEmptyStr ? t.syncKind[i] : t.name[i];
                e.start = t.start[i];
                e.dur = t.dur[i];
                e.device = t.device[i] != kNoValue ? t.device[i] : t.pid.num;
                e.stream = t.stream[i] != kNoValue ? t.stream[i] : t.tid.num;
                out.cudaSyncEvents.push_back(e);
            } else if (stepName(t.name[i], cat)) {
                out.steps.push_back({{ti, i}, t.name[i], t.start[i], t.end(i)});
            }
        }
    }
    // Hidden syncs: a copy into or out of pageable host memory blocks the host
    // like a sync (CUDA synchronizes the stream before a pageable host-to-device copy).
    for (size_t k = 0; k < memcpyAsyncCalls.size(); ++k) {
        auto it = copyName.find(memcpyAsyncCorrelation[k]);
        if (it != copyName.end() &&
            (isPageableDeviceToHost(model.str(it->second)) || isPageableHostToDevice(model.str(it->second))))
            out.syncCalls.push_back(memcpyAsyncCalls[k]);
    }
    out.launchOf.finish();
    std::stable_sort(out.syncCalls.begin(), out.syncCalls.end(),
                     [](const SyncCall &a, const SyncCall &b) { return a.start < b.start; });
    // A long call that blocks is a sync call, not a long host call.
    {
        std::vector<std::pair<uint32_t, uint32_t>> blocking;
        for (const SyncCall &c : out.syncCalls)
            blocking.push_back({c.event.track, c.event.index});
        std::sort(blocking.begin(), blocking.end());
        out.longCalls.erase(std::remove_if(out.longCalls.begin(), out.longCalls.end(),
                                           [&](const SyncCall &c) {
                                               return std::binary_search(blocking.begin(), blocking.end(),
                                                                         std::pair(c.event.track, c.event.index));
                                           }),
                            out.longCalls.end());
        std::stable_sort(out.longCalls.begin(), out.longCalls.end(),
                         [](const SyncCall &a, const SyncCall &b) { return a.start < b.start; });
    }
    std::stable_sort(out.cudaSyncEvents.begin(), out.cudaSyncEvents.end(),
                     [](const CudaSyncEvent &a, const CudaSyncEvent &b) { return a.start < b.start; });
    std::stable_sort(out.steps.begin(), out.steps.end(),
                     [](const Step &a, const Step &b) { return a.start < b.start; });
    return out;
}

Busy busyTime(std::vector<GpuActivityRef> &acts, std::map<int64_t, DeviceActivity> devices)
{
    Busy out;
    std::sort(acts.begin(), acts.end(), [](const GpuActivityRef &a, const GpuActivityRef &b) {
        if (a.device != b.device)
            return a.device < b.device;
        return a.start < b.start;
    });
    for (size_t i = 0; i < acts.size();) {
        DeviceActivity &d = devices[acts[i].device];
        std::vector<Interval> &pieces = out.pieces[acts[i].device];
        d.first = acts[i].start;
        TimeNs pieceStart = acts[i].start, pieceEnd = acts[i].end;
        size_t j = i + 1;
        for (; j < acts.size() && acts[j].device == acts[i].device; ++j) {
            if (acts[j].start > pieceEnd) {
                d.busy += pieceEnd - pieceStart;
                pieces.push_back({pieceStart, pieceEnd});
                d.idleIntervals.push_back({pieceEnd, acts[j].start});
                pieceStart = acts[j].start;
            }
            pieceEnd = std::max(pieceEnd, acts[j].end);
        }
        d.busy += pieceEnd - pieceStart;
        pieces.push_back({pieceStart, pieceEnd});
        d.last = pieceEnd;
        i = j;
    }
    for (auto &entry : devices)
        out.devices.push_back(std::move(entry.second));
    return out;
}

void attachFrames(const TraceModel &model, const AnalysisOptions &options, std::vector<SyncCall> &calls)
{
    const StrId catPython = model.findString(category::kPythonFunction);
    if (catPython == kNoStr)
        return;
    const auto &tracks = model.tracks();
    std::unordered_map<uint32_t, std::vector<uint32_t>> pyByTrack; // by start
    std::unordered_map<uint32_t, TimeNs> pyMaxDur;
    for (const SyncCall &c : calls)
        pyByTrack.emplace(c.event.track, std::vector<uint32_t>());
    for (auto &entry : pyByTrack) {
        const Track &t = tracks[entry.first];
        TimeNs maxDur = 0;
        for (uint32_t i = 0; i < t.size(); ++i)
            if (t.cat[i] == catPython) {
                entry.second.push_back(i);
                maxDur = std::max(maxDur, t.dur[i]);
            }
        pyMaxDur[entry.first] = maxDur;
    }
    std::unordered_map<StrId, bool> library;
    auto isLibrary = [&](StrId name) {
        auto it = library.find(name);
        if (it == library.end())
            it = library.emplace(name, isLibraryFrame(model.str(name), options.libPrefixes)).first;
        return it->second;
    };
    for (SyncCall &c : calls) {
        const Track &t = tracks[c.event.track];
        const std::vector<uint32_t> &py = pyByTrack[c.event.track];
        const TimeNs lowest = c.start - pyMaxDur[c.event.track];
        auto k = std::upper_bound(py.begin(), py.end(), c.start,
                                  [&](TimeNs v, uint32_t i) { return v < t.start[i]; });
        auto better = [&](const EventRef &cur, uint32_t i) {
            if (!cur.valid())
                return true;
            const uint32_t j = cur.index;
            return t.start[i] > t.start[j] || (t.start[i] == t.start[j] && t.dur[i] < t.dur[j]);
        };
        while (k != py.begin()) {
            const uint32_t i = *--k;
            if (t.start[i] < lowest)
                break;
            if (t.end(i) < c.end())
                continue;
            if (better(c.pyFrame, i))
                c.pyFrame = {c.event.track, i};
            if (!isLibrary(t.name[i]) && better(c.userFrame, i))
                c.userFrame = {c.event.track, i};
        }
    }
}

void assignSteps(const std::vector<Step> &steps, std::vector<SyncCall> &calls)
{
    const WindowSearch<Step> search(steps);
    for (SyncCall &c : calls)
        c.step = static_cast<int32_t>(search.find(c.end()));
}

std::vector<size_t> callsByEnd(const std::vector<SyncCall> &calls)
{
    std::vector<size_t> byEnd(calls.size());
    for (size_t i = 0; i < byEnd.size(); ++i)
        byEnd[i] = i;
    std::stable_sort(byEnd.begin(), byEnd.end(),
                     [&](size_t a, size_t b) { return calls[a].end() < calls[b].end(); });
    return byEnd;
}

std::vector<SyncGap> findSyncGaps(std::vector<DeviceActivity> &devices, const std::vector<SyncCall> &calls,
                                  const std::vector<size_t> &byEnd, TimeNs clockSkew)
{
    std::vector<SyncGap> out;
    for (DeviceActivity &d : devices) {
        for (const Interval &g : d.idleIntervals) {
            auto lo = std::lower_bound(byEnd.begin(), byEnd.end(), g.start - clockSkew,
                                       [&](size_t c, TimeNs v) { return calls[c].end() < v; });
            auto hi = std::upper_bound(lo, byEnd.end(), g.end,
                                       [&](TimeNs v, size_t c) { return v < calls[c].end(); });
            if (lo == hi)
                continue;
            size_t cause = *(hi - 1);
            for (auto it = hi; it != lo;) {
                const size_t c = *--it;
                if (calls[c].start <= g.start) {
                    cause = c;
                    break;
                }
            }
            SyncGap gap;
            gap.device = d.device;
            gap.interval = g;
            gap.syncCall = cause;
            gap.blocked = calls[cause].dur;
            gap.step = calls[cause].step;
            out.push_back(gap);
            d.syncGap += g.length();
        }
    }
    return out;
}

void sortByStream(std::vector<GpuActivityRef> &acts)
{
    std::stable_sort(acts.begin(), acts.end(), [](const GpuActivityRef &a, const GpuActivityRef &b) {
        if (a.device != b.device)
            return a.device < b.device;
        if (a.stream != b.stream)
            return a.stream < b.stream;
        return a.start < b.start;
    });
}

std::vector<IdleBreakdown> idleBreakdown(std::vector<GpuActivityRef> &acts, const CorrelationIndex &launchOf,
                                         TimeNs kernelWaitThreshold)
{
    std::vector<IdleBreakdown> out;
    sortByStream(acts);
    for (size_t i = 0; i < acts.size();) {
        IdleBreakdown b;
        b.device = acts[i].device;
        b.stream = acts[i].stream;
        size_t j = i + 1;
        for (; j < acts.size() && acts[j].device == b.device && acts[j].stream == b.stream; ++j) {
            const TimeNs prevEnd = acts[j - 1].end;
            const TimeNs gap = acts[j].start - prevEnd;
            if (gap <= 0)
                continue;
            const HostCallRef *launch = acts[j].correlation == kNoValue ? nullptr
                                                                        : launchOf.find(acts[j].correlation);
            if (launch && launch->start > prevEnd)
                b.hostWait += gap;
            else if (gap < kernelWaitThreshold)
                b.kernelWait += gap;
            else
                b.other += gap;
        }
        out.push_back(b);
        i = j;
    }
    return out;
}

std::vector<SyncSource> groupSources(const TraceModel &model, std::vector<SyncCall> &calls,
                                     const std::vector<SyncGap> &gaps)
{
    std::vector<SyncSource> out;
    const auto &tracks = model.tracks();
    std::map<std::tuple<StrId, StrId, StrId>, size_t> index;
    auto nameOf = [&](const EventRef &r) { return r.valid() ? tracks[r.track].name[r.index] : kNoStr; };
    for (size_t c = 0; c < calls.size(); ++c) {
        const SyncCall &call = calls[c];
        const auto key = std::make_tuple(nameOf(call.event), nameOf(call.op), nameOf(call.userFrame));
        auto it = index.find(key);
        if (it == index.end()) {
            it = index.emplace(key, out.size()).first;
            SyncSource s;
            s.sync = std::get<0>(key);
            s.op = std::get<1>(key);
            s.userFrame = std::get<2>(key);
            out.push_back(s);
        }
        SyncSource &s = out[it->second];
        ++s.count;
        s.calls.push_back(c);
        calls[c].source = static_cast<int32_t>(it->second);
    }
    for (const SyncGap &g : gaps) {
        SyncSource &s = out[static_cast<size_t>(calls[g.syncCall].source)];
        ++s.gaps;
        s.gapTime += g.interval.length();
    }
    return out;
}

namespace {
AdviceFacts adviceFactsOf(const TraceModel &model, const category::Ids &cats, const AdviceRules &rules,
                          const std::unordered_map<int64_t, StrId> &copyName, const SyncCall &call);
} // namespace

AdviceFacts adviceFacts(const TraceModel &model, const AdviceRules &rules,
                        const std::unordered_map<int64_t, StrId> &copyName, const SyncCall &call)
{
    return adviceFactsOf(model, category::Ids(model), rules, copyName, call);
}

namespace {
// adviceFacts with the model's category ids given: attachAdvice finds them once for all the calls.
AdviceFacts adviceFactsOf(const TraceModel &model, const category::Ids &cats, const AdviceRules &rules,
                          const std::unordered_map<int64_t, StrId> &copyName, const SyncCall &call)
{
    AdviceFacts f;
    const Track t = model.tracks()[call.event.track];
    const uint32_t i = call.event.index;
    f.sync = std::string(model.str(t.name[i]));
    const bool wantTypes = rules.usesInputTypes(), wantNext = rules.usesFollowedBy();
    auto keyed = [&](const std::string &name, bool (*uses)(const AdviceMatch &)) {
        for (const AdviceRule &r : rules.rules)
            if (uses(r.match) && std::find(r.match.ops.begin(), r.match.ops.end(), name) != r.match.ops.end())
                return true;
        return false;
    };
    for (int32_t p = t.parent[i]; p >= 0; p = t.parent[p]) {
        const StrId cat = t.cat[p];
        if (cat == cats.pythonFunction && cat != kNoStr) {
            f.frames.emplace_back(model.str(t.name[p]));
            continue;
        }
        if (cat != cats.cpuOp && cat != cats.userAnnotation)
            continue;
        AdviceChainOp op;
        op.name = std::string(model.str(t.name[p]));
        if (wantTypes && keyed(op.name, [](const AdviceMatch &m) { return !m.inputTypes.empty(); })) {
            const std::string_view args = model.args(t.args[p]);
            const nlohmann::json a = nlohmann::json::parse(args.begin(), args.end(), nullptr, false);
            if (a.is_object())
                if (auto it = a.find("Input type"); it != a.end() && it->is_array())
                    for (const nlohmann::json &v : *it)
                        if (v.is_string())
                            op.inputTypes.push_back(v.get<std::string>());
        }
        if (wantNext && keyed(op.name, [](const AdviceMatch &m) { return !m.followedBy.empty(); })) {
            // The next cpu_op at its level: past its own children (sorted by
            // start), before its parent ends. Bounded: an item's children are few.
            const int32_t level = t.parent[p];
            const TimeNs end = t.end(size_t(p));
            for (size_t j = size_t(p) + 1, seen = 0; j < t.size() && seen < 4096; ++j, ++seen) {
                if (t.depth[j] < t.depth[size_t(p)])
                    break;
                if (t.parent[j] == level && t.start[j] >= end && t.cat[j] == cats.cpuOp) {
                    op.next = std::string(model.str(t.name[j]));
                    break;
                }
            }
        }
        f.chain.push_back(std::move(op));
    }
    // The call's own copy, else the last one launched before it in its op.
    auto copyOf = [&](size_t j) -> const StrId * {
        const int64_t corr = t.correlation[j];
        if (corr == kNoValue)
            return nullptr;
        auto it = copyName.find(corr);
        return it == copyName.end() ? nullptr : &it->second;
    };
    const StrId *copy = copyOf(i);
    const int32_t level = t.parent[i];
    const size_t lowest = level >= 0 ? size_t(level) + 1 : (i > 8 ? i - 8 : 0);
    for (size_t j = i; !copy && j > lowest && i - j < 64;) {
        --j;
        if (t.parent[j] == level)
            copy = copyOf(j);
    }
    if (copy)
        f.copy = std::string(model.str(*copy));
    return f;
}
} // namespace

void attachAdvice(const TraceModel &model, const AdviceRules &rules,
                  const std::unordered_map<int64_t, StrId> &copyName, std::vector<SyncCall> &calls,
                  std::vector<SyncSource> &sources)
{
    const category::Ids cats(model);
    for (SyncCall &c : calls)
        c.advice = matchAdvice(rules, adviceFactsOf(model, cats, rules, copyName, c));
    for (SyncSource &s : sources) {
        std::map<int32_t, size_t> votes;
        for (size_t c : s.calls)
            ++votes[calls[c].advice];
        // Most calls; on a tie the earlier rule, and any rule before none.
        size_t best = 0;
        s.advice = -1;
        for (const auto &v : votes)
            if (v.first >= 0 && v.second > best) {
                best = v.second;
                s.advice = v.first;
            }
        if (auto none = votes.find(-1); none != votes.end() && none->second > best) {
            best = none->second;
            s.advice = -1;
        }
        s.adviceCalls = best;
    }
}

size_t replayThreads(size_t requested, const ReplayInput &in)
{
    const size_t perTwin = in.activities.size() * 12 + in.calls.size() + in.threads * 16 +
                           in.streamIds.size() * 32;
    return std::min(threadsWithinBudget(requested, perTwin), std::max<size_t>(in.calls.size(), 1));
}

ReplayPool::ReplayPool(SyncReplay &replay, size_t threads) : m_replay(replay), m_workers{&replay}
{
    for (size_t t = 1; t < threads; ++t) {
        m_twins.push_back(replay.twin());
        m_workers.push_back(m_twins.back().get());
    }
}

ReplayPool::~ReplayPool() = default;

void ReplayPool::run(size_t count, const std::function<void(SyncReplay &, size_t)> &task,
                     const std::function<void()> &tick)
{
    ThreadsPerRun<SyncReplay>(m_workers).run(count, task, tick);
}

void replayFigures(SyncAnalysis &out, ReplayPool &replays, const std::function<void()> &tick)
{
    SyncReplay &replay = replays.replay();
    std::vector<size_t> all(out.syncCalls.size());
    for (size_t c = 0; c < all.size(); ++c)
        all[c] = c;
    const std::vector<TimeNs> whole = replay.run(all);
    for (size_t d = 0; d < out.devices.size(); ++d) {
        out.devices[d].avoidable = whole[d];
        out.devices[d].limit = replay.limitedBy(all, d);
    }
    tick();
    // One replay per call, then per source: each writes its own figures,
    // whichever thread runs it.
    replays.run(
        out.syncCalls.size(), [&](SyncReplay &r, size_t c) { out.syncCalls[c].avoidableByDevice = r.run({c}); },
        tick);
    for (SyncCall &call : out.syncCalls)
        call.avoidable = sum(call.avoidableByDevice);
    for (SyncGap &g : out.syncGaps)
        g.avoidable = out.syncCalls[g.syncCall].avoidableByDevice[out.deviceIndex(g.device)];
    replays.run(
        out.sources.size(),
        [&](SyncReplay &r, size_t i) {
            SyncSource &s = out.sources[i];
            s.avoidableByDevice = r.run(s.calls);
            s.avoidable = sum(s.avoidableByDevice);
            s.limitDevice = 0;
            for (size_t d = 1; d < s.avoidableByDevice.size(); ++d)
                if (s.avoidableByDevice[d] > s.avoidableByDevice[s.limitDevice])
                    s.limitDevice = d;
            s.limit = r.limitedBy(s.calls, s.limitDevice);
        },
        tick);
    std::stable_sort(out.sources.begin(), out.sources.end(),
                     [](const SyncSource &a, const SyncSource &b) { return a.avoidable > b.avoidable; });
    for (size_t i = 0; i < out.sources.size(); ++i)
        for (size_t c : out.sources[i].calls)
            out.syncCalls[c].source = static_cast<int32_t>(i);
}

void stepFigures(SyncAnalysis &out, ReplayPool &replays,
                 const std::map<int64_t, std::vector<Interval>> &busyPieces, const std::vector<size_t> &byEnd,
                 const std::function<void()> &tick)
{
    // Per device: the gaps' causes' ends, sorted, with prefix sums of the gap
    // lengths in that order.
    struct GapEnds {
        std::vector<TimeNs> end;
        std::vector<TimeNs> prefix;
    };
    std::vector<GapEnds> gapEnds(out.devices.size());
    {
        std::vector<std::vector<std::pair<TimeNs, TimeNs>>> byDevice(out.devices.size());
        for (const SyncGap &g : out.syncGaps)
            byDevice[out.deviceIndex(g.device)].push_back({out.syncCalls[g.syncCall].end(), g.interval.length()});
        for (size_t d = 0; d < byDevice.size(); ++d) {
            std::sort(byDevice[d].begin(), byDevice[d].end());
            gapEnds[d].prefix.push_back(0);
            for (const auto &e : byDevice[d]) {
                gapEnds[d].end.push_back(e.first);
                gapEnds[d].prefix.push_back(gapEnds[d].prefix.back() + e.second);
            }
        }
    }
    // Each step's replay, on any thread, into its own slot.
    std::vector<std::vector<TimeNs>> savedOf(out.steps.size());
    replays.run(
        out.steps.size(),
        [&](SyncReplay &r, size_t s) {
            const Step &step = out.steps[s];
            auto lo = std::lower_bound(byEnd.begin(), byEnd.end(), step.start,
                                       [&](size_t c, TimeNs v) { return out.syncCalls[c].end() < v; });
            auto hi = std::lower_bound(lo, byEnd.end(), step.end,
                                       [&](size_t c, TimeNs v) { return out.syncCalls[c].end() < v; });
            savedOf[s] = r.run(std::vector<size_t>(lo, hi));
        },
        tick);
    static const std::vector<Interval> kNoPieces;
    for (size_t s = 0; s < out.steps.size(); ++s) {
        const Step &step = out.steps[s];
        const std::vector<TimeNs> &saved = savedOf[s];
        for (size_t d = 0; d < out.devices.size(); ++d) {
            StepDeviceStats st;
            st.step = s;
            st.device = out.devices[d].device;
            const auto found = busyPieces.find(st.device);
            const std::vector<Interval> &pieces = found != busyPieces.end() ? found->second : kNoPieces;
            // Pieces are disjoint and sorted: the first that ends after the start.
            auto p = std::upper_bound(pieces.begin(), pieces.end(), step.start,
                                      [](TimeNs v, const Interval &iv) { return v < iv.end; });
            for (; p != pieces.end() && p->start < step.end; ++p)
                st.gpuBusy += std::min(p->end, step.end) - std::max(p->start, step.start);
            const GapEnds &ge = gapEnds[d];
            const size_t a = size_t(std::lower_bound(ge.end.begin(), ge.end.end(), step.start) - ge.end.begin());
            const size_t b = size_t(std::lower_bound(ge.end.begin(), ge.end.end(), step.end) - ge.end.begin());
            st.syncGaps = b - a;
            st.syncGapTime = ge.prefix[b] - ge.prefix[a];
            st.avoidable = saved[d];
            out.stepStats.push_back(st);
        }
    }
}

} // namespace syncscope::phases
