#include "analysis/syncanalysis.h"

#include "common/error.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace syncscope {

namespace {

enum class Kind : uint8_t { Kernel, Memcpy, Memset };

struct Activity {
    int64_t device, stream;
    TimeNs start, end;
    int64_t correlation;
};

void checkCancel(const CancelToken *cancel)
{
    if (cancel && cancel->cancelled())
        throw Cancelled();
}

} // namespace

bool isBlockingSyncCall(std::string_view name)
{
    static const std::unordered_set<std::string_view> kNames = {
        "cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize",
        "cudaMemcpy",            "cuStreamSynchronize",   "cuCtxSynchronize",
        "cuEventSynchronize",    "cuMemcpyDtoH",          "cuMemcpyDtoH_v2"};
    return kNames.count(name) != 0;
}

SyncAnalysis analyzeSyncs(const TraceModel &model, const AnalysisOptions &options,
                          const ProgressFn &progress, const CancelToken *cancel)
{
    SyncAnalysis out;
    const StrId catKernel = model.findString("kernel");
    const StrId catMemcpy = model.findString("gpu_memcpy");
    const StrId catMemset = model.findString("gpu_memset");
    const StrId catRuntime = model.findString("cuda_runtime");
    const StrId catDriver = model.findString("cuda_driver");
    const StrId catCpuOp = model.findString("cpu_op");
    const StrId catUserAnn = model.findString("user_annotation");
    const StrId catCudaSync = model.findString("cuda_sync");
    // kNoStr never matches a stored id, so absent categories cost nothing.

    std::vector<Activity> acts;
    std::map<int64_t, DeviceActivity> devices;
    std::unordered_map<int64_t, TimeNs> launchStart; // correlation -> runtime call start
    std::unordered_map<StrId, bool> blockingByName;

    const auto &tracks = model.tracks();
    for (uint32_t ti = 0; ti < tracks.size(); ++ti) {
        checkCancel(cancel);
        if (progress)
            progress(0.5 * double(ti) / double(tracks.size()), "collecting GPU activity");
        const Track &t = tracks[ti];
        for (uint32_t i = 0; i < t.size(); ++i) {
            const StrId cat = t.cat[i];
            if (cat == catKernel || cat == catMemcpy || cat == catMemset) {
                const int64_t device = t.device[i] != kNoValue ? t.device[i] : t.pid.num;
                if (device == kNoValue) {
                    ++out.unplacedActivities;
                    continue;
                }
                const int64_t stream = t.stream[i] != kNoValue ? t.stream[i] : t.tid.num;
                acts.push_back({device, stream, t.start[i], t.end(i), t.correlation[i]});
                DeviceActivity &d = devices[device];
                d.device = device;
                (cat == catKernel ? d.kernels : cat == catMemcpy ? d.memcpys : d.memsets) += 1;
            } else if (cat == catRuntime || cat == catDriver) {
                if (t.correlation[i] != kNoValue)
                    launchStart.emplace(t.correlation[i], t.start[i]);
                auto it = blockingByName.find(t.name[i]);
                if (it == blockingByName.end())
                    it = blockingByName.emplace(t.name[i], isBlockingSyncCall(model.str(t.name[i])))
                             .first;
                if (!it->second)
                    continue;
                SyncCall call;
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
            }
        }
    }
    std::stable_sort(out.syncCalls.begin(), out.syncCalls.end(),
                     [](const SyncCall &a, const SyncCall &b) { return a.start < b.start; });
    std::stable_sort(out.cudaSyncEvents.begin(), out.cudaSyncEvents.end(),
                     [](const CudaSyncEvent &a, const CudaSyncEvent &b) { return a.start < b.start; });
    checkCancel(cancel);
    if (progress)
        progress(0.6, "busy and idle time");

    // Busy time: union of each device's intervals over all its streams.
    std::sort(acts.begin(), acts.end(), [](const Activity &a, const Activity &b) {
        if (a.device != b.device)
            return a.device < b.device;
        return a.start < b.start;
    });
    for (size_t i = 0; i < acts.size();) {
        DeviceActivity &d = devices[acts[i].device];
        d.first = acts[i].start;
        TimeNs pieceStart = acts[i].start, pieceEnd = acts[i].end;
        size_t j = i + 1;
        for (; j < acts.size() && acts[j].device == acts[i].device; ++j) {
            if (acts[j].start > pieceEnd) {
                d.busy += pieceEnd - pieceStart;
                d.idleIntervals.push_back({pieceEnd, acts[j].start});
                pieceStart = acts[j].start;
            }
            pieceEnd = std::max(pieceEnd, acts[j].end);
        }
        d.busy += pieceEnd - pieceStart;
        d.last = pieceEnd;
        i = j;
    }

    // Sync gaps: for each idle interval, the last blocking call to return in it.
    std::vector<size_t> byEnd(out.syncCalls.size());
    for (size_t i = 0; i < byEnd.size(); ++i)
        byEnd[i] = i;
    std::stable_sort(byEnd.begin(), byEnd.end(), [&](size_t a, size_t b) {
        return out.syncCalls[a].end() < out.syncCalls[b].end();
    });
    for (auto &entry : devices) {
        DeviceActivity &d = entry.second;
        for (const Interval &g : d.idleIntervals) {
            auto it = std::upper_bound(byEnd.begin(), byEnd.end(), g.end,
                                       [&](TimeNs v, size_t c) { return v < out.syncCalls[c].end(); });
            if (it == byEnd.begin())
                continue;
            const size_t cause = *(it - 1);
            if (out.syncCalls[cause].end() < g.start - options.clockSkew)
                continue;
            out.syncGaps.push_back({d.device, g, cause});
            d.syncGap += g.length();
        }
        out.devices.push_back(std::move(d));
    }
    checkCancel(cancel);
    if (progress)
        progress(0.8, "idle breakdown");

    // Idle breakdown per (device, stream), HTA's definition.
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
            auto launch = acts[j].correlation == kNoValue ? launchStart.end()
                                                          : launchStart.find(acts[j].correlation);
            if (launch != launchStart.end() && launch->second > prevEnd)
                b.hostWait += gap;
            else if (gap < options.kernelWaitThreshold)
                b.kernelWait += gap;
            else
                b.other += gap;
        }
        out.idleBreakdown.push_back(b);
        i = j;
    }
    if (progress)
        progress(1.0, "done");
    return out;
}

} // namespace syncscope
