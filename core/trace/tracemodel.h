#pragma once
// The loaded trace: immutable once built, shared between threads as
// std::shared_ptr<const TraceModel>. Events are stored as columns grouped by track
// (pid, tid), sorted by start with nesting precomputed (Qt Creator's TimelineModel).
// The columns are the model's, shared by all tracks (a track is a range of rows),
// so a track costs a few dozen bytes and an event about 40 plus its args.
#include "common/bits.h"
#include "trace/stringpool.h"

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace syncscope {

// Times are integer nanoseconds: the file's microseconds times 1000, which keeps
// the fractional-µs timestamps of newer Kineto exactly and fits epoch times.
using TimeNs = int64_t;
constexpr int64_t kNoValue = std::numeric_limits<int64_t>::min();

// The args of an event, minified JSON kept in chunked storage. pos packs the block
// and the position of a length-prefixed record, plus one; 0 means "no args".
struct ArgsRef {
    uint64_t pos = 0;
    bool empty() const { return pos == 0; }
    bool operator==(const ArgsRef &o) const { return pos == o.pos; }
    bool operator!=(const ArgsRef &o) const { return pos != o.pos; }
};

// Raw JSON text of every event's args, in blocks that never move.
class ArgStore {
public:
    ArgStore() = default;
    ArgStore(ArgStore &&) noexcept = default;
    ArgStore &operator=(ArgStore &&) noexcept = default;

    std::string_view get(ArgsRef ref) const;
    // Returns a writable region of exactly n bytes and its reference; n = 0 gives
    // the empty reference. One event's args are at most 4294967295 bytes.
    char *allocate(size_t n, ArgsRef &ref);
    // Bytes of args text stored (without the length prefixes).
    uint64_t bytes() const { return m_bytes; }
    // Bytes in use (records and the block table).
    uint64_t memoryBytes() const;

private:
    struct Block {
        std::unique_ptr<char[]> data;
        uint64_t used = 0;
        uint64_t cap = 0;
    };
    std::vector<Block> m_blocks;
    uint64_t m_bytes = 0;
};

// A pid or tid: numbers and strings both occur ("tid": "stream 7").
struct IdValue {
    StrId text = kEmptyStr; // as written (numbers in decimal)
    int64_t num = kNoValue; // kNoValue when it is not an integer
    bool isNumber() const { return num != kNoValue; }
};

// A read-only view of a slice of one column.
template <typename T> class Span {
public:
    Span() = default;
    Span(const T *p, size_t n) : m_p(p), m_n(n) {}
    const T &operator[](size_t i) const { return m_p[i]; }
    size_t size() const { return m_n; }
    bool empty() const { return m_n == 0; }
    const T *data() const { return m_p; }
    const T *begin() const { return m_p; }
    const T *end() const { return m_p + m_n; }
    const T &front() const { return m_p[0]; }
    const T &back() const { return m_p[m_n - 1]; }

private:
    const T *m_p = nullptr;
    size_t m_n = 0;
};

// A column most rows of which may lack a value: a presence bitmap with the rank
// of every 64-row word, and the values of the present rows only. Costs 2 bits a
// row plus the values present, instead of a value for every row.
template <typename T> class SparseColumn {
public:
    // Rows must be pushed in increasing order; call seal() before get().
    void push(uint64_t row, T value)
    {
        const uint64_t w = row >> 6;
        if (m_bits.size() <= w)
            m_bits.resize(w + 1, 0);
        m_bits[w] |= uint64_t(1) << (row & 63);
        m_values.push_back(value);
    }
    void seal()
    {
        m_bits.shrink_to_fit();
        m_values.shrink_to_fit();
        m_rank.assign(m_bits.size(), 0);
        uint64_t r = 0;
        for (size_t w = 0; w < m_bits.size(); ++w) {
            m_rank[w] = r;
            r += popcount64(m_bits[w]);
        }
    }
    T get(uint64_t row, T none) const
    {
        const uint64_t w = row >> 6;
        if (w >= m_bits.size())
            return none;
        const uint64_t word = m_bits[w];
        const uint64_t bit = uint64_t(1) << (row & 63);
        if (!(word & bit))
            return none;
        return m_values[m_rank[w] + popcount64(word & (bit - 1))];
    }
    size_t present() const { return m_values.size(); }
    void clear()
    {
        std::vector<uint64_t>().swap(m_bits);
        std::vector<uint64_t>().swap(m_rank);
        std::vector<T>().swap(m_values);
    }
    uint64_t memoryBytes() const
    {
        return (m_bits.capacity() + m_rank.capacity()) * sizeof(uint64_t) + m_values.capacity() * sizeof(T);
    }

private:
    std::vector<uint64_t> m_bits;
    std::vector<uint64_t> m_rank;
    std::vector<T> m_values;
};

// One track's slice of a sparse column: reads like a vector, absent rows give `none`.
template <typename T> class SparseSpan {
public:
    SparseSpan() = default;
    SparseSpan(const SparseColumn<T> *c, uint64_t first, size_t n, T none)
        : m_c(c), m_first(first), m_n(n), m_none(none)
    {
    }
    T operator[](size_t i) const { return m_c->get(m_first + i, m_none); }
    size_t size() const { return m_n; }
    bool empty() const { return m_n == 0; }

private:
    const SparseColumn<T> *m_c = nullptr;
    uint64_t m_first = 0;
    size_t m_n = 0;
    T m_none{};
};

// The duration events of every track, one column each, track after track
// (a track's events are one contiguous range, sorted as Track describes).
struct EventColumns {
    std::vector<TimeNs> start;
    std::vector<TimeNs> dur;
    std::vector<StrId> name;
    std::vector<StrId> cat;
    std::vector<uint16_t> depth;
    std::vector<int32_t> parent; // index within the track
    std::vector<ArgsRef> args;
    // Most events lack most of these: stored sparsely.
    SparseColumn<int64_t> externalId, correlation, device, stream, bytes, sequence;
    SparseColumn<StrId> syncKind;
};

struct InstantColumns {
    std::vector<TimeNs> ts;
    std::vector<StrId> name;
    std::vector<StrId> cat;
    std::vector<char> scope;
    std::vector<ArgsRef> args;
};

// One thread (pid, tid) and its events: a view into the model's columns, made on
// demand by TraceModel::tracks() (valid while the model lives).
struct Track {
    IdValue pid;
    IdValue tid;
    StrId threadName = kEmptyStr;
    int64_t threadSortIndex = kNoValue;

    // Duration events (X, and B/E pairs), sorted by start, longer first on ties.
    Span<TimeNs> start;
    Span<TimeNs> dur;
    Span<StrId> name;
    Span<StrId> cat;      // normalized (see normalizeCategory)
    Span<uint16_t> depth; // 0 = top level
    Span<int32_t> parent; // index in this track, -1 for top level
    Span<ArgsRef> args;
    // Fast access to the args the analysis needs; kNoValue / kEmptyStr when absent.
    SparseSpan<int64_t> externalId; // "External id" or "external id"
    SparseSpan<int64_t> correlation;
    SparseSpan<int64_t> device;
    SparseSpan<int64_t> stream;
    SparseSpan<int64_t> bytes;
    SparseSpan<StrId> syncKind;   // "cuda_sync_kind"
    SparseSpan<int64_t> sequence; // "Sequence number" (argInt of the args)
    TimeNs maxDur = 0;
    uint16_t maxDepth = 0;

    // Instant events (i/I) on this track, sorted by ts.
    struct Instants {
        Span<TimeNs> ts;
        Span<StrId> name;
        Span<StrId> cat;
        Span<char> scope; // 't', 'p' or 'g'
        Span<ArgsRef> args;
        size_t size() const { return ts.size(); }
    } instants;

    size_t size() const { return start.size(); }
    TimeNs end(size_t i) const { return start[i] + dur[i]; }
    // Index range of the events that overlap [t0, t1) (plus zero-length ones at t0),
    // a superset bounded by maxDur: callers test each event.
    std::pair<size_t, size_t> candidates(TimeNs t0, TimeNs t1) const;
};

class TraceModel;

// The tracks of a model, indexed like a vector; elements are views made on access.
class TrackList {
public:
    class iterator {
    public:
        using iterator_category = std::random_access_iterator_tag;
        using value_type = Track;
        using difference_type = std::ptrdiff_t;
        using pointer = void;
        using reference = Track;
        iterator(const TraceModel *m, size_t i) : m_m(m), m_i(i) {}
        Track operator*() const;
        iterator &operator++()
        {
            ++m_i;
            return *this;
        }
        iterator operator+(difference_type d) const { return {m_m, m_i + static_cast<size_t>(d)}; }
        difference_type operator-(const iterator &o) const
        {
            return static_cast<difference_type>(m_i) - static_cast<difference_type>(o.m_i);
        }
        bool operator==(const iterator &o) const { return m_i == o.m_i; }
        bool operator!=(const iterator &o) const { return m_i != o.m_i; }

    private:
        const TraceModel *m_m;
        size_t m_i;
    };
    TrackList(const TraceModel *m, size_t n) : m_m(m), m_n(n) {}
    Track operator[](size_t i) const;
    size_t size() const { return m_n; }
    bool empty() const { return m_n == 0; }
    iterator begin() const { return {m_m, 0}; }
    iterator end() const { return {m_m, m_n}; }

private:
    const TraceModel *m_m;
    size_t m_n;
};

struct Process {
    IdValue pid;
    StrId name = kEmptyStr;
    StrId labels = kEmptyStr;
    int64_t sortIndex = kNoValue;
};

// One series of a counter event: (pid, name, key of args).
struct CounterSeries {
    IdValue pid;
    StrId name = kEmptyStr;
    StrId key = kEmptyStr;
    std::vector<TimeNs> ts; // sorted
    std::vector<double> value;
};

enum class FlowPhase : uint8_t { Start, Step, End };

struct FlowEvent {
    FlowPhase phase = FlowPhase::Start;
    bool bindEnclosing = false; // "bp": "e"
    uint32_t track = 0;         // index into tracks()
    TimeNs ts = 0;
    StrId name = kEmptyStr;
    StrId cat = kEmptyStr;
    int64_t id = kNoValue; // numeric id, else idText
    StrId idText = kEmptyStr;
};

struct TraceInfo {
    std::string path;
    std::string format;           // "json" or "json.gz"
    uint64_t fileBytes = 0;       // on disk
    uint64_t jsonBytes = 0;       // after decompression
    int64_t rank = kNoValue;      // distributedInfo.rank
    int64_t worldSize = kNoValue; // distributedInfo.world_size
    int64_t baseTimeNanoseconds = kNoValue;
    int64_t schemaVersion = kNoValue;
    std::string displayTimeUnit;
    std::string distributedInfoJson; // raw, minified; empty when absent
    std::string devicePropertiesJson;
    std::string metadataJson; // the top-level "metadata" object, raw; empty when absent
    bool truncated = false;
    uint64_t truncatedAtByte = 0; // when truncated: where the data ends (of the decompressed JSON for gzip)
    int64_t clockShift = 0;       // ns added to every time of the file (TraceModel::shiftTimes)
};

struct TraceCounts {
    uint64_t durationEvents = 0; // X plus matched B/E pairs
    uint64_t instants = 0;
    uint64_t counters = 0; // C events (not series)
    uint64_t flows = 0;
    uint64_t metadata = 0;
    uint64_t unknownPhase = 0;
    uint64_t skipped = 0; // events dropped with a warning
};

// Counted per-event problems; the first few keep their text, and every distinct
// kind (the text with numbers and quoted names blanked) keeps a count and an example.
struct LoadWarnings {
    static constexpr size_t kKeep = 20;
    static constexpr size_t kMaxKinds = 200; // later new kinds count under the last one
    struct Kind {
        std::string pattern; // "the event at byte # ('…') has a negative "dur"; it was skipped"
        std::string example; // the first text of this kind
        uint64_t count = 0;
    };
    uint64_t count = 0;
    std::vector<std::string> first;
    std::vector<Kind> kinds; // in order of first appearance
    void add(std::string text);

private:
    std::unordered_map<std::string, size_t> m_kindIndex;
};

class TraceModel {
public:
    const TraceInfo &info() const { return m_info; }
    const TraceCounts &counts() const { return m_counts; }
    const LoadWarnings &warnings() const { return m_warnings; }

    const StringPool &strings() const { return m_strings; }
    std::string_view str(StrId id) const { return m_strings.get(id); }
    StrId findString(std::string_view s) const { return m_strings.find(s); }

    TrackList tracks() const { return {this, m_trackTid.size()}; }
    Track track(size_t i) const;
    const std::vector<Process> &processes() const { return m_processes; }
    const std::vector<CounterSeries> &counters() const { return m_counters; }
    const std::vector<FlowEvent> &flows() const { return m_flows; } // sorted by ts
    std::string_view args(ArgsRef ref) const { return m_args.get(ref); }
    uint64_t argsBytes() const { return m_args.bytes(); }
    // Bytes of the model's data on the heap (columns, strings, args, tables), the
    // spare capacity of grown columns left out: what a loaded trace costs.
    uint64_t memoryBytes() const;

    // Earliest start and latest end over duration, instant and counter events;
    // both 0 for an empty trace.
    TimeNs minTime() const { return m_minTime; }
    TimeNs maxTime() const { return m_maxTime; }
    const Process *process(int64_t pidNum) const;

    // Moves every time of the trace (events, instants, counters, flows) by
    // `delta` ns and adds it to info().clockShift: to draw the ranks of a job on
    // one clock. For the model's only owner: no one may read it meanwhile.
    void shiftTimes(TimeNs delta);

private:
    friend class TraceBuilder;
    TraceInfo m_info;
    TraceCounts m_counts;
    LoadWarnings m_warnings;
    StringPool m_strings;
    ArgStore m_args;
    // Per track (index = track), in columns like the events.
    std::vector<uint32_t> m_trackProcess; // index into m_processes (the pid)
    std::vector<IdValue> m_trackTid;
    // Rows are 32-bit (at most 4294967295 events and as many instants).
    std::vector<uint32_t> m_trackFirst;     // event range: [first[i], first[i + 1])
    std::vector<uint32_t> m_trackInstFirst; // instant range likewise; empty: none at all
    std::vector<TimeNs> m_trackMaxDur;
    std::vector<uint16_t> m_trackMaxDepth;
    SparseColumn<StrId> m_threadName;
    SparseColumn<int64_t> m_threadSortIndex;
    EventColumns m_events;
    InstantColumns m_instants;
    std::vector<Process> m_processes;
    std::vector<CounterSeries> m_counters;
    std::vector<FlowEvent> m_flows;
    TimeNs m_minTime = 0;
    TimeNs m_maxTime = 0;
};

inline Track TrackList::operator[](size_t i) const { return m_m->track(i); }
inline Track TrackList::iterator::operator*() const { return m_m->track(m_i); }

using TraceModelPtr = std::shared_ptr<const TraceModel>;

// TraceModel::shiftTimes on a model that `model` alone holds (every model is
// made non-const, by TraceBuilder); false, and nothing moved, when another
// pointer holds it too, since a reader may be using it.
bool shiftSoleModel(const TraceModelPtr &model, TimeNs delta);

// Legacy (PyTorch <= 1.9) spellings to today's: Operator -> cpu_op, Runtime ->
// cuda_runtime, Driver -> cuda_driver, Kernel -> kernel, Memcpy -> gpu_memcpy,
// Memset -> gpu_memset. Anything else is returned unchanged.
std::string_view normalizeCategory(std::string_view cat);

} // namespace syncscope
