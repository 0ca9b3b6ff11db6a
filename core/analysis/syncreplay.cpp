#include "analysis/syncreplay.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <unordered_map>

namespace syncscope {

namespace {
constexpr TimeNs kNever = std::numeric_limits<TimeNs>::min();
}

SyncReplay::SyncReplay(std::vector<Activity> activities, const std::vector<Launch> &launches,
                       std::vector<Blocking> calls, uint32_t devices)
    : m_acts(std::move(activities)), m_calls(std::move(calls))
{
    // The first launch call of each correlation.
    std::unordered_map<int64_t, size_t> launchOf;
    launchOf.reserve(launches.size());
    for (size_t i = 0; i < launches.size(); ++i) {
        if (launches[i].correlation != kNoValue)
            launchOf.emplace(launches[i].correlation, i);
        m_threads = std::max(m_threads, launches[i].thread + 1);
    }
    for (const Blocking &c : m_calls)
        m_threads = std::max(m_threads, c.thread + 1);

    m_items.reserve(m_acts.size() + m_calls.size());
    for (uint32_t a = 0; a < m_acts.size(); ++a) {
        m_streams = std::max(m_streams, m_acts[a].stream + 1);
        auto it = m_acts[a].correlation == kNoValue ? launchOf.end()
                                                    : launchOf.find(m_acts[a].correlation);
        if (it != launchOf.end())
            m_items.push_back({launches[it->second].start, launches[it->second].end,
                               LaunchedActivity, a, launches[it->second].thread});
        else
            m_items.push_back({m_acts[a].start, m_acts[a].start, OrphanActivity, a, UINT32_MAX});
    }
    for (uint32_t c = 0; c < m_calls.size(); ++c)
        m_items.push_back({m_calls[c].start, m_calls[c].end, Block, c, m_calls[c].thread});
    // Host order: by start, then end (a call that ended when another began came
    // first); then launches before blocking calls (a blocking copy waits for its
    // own copy), activities in stream order.
    std::sort(m_items.begin(), m_items.end(), [&](const Item &x, const Item &y) {
        if (x.t != y.t)
            return x.t < y.t;
        if (x.tEnd != y.tEnd)
            return x.tEnd < y.tEnd;
        const bool xa = x.kind != Block, ya = y.kind != Block;
        if (xa != ya)
            return xa;
        if (xa && m_acts[x.ref].start != m_acts[y.ref].start)
            return m_acts[x.ref].start < m_acts[y.ref].start;
        if (x.kind != y.kind)
            return x.kind < y.kind;
        return x.ref < y.ref;
    });

    // Stream order: by start, then end.
    std::vector<uint32_t> order(m_acts.size());
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
        const Activity &a = m_acts[x], &b = m_acts[y];
        if (a.stream != b.stream)
            return a.stream < b.stream;
        if (a.start != b.start)
            return a.start < b.start;
        if (a.end != b.end)
            return a.end < b.end;
        return x < y;
    });
    m_pred.assign(m_acts.size(), -1);
    for (size_t k = 1; k < order.size(); ++k)
        if (m_acts[order[k]].stream == m_acts[order[k - 1]].stream)
            m_pred[order[k]] = static_cast<int32_t>(order[k - 1]);

    m_prevOfThread.assign(m_items.size(), -1);
    m_threadOldMax.assign(m_items.size(), kNever);
    m_blockItem.assign(m_calls.size(), 0);
    std::vector<int32_t> lastOfThread(m_threads, -1);
    std::vector<TimeNs> runningMax(m_threads, kNever);
    m_devices.assign(devices, {});
    for (uint32_t i = 0; i < m_items.size(); ++i) {
        const Item &it = m_items[i];
        if (it.kind != OrphanActivity) {
            m_prevOfThread[i] = lastOfThread[it.thread];
            lastOfThread[it.thread] = static_cast<int32_t>(i);
            if (it.kind == LaunchedActivity)
                runningMax[it.thread] = std::max(runningMax[it.thread], m_acts[it.ref].end);
            m_threadOldMax[i] = runningMax[it.thread];
        }
        if (it.kind == Block) {
            m_blockItem[it.ref] = i;
        } else {
            DeviceIndex &d = m_devices[m_acts[it.ref].device];
            d.positions.push_back(i);
            d.prefixMax.push_back(std::max(d.prefixMax.empty() ? kNever : d.prefixMax.back(),
                                           m_acts[it.ref].end));
        }
    }
    for (DeviceIndex &d : m_devices) {
        d.suffixMax.assign(d.positions.size(), kNever);
        TimeNs m = kNever;
        for (size_t k = d.positions.size(); k-- > 0;) {
            m = std::max(m, m_acts[m_items[d.positions[k]].ref].end);
            d.suffixMax[k] = m;
        }
        d.oldMax = m;
    }

    m_actStamp.assign(m_acts.size(), 0);
    m_newEnd.assign(m_acts.size(), 0);
    m_headUsed.assign(m_acts.size(), 0);
    m_thrStamp.assign(m_threads, 0);
    m_head.assign(m_threads, 0);
    m_thrNewMax.assign(m_threads, kNever);
    m_thrOldBefore.assign(m_threads, kNever);
    m_strStamp.assign(m_streams, 0);
    m_strLastNew.assign(m_streams, 0);
    m_strLastOld.assign(m_streams, 0);
    m_removed.assign(m_calls.size(), 0);
}

std::vector<TimeNs> SyncReplay::run(const std::vector<size_t> &removed)
{
    std::vector<TimeNs> out(m_devices.size(), 0);
    m_lastWalked = 0;
    if (removed.empty() || m_acts.empty())
        return out;
    if (++m_gen == 0) { // wrapped: clear every stamp once
        std::fill(m_actStamp.begin(), m_actStamp.end(), 0);
        std::fill(m_thrStamp.begin(), m_thrStamp.end(), 0);
        std::fill(m_strStamp.begin(), m_strStamp.end(), 0);
        m_gen = 1;
    }
    size_t first = m_items.size(), last = 0;
    for (size_t c : removed) {
        m_removed[c] = 1;
        first = std::min<size_t>(first, m_blockItem[c]);
        last = std::max<size_t>(last, m_blockItem[c]);
    }

    std::vector<TimeNs> devNewMax(m_devices.size(), kNever);
    size_t nonZeroHeads = 0, divergedStreams = 0;
    auto thread = [&](uint32_t t, size_t item) {
        if (m_thrStamp[t] != m_gen) {
            m_thrStamp[t] = m_gen;
            m_head[t] = 0;
            m_thrNewMax[t] = kNever;
            const int32_t prev = m_prevOfThread[item];
            // Before the walk started nothing moved: new ends were the old ones.
            m_thrOldBefore[t] = prev >= 0 ? m_threadOldMax[static_cast<size_t>(prev)] : kNever;
        }
    };
    auto setHead = [&](uint32_t t, TimeNs h) {
        nonZeroHeads += (h != 0) - (m_head[t] != 0);
        m_head[t] = h;
    };

    size_t stop = m_items.size();
    for (size_t i = first; i < m_items.size(); ++i) {
        const Item &it = m_items[i];
        if (it.kind == Block) {
            const Blocking &c = m_calls[it.ref];
            thread(it.thread, i);
            TimeNs &h = m_head[it.thread];
            if (m_removed[it.ref]) {
                setHead(it.thread, h + (c.end - c.start));
            } else if (m_threadOldMax[i] != kNever) {
                const TimeNs old = std::min(m_threadOldMax[i], c.end);
                const TimeNs nw = std::min(std::max(m_thrOldBefore[it.thread], m_thrNewMax[it.thread]), old);
                const TimeNs dur = c.end - c.start;
                const TimeNs wait = std::max<TimeNs>(0, old - c.start);
                const TimeNs ret = std::max<TimeNs>(0, c.end - std::max(c.start, old));
                const TimeNs newEnd = std::max(c.start - h + (dur - wait), nw + ret);
                setHead(it.thread, c.end - newEnd);
            }
            // A thread that never launched anything keeps its head start.
        } else {
            const uint32_t a = it.ref;
            const Activity &act = m_acts[a];
            const int32_t p = m_pred[a];
            TimeNs predNew = kNever, h = 0;
            if (p >= 0) {
                const bool moved = m_actStamp[static_cast<size_t>(p)] == m_gen;
                predNew = moved ? m_newEnd[static_cast<size_t>(p)] : m_acts[static_cast<size_t>(p)].end;
                if (moved && it.kind == OrphanActivity)
                    h = m_headUsed[static_cast<size_t>(p)];
            }
            if (it.kind == LaunchedActivity) {
                thread(it.thread, i);
                h = m_head[it.thread];
            }
            const TimeNs ns = std::min(act.start, std::max(act.start - h, predNew));
            const TimeNs ne = ns + (act.end - act.start);
            m_actStamp[a] = m_gen;
            m_newEnd[a] = ne;
            m_headUsed[a] = h;
            if (it.kind == LaunchedActivity)
                m_thrNewMax[it.thread] = std::max(m_thrNewMax[it.thread], ne);
            devNewMax[act.device] = std::max(devNewMax[act.device], ne);
            const uint32_t q = act.stream;
            const bool wasDiverged = m_strStamp[q] == m_gen && m_strLastNew[q] != m_strLastOld[q];
            m_strStamp[q] = m_gen;
            m_strLastNew[q] = ne;
            m_strLastOld[q] = act.end;
            divergedStreams += (ne != act.end) - wasDiverged;
        }
        if (i >= last && nonZeroHeads == 0 && divergedStreams == 0) {
            stop = i + 1;
            break;
        }
    }
    m_lastWalked = stop - first;
    for (size_t c : removed)
        m_removed[c] = 0;

    for (size_t d = 0; d < m_devices.size(); ++d) {
        const DeviceIndex &di = m_devices[d];
        if (di.positions.empty())
            continue;
        // Activities outside [first, stop) did not move.
        TimeNs best = devNewMax[d];
        const auto b = std::lower_bound(di.positions.begin(), di.positions.end(), first);
        if (b != di.positions.begin())
            best = std::max(best, di.prefixMax[static_cast<size_t>(b - di.positions.begin()) - 1]);
        const auto e = std::lower_bound(di.positions.begin(), di.positions.end(), stop);
        if (e != di.positions.end())
            best = std::max(best, di.suffixMax[static_cast<size_t>(e - di.positions.begin())]);
        out[d] = std::max<TimeNs>(0, di.oldMax - best);
    }
    return out;
}

} // namespace syncscope
