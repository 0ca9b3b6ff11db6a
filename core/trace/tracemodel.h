#pragma once
// The loaded trace: immutable once built, shared between threads as
// std::shared_ptr<const TraceModel>. Events are stored as columns per track
// (pid, tid), sorted by start with nesting precomputed (Qt Creator's TimelineModel).
#include "trace/stringpool.h"

#include <cstdint>
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

// The args of an event, minified JSON kept in chunked storage (offset packs
// chunk index and position). size 0 means "no args".
struct ArgsRef {
    uint64_t pos = 0;
    uint32_t size = 0;
};

// Raw JSON text of every event's args, in blocks that never move.
class ArgStore {
public:
    ArgStore() = default;
    ArgStore(ArgStore &&) noexcept = default;
    ArgStore &operator=(ArgStore &&) noexcept = default;

    std::string_view get(ArgsRef ref) const;
    // Returns a writable region of exactly n bytes and its reference.
    char *allocate(size_t n, ArgsRef &ref);
    // Drops the unused tail of the last block.
    uint64_t bytes() const { return m_bytes; }

private:
    struct Block {
        std::unique_ptr<char[]> data;
        uint32_t used = 0;
        uint32_t cap = 0;
    };
    std::vector<Block> m_blocks;
    uint64_t m_bytes = 0;
};

// A pid or tid: numbers and strings both occur ("tid": "stream 7").
struct IdValue {
    StrId text = kEmptyStr;      // as written (numbers in decimal)
    int64_t num = kNoValue;      // kNoValue when it is not an integer
    bool isNumber() const { return num != kNoValue; }
};

struct Track {
    IdValue pid;
    IdValue tid;
    StrId threadName = kEmptyStr;
    int64_t threadSortIndex = kNoValue;

    // Duration events (X, and B/E pairs), sorted by start, longer first on ties.
    std::vector<TimeNs> start;
    std::vector<TimeNs> dur;
    std::vector<StrId> name;
    std::vector<StrId> cat;      // normalized (see normalizeCategory)
    std::vector<uint16_t> depth; // 0 = top level
    std::vector<int32_t> parent; // index in this track, -1 for top level
    std::vector<ArgsRef> args;
    // Fast access to the args the analysis needs; kNoValue / kEmptyStr when absent.
    std::vector<int64_t> externalId;  // "External id" or "external id"
    std::vector<int64_t> correlation;
    std::vector<int64_t> device;
    std::vector<int64_t> stream;
    std::vector<int64_t> bytes;
    std::vector<StrId> syncKind;      // "cuda_sync_kind"
    TimeNs maxDur = 0;
    uint16_t maxDepth = 0;

    // Instant events (i/I) on this track, sorted by ts.
    struct Instants {
        std::vector<TimeNs> ts;
        std::vector<StrId> name;
        std::vector<StrId> cat;
        std::vector<char> scope; // 't', 'p' or 'g'
        std::vector<ArgsRef> args;
    } instants;

    size_t size() const { return start.size(); }
    TimeNs end(size_t i) const { return start[i] + dur[i]; }
    // Index range of the events that overlap [t0, t1) (plus zero-length ones at t0),
    // a superset bounded by maxDur: callers test each event.
    std::pair<size_t, size_t> candidates(TimeNs t0, TimeNs t1) const;
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
    int64_t id = kNoValue;      // numeric id, else idText
    StrId idText = kEmptyStr;
};

struct TraceInfo {
    std::string path;
    std::string format;                 // "json" or "json.gz"
    uint64_t fileBytes = 0;             // on disk
    uint64_t jsonBytes = 0;             // after decompression
    int64_t rank = kNoValue;            // distributedInfo.rank
    int64_t worldSize = kNoValue;       // distributedInfo.world_size
    int64_t baseTimeNanoseconds = kNoValue;
    int64_t schemaVersion = kNoValue;
    std::string displayTimeUnit;
    std::string distributedInfoJson;    // raw, minified; empty when absent
    std::string devicePropertiesJson;
    bool truncated = false;
};

struct TraceCounts {
    uint64_t durationEvents = 0; // X plus matched B/E pairs
    uint64_t instants = 0;
    uint64_t counters = 0;       // C events (not series)
    uint64_t flows = 0;
    uint64_t metadata = 0;
    uint64_t unknownPhase = 0;
    uint64_t skipped = 0;        // events dropped with a warning
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

    const std::vector<Track> &tracks() const { return m_tracks; }
    const std::vector<Process> &processes() const { return m_processes; }
    const std::vector<CounterSeries> &counters() const { return m_counters; }
    const std::vector<FlowEvent> &flows() const { return m_flows; } // sorted by ts
    std::string_view args(ArgsRef ref) const { return m_args.get(ref); }
    uint64_t argsBytes() const { return m_args.bytes(); }

    // Earliest start and latest end over duration, instant and counter events;
    // both 0 for an empty trace.
    TimeNs minTime() const { return m_minTime; }
    TimeNs maxTime() const { return m_maxTime; }
    const Process *process(int64_t pidNum) const;

private:
    friend class TraceBuilder;
    TraceInfo m_info;
    TraceCounts m_counts;
    LoadWarnings m_warnings;
    StringPool m_strings;
    ArgStore m_args;
    std::vector<Track> m_tracks;
    std::vector<Process> m_processes;
    std::vector<CounterSeries> m_counters;
    std::vector<FlowEvent> m_flows;
    TimeNs m_minTime = 0;
    TimeNs m_maxTime = 0;
};

using TraceModelPtr = std::shared_ptr<const TraceModel>;

// Legacy (PyTorch <= 1.9) spellings to today's: Operator -> cpu_op, Runtime ->
// cuda_runtime, Driver -> cuda_driver, Kernel -> kernel, Memcpy -> gpu_memcpy,
// Memset -> gpu_memset. Anything else is returned unchanged.
std::string_view normalizeCategory(std::string_view cat);

} // namespace syncscope
