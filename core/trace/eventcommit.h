#pragma once
// What each phase ("ph") of a read event means for the model: one RawEvent in,
// calls on the TraceBuilder out, or a counted warning when the event is skipped.
#include "trace/rawevent.h"
#include "trace/tracebuilder.h"

#include <cstdint>
#include <string>

namespace syncscope {

class EventCommitter {
public:
    explicit EventCommitter(TraceBuilder &builder) : m_b(builder) {}

    // offset: where the event starts in the JSON, for warnings. Throws Error
    // (never json::NeedMore: an event is committed once, when read whole).
    void commit(const RawEvent &ev, uint64_t offset);

private:
    void metadata(const RawEvent &ev, IdValue pid);
    void counters(const RawEvent &ev, IdValue pid, uint64_t offset);
    uint32_t trackFor(const RawEvent &ev, IdValue &pidOut);
    void eventWarning(uint64_t offset, const RawEvent &ev, const std::string &what);

    TraceBuilder &m_b;
    bool m_unknownSeen[128] = {};
    std::string m_key, m_val; // keys and values of args read and used at once
    // The previous event's pid/tid text and track: consecutive events share them.
    std::string m_lastPid, m_lastTid;
    IdValue m_lastPidValue;
    uint32_t m_lastTrack = UINT32_MAX;
};

} // namespace syncscope
