#include "analysis/syncanalysis.h"

#include "analysis/runtime.h"
#include "analysis/syncphases.h"
#include "analysis/syncreplay.h"
#include "common/error.h"

#include <algorithm>
#include <future>
#include <map>

namespace syncscope {

namespace {

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

std::vector<int64_t> deviceIdsOf(const std::vector<DeviceActivity> &devices)
{
    std::vector<int64_t> ids;
    for (const DeviceActivity &d : devices)
        ids.push_back(d.device);
    return ids;
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

SyncAnalysis analyzeSyncs(const TraceModel &model, const AnalysisOptions &options, const ProgressFn &progress,
                          const CancelToken *cancel)
{
    SyncAnalysis out;
    std::future<Handoffs> handoffs = handoffsAside(model, options.replayThreads);
    phases::Collected events = phases::collectEvents(model, options, progress, cancel);
    out.unplacedActivities = events.unplacedActivities;
    out.syncCalls = std::move(events.syncCalls);
    out.longCalls = std::move(events.longCalls);
    out.cudaSyncEvents = std::move(events.cudaSyncEvents);
    out.steps = std::move(events.steps);
    checkCancel(cancel);
    if (progress)
        progress(0.45, "busy and idle time");

    phases::Busy busy = phases::busyTime(events.activities, std::move(events.devices));
    out.devices = std::move(busy.devices);
    out.runtime = detectRuntime(model);
    {
        const std::map<int64_t, std::string> names = deviceNames(model.info().devicePropertiesJson);
        for (DeviceActivity &d : out.devices)
            if (auto it = names.find(d.device); it != names.end())
                d.name = it->second;
    }
    phases::attachFrames(model, options, out.syncCalls);
    phases::assignSteps(out.steps, out.syncCalls);
    const std::vector<size_t> byEnd = phases::callsByEnd(out.syncCalls);
    out.syncGaps = phases::findSyncGaps(out.devices, out.syncCalls, byEnd, options.clockSkew);
    checkCancel(cancel);
    if (progress)
        progress(0.55, "idle breakdown");
    out.idleBreakdown = phases::idleBreakdown(events.activities, events.launchOf, options.kernelWaitThreshold);
    out.sources = phases::groupSources(model, out.syncCalls, out.syncGaps);
    phases::attachAdvice(model, builtinAdviceRules(), events.copyName, out.syncCalls, out.sources);

    // The replay: per device, per call, per source, per step.
    out.replay = buildReplayInput(model, events.activities, events.launchOf, out.syncCalls, out.cudaSyncEvents,
                                  deviceIdsOf(out.devices), handoffs.get());
    SyncReplay replay(out.replay);
    const double work = double(out.syncCalls.size() + out.steps.size() + out.sources.size() + 1);
    double done = 0;
    auto tick = [&] {
        checkCancel(cancel);
        if (progress)
            progress(0.6 + 0.4 * (++done) / work, "sync-free replay");
    };
    phases::ReplayPool replays(replay, phases::replayThreads(options.replayThreads, out.replay));
    phases::replayFigures(out, replays, tick);
    phases::stepFigures(out, replays, busy.pieces, byEnd, tick);
    if (progress)
        progress(1.0, "done");
    return out;
}

ReplayInput replayInputOf(const TraceModel &model, const AnalysisOptions &options, const CancelToken *cancel)
{
    // The phases analyzeSyncs runs before it builds the replay input, in its
    // order: the activities sorted as it sorts them, the calls as it collects them.
    std::future<Handoffs> handoffs = handoffsAside(model, options.replayThreads);
    phases::Collected events = phases::collectEvents(model, options, {}, cancel);
    const phases::Busy busy = phases::busyTime(events.activities, std::move(events.devices));
    phases::sortByStream(events.activities);
    return buildReplayInput(model, events.activities, events.launchOf, events.syncCalls, events.cudaSyncEvents,
                            deviceIdsOf(busy.devices), handoffs.get());
}

TimeNs gpuBusyWithin(const SyncAnalysis &analysis, TimeNs from, TimeNs to)
{
    std::vector<std::pair<TimeNs, TimeNs>> parts;
    for (const ReplayActivity &a : analysis.replay.activities) {
        const TimeNs s = std::max(a.start, from), e = std::min(a.end, to);
        if (s < e)
            parts.emplace_back(s, e);
    }
    std::sort(parts.begin(), parts.end());
    TimeNs busy = 0, reach = from;
    for (const auto &[s, e] : parts) {
        if (e <= reach)
            continue;
        busy += e - std::max(s, reach);
        reach = e;
    }
    return busy;
}

} // namespace syncscope
