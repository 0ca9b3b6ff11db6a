// The model's own methods: its args store, the track views it hands out, its
// byte count and the warnings it keeps. TraceBuilder fills it.
#include "trace/tracemodel.h"

#include "trace/categories.h"

#include "common/error.h"

#include <algorithm>
#include <cstring>

namespace syncscope {

namespace {

constexpr uint64_t kArgBlock = 4u << 20;
// An ArgsRef is ((block << kArgPosBits) | position) + 1; a block holds at most
// one event's 4 GiB of args and its length prefix, so 36 bits of position suffice.
constexpr unsigned kArgPosBits = 36;
constexpr uint64_t kArgPosMask = (uint64_t(1) << kArgPosBits) - 1;

} // namespace

std::string_view normalizeCategory(std::string_view cat)
{
    if (cat.empty() || cat[0] < 'A' || cat[0] > 'Z')
        return cat;
    if (cat == "Operator")
        return category::kCpuOp;
    if (cat == "Runtime")
        return category::kRuntime;
    if (cat == "Driver")
        return category::kDriver;
    if (cat == "Kernel")
        return category::kKernel;
    if (cat == "Memcpy")
        return category::kMemcpy;
    if (cat == "Memset")
        return category::kMemset;
    return cat;
}

std::string_view ArgStore::get(ArgsRef ref) const
{
    if (ref.pos == 0)
        return {};
    const uint64_t v = ref.pos - 1;
    const Block &b = m_blocks[v >> kArgPosBits];
    return readLengthPrefixed(b.data.get() + (v & kArgPosMask));
}

char *ArgStore::allocate(size_t n, ArgsRef &ref)
{
    ref = ArgsRef{};
    // One event's args are at most 4 GiB - 1.
    if (n > UINT32_MAX)
        throw Error("the args of one event are " + std::to_string(n) +
                    " bytes; at most 4294967295 bytes are supported.");
    if (n == 0)
        return nullptr;
    unsigned char prefix[kMaxLengthPrefix];
    const size_t k = writeLengthPrefix(n, prefix);
    const uint64_t need = k + n;
    if (m_blocks.empty() || m_blocks.back().cap - m_blocks.back().used < need) {
        Block b;
        b.cap = std::max<uint64_t>(kArgBlock, need);
        b.data.reset(new char[b.cap]);
        m_blocks.push_back(std::move(b));
    }
    Block &b = m_blocks.back();
    ref.pos = ((static_cast<uint64_t>(m_blocks.size() - 1) << kArgPosBits) | b.used) + 1;
    char *dst = b.data.get() + b.used;
    std::memcpy(dst, prefix, k);
    b.used += need;
    m_bytes += n;
    return dst + k;
}

uint64_t ArgStore::memoryBytes() const
{
    uint64_t n = m_blocks.capacity() * sizeof(Block);
    for (const Block &b : m_blocks)
        n += b.used;
    return n;
}

std::pair<size_t, size_t> Track::candidates(TimeNs t0, TimeNs t1) const
{
    // An event overlapping t0 started at most maxDur before it.
    const TimeNs from = t0 - maxDur;
    auto b = std::lower_bound(start.begin(), start.end(), from);
    auto e = std::lower_bound(b, start.end(), t1);
    return {static_cast<size_t>(b - start.begin()), static_cast<size_t>(e - start.begin())};
}

Track TraceModel::track(size_t i) const
{
    Track t;
    t.pid = m_processes[m_trackProcess[i]].pid;
    t.tid = m_trackTid[i];
    t.threadName = m_threadName.get(i, kEmptyStr);
    t.threadSortIndex = m_threadSortIndex.get(i, kNoValue);
    t.maxDur = m_trackMaxDur[i];
    t.maxDepth = m_trackMaxDepth[i];
    const uint64_t f = m_trackFirst[i];
    const size_t n = static_cast<size_t>(m_trackFirst[i + 1] - f);
    const EventColumns &e = m_events;
    t.start = {e.start.data() + f, n};
    t.dur = {e.dur.data() + f, n};
    t.name = {e.name.data() + f, n};
    t.cat = {e.cat.data() + f, n};
    t.depth = {e.depth.data() + f, n};
    t.parent = {e.parent.data() + f, n};
    t.args = {e.args.data() + f, n};
    t.externalId = {&e.externalId, f, n, kNoValue};
    t.correlation = {&e.correlation, f, n, kNoValue};
    t.device = {&e.device, f, n, kNoValue};
    t.stream = {&e.stream, f, n, kNoValue};
    t.bytes = {&e.bytes, f, n, kNoValue};
    t.syncKind = {&e.syncKind, f, n, kEmptyStr};
    t.sequence = {&e.sequence, f, n, kNoValue};
    if (!m_trackInstFirst.empty()) {
        const uint64_t g = m_trackInstFirst[i];
        const size_t m = static_cast<size_t>(m_trackInstFirst[i + 1] - g);
        const InstantColumns &in = m_instants;
        t.instants.ts = {in.ts.data() + g, m};
        t.instants.name = {in.name.data() + g, m};
        t.instants.cat = {in.cat.data() + g, m};
        t.instants.scope = {in.scope.data() + g, m};
        t.instants.args = {in.args.data() + g, m};
    }
    return t;
}

namespace {
// Bytes in use: spare capacity of a grown column was never touched, so it costs
// address space but no memory.
template <typename T> uint64_t capBytes(const std::vector<T> &v) { return v.size() * sizeof(T); }
} // namespace

uint64_t TraceModel::memoryBytes() const
{
    uint64_t n = m_strings.memoryBytes() + m_args.memoryBytes();
    n += capBytes(m_trackProcess) + capBytes(m_trackTid) + capBytes(m_trackFirst) + capBytes(m_trackInstFirst) +
         capBytes(m_trackMaxDur) + capBytes(m_trackMaxDepth) + m_threadName.memoryBytes() +
         m_threadSortIndex.memoryBytes();
    const EventColumns &e = m_events;
    n += capBytes(e.start) + capBytes(e.dur) + capBytes(e.name) + capBytes(e.cat) + capBytes(e.depth) +
         capBytes(e.parent) + capBytes(e.args) + e.externalId.memoryBytes() + e.correlation.memoryBytes() +
         e.device.memoryBytes() + e.stream.memoryBytes() + e.bytes.memoryBytes() + e.syncKind.memoryBytes() +
         e.sequence.memoryBytes();
    const InstantColumns &in = m_instants;
    n += capBytes(in.ts) + capBytes(in.name) + capBytes(in.cat) + capBytes(in.scope) + capBytes(in.args);
    n += capBytes(m_processes) + capBytes(m_flows);
    for (const CounterSeries &c : m_counters)
        n += sizeof(c) + capBytes(c.ts) + capBytes(c.value);
    return n;
}

const Process *TraceModel::process(int64_t pidNum) const
{
    for (const Process &p : m_processes)
        if (p.pid.num == pidNum)
            return &p;
    return nullptr;
}

void TraceModel::shiftTimes(TimeNs delta)
{
    if (delta == 0)
        return;
    for (TimeNs &t : m_events.start)
        t += delta;
    for (TimeNs &t : m_instants.ts)
        t += delta;
    for (CounterSeries &c : m_counters)
        for (TimeNs &t : c.ts)
            t += delta;
    for (FlowEvent &f : m_flows)
        f.ts += delta;
    m_minTime += delta;
    m_maxTime += delta;
    m_info.clockShift += delta;
}

bool shiftSoleModel(const TraceModelPtr &model, TimeNs delta)
{
    if (!model || model.use_count() != 1)
        return false;
    const_cast<TraceModel &>(*model).shiftTimes(delta);
    return true;
}

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

} // namespace syncscope
