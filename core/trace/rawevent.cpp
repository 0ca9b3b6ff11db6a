#include "trace/rawevent.h"

namespace syncscope {

using json::Scanner;
using json::SyntaxError;

RawEvent EventReader::read(Scanner &s)
{
    RawEvent ev;
    ++s.p; // '{'
    if (s.peek() == '}') {
        ++s.p;
        return ev;
    }
    for (;;) {
        if (s.peek() != '"')
            throw SyntaxError{s.p, "expected a string key in a trace event"};
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
            if (c == '"')
                text = s.string(m_val);
            else if (c == '-' || Scanner::isDigit(c))
                text = s.number();
            else {
                s.skipValue();
                if (!ev.wrongType)
                    ev.wrongType = field;
                return;
            }
            switch (json::parseMicros(text, out)) {
            case json::NumberStatus::Ok:
                has = true;
                break;
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
            } else if (c == '-' || Scanner::isDigit(c)) {
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
        default:
            matched = false;
        }
        if (!matched)
            s.skipValue();
        const char sep = s.peek();
        ++s.p;
        if (sep == '}')
            return ev;
        if (sep != ',')
            throw SyntaxError{s.p - 1, "expected ',' or '}' in a trace event"};
    }
}

void EventReader::readArgs(Scanner &s, RawEvent &ev)
{
    ++s.p;
    if (s.peek() == '}') {
        ++s.p;
        return;
    }
    for (;;) {
        if (s.peek() != '"')
            throw SyntaxError{s.p, "expected a string key in args"};
        const std::string_view key = s.string(m_key);
        s.expect(':', "expected ':' after a key");
        const char c = s.peek();
        int64_t *target = nullptr;
        bool isSyncKind = false;
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
        case 14:
            isSyncKind = key == "cuda_sync_kind";
            break;
        }
        if (target && (c == '-' || Scanner::isDigit(c))) {
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
            throw SyntaxError{s.p - 1, "expected ',' or '}' in args"};
    }
}

} // namespace syncscope
