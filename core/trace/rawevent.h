#pragma once
// One trace event as written: the fields the loader reads from one event object,
// before they mean anything for the model (eventcommit.h gives them a meaning).
#include "trace/jsonscanner.h"
#include "trace/tracebuilder.h"

#include <string>
#include <string_view>

namespace syncscope {

// Views point into the buffer being read or into the EventReader's scratch
// strings: they are valid until the buffer moves or the reader reads again.
struct RawEvent {
    char ph = 0;
    bool hasPh = false, hasTs = false, hasDur = false, hasId = false;
    bool hasPid = false, hasTid = false;
    TimeNs ts = 0, dur = 0;
    std::string_view name, cat, pid, tid, id, bp, scope, args;
    bool idIsNumber = false;
    const char *wrongType = nullptr; // where the first value of a wrong type starts; null if none
    const char *outOfRange = nullptr; // the first time field beyond int64 ns: "ts" or "dur"
    EventKeys keys;
    std::string_view syncKind;
};

// Reads the fields of one event object. Known fields of the wrong type are noted
// in wrongType (the first one) and otherwise left out; unknown fields are skipped.
// args keeps the raw text of an object or array, and the keys the analysis reads
// (EventKeys, "cuda_sync_kind") are taken from an args object on the way.
class EventReader {
public:
    // At the event's '{'; leaves the scanner after its '}'. Throws json::NeedMore
    // when the object runs past the end of the buffer (nothing is kept: read it
    // again once there is more) and json::SyntaxError on invalid JSON.
    RawEvent read(json::Scanner &s);

private:
    void readArgs(json::Scanner &s, RawEvent &ev);

    std::string m_name, m_cat, m_pid, m_tid, m_id, m_bp, m_scope, m_ph, m_sync;
    // Keys and values read and used at once.
    std::string m_key, m_val;
};

} // namespace syncscope
