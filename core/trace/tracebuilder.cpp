#include "trace/tracebuilder.h"

#include "common/error.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>

namespace syncscope {

namespace {

constexpr uint32_t kArgBlock = 4u << 20;

// Applies a permutation to one column, leaving it exactly sized.
template <typename T> void permute(std::vector<T> &v, const std::vector<uint32_t> &order)
{
    std::vector<T> out;
    out.reserve(order.size());
    for (uint32_t i : order)
        out.push_back(v[i]);
    v.swap(out);
}

void checkCancel(const CancelToken *cancel)
{
    if (cancel && cancel->cancelled())
        throw Cancelled();
}

} // namespace

std::string_view normalizeCategory(std::string_view cat)
{
    if (cat.empty() || cat[0] < 'A' || cat[0] > 'Z')
        return cat;
    if (cat == "Operator")
        return "cpu_op";
    if (cat == "Runtime")
        return "cuda_runtime";
    if (cat == "Driver")
        return "cuda_driver";
    if (cat == "Kernel")
        return "kernel";
    if (cat == "Memcpy")
        return "gpu_memcpy";
    if (cat == "Memset")
        return "gpu_memset";
    return cat;
}

std::string_view ArgStore::get(ArgsRef ref) const
{
    if (ref.size == 0)
        return {};
    const Block &b = m_blocks[ref.pos >> 32];
    return {b.data.get() + (ref.pos & 0xffffffffu), ref.size};
}

char *ArgStore::allocate(size_t n, ArgsRef &ref)
{
    if (m_blocks.empty() || m_blocks.back().cap - m_blocks.back().used < n) {
        Block b;
        b.cap = static_cast<uint32_t>(std::max<size_t>(kArgBlock, n));
        b.data.reset(new char[b.cap]);
        m_blocks.push_back(std::move(b));
    }
    Block &b = m_blocks.back();
    ref.pos = (static_cast<uint64_t>(m_blocks.size() - 1) << 32) | b.used;
    ref.size = static_cast<uint32_t>(n);
    char *dst = b.data.get() + b.used;
    b.used += static_cast<uint32_t>(n);
    m_bytes += n;
    return dst;
}

std::pair<size_t, size_t> Track::candidates(TimeNs t0, TimeNs t1) const
{
    // An event overlapping t0 started at most maxDur before it.
    const TimeNs from = t0 - maxDur;
    auto b = std::lower_bound(start.begin(), start.end(), from);
    auto e = std::lower_bound(b, start.end(), t1);
    return {static_cast<size_t>(b - start.begin()), static_cast<size_t>(e - start.begin())};
}

const Process *TraceModel::process(int64_t pidNum) const
{
    for (const Process &p : m_processes)
        if (p.pid.num == pidNum)
            return &p;
    return nullptr;
}

TraceBuilder::TraceBuilder(TraceInfo info) : m_model(new TraceModel)
{
    m_model->m_info = std::move(info);
}

TraceBuilder::~TraceBuilder() = default;

TraceInfo &TraceBuilder::info() { return m_model->m_info; }
TraceCounts &TraceBuilder::counts() { return m_model->m_counts; }
void TraceBuilder::warn(std::string text) { m_model->m_warnings.add(std::move(text)); }

void LoadWarnings::add(std::string text)
{
    // The kind: digit runs become '#', text in single quotes becomes '…'.
    std::string pattern;
    pattern.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c >= '0' && c <= '9') {
            while (i + 1 < text.size() && text[i + 1] >= '0' && text[i + 1] <= '9')
                ++i;
            pattern += '#';
        } else if (c == '\'' && text.find('\'', i + 1) != std::string::npos) {
            i = text.find('\'', i + 1);
            pattern += "'\xE2\x80\xA6'";
        } else {
            pattern += c;
        }
    }
    ++count;
    auto it = m_kindIndex.find(pattern);
    size_t k = kinds.size() - 1; // past the cap: the last kind
    if (it != m_kindIndex.end()) {
        k = it->second;
    } else if (kinds.size() < kMaxKinds) {
        k = kinds.size();
        m_kindIndex.emplace(pattern, k);
        kinds.push_back({std::move(pattern), text, 0});
    }
    ++kinds[k].count;
    if (first.size() < kKeep)
        first.push_back(std::move(text));
}
StrId TraceBuilder::intern(std::string_view s) { return m_model->m_strings.intern(s); }
StrId TraceBuilder::internCategory(std::string_view cat)
{
    return m_model->m_strings.intern(normalizeCategory(cat));
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

uint32_t TraceBuilder::track(IdValue pid, IdValue tid)
{
    const uint64_t key = (static_cast<uint64_t>(pid.text) << 32) | tid.text;
    auto it = m_trackIndex.find(key);
    if (it != m_trackIndex.end())
        return it->second;
    const auto index = static_cast<uint32_t>(m_model->m_tracks.size());
    m_model->m_tracks.emplace_back();
    m_model->m_tracks.back().pid = pid;
    m_model->m_tracks.back().tid = tid;
    m_pending.emplace_back();
    m_trackIndex.emplace(key, index);
    process(pid); // every pid with events is a process, named or not
    return index;
}

ArgsRef TraceBuilder::storeArgs(std::string_view json)
{
    ArgsRef ref;
    if (json.empty())
        return ref;
    // Profilers pretty-print args; dropping the layout saves about a third.
    size_t n = 0;
    bool inString = false;
    for (size_t i = 0; i < json.size(); ++i) {
        const char c = json[i];
        if (inString) {
            ++n;
            if (c == '\\' && i + 1 < json.size()) {
                ++i;
                ++n;
            } else if (c == '"') {
                inString = false;
            }
        } else if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
            ++n;
            inString = c == '"';
        }
    }
    char *dst = m_model->m_args.allocate(n, ref);
    inString = false;
    for (size_t i = 0; i < json.size(); ++i) {
        const char c = json[i];
        if (inString) {
            *dst++ = c;
            if (c == '\\' && i + 1 < json.size())
                *dst++ = json[++i];
            else if (c == '"')
                inString = false;
        } else if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
            *dst++ = c;
            inString = c == '"';
        }
    }
    return ref;
}

void TraceBuilder::addComplete(uint32_t track, TimeNs start, TimeNs dur, StrId name, StrId cat,
                               ArgsRef args, const EventKeys &keys)
{
    Track &t = m_model->m_tracks[track];
    t.start.push_back(start);
    t.dur.push_back(dur);
    t.name.push_back(name);
    t.cat.push_back(cat);
    t.args.push_back(args);
    t.externalId.push_back(keys.externalId);
    t.correlation.push_back(keys.correlation);
    t.device.push_back(keys.device);
    t.stream.push_back(keys.stream);
    t.bytes.push_back(keys.bytes);
    t.syncKind.push_back(keys.syncKind);
    ++m_model->m_counts.durationEvents;
}

void TraceBuilder::addBegin(uint32_t track, TimeNs ts, StrId name, StrId cat, ArgsRef args,
                            const EventKeys &keys)
{
    m_pending[track].push_back(Pending{ts, m_seq++, true, name, cat, args, keys});
}

void TraceBuilder::addEnd(uint32_t track, TimeNs ts)
{
    m_pending[track].push_back(Pending{ts, m_seq++, false, kEmptyStr, kEmptyStr, {}, {}});
}

void TraceBuilder::addInstant(uint32_t track, TimeNs ts, StrId name, StrId cat, char scope,
                              ArgsRef args)
{
    auto &in = m_model->m_tracks[track].instants;
    in.ts.push_back(ts);
    in.name.push_back(name);
    in.cat.push_back(cat);
    in.scope.push_back(scope);
    in.args.push_back(args);
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

Process &TraceBuilder::process(IdValue pid)
{
    auto it = m_processIndex.find(pid.text);
    if (it == m_processIndex.end()) {
        it = m_processIndex.emplace(pid.text, static_cast<uint32_t>(m_model->m_processes.size()))
                 .first;
        m_model->m_processes.emplace_back();
        m_model->m_processes.back().pid = pid;
    }
    return m_model->m_processes[it->second];
}

void TraceBuilder::setProcessName(IdValue pid, StrId name) { process(pid).name = name; }
void TraceBuilder::setProcessLabels(IdValue pid, StrId labels) { process(pid).labels = labels; }
void TraceBuilder::setProcessSortIndex(IdValue pid, int64_t index)
{
    process(pid).sortIndex = index;
}
void TraceBuilder::setThreadName(uint32_t track, StrId name)
{
    m_model->m_tracks[track].threadName = name;
}
void TraceBuilder::setThreadSortIndex(uint32_t track, int64_t index)
{
    m_model->m_tracks[track].threadSortIndex = index;
}

void TraceBuilder::pairBeginEnd(uint32_t track, std::vector<Pending> &pending)
{
    if (pending.empty())
        return;
    // Events may come in any order; pair in time order, file order breaking ties.
    std::stable_sort(pending.begin(), pending.end(),
                     [](const Pending &a, const Pending &b) { return a.ts < b.ts; });
    std::vector<const Pending *> open;
    const Track &t = m_model->m_tracks[track];
    auto where = [&] {
        return " on pid " + std::string(m_model->m_strings.get(t.pid.text)) + " tid " +
               std::string(m_model->m_strings.get(t.tid.text));
    };
    for (const Pending &p : pending) {
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
                warn("a B/E pair '" + std::string(m_model->m_strings.get(b.name)) + "'" + where() +
                     " lasts longer than the largest time (end - start overflows); it was skipped");
                ++m_model->m_counts.skipped;
                continue;
            }
            addComplete(track, b.ts, p.ts - b.ts, b.name, b.cat, b.args, b.keys);
        }
    }
    for (const Pending *b : open) {
        warn("a B event '" + std::string(m_model->m_strings.get(b->name)) + "' at ts " +
             std::to_string(b->ts / 1000) + " us" + where() + " never ends; it was skipped");
        ++m_model->m_counts.skipped;
    }
    std::vector<Pending>().swap(pending);
}

void TraceBuilder::sortTrack(Track &t)
{
    const size_t n = t.start.size();
    std::vector<uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    // Parents before children: by start, then longer first, then file order.
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        if (t.start[a] != t.start[b])
            return t.start[a] < t.start[b];
        if (t.dur[a] != t.dur[b])
            return t.dur[a] > t.dur[b];
        return a < b;
    });
    permute(t.start, order);
    permute(t.dur, order);
    permute(t.name, order);
    permute(t.cat, order);
    permute(t.args, order);
    permute(t.externalId, order);
    permute(t.correlation, order);
    permute(t.device, order);
    permute(t.stream, order);
    permute(t.bytes, order);
    permute(t.syncKind, order);

    t.depth.assign(n, 0);
    t.parent.assign(n, -1);
    std::vector<uint32_t> stack;
    for (uint32_t i = 0; i < n; ++i) {
        const TimeNs s = t.start[i];
        while (!stack.empty()) {
            const uint32_t top = stack.back();
            const TimeNs topEnd = t.end(top);
            // A zero-length event exactly at its parent's end still belongs to it.
            if (s < topEnd || (s == topEnd && t.dur[i] == 0 && t.dur[top] > 0))
                break;
            stack.pop_back();
        }
        if (!stack.empty()) {
            t.parent[i] = static_cast<int32_t>(stack.back());
            t.depth[i] = static_cast<uint16_t>(std::min<size_t>(stack.size(), UINT16_MAX));
        }
        t.maxDur = std::max(t.maxDur, t.dur[i]);
        t.maxDepth = std::max(t.maxDepth, t.depth[i]);
        stack.push_back(i);
    }

    auto &in = t.instants;
    if (!std::is_sorted(in.ts.begin(), in.ts.end())) {
        std::vector<uint32_t> io(in.ts.size());
        std::iota(io.begin(), io.end(), 0u);
        std::stable_sort(io.begin(), io.end(),
                         [&](uint32_t a, uint32_t b) { return in.ts[a] < in.ts[b]; });
        permute(in.ts, io);
        permute(in.name, io);
        permute(in.cat, io);
        permute(in.scope, io);
        permute(in.args, io);
    }
}

TraceModelPtr TraceBuilder::finish(const ProgressFn &progress, const CancelToken *cancel)
{
    TraceModel &m = *m_model;
    const size_t nTracks = m.m_tracks.size();
    for (uint32_t i = 0; i < nTracks; ++i) {
        checkCancel(cancel);
        pairBeginEnd(i, m_pending[i]);
        sortTrack(m.m_tracks[i]);
        if (progress)
            progress(double(i + 1) / double(nTracks + 1), "sorting tracks");
    }
    for (CounterSeries &s : m.m_counters) {
        if (std::is_sorted(s.ts.begin(), s.ts.end()))
            continue;
        std::vector<uint32_t> o(s.ts.size());
        std::iota(o.begin(), o.end(), 0u);
        std::stable_sort(o.begin(), o.end(), [&](uint32_t a, uint32_t b) { return s.ts[a] < s.ts[b]; });
        permute(s.ts, o);
        permute(s.value, o);
    }
    checkCancel(cancel);
    std::stable_sort(m.m_flows.begin(), m.m_flows.end(),
                     [](const FlowEvent &a, const FlowEvent &b) { return a.ts < b.ts; });

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
    for (const Track &t : m.m_tracks) {
        for (size_t i = 0; i < t.size(); ++i)
            see(t.start[i], t.end(i));
        if (!t.instants.ts.empty())
            see(t.instants.ts.front(), t.instants.ts.back());
    }
    for (const CounterSeries &s : m.m_counters)
        if (!s.ts.empty())
            see(s.ts.front(), s.ts.back());
    m.m_minTime = lo;
    m.m_maxTime = hi;
    if (progress)
        progress(1.0, "done");

    m_trackIndex.clear();
    m_processIndex.clear();
    m_counterIndex.clear();
    m_pending.clear();
    TraceModelPtr done(m_model.release());
    m_model.reset(new TraceModel);
    return done;
}

} // namespace syncscope
