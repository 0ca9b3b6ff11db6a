#pragma once
// One trace event as written: the fields the loader reads from one event object,
// before they mean anything for the model (eventcommit.h gives them a meaning).
#include "trace/argfield.h"
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
    const char *wrongType = nullptr;  // where the first value of a wrong type starts; null if none
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
    // At the event's '{'; fills ev, which must be as RawEvent() makes it (the
    // caller's fresh slot: clearing it here too would write it twice), and
    // leaves the scanner after its '}'. Throws json::NeedMore when the object runs past the end of the
    // buffer (ev is then not an event: read it again once there is more) and
    // json::SyntaxError on invalid JSON.
    void read(json::Scanner &s, RawEvent &ev);

private:
    void readArgs(json::Scanner &s, RawEvent &ev);

    std::string m_name, m_cat, m_pid, m_tid, m_id, m_bp, m_scope, m_ph, m_sync;
    // Keys and values read and used at once.
    std::string m_key, m_val;
};

// Defined here, like the scanner: they are the loader's hot loop, inlined into it.

inline void EventReader::read(json::Scanner &s, RawEvent &ev)
{
    ++s.p; // '{'
    if (s.peek() == '}') {
        ++s.p;
        return;
    }
    for (;;) {
        if (s.peek() != '"')
            throw json::SyntaxError{s.p, "expected a string key in a trace event"};
        const std::string_view key = s.string(m_key);
        s.expect(':', "expected ':' after a key");
        const char c = s.peek();
        const char *field = s.p;
        auto str = [&](std::string &scratch, std::string_view &out) {
            if (c == '"')
                out = s.string(scratch);
            else {
                s.skipValue();
                if (!ev.wrongType)
                    ev.wrongType = field;
            }
        };
        auto time = [&](TimeNs &out, bool &has) {
            std::string_view text;
            if (c == '"') {
                text = s.string(m_val);
            } else if (c == '-' || json::Scanner::isDigit(c)) {
                if (s.plainMicros(out)) {
                    has = true;
                    return;
                }
                text = s.number();
            } else {
                s.skipValue();
                if (!ev.wrongType)
                    ev.wrongType = field;
                return;
            }
            switch (json::parseMicros(text, out)) {
            case json::NumberStatus::Ok: has = true; break;
            case json::NumberStatus::OutOfRange:
                if (!ev.outOfRange)
                    ev.outOfRange = &out == &ev.ts ? "ts" : "dur";
                break;
            case json::NumberStatus::NotNumber:
                if (!ev.wrongType)
                    ev.wrongType = field;
                break;
            }
        };
        auto idField = [&](std::string &scratch, std::string_view &out, bool &has) {
            if (c == '"') {
                out = s.string(scratch);
                has = true;
            } else if (c == '-' || json::Scanner::isDigit(c)) {
                out = s.number();
                has = true;
            } else {
                s.skipValue();
                if (!ev.wrongType)
                    ev.wrongType = field;
            }
        };
        bool matched = true;
        switch (key.size()) {
        case 2:
            if (key == "ph") {
                std::string_view ph;
                str(m_ph, ph);
                if (!ph.empty()) {
                    ev.ph = ph[0];
                    ev.hasPh = true;
                }
            } else if (key == "ts") {
                time(ev.ts, ev.hasTs);
            } else if (key == "id") {
                bool has = false;
                idField(m_id, ev.id, has);
                ev.hasId = has;
                ev.idIsNumber = has && c != '"';
            } else if (key == "bp") {
                str(m_bp, ev.bp);
            } else {
                matched = false;
            }
            break;
        case 1:
            if (key == "s")
                str(m_scope, ev.scope);
            else
                matched = false;
            break;
        case 3:
            if (key == "pid")
                idField(m_pid, ev.pid, ev.hasPid);
            else if (key == "tid")
                idField(m_tid, ev.tid, ev.hasTid);
            else if (key == "cat")
                str(m_cat, ev.cat);
            else if (key == "dur")
                time(ev.dur, ev.hasDur);
            else
                matched = false;
            break;
        case 4:
            if (key == "name")
                str(m_name, ev.name);
            else if (key == "args") {
                const char *b = s.p;
                if (c == '{')
                    readArgs(s, ev);
                else
                    s.skipValue();
                if (c == '{' || c == '[')
                    ev.args = std::string_view(b, static_cast<size_t>(s.p - b));
            } else
                matched = false;
            break;
        default: matched = false;
        }
        if (!matched)
            s.skipValue();
        const char sep = s.peek();
        ++s.p;
        if (sep == '}')
            return;
        if (sep != ',')
            throw json::SyntaxError{s.p - 1, "expected ',' or '}' in a trace event"};
    }
}

inline void EventReader::readArgs(json::Scanner &s, RawEvent &ev)
{
    // Of the args object kept (the last one), the first "Sequence number",
    // as argInt reads it from the stored text: a string's raw content, so one
    // with escapes is none.
    ev.keys.sequence = kNoValue;
    bool sequenceSeen = false;
    ++s.p;
    if (s.peek() == '}') {
        ++s.p;
        return;
    }
    for (;;) {
        if (s.peek() != '"')
            throw json::SyntaxError{s.p, "expected a string key in args"};
        const std::string_view key = s.string(m_key);
        s.expect(':', "expected ':' after a key");
        const char c = s.peek();
        int64_t *target = nullptr;
        bool isSyncKind = false, isSequence = false;
        switch (key.size()) {
        case 5:
            if (key == "bytes")
                target = &ev.keys.bytes;
            break;
        case 6:
            if (key == "device")
                target = &ev.keys.device;
            else if (key == "stream")
                target = &ev.keys.stream;
            break;
        case 11:
            if (key == "correlation")
                target = &ev.keys.correlation;
            else if (key == "External id" || key == "external id")
                target = &ev.keys.externalId;
            break;
        case 14: isSyncKind = key == "cuda_sync_kind"; break;
        case 15:
            // A key with escapes is not this key to argInt, which compares raw text.
            isSequence = key == "Sequence number" && key.data() != m_key.data() && !sequenceSeen;
            break;
        }
        if (isSequence) {
            sequenceSeen = true;
            std::string_view raw;
            if (c == '-' || json::Scanner::isDigit(c)) {
                raw = s.number();
            } else if (c == '"') {
                raw = s.string(m_val);
                if (raw.data() == m_val.data()) // decoded: it had escapes
                    raw = {};
            } else {
                s.skipValue();
            }
            ev.keys.sequence = argIntText(raw).value_or(kNoValue);
        } else if (target && (c == '-' || json::Scanner::isDigit(c))) {
            int64_t v;
            if (json::parseInt64(s.number(), v))
                *target = v;
        } else if (target && c == '"') {
            int64_t v;
            if (json::parseInt64(s.string(m_val), v))
                *target = v;
        } else if (isSyncKind && c == '"') {
            ev.syncKind = s.string(m_sync);
        } else {
            s.skipValue();
        }
        const char sep = s.peek();
        ++s.p;
        if (sep == '}')
            return;
        if (sep != ',')
            throw json::SyntaxError{s.p - 1, "expected ',' or '}' in args"};
    }
}

} // namespace syncscope
