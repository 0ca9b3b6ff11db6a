#include "analysis/syncreplay.h"

#include "analysis/correlationindex.h"
#include "common/bits.h"
#include "common/error.h"
#include "common/sortruns.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <string>

namespace syncscope {

namespace {
constexpr TimeNs kNever = std::numeric_limits<TimeNs>::min();
using Item = SyncReplay::Index::Item;
using DeviceIndex = SyncReplay::Index::DeviceIndex;
constexpr auto LaunchedActivity = SyncReplay::Index::LaunchedActivity;
constexpr auto OrphanActivity = SyncReplay::Index::OrphanActivity;
constexpr auto Block = SyncReplay::Index::Block;
constexpr auto Handoff = SyncReplay::Index::Handoff;
bool isAct(const Item &it) { return SyncReplay::Index::isActivity(it.kind); }
} // namespace

const char *blockKindName(BlockKind k)
{
    switch (k) {
    case BlockKind::Stream: return "stream";
    case BlockKind::Device: return "device";
    case BlockKind::Event: return "event";
    case BlockKind::Copy: return "copy";
    }
    return "device";
}

const char *limitKindName(ReplayLimit::Kind k)
{
    switch (k) {
    case ReplayLimit::Kind::None: return "none";
    case ReplayLimit::Kind::GpuBusy: return "gpu_busy";
    case ReplayLimit::Kind::Resynchronized: return "resynchronized";
    case ReplayLimit::Kind::StreamWait: return "stream_wait";
    case ReplayLimit::Kind::IndependentThread: return "independent_thread";
    case ReplayLimit::Kind::ExternalWait: return "external_wait";
    case ReplayLimit::Kind::TraceEnd: return "trace_end";
    }
    return "none";
}

const char *threadModeName(ThreadMode m)
{
    switch (m) {
    case ThreadMode::None: return "none";
    case ThreadMode::Flows: return "flows";
    case ThreadMode::Frames: return "frames";
    case ThreadMode::Inferred: return "inferred";
    }
    return "none";
}

SyncReplay::Index::Index(const ReplayInput &input) : in(input)
{
    const std::vector<ReplayActivity> &acts = in.activities;
    const std::vector<ReplayLaunch> &launches = in.launches;
    const std::vector<ReplayBlocking> &calls = in.calls;
    // The first launch call of each correlation (CorrelationIndexOf: the
    // lowest launch index of a correlation is kept).
    CorrelationIndexOf<CallRef> launchOf;
    launchOf.reserve(launches.size());
    for (uint32_t i = 0; i < launches.size(); ++i) {
        if (launches[i].correlation != kNoValue)
            launchOf.add(launches[i].correlation, CallRef{0, i});
        threads = std::max(threads, launches[i].thread + 1);
    }
    launchOf.finish();
    auto launchOfCorrelation = [&](int64_t correlation) -> const ReplayLaunch * {
        if (correlation == kNoValue)
            return nullptr;
        const CallRef *found = launchOf.find(correlation);
        return found ? &launches[found->index] : nullptr;
    };
    for (const ReplayBlocking &c : calls)
        threads = std::max(threads, c.thread + 1);
    for (const ReplayHandoff &h : in.handoffs)
        threads = std::max(threads, std::max(h.from, h.to) + 1);
    if (threads > kMaxThreads)
        throw Error("the trace has more host threads than the replay can hold (" + std::to_string(threads) + ")");

    std::vector<TimeNs> launchEnd(acts.size(), kNever);
    // Each item with its host call's start and end (an orphan's start twice),
    // for the sort only.
    struct Timed {
        TimeNs t, tEnd;
        Item item;
    };
    std::vector<Timed> timed;
    timed.reserve(acts.size() + calls.size() + 2 * in.handoffs.size());
    for (uint32_t a = 0; a < acts.size(); ++a) {
        streams = std::max(streams, acts[a].stream + 1);
        if (const ReplayLaunch *launch = launchOfCorrelation(acts[a].correlation)) {
            const ReplayLaunch &l = *launch;
            timed.push_back({l.start, l.end, {LaunchedActivity, l.thread, a}});
            launchEnd[a] = l.end;
        } else {
            timed.push_back({acts[a].start, acts[a].start, {OrphanActivity, SyncReplay::Index::kNoThread, a}});
        }
    }
    for (uint32_t c = 0; c < calls.size(); ++c)
        timed.push_back({calls[c].start, calls[c].end, {Block, calls[c].thread, c}});
    for (uint32_t h = 0; h < in.handoffs.size(); ++h) {
        const ReplayHandoff &ho = in.handoffs[h];
        timed.push_back({ho.at, ho.at, {Handoff, ho.to, 2 * h}});
        timed.push_back({ho.back, ho.back, {Handoff, ho.from, 2 * h + 1}});
    }
    // Host order: by start; at one instant the handoffs first (a hand-back
    // before a wake, then in handoff order); then by end (a call that ended
    // when another began came first); then launches before blocking calls (a
    // blocking copy waits for its own copy), activities in stream order.
    const auto handoffClass = [](const Item &it) { return it.kind != Handoff ? 2u : 1u - (it.ref & 1u); };
    const auto timedOrder = [&](const Timed &x, const Timed &y) {
        if (x.t != y.t)
            return x.t < y.t;
        const unsigned xc = handoffClass(x.item), yc = handoffClass(y.item);
        if (xc != yc)
            return xc < yc;
        if (xc != 2)
            return x.item.ref < y.item.ref;
        if (x.tEnd != y.tEnd)
            return x.tEnd < y.tEnd;
        const bool xa = x.item.kind != Block, ya = y.item.kind != Block;
        if (xa != ya)
            return xa;
        if (xa && acts[x.item.ref].start != acts[y.item.ref].start)
            return acts[x.item.ref].start < acts[y.item.ref].start;
        if (x.item.kind != y.item.kind)
            return x.item.kind < y.item.kind;
        return x.item.ref < y.item.ref;
    };
    // A run per stream (launches enqueue in order), the calls, the handoffs.
    sortRuns(timed, timedOrder);
    items.reserve(timed.size());
    std::vector<TimeNs> itemTime; // for W(c) below only
    itemTime.reserve(timed.size());
    for (const Timed &t : timed) {
        items.push_back(t.item);
        itemTime.push_back(t.t);
    }
    timed.clear();
    timed.shrink_to_fit();
    actItem.assign(acts.size(), 0);
    blockItem.assign(calls.size(), 0);
    for (uint32_t i = 0; i < items.size(); ++i) {
        if (isAct(items[i]))
            actItem[items[i].ref] = i;
        else if (items[i].kind == Block)
            blockItem[items[i].ref] = i;
    }
    buildWaits(itemTime);

    // Stream order: by start, then end.
    std::vector<uint32_t> order(acts.size());
    std::iota(order.begin(), order.end(), 0u);
    const auto streamOrder = [&](uint32_t x, uint32_t y) {
        const ReplayActivity &a = acts[x], &b = acts[y];
        if (a.stream != b.stream)
            return a.stream < b.stream;
        if (a.start != b.start)
            return a.start < b.start;
        if (a.end != b.end)
            return a.end < b.end;
        return x < y;
    };
    // The analysis hands the activities over in stream order already.
    if (!std::is_sorted(order.begin(), order.end(), streamOrder))
        std::sort(order.begin(), order.end(), streamOrder);
    pred.assign(acts.size(), -1);
    for (size_t k = 1; k < order.size(); ++k)
        if (acts[order[k]].stream == acts[order[k - 1]].stream)
            pred[order[k]] = static_cast<int32_t>(order[k - 1]);

    // Dependencies (CSR) and each constraint's old ready time.
    // Only the activities with a dependency have a range of depOn (hasDeps),
    // and only those with a dependent a last one (hasDependent).
    auto validDep = [&](const StreamDependency &d) {
        return d.activity < acts.size() && d.on < acts.size() && d.on != d.activity;
    };
    hasDeps.assign(acts.size());
    for (const StreamDependency &d : in.deps)
        if (validDep(d))
            hasDeps.mark(d.activity);
    hasDeps.finish();
    depStart.assign(hasDeps.count() + 1, 0);
    for (const StreamDependency &d : in.deps)
        if (validDep(d))
            ++depStart[hasDeps.rank(d.activity) + 1];
    for (size_t k = 0; k + 1 < depStart.size(); ++k)
        depStart[k + 1] += depStart[k];
    depOn.assign(depStart.back(), 0);
    {
        std::vector<uint32_t> fill(depStart.begin(), depStart.end() - 1);
        for (const StreamDependency &d : in.deps)
            if (validDep(d))
                depOn[fill[hasDeps.rank(d.activity)]++] = d.on;
    }
    hasDependent.assign(acts.size());
    for (uint32_t on : depOn)
        hasDependent.mark(on);
    for (uint32_t on : waitOn)
        hasDependent.mark(on);
    hasDependent.finish();
    lastDependents.assign(hasDependent.count(), 0);
    for (size_t c = 0; c < calls.size(); ++c)
        for (uint32_t k = waitStart[c]; k < waitStart[c + 1]; ++k) {
            uint32_t &last = lastDependents[hasDependent.rank(waitOn[k])];
            last = std::max(last, blockItem[c]);
        }
    launchReadyTimes.assign(acts.size());
    std::vector<char> irregularAct(acts.size(), 0);
    for (uint32_t a = 0; a < acts.size(); ++a) {
        const ReplayActivity &act = acts[a];
        launchReadyTimes.set(a, act.start, launchEnd[a] == kNever ? act.start : std::min(act.start, launchEnd[a]));
        const auto [from, to] = depRange(a);
        for (uint32_t k = from; k < to; ++k) {
            uint32_t &last = lastDependents[hasDependent.rank(depOn[k])];
            last = std::max(last, actItem[a]);
        }
    }
    for (uint32_t a = 0; a < acts.size(); ++a)
        irregularAct[a] = acts[a].start < oldReady(a);

    const uint32_t deviceCount = static_cast<uint32_t>(in.deviceIds.size());
    devices.assign(deviceCount, {});
    lastOfThread.assign(threads, 0);
    lastOfStream.assign(streams, 0);
    for (uint32_t i = 0; i < items.size(); ++i) {
        const Item &it = items[i];
        bool irregular = false;
        if (it.kind == Handoff) {
            const ReplayHandoff &h = in.handoffs[it.ref / 2];
            lastOfThread[h.from] = lastOfThread[h.to] = i;
        } else if (it.kind == Block) {
            lastOfThread[it.thread] = i;
            // A call that returned before the GPU work it waits for ended.
            for (uint32_t k = waitStart[it.ref]; k < waitStart[it.ref + 1]; ++k)
                irregular = irregular || acts[waitOn[k]].end > calls[it.ref].end;
        } else {
            DeviceIndex &d = devices[acts[it.ref].device];
            ++d.activities;
            d.oldMax = std::max(d.oldMax, acts[it.ref].end);
            lastOfStream[acts[it.ref].stream] = i;
            if (it.kind == LaunchedActivity)
                lastOfThread[it.thread] = i;
            irregular = it.kind == OrphanActivity || irregularAct[it.ref];
        }
        if (irregular)
            lastIrregular = i + 1;
        if (it.kind == OrphanActivity)
            lastOrphan = i + 1;
    }
    uint32_t reach = 0;
    for (uint32_t i = 0; i < items.size(); ++i) {
        const Item &it = items[i];
        if (isAct(it) && lastDependent(it.ref) > 0) {
            reach = std::max(reach, lastDependent(it.ref));
            depReach.push_back({i, reach});
        }
    }
    std::vector<uint32_t> orphanPreds; // the stream predecessors of orphans
    for (uint32_t a = 0; a < acts.size(); ++a)
        if (items[actItem[a]].kind == OrphanActivity && pred[a] >= 0)
            orphanPreds.push_back(static_cast<uint32_t>(pred[a]));
    std::sort(orphanPreds.begin(), orphanPreds.end());
    orphanPreds.erase(std::unique(orphanPreds.begin(), orphanPreds.end()), orphanPreds.end());
    orphanPredCount = orphanPreds.size();
    denseHeads = orphanPredCount * 8 > acts.size();
    if (!denseHeads) {
        isOrphanPred.assign((acts.size() + 63) / 64, 0);
        for (const uint32_t a : orphanPreds)
            isOrphanPred[a / 64] |= uint64_t(1) << (a % 64);
        orphanRank.resize(isOrphanPred.size());
        uint32_t before = 0;
        for (size_t w = 0; w < isOrphanPred.size(); ++w) {
            orphanRank[w] = before;
            before += static_cast<uint32_t>(popcount64(isOrphanPred[w]));
        }
    }
    if (devices.size() > 1)
        for (size_t d = 0; d < devices.size(); ++d)
            devices[d].ends.build(items.size(), [this, d](size_t i) { return oldEndOn(d, i); });
    blockMax.build(items.size(), [this](size_t i) { return oldEnd(i); });
}

const SyncReplay::Jumps &SyncReplay::Index::jumps() const
{
    std::call_once(m_jumpsOnce, [this] { m_jumps = std::make_unique<const Jumps>(*this); });
    return *m_jumps;
}

SyncReplay::Jumps::Jumps(const Index &index) : ix(index)
{
    const std::vector<ReplayActivity> &acts = ix.in.activities;
    const std::vector<ReplayBlocking> &calls = ix.in.calls;
    const std::vector<Item> &items = ix.items;
    const std::vector<int32_t> &pred = ix.pred;
    const std::vector<uint32_t> &actItem = ix.actItem, &depOn = ix.depOn, &waitStart = ix.waitStart,
                                &waitOn = ix.waitOn;
    const uint32_t threads = ix.threads, streams = ix.streams;
    constexpr TimeNs kAny = std::numeric_limits<TimeNs>::max(); // every shift passes
    struct Span {
        uint32_t from, to;
        TimeNs steady;
    };
    std::vector<Span> spans;
    // A kept call that returned `late` before its GPU work ended turns a head
    // start D of its thread into max(0, D - late): a lowered head start, which
    // its thread's launches and the orphans after them on their streams take,
    // until the next item that reads the thread's head start. Its span lasts
    // until then (and to the last such orphan); steady is what passes so far.
    constexpr uint32_t kNone = UINT32_MAX;
    struct Window {
        uint32_t span;
        TimeNs late;
    };
    std::vector<Window> windows;
    std::vector<uint32_t> open(threads, kNone);         // per thread: its open window
    std::vector<uint32_t> headFrom(acts.size(), kNone); // per activity: the window whose head start it took
    // D comes back whole through a slack x where D <= x, or where x covers late.
    const auto through = [](TimeNs slack, TimeNs late) { return slack < late ? slack : kAny; };
    const auto close = [&](uint32_t t, uint32_t to, TimeNs steady) {
        Span &sp = spans[windows[open[t]].span];
        sp.to = std::max(sp.to, to);
        sp.steady = std::min(sp.steady, steady);
        open[t] = kNone;
    };
    std::vector<int32_t> lastOnStream(streams, -1);
    std::vector<std::pair<uint32_t, uint32_t>> late; // (activity, its late reader)
    for (uint32_t i = 0; i < items.size(); ++i) {
        const Item &it = items[i];
        if (isAct(it)) {
            const uint32_t a = it.ref;
            const ReplayActivity &act = acts[a];
            // Under a uniform shift D it moves by D unless a constraint other
            // than the last ready was ready after its start, or what it reads
            // was not walked before it.
            const TimeNs R = ix.oldReady(a);
            const auto between = [&](TimeNs ready) { return act.start < ready && ready < R; };
            bool unsteady = pred[a] != lastOnStream[act.stream];
            if (unsteady && pred[a] >= 0 && actItem[static_cast<size_t>(pred[a])] < i)
                late.push_back({static_cast<uint32_t>(pred[a]), i});
            lastOnStream[act.stream] = static_cast<int32_t>(a);
            if (pred[a] >= 0)
                unsteady = unsteady || between(acts[static_cast<size_t>(pred[a])].end);
            const auto [from, to] = ix.depRange(a);
            for (uint32_t k = from; k < to; ++k)
                unsteady = unsteady || actItem[depOn[k]] > i || between(acts[depOn[k]].end);
            if (unsteady)
                spans.push_back({i, i + 1, 0});
            // Its launch term's head start: its thread's, or for an orphan the
            // one its stream predecessor took. A lowered one keeps D where the
            // launch's slack after its binding constraint covers the loss.
            uint32_t w = kNone;
            if (it.kind == LaunchedActivity)
                w = open[it.thread];
            else if (pred[a] >= 0)
                w = headFrom[static_cast<size_t>(pred[a])];
            headFrom[a] = w;
            if (w != kNone) {
                const TimeNs launch = ix.launchReady(a);
                const TimeNs slack = launch == R ? 0 : act.start - launch;
                Span &sp = spans[windows[w].span];
                sp.to = std::max(sp.to, i + 1);
                sp.steady = std::min(sp.steady, through(slack, windows[w].late));
            }
            continue;
        }
        if (it.kind == Handoff) { // reads one thread's head start, writes another's
            const ReplayHandoff &h = ix.in.handoffs[it.ref / 2];
            const uint32_t from = (it.ref & 1u) ? h.to : h.from;
            for (uint32_t t : {from, uint32_t(it.thread)})
                if (open[t] != kNone)
                    close(t, i + 1, 0);
            continue;
        }
        // A blocking call, kept (a jump comes after the last removed call only).
        const ReplayBlocking &c = calls[it.ref];
        const uint32_t t = it.thread;
        TimeNs oldMax = kNever;
        for (uint32_t k = waitStart[it.ref]; k < waitStart[it.ref + 1]; ++k)
            oldMax = std::max(oldMax, acts[waitOn[k]].end);
        const bool early = oldMax != kNever && oldMax > c.end;
        if (open[t] != kNone) {
            // It gives back min(lowered + wait, D): all of D where D <= wait.
            TimeNs steady = 0;
            if (oldMax != kNever && !early && oldMax >= c.start)
                steady = through(oldMax - c.start, windows[open[t]].late);
            close(t, i + 1, steady);
        }
        if (early) {
            open[t] = static_cast<uint32_t>(windows.size());
            windows.push_back({static_cast<uint32_t>(spans.size()), oldMax - c.end});
            spans.push_back({i, i + 1, kAny});
        }
    }
    // A window still open: nothing reads its thread's head start any more.

    std::sort(spans.begin(), spans.end(), [](const Span &x, const Span &y) { return x.from < y.from; });
    for (const Span &sp : spans) {
        if (!spanStart.empty() && sp.from < spanEnd.back()) {
            spanEnd.back() = std::max(spanEnd.back(), sp.to);
            spanSteady.back() = std::min(spanSteady.back(), sp.steady);
            continue;
        }
        spanStart.push_back(sp.from);
        spanEnd.push_back(sp.to);
        spanSteady.push_back(sp.steady);
    }
    spanLeaves = 1;
    while (spanLeaves < spanSteady.size())
        spanLeaves *= 2;
    spanSteadyTree.assign(2 * spanLeaves, kAny);
    std::copy(spanSteady.begin(), spanSteady.end(), spanSteadyTree.begin() + std::ptrdiff_t(spanLeaves));
    for (size_t v = spanLeaves - 1; v >= 1; --v)
        spanSteadyTree[v] = std::min(spanSteadyTree[2 * v], spanSteadyTree[2 * v + 1]);
    std::sort(late.begin(), late.end());
    hasLateReader.assign(acts.size());
    for (const auto &l : late)
        hasLateReader.mark(l.first);
    hasLateReader.finish();
    lateReaders.assign(hasLateReader.count(), 0);
    for (const auto &l : late) {
        uint32_t &r = lateReaders[hasLateReader.rank(l.first)];
        r = std::max(r, l.second);
    }
    dependentMax.build(items.size(), [this](size_t i) { return reachOf(i); });
    lastOrphanOn.assign(streams, 0);
    for (uint32_t i = 0; i < items.size(); ++i)
        if (items[i].kind == OrphanActivity)
            lastOrphanOn[acts[items[i].ref].stream] = i + 1;
}

size_t SyncReplay::Jumps::firstSpanBelow(size_t item, TimeNs shift) const
{
    const size_t n = spanStart.size();
    size_t k = static_cast<size_t>(std::upper_bound(spanEnd.begin(), spanEnd.end(), item) - spanEnd.begin());
    if (k >= n)
        return n;
    // Up the min tree to the first node right of k whose minimum is below, then down.
    size_t v = spanLeaves + k;
    if (spanSteadyTree[v] < shift)
        return k;
    for (;;) {
        while (v > 1 && (v & 1))
            v >>= 1;
        if (v <= 1)
            return n;
        ++v;
        if (spanSteadyTree[v] < shift)
            break;
    }
    while (v < spanLeaves) {
        v *= 2;
        if (spanSteadyTree[v] >= shift)
            ++v;
    }
    return v - spanLeaves;
}

TimeNs SyncReplay::Jumps::reachOf(size_t item) const
{
    if (!isAct(ix.items[item]))
        return kNever;
    const uint32_t a = ix.items[item].ref, r = std::max(ix.lastDependent(a), lateReader(a));
    return r > 0 ? TimeNs(r) : kNever;
}

uint32_t SyncReplay::Jumps::dependentReach(size_t from, size_t to) const
{
    const TimeNs r = dependentMax.max(from, to, [this](size_t i) { return reachOf(i); });
    return r == kNever ? 0 : static_cast<uint32_t>(r);
}

SyncReplay::SyncReplay(const ReplayInput &input)
    : SyncReplay(std::make_shared<const Index>(input),
                 std::make_shared<const std::vector<char>>(input.activities.size(), 0))
{
}

SyncReplay::SyncReplay(std::shared_ptr<const Index> index, std::shared_ptr<const std::vector<char>> coupled)
    : m_ix(std::move(index)), m_in(m_ix->in), m_coupled(std::move(coupled))
{
}

std::unique_ptr<SyncReplay> SyncReplay::twin() const
{
    return std::unique_ptr<SyncReplay>(new SyncReplay(m_ix, m_coupled));
}

void SyncReplay::allocateWalkState()
{
    if (m_newEnd.size() == m_in.activities.size() && m_removed.size() == m_in.calls.size() &&
        m_thrStamp.size() == m_ix->threads)
        return;
    const size_t acts = m_in.activities.size(), calls = m_in.calls.size();
    m_newEnd.assign(acts);
    m_blockDirty.assign(acts / kDirtyBlock + 1, 0);
    m_dirtyBlocks.clear();
    m_predHead.assign(m_ix->headSlots(), 0);
    m_thrStamp.assign(m_ix->threads, 0);
    m_head.assign(m_ix->threads, 0);
    m_strStamp.assign(m_ix->streams, 0);
    m_strLastNew.assign(m_ix->streams, 0);
    m_strLastOld.assign(m_ix->streams, 0);
    m_strLastHead.assign(m_ix->streams, 0);
    m_removed.assign(calls, 0);
}

size_t SyncReplay::Index::headSlot(uint32_t a) const
{
    if (denseHeads)
        return a;
    const uint64_t word = isOrphanPred[a / 64];
    if (!((word >> (a % 64)) & 1))
        return SIZE_MAX;
    // Its place among the orphans' predecessors: the ones in the words before, then the
    // ones below it in its word.
    return orphanRank[a / 64] + static_cast<size_t>(popcount64(word & ((uint64_t(1) << (a % 64)) - 1)));
}

TimeNs SyncReplay::Index::oldEnd(size_t item) const
{
    return isAct(items[item]) ? in.activities[items[item].ref].end : kNever;
}

TimeNs SyncReplay::Index::oldEndOn(size_t device, size_t item) const
{
    const Item &it = items[item];
    return isAct(it) && in.activities[it.ref].device == device ? in.activities[it.ref].end : kNever;
}

TimeNs SyncReplay::Index::deviceOldMax(size_t device, size_t from, size_t to) const
{
    if (devices.size() == 1) // every activity is the device's
        return blockMax.max(from, to, [this](size_t i) { return oldEnd(i); });
    return devices[device].ends.max(from, to, [this, device](size_t i) { return oldEndOn(device, i); });
}

TimeNs SyncReplay::Index::oldReady(uint32_t a) const
{
    TimeNs r = launchReady(a);
    if (pred[a] >= 0)
        r = std::max(r, in.activities[static_cast<size_t>(pred[a])].end);
    const auto [from, to] = depRange(a);
    for (uint32_t k = from; k < to; ++k)
        r = std::max(r, in.activities[depOn[k]].end);
    return r;
}

TimeNs SyncReplay::Index::launchReady(uint32_t a) const { return launchReadyTimes.get(a, in.activities[a].start); }

void SyncReplay::Index::buildWaits(const std::vector<TimeNs> &itemTime)
{
    const std::vector<ReplayActivity> &acts = in.activities;
    const std::vector<ReplayBlocking> &calls = in.calls;
    // Per stream its activities' item positions, per thread its launches', in host order.
    std::vector<std::vector<uint32_t>> onStream(streams), launchedBy(threads);
    std::vector<std::vector<uint32_t>> deviceStreams(in.deviceIds.size());
    std::vector<char> streamSeen(streams, 0);
    for (uint32_t i = 0; i < items.size(); ++i) {
        const Item &it = items[i];
        if (!isAct(it))
            continue;
        const ReplayActivity &a = acts[it.ref];
        onStream[a.stream].push_back(i);
        if (it.kind == LaunchedActivity)
            launchedBy[it.thread].push_back(i);
        if (!streamSeen[a.stream]) {
            streamSeen[a.stream] = 1;
            deviceStreams[a.device].push_back(a.stream);
        }
    }
    std::vector<uint32_t> allStreams;
    for (uint32_t q = 0; q < streams; ++q)
        if (streamSeen[q])
            allStreams.push_back(q);
    waitStart.assign(calls.size() + 1, 0);
    waitOn.clear();
    for (size_t c = 0; c < calls.size(); ++c) {
        const ReplayBlocking &call = calls[c];
        const uint32_t pos = blockItem[c];
        int64_t stream = call.stream, device = call.device;
        const bool wholeDevice = call.kind == BlockKind::Device;
        if (wholeDevice ? device < 0 : stream < 0) {
            // Not named: the stream / device of the last activity its thread launched before it.
            const std::vector<uint32_t> &v = launchedBy[call.thread];
            const auto it = std::lower_bound(v.begin(), v.end(), pos);
            if (it != v.begin()) {
                const ReplayActivity &a = acts[items[*std::prev(it)].ref];
                stream = a.stream;
                device = a.device;
            }
        }
        auto waitOnStream = [&](uint32_t q) {
            const std::vector<uint32_t> &v = onStream[q];
            auto it = v.begin();
            if (call.kind == BlockKind::Event && call.cut != kNoValue)
                it = std::upper_bound(v.begin(), v.end(), call.cut,
                                      [&](TimeNs t, uint32_t i) { return t < itemTime[i]; });
            else
                it = std::lower_bound(v.begin(), v.end(), pos);
            if (it != v.begin())
                waitOn.push_back(items[*std::prev(it)].ref);
        };
        if (wholeDevice) {
            for (uint32_t q : device >= 0 && size_t(device) < deviceStreams.size()
                                  ? deviceStreams[static_cast<size_t>(device)]
                                  : allStreams)
                waitOnStream(q);
        } else if (stream >= 0 && stream < int64_t(streams)) {
            waitOnStream(static_cast<uint32_t>(stream));
        }
        waitStart[c + 1] = static_cast<uint32_t>(waitOn.size());
    }
}

uint32_t SyncReplay::Index::depReachBefore(size_t item) const
{
    const auto it = std::lower_bound(depReach.begin(), depReach.end(), item,
                                     [](const std::pair<uint32_t, uint32_t> &e, size_t i) { return e.first < i; });
    return it == depReach.begin() ? 0 : std::prev(it)->second;
}

TimeNs SyncReplay::itemOldEnd(size_t item) const { return m_ix->oldEnd(item); }

TimeNs SyncReplay::oldMaxInItems(size_t from, size_t to) const
{
    return m_ix->blockMax.max(from, to, [this](size_t i) { return itemOldEnd(i); });
}

void SyncReplay::reset(const std::vector<size_t> &removed)
{
    allocateWalkState();
    if (++m_gen == 0) { // wrapped: clear every stamp once
        std::fill(m_strStamp.begin(), m_strStamp.end(), 0);
        m_gen = 1;
    }
    // Every activity the last walk settled is unwalked again.
    for (uint32_t b : m_dirtyBlocks) {
        const size_t from = size_t(b) * kDirtyBlock;
        m_newEnd.clear(from, std::min(from + kDirtyBlock, m_newEnd.size()));
        m_blockDirty[b] = 0;
    }
    m_dirtyBlocks.clear();
    newThreadGeneration();
    for (size_t c : removed)
        m_removed[c] = 1;
    m_devNewMax.assign(m_ix->devices.size(), kNever);
    m_nonZeroHeads = m_divergedStreams = m_headStreams = 0;
    m_pending.clear();
    m_pendingUntil = 0;
    m_lateUntil = 0;
    m_skips.clear();
}

void SyncReplay::clearRemoved(const std::vector<size_t> &removed)
{
    for (size_t c : removed)
        m_removed[c] = 0;
}

void SyncReplay::newThreadGeneration()
{
    if (++m_thrGen == 0) {
        std::fill(m_thrStamp.begin(), m_thrStamp.end(), 0);
        m_thrGen = 1;
    }
}

void SyncReplay::touchThread(uint32_t t)
{
    if (m_thrStamp[t] != m_thrGen) {
        m_thrStamp[t] = m_thrGen;
        m_head[t] = 0;
    }
}

void SyncReplay::setHead(uint32_t t, TimeNs h)
{
    m_nonZeroHeads += (h != 0) - (m_head[t] != 0);
    m_head[t] = h;
}

void SyncReplay::visitBlock(size_t i)
{
    const Item &it = m_ix->items[i];
    const ReplayBlocking &c = m_in.calls[it.ref];
    touchThread(it.thread);
    const TimeNs h = m_head[it.thread];
    const auto [from, to] = m_ix->waitRange(it.ref);
    if (m_removed[it.ref]) {
        setHead(it.thread, h + (c.end - c.start));
    } else if (from < to) {
        TimeNs oldMax = kNever, newMax = kNever;
        for (uint32_t k = from; k < to; ++k) {
            const uint32_t a = m_ix->waitOn[k];
            oldMax = std::max(oldMax, m_in.activities[a].end);
            newMax = std::max(newMax, newEnd(a));
        }
        const TimeNs old = std::min(oldMax, c.end);
        const TimeNs nw = std::min(newMax, old);
        const TimeNs dur = c.end - c.start;
        const TimeNs wait = std::max<TimeNs>(0, old - c.start);
        const TimeNs ret = std::max<TimeNs>(0, c.end - std::max(c.start, old));
        const TimeNs newEnd = std::max(c.start - h + (dur - wait), nw + ret);
        setHead(it.thread, c.end - newEnd);
        if (m_rec && c.end - newEnd < h)
            m_rec->lastCut[it.thread] = it.ref;
    }
    if (m_rec && m_head[it.thread] != 0)
        m_rec->hadHead[it.thread] = 1;
    // A call with nothing to wait for keeps the head start.
}

void SyncReplay::visitHandoff(size_t i)
{
    const Item &it = m_ix->items[i];
    const ReplayHandoff &h = m_in.handoffs[it.ref / 2];
    const uint32_t from = (it.ref & 1u) ? h.to : h.from, to = it.thread;
    touchThread(from);
    touchThread(to);
    setHead(to, m_head[from]);
    if (m_rec) {
        m_rec->lastCut[to] = m_rec->lastCut[from];
        m_rec->hadHead[to] = m_rec->hadHead[from];
    }
}

void SyncReplay::visit(size_t i)
{
    if (m_ix->items[i].kind == Block)
        visitBlock(i);
    else
        visitHandoff(i);
}

TimeNs SyncReplay::newEnd(uint32_t a) const
{
    const TimeNs old = m_in.activities[a].end;
    if (!m_newEnd.empty() && m_newEnd.has(a))
        return m_newEnd.get(a, old);
    return m_skips.empty() ? old : old - skippedShift(m_ix->actItem[a]);
}

TimeNs SyncReplay::lastRunEnd(uint32_t a) const
{
    if (m_ix->actItem[a] >= m_lastStop)
        return m_in.activities[a].end - m_lastShift;
    return newEnd(a);
}

TimeNs SyncReplay::skippedShift(size_t item) const
{
    const auto it = std::upper_bound(m_skips.begin(), m_skips.end(), item,
                                     [](size_t i, const Skip &s) { return i < s.to; });
    return it != m_skips.end() && it->from <= item ? it->shift : 0;
}

void SyncReplay::skipUniform(size_t from, size_t to, TimeNs d)
{
    const uint32_t reach = m_jx->dependentReach(from, to);
    m_skips.push_back({static_cast<uint32_t>(from), static_cast<uint32_t>(to), d, reach});
    m_pendingUntil = std::max(m_pendingUntil, reach); // d > 0: they moved
    m_lateUntil = std::max(m_lateUntil, reach);
    // At `to` every thread with host events left holds d, and each stream's
    // last activity ends d early (only that lead is read, not its old end).
    for (uint32_t t = 0; t < m_ix->threads; ++t)
        if (m_ix->lastOfThread[t] >= from) {
            touchThread(t);
            setHead(t, d);
        }
    for (uint32_t q = 0; q < m_ix->streams; ++q) {
        if (m_ix->lastOfStream[q] < from)
            continue;
        const bool seen = m_strStamp[q] == m_gen;
        const bool wasDiverged = seen && m_strLastNew[q] != m_strLastOld[q];
        const bool hadHead = seen && m_strLastHead[q] != 0;
        if (!seen)
            m_strLastOld[q] = 0;
        m_strStamp[q] = m_gen;
        m_strLastNew[q] = m_strLastOld[q] - d;
        m_strLastHead[q] = d;
        m_divergedStreams += size_t(1) - size_t(wasDiverged);
        m_headStreams += size_t(1) - size_t(hadHead);
    }
}

TimeNs SyncReplay::activityStart(size_t i, TimeNs &headUsed)
{
    const Item &it = m_ix->items[i];
    const uint32_t a = it.ref;
    const ReplayActivity &act = m_in.activities[a];
    const int32_t p = m_ix->pred[a];
    TimeNs h = 0;
    if (it.kind == LaunchedActivity) {
        touchThread(it.thread);
        h = m_head[it.thread];
    } else if (p >= 0 && m_newEnd.has(static_cast<size_t>(p))) {
        h = m_predHead[m_ix->headSlot(static_cast<uint32_t>(p))];
    } else if (p >= 0 && !m_skips.empty()) { // jumped over: it took the shift
        h = skippedShift(m_ix->actItem[static_cast<size_t>(p)]);
    }
    headUsed = h;
    // The measured start's latency after the last ready constraint stays with
    // the constraints that were last ready (R, the latest old ready time).
    const TimeNs launch = m_ix->launchReady(a), R = m_ix->oldReady(a), latency = act.start - R;
    TimeNs ns = launch - h + (launch == R ? latency : 0);
    if (p >= 0)
        ns = std::max(ns, newEnd(static_cast<uint32_t>(p)) +
                              (m_in.activities[static_cast<size_t>(p)].end == R ? latency : 0));
    const auto [from, to] = m_ix->depRange(a);
    for (uint32_t k = from; k < to; ++k)
        ns = std::max(ns, newEnd(m_ix->depOn[k]) + (m_in.activities[m_ix->depOn[k]].end == R ? latency : 0));
    if (m_rec) {
        // The binding constraint: the latest ready; on a tie the one that bound
        // the measured start, then the stream predecessor, a dependency, the launch.
        Recorder &r = *m_rec;
        TimeNs best = launch - h + (launch == R ? latency : 0);
        int rank = (launch == R ? 0 : 3) + 2;
        r.bind[a] = Recorder::Launch;
        r.kept[a] = launch == R ? latency : 0;
        auto consider = [&](TimeNs v, bool measured, int order, uint8_t bind, uint32_t dep) {
            const int rk = (measured ? 0 : 3) + order;
            if (v > best || (v == best && rk < rank)) {
                best = v;
                rank = rk;
                r.bind[a] = bind;
                r.bindDep[a] = dep;
                r.kept[a] = measured ? latency : 0;
            }
        };
        if (p >= 0) {
            const bool measured = m_in.activities[static_cast<size_t>(p)].end == R;
            consider(newEnd(static_cast<uint32_t>(p)) + (measured ? latency : 0), measured, 0, Recorder::Pred, 0);
        }
        for (uint32_t k = from; k < to; ++k) {
            const bool measured = m_in.activities[m_ix->depOn[k]].end == R;
            consider(newEnd(m_ix->depOn[k]) + (measured ? latency : 0), measured, 1, Recorder::Dep,
                     m_ix->depOn[k]);
        }
        r.head[a] = h;
        if (it.kind == LaunchedActivity) {
            r.cutAtLaunch[a] = r.lastCut[it.thread];
            r.hadAtLaunch[a] = r.hadHead[it.thread];
        }
    }
    return std::min(act.start, ns);
}

void SyncReplay::settle(size_t i, TimeNs ne, TimeNs headUsed)
{
    const Item &it = m_ix->items[i];
    const uint32_t a = it.ref;
    const ReplayActivity &act = m_in.activities[a];
    const size_t block = a / kDirtyBlock;
    if (!m_blockDirty[block]) {
        m_blockDirty[block] = 1;
        m_dirtyBlocks.push_back(static_cast<uint32_t>(block));
    }
    m_newEnd.set(a, act.end, ne);
    if (!m_predHead.empty()) {
        const size_t slot = m_ix->headSlot(a);
        if (slot != SIZE_MAX)
            m_predHead[slot] = headUsed;
    }
    m_devNewMax[act.device] = std::max(m_devNewMax[act.device], ne);
    const uint32_t q = act.stream;
    const bool seen = m_strStamp[q] == m_gen;
    const bool wasDiverged = seen && m_strLastNew[q] != m_strLastOld[q];
    const bool hadHead = seen && m_strLastHead[q] != 0;
    m_strStamp[q] = m_gen;
    m_strLastNew[q] = ne;
    m_strLastOld[q] = act.end;
    m_strLastHead[q] = headUsed;
    m_divergedStreams += size_t(ne != act.end) - size_t(wasDiverged);
    m_headStreams += size_t(headUsed != 0) - size_t(hadHead);
    if (m_jx && (ne != act.end || headUsed != 0)) {
        // A reader that comes after another activity of its stream was walked.
        const uint32_t late = m_jx->lateReader(a);
        if (late > i)
            m_lateUntil = std::max(m_lateUntil, late);
    }
    const uint32_t lastDependent = m_ix->lastDependent(a);
    if (lastDependent > i) {
        // Its dependents still to come start from its new end, moved or not.
        m_pending.push_back({lastDependent, act.end - ne});
        if (ne != act.end)
            m_pendingUntil = std::max(m_pendingUntil, lastDependent);
    }
}

void SyncReplay::step(size_t i)
{
    const Item &it = m_ix->items[i];
    if (!isAct(it)) {
        visit(i);
        return;
    }
    TimeNs h = 0;
    const TimeNs ns = activityStart(i, h);
    const ReplayActivity &act = m_in.activities[it.ref];
    settle(i, ns + (act.end - act.start), h);
}

std::vector<TimeNs> SyncReplay::run(const std::vector<size_t> &removed)
{
    std::vector<TimeNs> out(m_ix->devices.size(), 0);
    m_lastWalked = 0;
    m_lastStop = 0;
    m_lastShift = 0;
    if (removed.empty() || m_in.activities.empty())
        return out;
    m_jx = &m_ix->jumps();
    reset(removed);
    const size_t first = firstRemovedItem(removed);
    size_t last = 0;
    for (size_t c : removed)
        last = std::max<size_t>(last, m_ix->blockItem[c]);
    m_runFirst = first;

    size_t stop = m_ix->items.size();
    TimeNs shift = 0; // of everything from `stop` on
    const size_t checkEvery = m_checkEvery > 0 ? m_checkEvery
                                               : std::max<size_t>(256, m_ix->threads + m_ix->streams);
    size_t walked = 0, sinceCheck = 0;
    for (size_t i = first; i < m_ix->items.size(); ++i) {
        step(i);
        ++walked;
        if (m_fullWalk)
            continue;
        if (converged(i, last) && i >= m_lateUntil) {
            stop = i + 1;
            break;
        }
        // Past the last removed call, now and then: is everything shifted alike?
        if (i < last || ++sinceCheck < checkEvery)
            continue;
        sinceCheck = 0;
        TimeNs d = 0;
        if (!uniformShift(i, d))
            continue;
        const size_t k = m_jx->firstSpanBelow(i + 1, d);
        if (k == m_jx->spanStart.size()) { // nothing to come takes any of it
            stop = i + 1;
            shift = d;
            break;
        }
        if (m_jx->spanStart[k] > i + 1) { // on to the span that may
            skipUniform(i + 1, m_jx->spanStart[k], d);
            i = m_jx->spanStart[k] - 1;
        }
    }
    m_lastWalked = walked;
    m_lastShift = shift;
    m_lastStop = stop;
    clearRemoved(removed);

    for (size_t d = 0; d < m_ix->devices.size(); ++d)
        if (m_ix->devices[d].activities > 0)
            out[d] = std::max<TimeNs>(0, m_ix->devices[d].oldMax - lastNewEnd(d, first, stop, shift));
    return out;
}

ReplayLimit SyncReplay::limitedBy(const std::vector<size_t> &removed, size_t device)
{
    using Kind = ReplayLimit::Kind;
    ReplayLimit out;
    const std::vector<ReplayActivity> &acts = m_in.activities;
    if (removed.empty() || acts.empty() || device >= m_ix->devices.size())
        return out;
    Recorder rec;
    rec.bind.assign(acts.size(), Recorder::NotWalked);
    rec.bindDep.assign(acts.size(), 0);
    rec.head.assign(acts.size(), 0);
    rec.kept.assign(acts.size(), 0);
    rec.cutAtLaunch.assign(acts.size(), -1);
    rec.hadAtLaunch.assign(acts.size(), 0);
    rec.lastCut.assign(m_ix->threads, -1);
    rec.hadHead.assign(m_ix->threads, 0);
    m_rec = &rec;
    reset(removed);
    const size_t first = firstRemovedItem(removed);
    m_runFirst = first;
    for (size_t i = first; i < m_ix->items.size(); ++i)
        step(i);
    clearRemoved(removed);
    m_rec = nullptr;

    // The activity that ends the device last in the replay (the later in host order on a tie).
    int64_t z = -1;
    TimeNs zEnd = kNever;
    bool later = false;
    for (uint32_t a = 0; a < acts.size(); ++a) {
        if (acts[a].device != device)
            continue;
        later = later || m_ix->actItem[a] >= first;
        const TimeNs ne = newEnd(a);
        if (z < 0 || ne > zEnd || (ne == zEnd && m_ix->actItem[a] > m_ix->actItem[size_t(z)])) {
            z = a;
            zEnd = ne;
        }
    }
    if (z < 0)
        return out;
    if (!later) {
        out.kind = Kind::TraceEnd;
        out.noLaterWork = true;
        return out;
    }
    auto newStart = [&](uint32_t a) { return newEnd(a) - (acts[a].end - acts[a].start); };
    if (rec.bind[size_t(z)] == Recorder::NotWalked) { // it ends the device, launched before the calls
        out.kind = Kind::TraceEnd;
        out.noLaterWork = true;
        return out;
    }
    uint32_t a = static_cast<uint32_t>(z);
    TimeNs runStart = newStart(a);
    for (size_t steps = 0; steps <= acts.size(); ++steps) {
        const uint8_t bind = rec.bind[a];
        if (bind == Recorder::NotWalked) {
            // Launched before the first removed call: the queue ran on from it unmoved.
            out.kind = Kind::GpuBusy;
            out.stream = static_cast<int32_t>(acts[a].stream);
            out.at = runStart;
            return out;
        }
        if (rec.kept[a] > kExternalWait) {
            out.kind = Kind::ExternalWait;
            out.activity = a;
            out.stream = static_cast<int32_t>(acts[a].stream);
            out.at = newStart(a);
            out.wait = rec.kept[a];
            return out;
        }
        if (bind == Recorder::Pred) {
            runStart = newStart(a);
            a = static_cast<uint32_t>(m_ix->pred[a]);
            continue;
        }
        if (bind == Recorder::Dep) {
            out.kind = Kind::StreamWait;
            out.activity = a;
            out.stream = static_cast<int32_t>(acts[a].stream);
            out.onStream = static_cast<int32_t>(acts[rec.bindDep[a]].stream);
            out.at = newStart(a);
            return out;
        }
        const Item &it = m_ix->items[m_ix->actItem[a]];
        if (it.kind == OrphanActivity) { // its launch term is its predecessor's head start
            if (m_ix->pred[a] < 0)
                break;
            runStart = newStart(a);
            a = static_cast<uint32_t>(m_ix->pred[a]);
            continue;
        }
        if (static_cast<int64_t>(a) != z && rec.head[a] > 0 && acts[size_t(z)].end - zEnd < rec.head[a]) {
            // Moved by its thread's head start, then the queue behind it was
            // full: the work that ends the device gained less than that.
            out.kind = Kind::GpuBusy;
            out.stream = static_cast<int32_t>(acts[a].stream);
            out.at = newStart(a);
            return out;
        }
        if (rec.cutAtLaunch[a] >= 0) {
            out.kind = Kind::Resynchronized;
            out.call = rec.cutAtLaunch[a];
            out.at = m_in.calls[size_t(rec.cutAtLaunch[a])].start;
            out.thread = it.thread;
            return out;
        }
        if (!rec.hadAtLaunch[a]) {
            out.kind = Kind::IndependentThread;
            out.thread = it.thread;
            out.activity = a;
            return out;
        }
        break;
    }
    out.kind = Kind::TraceEnd;
    return out;
}

// Nothing can move any more: past `last` (the last removed call), every head
// start is 0, every stream and thread ends as measured, no moved activity has a
// dependent still to come, and no orphan can take a head start.
bool SyncReplay::converged(size_t i, size_t last) const
{
    return i >= last && m_nonZeroHeads == 0 && m_divergedStreams == 0 && i >= m_pendingUntil &&
           (m_headStreams == 0 || i + 1 >= m_ix->lastOrphan);
}

// Device d's last new end when only items in [from, to) were walked: those
// before did not move, and those from `to` on moved by exactly `shift`.
TimeNs SyncReplay::lastNewEnd(size_t d, size_t from, size_t to, TimeNs shift) const
{
    TimeNs best = std::max(m_devNewMax[d], m_ix->deviceOldMax(d, 0, from));
    for (const Skip &s : m_skips) {
        const TimeNs v = m_ix->deviceOldMax(d, s.from, s.to);
        if (v != kNever)
            best = std::max(best, v - s.shift);
    }
    if (to < m_ix->items.size()) {
        const TimeNs after = m_ix->deviceOldMax(d, to, m_ix->items.size());
        if (after != kNever)
            best = std::max(best, after - shift);
    }
    return best;
}

bool SyncReplay::uniformShift(size_t item, TimeNs &shift)
{
    TimeNs d = 0;
    bool have = false;
    for (uint32_t t = 0; t < m_ix->threads; ++t) {
        if (m_ix->lastOfThread[t] <= item)
            continue; // no host events left
        if (m_thrStamp[t] != m_thrGen || m_head[t] <= 0)
            return false;
        if (!have) {
            d = m_head[t];
            have = true;
        } else if (m_head[t] != d) {
            return false;
        }
    }
    if (!have)
        return false;
    for (uint32_t q = 0; q < m_ix->streams; ++q) {
        if (m_ix->lastOfStream[q] <= item)
            continue;
        if (m_strStamp[q] != m_gen || m_strLastNew[q] != m_strLastOld[q] - d)
            return false;
        // An orphan to come takes the head start its predecessor took.
        // (A job's walk checks after the last orphan only.)
        if (m_jx && m_jx->lastOrphanOn[q] > item + 1 && m_strLastHead[q] != d)
            return false;
    }
    // Activities whose dependents are still to come must be D early too; those
    // before the walk did not move at all.
    if (m_ix->depReachBefore(m_runFirst) > item)
        return false;
    for (const Skip &s : m_skips)
        if (s.reach > item && s.shift != d)
            return false;
    size_t kept = 0;
    for (const Pending &p : m_pending)
        if (p.until > item)
            m_pending[kept++] = p;
    m_pending.resize(kept);
    for (const Pending &p : m_pending)
        if (p.shift != d)
            return false;
    shift = d;
    return true;
}

void SyncReplay::setCoupled(const std::vector<uint32_t> &activities)
{
    auto coupled = std::make_shared<std::vector<char>>(m_in.activities.size(), 0);
    for (uint32_t a : activities)
        if (a < coupled->size())
            (*coupled)[a] = 1;
    m_coupled = std::move(coupled);
}

void SyncReplay::beginWalk(const std::vector<size_t> &removed, size_t startItem)
{
    if (!m_walkRemoved.empty())
        clearRemoved(m_walkRemoved);
    m_walkRemoved = removed;
    reset(removed);
    // Before startItem nothing moved: the walk may begin there (as run() does).
    m_walkPos = m_walkStart = std::min(startItem, m_ix->items.size());
    m_walkLastRemoved = 0;
    for (size_t c : removed)
        m_walkLastRemoved = std::max<size_t>(m_walkLastRemoved, m_ix->blockItem[c]);
    m_skippedMax = kNever;
    m_convergedAt = SIZE_MAX;
    m_tailShift = 0;
    m_rewoken = false;
    m_runFirst = m_walkStart; // what uniformShift takes as not moved before the walk
}

void SyncReplay::rewake(size_t item)
{
    // Converged at m_convergedAt: nothing in [m_convergedAt, item) moved, every
    // head start was 0 and every thread's launched work ended as measured, so the
    // threads start afresh (as at a walk's start); moved activities have no
    // dependents beyond the convergence point, and their stamps stay valid.
    if (m_convergedAt != SIZE_MAX)
        m_skippedMax = std::max(m_skippedMax, oldMaxInItems(m_convergedAt, item));
    m_convergedAt = SIZE_MAX;
    newThreadGeneration();
    m_walkPos = item;
    // Unmoved activities of the skipped stretch may have dependents to come,
    // which uniformShift does not see: no uniform stop on this walk any more.
    m_rewoken = true;
}

bool SyncReplay::resumedUniformShift(TimeNs &shift)
{
    const size_t i = m_walkPos; // the next item; every item before it is settled
    if (m_rewoken || i == 0 || i >= m_ix->items.size() || m_convergedAt != SIZE_MAX)
        return false;
    if (!m_walkRemoved.empty() && m_walkLastRemoved >= i)
        return false; // a removed call is still to come
    if (i < m_ix->lastIrregular)
        return false; // an orphan, overlap or early return is still to come
    return uniformShift(i - 1, shift);
}

void SyncReplay::endShifted(TimeNs shift)
{
    m_convergedAt = m_walkPos;
    m_tailShift = shift;
    clearRemoved(m_walkRemoved);
    m_walkRemoved.clear();
}

size_t SyncReplay::firstRemovedItem(const std::vector<size_t> &removed) const
{
    size_t first = SIZE_MAX;
    for (size_t c : removed)
        first = std::min<size_t>(first, m_ix->blockItem[c]);
    return first;
}

void SyncReplay::pauseUnmoved(uint32_t activity)
{
    m_pausedItem = m_ix->actItem[activity];
    m_pausedStart = m_in.activities[activity].start;
    m_pausedHead = 0;
    const Item &it = m_ix->items[m_pausedItem];
    if (it.kind == LaunchedActivity)
        touchThread(it.thread); // as activityStart does for a walked one
}

uint32_t SyncReplay::walkToCoupled()
{
    for (; m_walkPos < m_ix->items.size(); ++m_walkPos) {
        const size_t i = m_walkPos;
        const Item &it = m_ix->items[i];
        if (!isAct(it)) {
            visit(i);
            continue;
        }
        TimeNs h = 0;
        const TimeNs ns = activityStart(i, h);
        const ReplayActivity &act = m_in.activities[it.ref];
        if ((*m_coupled)[it.ref]) {
            m_pausedItem = i;
            m_pausedStart = ns;
            m_pausedHead = h;
            return it.ref;
        }
        settle(i, ns + (act.end - act.start), h);
        if (converged(i, m_walkLastRemoved)) {
            // From here on nothing moves unless a collective ends at another time.
            m_convergedAt = m_walkPos = i + 1;
            return kConverged;
        }
    }
    clearRemoved(m_walkRemoved);
    m_walkRemoved.clear();
    return UINT32_MAX;
}

void SyncReplay::resume(TimeNs newEnd)
{
    const size_t i = m_pausedItem;
    settle(i, newEnd, m_pausedHead);
    m_walkPos = i + 1;
}

std::vector<TimeNs> SyncReplay::walkNewLast() const
{
    std::vector<TimeNs> out(m_ix->devices.size(), kNoValue);
    for (size_t d = 0; d < m_ix->devices.size(); ++d)
        if (m_ix->devices[d].activities > 0)
            out[d] = lastNewEnd(d, m_walkStart, m_convergedAt, m_tailShift);
    return out;
}

} // namespace syncscope
