#pragma once
// Builds a TraceModel event by event, then sorts and nests it once in finish().
// The loader uses it, and so can code that captures a trace in memory (profile).
#include "common/progress.h"
#include "trace/tracemodel.h"

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace syncscope {

// The args the analysis reads without parsing JSON; kNoValue / kEmptyStr if absent.
struct EventKeys {
    int64_t externalId = kNoValue;
    int64_t correlation = kNoValue;
    int64_t device = kNoValue;
    int64_t stream = kNoValue;
    int64_t bytes = kNoValue;
    StrId syncKind = kEmptyStr;
    int64_t sequence = kNoValue; // "Sequence number", as argInt reads it
};

class TraceBuilder {
public:
    explicit TraceBuilder(TraceInfo info = {});
    ~TraceBuilder();

    TraceInfo &info();
    TraceCounts &counts();
    void warn(std::string text);

    StrId intern(std::string_view s);
    // Interns the normalized spelling of a category.
    StrId internCategory(std::string_view cat);
    IdValue id(std::string_view text);
    IdValue id(int64_t number);
    uint32_t track(IdValue pid, IdValue tid);
    // Stores args JSON (whitespace outside strings removed). "" -> no args.
    ArgsRef storeArgs(std::string_view json);
    // Room for about n duration events, so the columns need not grow.
    void reserveEvents(uint64_t n);

    void addComplete(uint32_t track, TimeNs start, TimeNs dur, StrId name, StrId cat, ArgsRef args = {},
                     const EventKeys &keys = {});
    // B/E are paired per track in timestamp order when finish() runs.
    void addBegin(uint32_t track, TimeNs ts, StrId name, StrId cat, ArgsRef args = {}, const EventKeys &keys = {});
    void addEnd(uint32_t track, TimeNs ts);
    void addInstant(uint32_t track, TimeNs ts, StrId name, StrId cat, char scope = 't', ArgsRef args = {});
    // One value of one counter series; call countCounterEvent() once per C event.
    void addCounterValue(IdValue pid, StrId name, StrId key, TimeNs ts, double value);
    void countCounterEvent();
    void addFlow(const FlowEvent &flow);

    void setProcessName(IdValue pid, StrId name);
    void setProcessLabels(IdValue pid, StrId labels);
    void setProcessSortIndex(IdValue pid, int64_t index);
    void setThreadName(uint32_t track, StrId name);
    void setThreadSortIndex(uint32_t track, int64_t index);

    // What the builder is doing ("reading events", "sorting events", ...) and the
    // bytes it holds, for the sentence given when memory runs out.
    const char *phase() const { return m_phase; }
    uint64_t memoryBytes() const;
    uint64_t eventCount() const;
    size_t trackCount() const;

    // Pairs B/E, sorts and nests every track. The builder is empty afterwards.
    // Throws Cancelled when the token fires.
    TraceModelPtr finish(const ProgressFn &progress = {}, const CancelToken *cancel = nullptr);

private:
    std::string m_argsScratch; // storeArgs' compacted args, before they are stored
    // The categories met so far (a trace has a handful), as written, with the
    // id of their normalized spelling: most events skip the pool's hash.
    struct SeenCategory {
        std::string text;
        StrId id;
    };
    std::vector<SeenCategory> m_seenCategories;
    struct Pending {
        TimeNs ts;
        uint64_t seq;
        uint32_t track;
        bool begin;
        StrId name, cat;
        ArgsRef args;
        EventKeys keys;
    };
    Process &process(IdValue pid);
    uint32_t processIndex(IdValue pid);
    void append(uint32_t track, TimeNs start, TimeNs dur, StrId name, StrId cat, ArgsRef args,
                const EventKeys &keys);
    void pairBeginEnd(uint32_t track, Pending *begin, Pending *end);
    void sortEvents(const CancelToken *cancel);
    void sortInstants();
    void setTrackValues(const ProgressFn &progress, const CancelToken *cancel);
    size_t trackSlot(StrId pid, StrId tid, uint64_t hash) const;
    void growTrackSlots();

    std::unique_ptr<TraceModel> m_model;
    // Open addressing over track indices (UINT32_MAX = free); at most 3/4 full.
    std::vector<uint32_t> m_trackSlots;
    std::unordered_map<StrId, uint32_t> m_processIndex;
    std::map<std::tuple<StrId, StrId, StrId>, uint32_t> m_counterIndex;
    // Rows in arrival order until finish(): the track of each event and instant.
    std::vector<uint32_t> m_eventTrack;
    std::vector<uint32_t> m_instantTrack;
    std::vector<Pending> m_pending;
    // Thread metadata as set, (track, value); the last value set wins.
    std::vector<std::pair<uint32_t, StrId>> m_threadNames;
    std::vector<std::pair<uint32_t, int64_t>> m_threadSortIndices;
    uint64_t m_seq = 0;
    const char *m_phase = "reading events";
};

} // namespace syncscope
