#include "trace/tracebuilder.h"

#include "common/cores.h"
#include "common/error.h"
#include "common/heap.h"
#include "trace/compactjson.h"

#include <algorithm>
#include <cstring>
#include <future>
#include <limits>
#include <numeric>
#include <type_traits>

namespace syncscope {

namespace {

// Moves one column into arrival order `order`, exactly sized.
template <typename T> void gather(std::vector<T> &v, const std::vector<uint32_t> &order)
{
    std::vector<T> out(order.size());
    for (size_t k = 0; k < order.size(); ++k)
        out[k] = v[order[k]];
    v.swap(out);
    std::vector<T>().swap(out);
    releaseFreed();
}

template <typename T> void gather(SparseColumn<T> &c, const std::vector<uint32_t> &order, T none)
{
    if (c.present() == 0) {
        c.clear();
        return;
    }
    c.seal();
    SparseColumn<T> out;
    for (size_t k = 0; k < order.size(); ++k) {
        const T v = c.get(order[k], none);
        if (v != none)
            out.push(k, v);
    }
    c.clear();
    out.seal();
    c = std::move(out);
    releaseFreed();
}

uint64_t mixKey(StrId pid, StrId tid)
{
    uint64_t x = (static_cast<uint64_t>(pid) << 32) | tid;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

// Applies a permutation to one column, leaving it exactly sized.
template <typename T> void permute(std::vector<T> &v, const std::vector<uint32_t> &order) { gather(v, order); }

} // namespace

TraceBuilder::TraceBuilder(TraceInfo info) : m_model(new TraceModel) { m_model->m_info = std::move(info); }

TraceBuilder::~TraceBuilder() = default;

uint64_t TraceBuilder::memoryBytes() const
{
    return m_model->memoryBytes() + m_trackSlots.size() * sizeof(uint32_t) +
           (m_eventTrack.size() + m_instantTrack.size()) * sizeof(uint32_t) + m_pending.size() * sizeof(Pending);
}

uint64_t TraceBuilder::eventCount() const
{
    return m_model->m_events.start.size() + m_model->m_instants.ts.size() + m_pending.size();
}

size_t TraceBuilder::trackCount() const { return m_model->m_trackTid.size(); }

TraceInfo &TraceBuilder::info() { return m_model->m_info; }
TraceCounts &TraceBuilder::counts() { return m_model->m_counts; }
void TraceBuilder::warn(std::string text) { m_model->m_warnings.add(std::move(text)); }

StrId TraceBuilder::intern(std::string_view s) { return m_model->m_strings.intern(s); }
StrId TraceBuilder::internCategory(std::string_view cat)
{
    for (const SeenCategory &c : m_seenCategories)
        if (c.text == cat)
            return c.id;
    const StrId id = m_model->m_strings.intern(normalizeCategory(cat));
    constexpr size_t kSeenCategories = 16; // beyond them, the pool
    if (m_seenCategories.size() < kSeenCategories)
        m_seenCategories.push_back({std::string(cat), id});
    return id;
}

IdValue TraceBuilder::id(std::string_view text)
{
    IdValue v;
    v.text = intern(text);
    // Numeric strings ("tid": "25738") name the same thread as the number.
    if (!text.empty() && text.size() < 19) {
        size_t i = text[0] == '-' ? 1 : 0;
        int64_t n = 0;
        bool ok = i < text.size();
        for (; i < text.size() && ok; ++i) {
            ok = text[i] >= '0' && text[i] <= '9';
            n = n * 10 + (text[i] - '0');
        }
        if (ok)
            v.num = text[0] == '-' ? -n : n;
    }
    return v;
}

IdValue TraceBuilder::id(int64_t number)
{
    IdValue v;
    v.text = intern(std::to_string(number));
    v.num = number;
    return v;
}

size_t TraceBuilder::trackSlot(StrId pid, StrId tid, uint64_t hash) const
{
    const TraceModel &m = *m_model;
    const size_t mask = m_trackSlots.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
        const uint32_t t = m_trackSlots[i];
        if (t == UINT32_MAX || (m.m_trackTid[t].text == tid && m.m_processes[m.m_trackProcess[t]].pid.text == pid))
            return i;
    }
}

void TraceBuilder::growTrackSlots()
{
    const TraceModel &m = *m_model;
    std::vector<uint32_t> slots(std::max<size_t>(64, m_trackSlots.size() * 2), UINT32_MAX);
    const size_t mask = slots.size() - 1;
    for (uint32_t t : m_trackSlots) {
        if (t == UINT32_MAX)
            continue;
        size_t i = mixKey(m.m_processes[m.m_trackProcess[t]].pid.text, m.m_trackTid[t].text) & mask;
        while (slots[i] != UINT32_MAX)
            i = (i + 1) & mask;
        slots[i] = t;
    }
    m_trackSlots.swap(slots);
}

uint32_t TraceBuilder::track(IdValue pid, IdValue tid)
{
    TraceModel &m = *m_model;
    if (4 * (m.m_trackTid.size() + 1) > 3 * m_trackSlots.size())
        growTrackSlots();
    const uint64_t h = mixKey(pid.text, tid.text);
    const size_t slot = trackSlot(pid.text, tid.text, h);
    if (m_trackSlots[slot] != UINT32_MAX)
        return m_trackSlots[slot];
    if (m.m_trackTid.size() >= UINT32_MAX - 1)
        throw Error("the trace has more than 4294967294 threads (pid, tid); at most that many are "
                    "supported.");
    const auto index = static_cast<uint32_t>(m.m_trackTid.size());
    // Every pid with events is a process, named or not.
    m.m_trackProcess.push_back(processIndex(pid));
    m.m_trackTid.push_back(tid);
    m_trackSlots[slot] = index;
    return index;
}

ArgsRef TraceBuilder::storeArgs(std::string_view json)
{
    ArgsRef ref;
    if (json.empty())
        return ref;
    // Profilers pretty-print args; dropping the layout saves about a third.
    // One pass compacts into scratch space, then one copy stores it.
    m_argsScratch.resize(json.size());
    char *out = m_argsScratch.data();
    const size_t n = compactJson(json, out);
    if (n > UINT32_MAX) {
        std::string().swap(m_argsScratch);
        warn("the args of one event are " + std::to_string(n) +
             " bytes, more than the 4 GiB an event's args may have; they were left out");
        return ref;
    }
    char *dst = m_model->m_args.allocate(n, ref);
    if (n)
        std::memcpy(dst, out, n);
    if (m_argsScratch.size() > (size_t(1) << 20))
        std::string().swap(m_argsScratch); // a huge event's args are not kept twice
    return ref;
}

void TraceBuilder::reserveEvents(uint64_t n)
{
    EventColumns &e = m_model->m_events;
    const size_t want = size_t(std::min<uint64_t>(n, UINT32_MAX - 1));
    e.start.reserve(want);
    e.dur.reserve(want);
    e.name.reserve(want);
    e.cat.reserve(want);
    e.args.reserve(want);
}

void TraceBuilder::append(uint32_t track, TimeNs start, TimeNs dur, StrId name, StrId cat, ArgsRef args,
                          const EventKeys &keys)
{
    EventColumns &e = m_model->m_events;
    const uint64_t row = e.start.size();
    if (row >= UINT32_MAX - 1)
        throw Error("the trace has more than 4294967295 duration events; at most that many are "
                    "supported.");
    e.start.push_back(start);
    e.dur.push_back(dur);
    e.name.push_back(name);
    e.cat.push_back(cat);
    e.args.push_back(args);
    m_eventTrack.push_back(track);
    if (keys.externalId != kNoValue)
        e.externalId.push(row, keys.externalId);
    if (keys.correlation != kNoValue)
        e.correlation.push(row, keys.correlation);
    if (keys.device != kNoValue)
        e.device.push(row, keys.device);
    if (keys.stream != kNoValue)
        e.stream.push(row, keys.stream);
    if (keys.bytes != kNoValue)
        e.bytes.push(row, keys.bytes);
    if (keys.syncKind != kEmptyStr)
        e.syncKind.push(row, keys.syncKind);
    if (keys.sequence != kNoValue)
        e.sequence.push(row, keys.sequence);
    ++m_model->m_counts.durationEvents;
}

void TraceBuilder::addComplete(uint32_t track, TimeNs start, TimeNs dur, StrId name, StrId cat, ArgsRef args,
                               const EventKeys &keys)
{
    append(track, start, dur, name, cat, args, keys);
}

void TraceBuilder::addBegin(uint32_t track, TimeNs ts, StrId name, StrId cat, ArgsRef args, const EventKeys &keys)
{
    m_pending.push_back(Pending{ts, m_seq++, track, true, name, cat, args, keys});
}

void TraceBuilder::addEnd(uint32_t track, TimeNs ts)
{
    m_pending.push_back(Pending{ts, m_seq++, track, false, kEmptyStr, kEmptyStr, {}, {}});
}

void TraceBuilder::addInstant(uint32_t track, TimeNs ts, StrId name, StrId cat, char scope, ArgsRef args)
{
    InstantColumns &in = m_model->m_instants;
    if (in.ts.size() >= UINT32_MAX - 1)
        throw Error("the trace has more than 4294967295 instant events; at most that many are "
                    "supported.");
    in.ts.push_back(ts);
    in.name.push_back(name);
    in.cat.push_back(cat);
    in.scope.push_back(scope);
    in.args.push_back(args);
    m_instantTrack.push_back(track);
    ++m_model->m_counts.instants;
}

void TraceBuilder::addCounterValue(IdValue pid, StrId name, StrId key, TimeNs ts, double value)
{
    auto k = std::make_tuple(pid.text, name, key);
    auto it = m_counterIndex.find(k);
    if (it == m_counterIndex.end()) {
        it = m_counterIndex.emplace(k, static_cast<uint32_t>(m_model->m_counters.size())).first;
        CounterSeries s;
        s.pid = pid;
        s.name = name;
        s.key = key;
        m_model->m_counters.push_back(std::move(s));
        process(pid);
    }
    CounterSeries &s = m_model->m_counters[it->second];
    s.ts.push_back(ts);
    s.value.push_back(value);
}

void TraceBuilder::countCounterEvent() { ++m_model->m_counts.counters; }

void TraceBuilder::addFlow(const FlowEvent &flow)
{
    m_model->m_flows.push_back(flow);
    ++m_model->m_counts.flows;
}

uint32_t TraceBuilder::processIndex(IdValue pid)
{
    auto it = m_processIndex.find(pid.text);
    if (it == m_processIndex.end()) {
        it = m_processIndex.emplace(pid.text, static_cast<uint32_t>(m_model->m_processes.size())).first;
        m_model->m_processes.emplace_back();
        m_model->m_processes.back().pid = pid;
    }
    return it->second;
}

Process &TraceBuilder::process(IdValue pid) { return m_model->m_processes[processIndex(pid)]; }

void TraceBuilder::setProcessName(IdValue pid, StrId name) { process(pid).name = name; }
void TraceBuilder::setProcessLabels(IdValue pid, StrId labels) { process(pid).labels = labels; }
void TraceBuilder::setProcessSortIndex(IdValue pid, int64_t index) { process(pid).sortIndex = index; }
void TraceBuilder::setThreadName(uint32_t track, StrId name) { m_threadNames.emplace_back(track, name); }
void TraceBuilder::setThreadSortIndex(uint32_t track, int64_t index)
{
    m_threadSortIndices.emplace_back(track, index);
}

void TraceBuilder::pairBeginEnd(uint32_t track, Pending *begin, Pending *end)
{
    // Sorted by time, file order breaking ties: pair in time order.
    std::vector<const Pending *> open;
    const TraceModel &m = *m_model;
    auto where = [&] {
        return " on pid " + std::string(m.m_strings.get(m.m_processes[m.m_trackProcess[track]].pid.text)) +
               " tid " + std::string(m.m_strings.get(m.m_trackTid[track].text));
    };
    for (const Pending *q = begin; q != end; ++q) {
        const Pending &p = *q;
        if (p.begin) {
            open.push_back(&p);
        } else if (open.empty()) {
            warn("an E event at ts " + std::to_string(p.ts / 1000) + " us" + where() +
                 " has no matching B; it was skipped");
            ++m_model->m_counts.skipped;
        } else {
            const Pending &b = *open.back();
            open.pop_back();
            // p.ts >= b.ts; the difference may still overflow for far-apart signs.
            if (b.ts < 0 && p.ts > std::numeric_limits<TimeNs>::max() + b.ts) {
                warn("a B/E pair '" + std::string(m.m_strings.get(b.name)) + "'" + where() +
                     " lasts longer than the largest time (end - start overflows); it was skipped");
                ++m_model->m_counts.skipped;
                continue;
            }
            append(track, b.ts, p.ts - b.ts, b.name, b.cat, b.args, b.keys);
        }
    }
    for (const Pending *b : open) {
        warn("a B event '" + std::string(m.m_strings.get(b->name)) + "' at ts " + std::to_string(b->ts / 1000) +
             " us" + where() + " never ends; it was skipped");
        ++m_model->m_counts.skipped;
    }
}

namespace {

// Rows grouped by track (stable), with first[t] the first position of track t.
std::vector<uint32_t> groupByTrack(std::vector<uint32_t> &trackOf, size_t nTracks, std::vector<uint32_t> &first)
{
    first.assign(nTracks + 1, 0);
    for (uint32_t t : trackOf)
        ++first[t + 1];
    for (size_t t = 0; t < nTracks; ++t)
        first[t + 1] += first[t];
    std::vector<uint32_t> order(trackOf.size());
    {
        std::vector<uint32_t> pos(first.begin(), first.end() - 1);
        for (size_t r = 0; r < trackOf.size(); ++r)
            order[pos[trackOf[r]]++] = static_cast<uint32_t>(r);
    }
    std::vector<uint32_t>().swap(trackOf);
    return order;
}

} // namespace

void TraceBuilder::sortEvents(const CancelToken *cancel)
{
    TraceModel &m = *m_model;
    EventColumns &e = m.m_events;
    const size_t nTracks = m.m_trackTid.size();
    std::vector<uint32_t> order = groupByTrack(m_eventTrack, nTracks, m.m_trackFirst);
    // Parents before children: by start, then longer first, then file order.
    const auto before = [&](uint32_t a, uint32_t b) {
        if (e.start[a] != e.start[b])
            return e.start[a] < e.start[b];
        if (e.dur[a] != e.dur[b])
            return e.dur[a] > e.dur[b];
        return a < b;
    };
    // On two cores the tracks are shared out by size; a track of more than half
    // the events is sorted in two halves, merged after. The order is a strict
    // total order, so the result is the same however the work is split.
    const size_t n = order.size();
    const bool twoCores = n >= (size_t(1) << 16) && usableCores() > 1;
    struct Range {
        size_t lo, hi;
    };
    std::vector<Range> ranges, merges;
    for (size_t t = 0; t < nTracks; ++t) {
        const size_t lo = m.m_trackFirst[t], hi = m.m_trackFirst[t + 1];
        if (hi - lo < 2)
            continue;
        if (twoCores && hi - lo > n / 2) {
            const size_t mid = lo + (hi - lo) / 2;
            ranges.push_back({lo, mid});
            ranges.push_back({mid, hi});
            merges.push_back({lo, hi});
        } else {
            ranges.push_back({lo, hi});
        }
    }
    const auto sortRanges = [&](const std::vector<Range> &rs) {
        for (size_t k = 0; k < rs.size(); ++k) {
            if ((k & 4095) == 0)
                checkCancel(cancel);
            std::sort(order.begin() + static_cast<std::ptrdiff_t>(rs[k].lo),
                      order.begin() + static_cast<std::ptrdiff_t>(rs[k].hi), before);
        }
    };
    const auto at = [&](size_t i) { return order.begin() + static_cast<std::ptrdiff_t>(i); };
    if (twoCores) {
        // Largest first, each to the core with less so far.
        std::sort(ranges.begin(), ranges.end(),
                  [](const Range &x, const Range &y) { return x.hi - x.lo > y.hi - y.lo; });
        std::vector<Range> mine, theirs;
        size_t mineRows = 0, theirRows = 0;
        for (const Range &r : ranges) {
            if (mineRows <= theirRows) {
                mine.push_back(r);
                mineRows += r.hi - r.lo;
            } else {
                theirs.push_back(r);
                theirRows += r.hi - r.lo;
            }
        }
        std::future<void> other = std::async(std::launch::async, [&] { sortRanges(theirs); });
        sortRanges(mine);
        other.get();
        for (const Range &r : merges)
            std::inplace_merge(at(r.lo), at(r.lo + (r.hi - r.lo) / 2), at(r.hi), before);
    } else {
        sortRanges(ranges);
    }
    checkCancel(cancel);
    // Column by column, so at most one column per core is ever held twice; on
    // two cores the dense columns move beside the sparse ones.
    const auto dense = [&] {
        gather(e.start, order);
        gather(e.dur, order);
        gather(e.name, order);
        gather(e.cat, order);
        gather(e.args, order);
    };
    std::future<void> denseMoved;
    if (twoCores)
        denseMoved = std::async(std::launch::async, dense);
    else
        dense();
    gather(e.externalId, order, kNoValue);
    gather(e.correlation, order, kNoValue);
    gather(e.device, order, kNoValue);
    gather(e.stream, order, kNoValue);
    gather(e.bytes, order, kNoValue);
    gather(e.syncKind, order, kEmptyStr);
    gather(e.sequence, order, kNoValue);
    if (denseMoved.valid())
        denseMoved.get();
}

void TraceBuilder::sortInstants()
{
    TraceModel &m = *m_model;
    InstantColumns &in = m.m_instants;
    if (in.ts.empty()) {
        std::vector<uint32_t>().swap(m_instantTrack);
        m.m_trackInstFirst.clear();
        return;
    }
    const size_t nTracks = m.m_trackTid.size();
    std::vector<uint32_t> order = groupByTrack(m_instantTrack, nTracks, m.m_trackInstFirst);
    for (size_t t = 0; t < nTracks; ++t)
        std::sort(order.begin() + static_cast<std::ptrdiff_t>(m.m_trackInstFirst[t]),
                  order.begin() + static_cast<std::ptrdiff_t>(m.m_trackInstFirst[t + 1]),
                  [&](uint32_t a, uint32_t b) { return in.ts[a] != in.ts[b] ? in.ts[a] < in.ts[b] : a < b; });
    gather(in.ts, order);
    gather(in.name, order);
    gather(in.cat, order);
    gather(in.scope, order);
    gather(in.args, order);
}

void TraceBuilder::setTrackValues(const ProgressFn &progress, const CancelToken *cancel)
{
    TraceModel &m = *m_model;
    EventColumns &e = m.m_events;
    const size_t nTracks = m.m_trackTid.size();
    const size_t n = e.start.size();
    e.depth.assign(n, 0);
    e.parent.assign(n, -1);
    m.m_trackMaxDur.assign(nTracks, 0);
    m.m_trackMaxDepth.assign(nTracks, 0);
    std::vector<uint32_t> stack;
    for (size_t t = 0; t < nTracks; ++t) {
        if ((t & 4095) == 0) {
            checkCancel(cancel);
            if (progress)
                progress(0.5 + 0.5 * double(t) / double(nTracks + 1), "sorting tracks");
        }
        const uint64_t f = m.m_trackFirst[t];
        const uint32_t count = static_cast<uint32_t>(m.m_trackFirst[t + 1] - f);
        const TimeNs *start = e.start.data() + f;
        const TimeNs *dur = e.dur.data() + f;
        TimeNs maxDur = 0;
        uint16_t maxDepth = 0;
        stack.clear();
        for (uint32_t i = 0; i < count; ++i) {
            const TimeNs s = start[i];
            while (!stack.empty()) {
                const uint32_t top = stack.back();
                const TimeNs topEnd = start[top] + dur[top];
                // A zero-length event exactly at its parent's end still belongs to it.
                if (s < topEnd || (s == topEnd && dur[i] == 0 && dur[top] > 0))
                    break;
                stack.pop_back();
            }
            if (!stack.empty()) {
                const auto depth = static_cast<uint16_t>(std::min<size_t>(stack.size(), UINT16_MAX));
                e.parent[f + i] = static_cast<int32_t>(stack.back());
                e.depth[f + i] = depth;
                maxDepth = std::max(maxDepth, depth);
            }
            maxDur = std::max(maxDur, dur[i]);
            stack.push_back(i);
        }
        m.m_trackMaxDur[t] = maxDur;
        m.m_trackMaxDepth[t] = maxDepth;
    }

    // Thread metadata: the last value set for a track wins.
    auto sparse = [](auto &pairs, auto &column) {
        std::stable_sort(pairs.begin(), pairs.end(),
                         [](const auto &a, const auto &b) { return a.first < b.first; });
        for (size_t i = 0; i < pairs.size(); ++i)
            if (i + 1 == pairs.size() || pairs[i + 1].first != pairs[i].first)
                column.push(pairs[i].first, pairs[i].second);
        column.seal();
        std::vector<std::decay_t<decltype(pairs[0])>>().swap(pairs);
    };
    sparse(m_threadNames, m.m_threadName);
    sparse(m_threadSortIndices, m.m_threadSortIndex);
}

TraceModelPtr TraceBuilder::finish(const ProgressFn &progress, const CancelToken *cancel)
{
    TraceModel &m = *m_model;
    if (!m_pending.empty()) {
        m_phase = "pairing B/E events";
        std::sort(m_pending.begin(), m_pending.end(), [](const Pending &a, const Pending &b) {
            if (a.track != b.track)
                return a.track < b.track;
            return a.ts != b.ts ? a.ts < b.ts : a.seq < b.seq;
        });
        for (size_t i = 0; i < m_pending.size();) {
            checkCancel(cancel);
            size_t j = i;
            while (j < m_pending.size() && m_pending[j].track == m_pending[i].track)
                ++j;
            pairBeginEnd(m_pending[i].track, m_pending.data() + i, m_pending.data() + j);
            i = j;
        }
        std::vector<Pending>().swap(m_pending);
    }
    // (Spare capacity is left alone: its pages were never touched, and
    // shrinking would copy.)
    std::vector<uint32_t>().swap(m_trackSlots);
    if (progress)
        progress(0.1, "sorting tracks");
    m_phase = "sorting events";
    // The flows are sorted beside the events: nothing below reads them. The
    // future joins however this ends.
    auto sortFlows = [&m] {
        std::stable_sort(m.m_flows.begin(), m.m_flows.end(),
                         [](const FlowEvent &a, const FlowEvent &b) { return a.ts < b.ts; });
    };
    constexpr size_t kFlowsOnTheirOwn = 1 << 16;
    std::future<void> flowsSorted;
    if (m.m_flows.size() >= kFlowsOnTheirOwn && usableCores() > 1)
        flowsSorted = std::async(std::launch::async, sortFlows);
    else
        sortFlows();
    sortEvents(cancel);
    sortInstants();
    releaseFreed();
    m_phase = "nesting events";
    setTrackValues(progress, cancel);
    for (CounterSeries &s : m.m_counters) {
        if (std::is_sorted(s.ts.begin(), s.ts.end()))
            continue;
        std::vector<uint32_t> o(s.ts.size());
        std::iota(o.begin(), o.end(), 0u);
        std::stable_sort(o.begin(), o.end(), [&](uint32_t a, uint32_t b) { return s.ts[a] < s.ts[b]; });
        permute(s.ts, o);
        permute(s.value, o);
    }
    if (flowsSorted.valid())
        flowsSorted.get();
    checkCancel(cancel);

    bool any = false;
    TimeNs lo = 0, hi = 0;
    auto see = [&](TimeNs a, TimeNs b) {
        if (!any) {
            lo = a;
            hi = b;
            any = true;
        }
        lo = std::min(lo, a);
        hi = std::max(hi, b);
    };
    const EventColumns &e = m.m_events;
    for (size_t i = 0; i < e.start.size(); ++i)
        see(e.start[i], e.start[i] + e.dur[i]);
    for (TimeNs ts : m.m_instants.ts)
        see(ts, ts);
    for (const CounterSeries &s : m.m_counters)
        if (!s.ts.empty())
            see(s.ts.front(), s.ts.back());
    m.m_minTime = lo;
    m.m_maxTime = hi;
    if (progress)
        progress(1.0, "done");

    m_processIndex.clear();
    m_counterIndex.clear();
    m_seenCategories.clear();
    releaseFreed();
    TraceModelPtr done(m_model.release());
    m_model.reset(new TraceModel);
    m_phase = "reading events";
    return done;
}

} // namespace syncscope
