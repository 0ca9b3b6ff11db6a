#include "analysis/syncanalysis.h"

#include "analysis/replaybuild.h"
#include "analysis/syncreplay.h"
#include "common/error.h"
#include "trace/categories.h"

#include <algorithm>
#include <map>
#include <regex>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace syncscope {

namespace {

using Activity = GpuActivityRef;

void checkCancel(const CancelToken *cancel)
{
    if (cancel && cancel->cancelled())
        throw Cancelled();
}

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

// A directory component `dir` ("torch/") at the start of path or after a '/'.
bool hasDirectory(std::string_view path, std::string_view dir)
{
    for (size_t at = path.find(dir); at != path.npos; at = path.find(dir, at + 1))
        if (at == 0 || path[at - 1] == '/')
            return true;
    return false;
}

bool hasPythonLibDirectory(std::string_view path)
{
    // pythonX.Y/ at the start or after a '/'.
    for (size_t at = path.find("python"); at != path.npos; at = path.find("python", at + 1)) {
        if (at != 0 && path[at - 1] != '/')
            continue;
        size_t i = at + 6;
        const size_t d1 = i;
        while (i < path.size() && path[i] >= '0' && path[i] <= '9')
            ++i;
        if (i == d1 || i >= path.size() || path[i] != '.')
            continue;
        const size_t d2 = ++i;
        while (i < path.size() && path[i] >= '0' && path[i] <= '9')
            ++i;
        if (i > d2 && i < path.size() && path[i] == '/')
            return true;
    }
    return false;
}

} // namespace

bool isLibraryFrame(std::string_view name, const std::vector<std::string> &extraPrefixes)
{
    if (name.rfind("<built-in", 0) == 0 || name.rfind("threading.py", 0) == 0 ||
        name.rfind("multiprocessing/", 0) == 0)
        return true;
    for (const std::string &p : extraPrefixes)
        if (!p.empty() && name.rfind(p, 0) == 0)
            return true;
    // The path: "dir/file.py(123): function".
    const std::string_view path = name.substr(0, name.find('('));
    return hasDirectory(path, "torch/") || hasDirectory(path, "site-packages/") ||
           hasDirectory(path, "dist-packages/") || hasPythonLibDirectory(path);
}

size_t SyncAnalysis::deviceIndex(int64_t device) const
{
    auto it = std::lower_bound(devices.begin(), devices.end(), device,
                               [](const DeviceActivity &d, int64_t v) { return d.device < v; });
    return it != devices.end() && it->device == device ? size_t(it - devices.begin()) : SIZE_MAX;
}

SyncAnalysis analyzeSyncs(const TraceModel &model, const AnalysisOptions &options,
                          const ProgressFn &progress, const CancelToken *cancel)
{
    SyncAnalysis out;
    const category::Ids cats(model);
    const StrId catKernel = cats.kernel, catMemcpy = cats.memcpy;
    const StrId catCpuOp = cats.cpuOp, catUserAnn = cats.userAnnotation;
    const StrId catCudaSync = cats.cudaSync, catPython = cats.pythonFunction;
    // kNoStr never matches a stored id, so absent categories cost nothing.

    std::unique_ptr<std::regex> stepRe;
    if (!options.stepRegex.empty()) {
        try {
            stepRe = std::make_unique<std::regex>(options.stepRegex, std::regex::ECMAScript);
        } catch (const std::regex_error &e) {
            throw Error("the step pattern '" + options.stepRegex + "' is not a valid regular expression (" +
                        e.what() + ")");
        }
    }
    std::unordered_map<StrId, bool> isStepName;
    auto stepName = [&](StrId name, StrId cat) {
        auto it = isStepName.find(name);
        if (it == isStepName.end()) {
            const std::string_view n = model.str(name);
            bool step = stepRe && std::regex_search(n.begin(), n.end(), *stepRe);
            it = isStepName.emplace(name, step).first;
        }
        if (it->second)
            return true;
        // The legacy profiler (LibTorch without Kineto) writes its steps without a category.
        return (cat == catCpuOp || cat == catUserAnn || cat == kEmptyStr) &&
               model.str(name).rfind("ProfilerStep#", 0) == 0;
    };

    // Devices of string pids, from the process-name metadata.
    std::unordered_map<StrId, int64_t> deviceOfPidText;
    for (const Process &p : model.processes())
        if (!p.pid.isNumber())
            deviceOfPidText[p.pid.text] = deviceFromProcessName(model.str(p.name));

    std::vector<Activity> acts;
    std::map<int64_t, DeviceActivity> devices;
    std::unordered_map<int64_t, HostCallRef> launchOf; // correlation -> first runtime call
    std::unordered_map<int64_t, StrId> copyName;      // correlation -> gpu_memcpy name
    std::unordered_map<StrId, bool> blockingByName, asyncCopyByName;
    std::vector<SyncCall> memcpyAsyncCalls;           // candidates for hidden syncs
    std::vector<int64_t> memcpyAsyncCorrelation;

    const auto &tracks = model.tracks();
    auto attribute = [&](SyncCall &call, uint32_t ti, uint32_t i) {
        const Track &t = tracks[ti];
        call.event = {ti, i};
        call.start = t.start[i];
        call.dur = t.dur[i];
        for (int32_t p = t.parent[i]; p >= 0; p = t.parent[p]) {
            if (t.cat[p] == catCpuOp || t.cat[p] == catUserAnn) {
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
                acts.push_back({device, stream, t.start[i], t.end(i), t.correlation[i], ti, i});
                DeviceActivity &d = devices[device];
                d.device = device;
                (cat == catKernel ? d.kernels : cat == catMemcpy ? d.memcpys : d.memsets) += 1;
                if (cat == catMemcpy && t.correlation[i] != kNoValue)
                    copyName.emplace(t.correlation[i], t.name[i]);
            } else if (cats.runtimeCall(cat)) {
                if (t.correlation[i] != kNoValue)
                    launchOf.emplace(t.correlation[i], HostCallRef{ti, i, t.start[i], t.end(i)});
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
                    it = blockingByName.emplace(t.name[i], isBlockingSyncCall(model.str(t.name[i])))
                             .first;
                if (!it->second)
                    continue;
                SyncCall call;
                attribute(call, ti, i);
                out.syncCalls.push_back(call);
            } else if (cat == catCudaSync) {
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
    // Hidden syncs: a copy into pageable host memory blocks the host like a sync.
    for (size_t k = 0; k < memcpyAsyncCalls.size(); ++k) {
        auto it = copyName.find(memcpyAsyncCorrelation[k]);
        if (it != copyName.end() && isPageableDeviceToHost(model.str(it->second)))
            out.syncCalls.push_back(memcpyAsyncCalls[k]);
    }
    std::stable_sort(out.syncCalls.begin(), out.syncCalls.end(),
                     [](const SyncCall &a, const SyncCall &b) { return a.start < b.start; });
    std::stable_sort(out.cudaSyncEvents.begin(), out.cudaSyncEvents.end(),
                     [](const CudaSyncEvent &a, const CudaSyncEvent &b) { return a.start < b.start; });
    std::stable_sort(out.steps.begin(), out.steps.end(),
                     [](const Step &a, const Step &b) { return a.start < b.start; });
    checkCancel(cancel);
    if (progress)
        progress(0.45, "busy and idle time");

    // Busy time: union of each device's intervals over all its streams.
    std::sort(acts.begin(), acts.end(), [](const Activity &a, const Activity &b) {
        if (a.device != b.device)
            return a.device < b.device;
        return a.start < b.start;
    });
    std::map<int64_t, std::vector<Interval>> busyPieces;
    for (size_t i = 0; i < acts.size();) {
        DeviceActivity &d = devices[acts[i].device];
        std::vector<Interval> &pieces = busyPieces[acts[i].device];
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
    out.runtime = detectRuntime(model);
    {
        const std::map<int64_t, std::string> names = deviceNames(model.info().devicePropertiesJson);
        for (DeviceActivity &d : out.devices)
            if (auto it = names.find(d.device); it != names.end())
                d.name = it->second;
    }

    // Frames: the innermost enclosing python_function (latest start, then the
    // shortest), among all of them and among those that are not library code.
    if (catPython != kNoStr) {
        std::unordered_map<uint32_t, std::vector<uint32_t>> pyByTrack; // by start
        std::unordered_map<uint32_t, TimeNs> pyMaxDur;
        for (const SyncCall &c : out.syncCalls)
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
        for (SyncCall &c : out.syncCalls) {
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

    // Steps of each call (the step its end falls in; the latest-starting one
    // when steps overlap).
    auto stepOf = [&](TimeNs t) -> int32_t {
        int32_t found = -1;
        for (size_t s = 0; s < out.steps.size() && out.steps[s].start <= t; ++s)
            if (t < out.steps[s].end)
                found = static_cast<int32_t>(s);
        return found;
    };
    for (SyncCall &c : out.syncCalls)
        c.step = stepOf(c.end());

    // Sync gaps. For each idle interval, the calls returning in it: the cause is
    // the last to return among those that started at or before the gap, else the
    // last to return of all.
    std::vector<size_t> byEnd(out.syncCalls.size());
    for (size_t i = 0; i < byEnd.size(); ++i)
        byEnd[i] = i;
    std::stable_sort(byEnd.begin(), byEnd.end(), [&](size_t a, size_t b) {
        return out.syncCalls[a].end() < out.syncCalls[b].end();
    });
    for (DeviceActivity &d : out.devices) {
        for (const Interval &g : d.idleIntervals) {
            auto lo = std::lower_bound(byEnd.begin(), byEnd.end(), g.start - options.clockSkew,
                                       [&](size_t c, TimeNs v) { return out.syncCalls[c].end() < v; });
            auto hi = std::upper_bound(lo, byEnd.end(), g.end,
                                       [&](TimeNs v, size_t c) { return v < out.syncCalls[c].end(); });
            if (lo == hi)
                continue;
            size_t cause = *(hi - 1);
            for (auto it = hi; it != lo;) {
                const size_t c = *--it;
                if (out.syncCalls[c].start <= g.start) {
                    cause = c;
                    break;
                }
            }
            SyncGap gap;
            gap.device = d.device;
            gap.interval = g;
            gap.syncCall = cause;
            gap.blocked = out.syncCalls[cause].dur;
            gap.step = out.syncCalls[cause].step;
            out.syncGaps.push_back(gap);
            d.syncGap += g.length();
        }
    }
    checkCancel(cancel);
    if (progress)
        progress(0.55, "idle breakdown");

    // Idle breakdown per (device, stream).
    std::stable_sort(acts.begin(), acts.end(), [](const Activity &a, const Activity &b) {
        if (a.device != b.device)
            return a.device < b.device;
        if (a.stream != b.stream)
            return a.stream < b.stream;
        return a.start < b.start;
    });
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
            auto launch = acts[j].correlation == kNoValue ? launchOf.end()
                                                          : launchOf.find(acts[j].correlation);
            if (launch != launchOf.end() && launch->second.start > prevEnd)
                b.hostWait += gap;
            else if (gap < options.kernelWaitThreshold)
                b.kernelWait += gap;
            else
                b.other += gap;
        }
        out.idleBreakdown.push_back(b);
        i = j;
    }

    // Sync sources: all blocking calls by (sync name, op name, user frame name).
    {
        std::map<std::tuple<StrId, StrId, StrId>, size_t> index;
        for (size_t c = 0; c < out.syncCalls.size(); ++c) {
            const SyncCall &call = out.syncCalls[c];
            auto nameOf = [&](const EventRef &r) {
                return r.valid() ? tracks[r.track].name[r.index] : kNoStr;
            };
            const auto key = std::make_tuple(nameOf(call.event), nameOf(call.op), nameOf(call.userFrame));
            auto it = index.find(key);
            if (it == index.end()) {
                it = index.emplace(key, out.sources.size()).first;
                SyncSource s;
                s.sync = std::get<0>(key);
                s.op = std::get<1>(key);
                s.userFrame = std::get<2>(key);
                out.sources.push_back(s);
            }
            SyncSource &s = out.sources[it->second];
            ++s.count;
            s.calls.push_back(c);
            out.syncCalls[c].source = static_cast<int32_t>(it->second);
        }
        for (const SyncGap &g : out.syncGaps) {
            SyncSource &s = out.sources[static_cast<size_t>(out.syncCalls[g.syncCall].source)];
            ++s.gaps;
            s.gapTime += g.interval.length();
        }
    }

    // The replay: per device, per call, per step, per source.
    {
        std::vector<int64_t> deviceIds;
        for (const DeviceActivity &d : out.devices)
            deviceIds.push_back(d.device);
        out.replay = buildReplayInput(model, acts, launchOf, out.syncCalls, out.cudaSyncEvents, deviceIds);
        SyncReplay replay(out.replay);
        const double work = double(out.syncCalls.size() + out.steps.size() + out.sources.size() + 1);
        double done = 0;
        auto tick = [&] {
            checkCancel(cancel);
            if (progress)
                progress(0.6 + 0.4 * (++done) / work, "sync-free replay");
        };
        auto sum = [](const std::vector<TimeNs> &v) {
            TimeNs s = 0;
            for (TimeNs x : v)
                s += x;
            return s;
        };
        std::vector<size_t> all(out.syncCalls.size());
        for (size_t c = 0; c < all.size(); ++c)
            all[c] = c;
        const std::vector<TimeNs> whole = replay.run(all);
        for (size_t d = 0; d < out.devices.size(); ++d)
            out.devices[d].avoidable = whole[d];
        tick();
        for (size_t c = 0; c < out.syncCalls.size(); ++c) {
            SyncCall &call = out.syncCalls[c];
            call.avoidableByDevice = replay.run({c});
            call.avoidable = sum(call.avoidableByDevice);
            tick();
        }
        for (SyncGap &g : out.syncGaps)
            g.avoidable = out.syncCalls[g.syncCall].avoidableByDevice[out.deviceIndex(g.device)];
        for (SyncSource &s : out.sources) {
            s.avoidableByDevice = replay.run(s.calls);
            s.avoidable = sum(s.avoidableByDevice);
            tick();
        }
        std::stable_sort(out.sources.begin(), out.sources.end(),
                         [](const SyncSource &a, const SyncSource &b) { return a.avoidable > b.avoidable; });
        for (size_t i = 0; i < out.sources.size(); ++i)
            for (size_t c : out.sources[i].calls)
                out.syncCalls[c].source = static_cast<int32_t>(i);

        // Steps: busy time inside each window, the gaps whose cause ends in it,
        // and the replay without every call that ends in it.
        struct GapEnds {
            std::vector<TimeNs> end;    // the causes' ends, sorted
            std::vector<TimeNs> prefix; // prefix sums of the gap lengths in that order
        };
        std::vector<GapEnds> gapEnds(out.devices.size());
        {
            std::vector<std::vector<std::pair<TimeNs, TimeNs>>> byDevice(out.devices.size());
            for (const SyncGap &g : out.syncGaps)
                byDevice[out.deviceIndex(g.device)].push_back(
                    {out.syncCalls[g.syncCall].end(), g.interval.length()});
            for (size_t d = 0; d < byDevice.size(); ++d) {
                std::sort(byDevice[d].begin(), byDevice[d].end());
                gapEnds[d].prefix.push_back(0);
                for (const auto &e : byDevice[d]) {
                    gapEnds[d].end.push_back(e.first);
                    gapEnds[d].prefix.push_back(gapEnds[d].prefix.back() + e.second);
                }
            }
        }
        for (size_t s = 0; s < out.steps.size(); ++s) {
            const Step &step = out.steps[s];
            auto lo = std::lower_bound(byEnd.begin(), byEnd.end(), step.start,
                                       [&](size_t c, TimeNs v) { return out.syncCalls[c].end() < v; });
            auto hi = std::lower_bound(lo, byEnd.end(), step.end,
                                       [&](size_t c, TimeNs v) { return out.syncCalls[c].end() < v; });
            const std::vector<TimeNs> saved = replay.run(std::vector<size_t>(lo, hi));
            for (size_t d = 0; d < out.devices.size(); ++d) {
                StepDeviceStats st;
                st.step = s;
                st.device = out.devices[d].device;
                const std::vector<Interval> &pieces = busyPieces[st.device];
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
            tick();
        }
    }
    if (progress)
        progress(1.0, "done");
    return out;
}

} // namespace syncscope
