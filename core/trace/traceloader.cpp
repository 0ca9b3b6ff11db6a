#include "trace/traceloader.h"

#include "common/error.h"
#include "trace/inputstream.h"
#include "trace/jsonscanner.h"
#include "trace/tracebuilder.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>

namespace syncscope {

namespace {

using json::NeedMore;
using json::Scanner;
using json::SyntaxError;

constexpr size_t kChunk = 4u << 20;
constexpr uint64_t kCheckEvery = 4096;

// Sub-scanners read a value the main scanner has already skipped whole, so they
// never reach the end of their range. If one did, its NeedMore would make the
// loader refill and run the step again, adding the event's values twice: the
// invariant is checked in every build, not only with assertions on.
template <typename Fn> void withinCompleteValue(const char *what, Fn &&fn)
{
    try {
        fn();
    } catch (const NeedMore &) {
        throw Error(std::string("internal error: reading the args of a ") + what +
                    " event ran past their end; please report this trace.");
    }
}

// One event as written, before it is committed to the builder. Views point into
// the read buffer or into the loader's scratch strings; both live for one step.
struct RawEvent {
    char ph = 0;
    bool hasPh = false, hasTs = false, hasDur = false, hasId = false;
    bool hasPid = false, hasTid = false;
    TimeNs ts = 0, dur = 0;
    std::string_view name, cat, pid, tid, id, bp, scope, args;
    bool idIsNumber = false;
    const char *wrongType = nullptr; // the first field with a wrong type
    const char *outOfRange = nullptr; // the first time field beyond int64 ns
    EventKeys keys;
    std::string_view syncKind;
};

std::string describeByte(const char *at, const char *end)
{
    if (at >= end)
        return "the end of the data";
    const unsigned char c = static_cast<unsigned char>(*at);
    char buf[32];
    if (c >= 0x20 && c < 0x7f)
        std::snprintf(buf, sizeof buf, "'%c'", c);
    else
        std::snprintf(buf, sizeof buf, "byte 0x%02x", c);
    return buf;
}

class Loader {
public:
    Loader(InputStream &in, std::string name, const ProgressFn &progress,
           const CancelToken *cancel)
        : m_in(in), m_name(std::move(name)), m_progress(progress), m_cancel(cancel)
    {
        TraceInfo info;
        info.path = m_name;
        info.format = in.isGzip() ? "json.gz" : "json";
        info.fileBytes = in.sourceBytes();
        m_builder.reset(new TraceBuilder(std::move(info)));
    }

    TraceModelPtr run();
    // The sentence for running out of memory: what was being done, what the
    // model held and about how much the whole load needs.
    std::string outOfMemory() const;

private:
    enum class State { Top, ObjFirst, ObjKey, ObjSep, ArrFirst, ArrElem, ArrSep, AfterArray,
                       AfterTop, Done };

    void refill();
    void step();
    void parseEvent(Scanner &s, RawEvent &ev);
    void scanArgs(Scanner &s, RawEvent &ev);
    void commit(const RawEvent &ev, uint64_t offset);
    void topLevelValue(std::string_view key, Scanner &s);
    void metadata(const RawEvent &ev, IdValue pid);
    void counters(const RawEvent &ev, IdValue pid, uint64_t offset);
    uint32_t trackFor(const RawEvent &ev, IdValue &pidOut);
    void eventWarning(uint64_t offset, const RawEvent &ev, const std::string &what);
    [[noreturn]] void syntaxError(const SyntaxError &e);
    void handleEnd();
    void reportProgress(bool force);

    InputStream &m_in;
    std::string m_name;
    const ProgressFn &m_progress;
    const CancelToken *m_cancel;
    std::unique_ptr<TraceBuilder> m_builder;

    std::vector<char> m_buf;
    size_t m_len = 0;       // valid bytes in m_buf
    size_t m_pos = 0;       // committed parse position
    uint64_t m_base = 0;    // absolute offset of m_buf[0]
    bool m_eof = false;
    State m_state = State::Top;
    bool m_topIsArray = false;
    bool m_sawTraceEvents = false;
    uint64_t m_elements = 0;
    std::chrono::steady_clock::time_point m_lastProgress;
    bool m_unknownSeen[128] = {};

    std::string m_sName, m_sCat, m_sPid, m_sTid, m_sId, m_sKey, m_sVal, m_sBp, m_sScope, m_sPh, m_sSync;
    // The previous event's pid/tid text and track: consecutive events share them.
    std::string m_lastPid, m_lastTid;
    IdValue m_lastPidValue;
    uint32_t m_lastTrack = UINT32_MAX;
};

void Loader::refill()
{
    if (m_pos > 0) {
        std::memmove(m_buf.data(), m_buf.data() + m_pos, m_len - m_pos);
        m_base += m_pos;
        m_len -= m_pos;
        m_pos = 0;
    }
    // An element bigger than half the buffer: grow rather than read a sliver.
    size_t cap = m_buf.empty() ? kChunk : m_buf.size() - 1;
    if (m_len > cap / 2)
        cap *= 2;
    m_buf.resize(cap + 1);
    while (m_len < cap) {
        const size_t got = m_in.read(m_buf.data() + m_len, cap - m_len);
        if (got == 0) {
            m_eof = true;
            break;
        }
        m_len += got;
    }
    m_buf[m_len] = '\0';
}

void Loader::syntaxError(const SyntaxError &e)
{
    const uint64_t off = m_base + static_cast<uint64_t>(e.at - m_buf.data());
    const char *end = m_buf.data() + m_len;
    throw Error(m_name + ": not valid JSON at byte " + std::to_string(off) +
                (m_in.isGzip() ? " of the decompressed data" : "") + ": " + e.what +
                " (found " + describeByte(e.at, end) + ").");
}

TraceModelPtr Loader::run()
{
    m_lastProgress = std::chrono::steady_clock::now();
    refill();
    if (m_len >= 3 && std::memcmp(m_buf.data(), "\xEF\xBB\xBF", 3) == 0)
        m_pos = 3; // a UTF-8 byte order mark is harmless
    while (m_state != State::Done) {
        try {
            step();
        } catch (const NeedMore &) {
            if (m_eof) {
                handleEnd();
                break;
            }
            refill();
        } catch (const SyntaxError &e) {
            syntaxError(e);
        }
    }
    TraceInfo &info = m_builder->info();
    info.jsonBytes = m_base + m_len;
    if (!m_in.gzipProblem().empty() && !info.truncated)
        m_builder->warn(m_in.gzipProblem() + "; the data after it was ignored");
    if (m_topIsArray == false && !m_sawTraceEvents && m_state == State::Done)
        m_builder->warn("the JSON object has no \"traceEvents\" array");
    if (m_progress)
        m_progress(0.95, "sorting events");
    // The read buffer is done with; sorting needs the memory.
    std::vector<char>().swap(m_buf);
    m_len = m_pos = 0;
    const ProgressFn &outer = m_progress;
    ProgressFn inner;
    if (outer)
        inner = [&outer](double f, const char *msg) { outer(0.95 + 0.05 * f, msg); };
    return m_builder->finish(inner, m_cancel);
}

void Loader::handleEnd()
{
    TraceInfo &info = m_builder->info();
    const uint64_t off = m_base + m_pos;
    switch (m_state) {
    case State::Top:
        if (!m_in.gzipProblem().empty())
            throw Error(m_name + ": " + m_in.gzipProblem() + " before any JSON.");
        throw Error(m_name + (m_base + m_len == 0 ? ": the file is empty."
                                                  : ": the file holds no JSON value."));
    case State::AfterTop:
        break;
    default: {
        info.truncated = true;
        std::string why = m_in.gzipProblem().empty() ? "the file is truncated"
                                                     : m_in.gzipProblem();
        m_builder->warn(why + " at byte " + std::to_string(off) +
                        (m_in.isGzip() ? " of the decompressed data" : "") + "; the " +
                        std::to_string(m_elements) + " complete events before it were kept");
        break;
    }
    }
    m_state = State::Done;
}

void Loader::reportProgress(bool force)
{
    if (m_cancel && m_cancel->cancelled())
        throw Cancelled();
    if (!m_progress)
        return;
    const auto now = std::chrono::steady_clock::now();
    if (!force && now - m_lastProgress < std::chrono::milliseconds(50))
        return;
    m_lastProgress = now;
    const double total = double(std::max<uint64_t>(1, m_in.sourceBytes()));
    m_progress(std::min(0.95, 0.95 * double(m_in.sourcePos()) / total), "reading events");
}

void Loader::step()
{
    Scanner s(m_buf.data() + m_pos, m_buf.data() + m_len);
    switch (m_state) {
    case State::Top: {
        const char c = s.peek();
        if (c == '[') {
            m_topIsArray = true;
            m_state = State::ArrFirst;
        } else if (c == '{') {
            m_state = State::ObjFirst;
        } else {
            throw Error(m_name + ": not a Chrome trace: expected '{' or '[' at byte " +
                        std::to_string(m_base + (s.p - m_buf.data())) + ", found " +
                        describeByte(s.p, m_buf.data() + m_len) + ".");
        }
        ++s.p;
        break;
    }
    case State::ObjFirst:
        if (s.peek() == '}') {
            ++s.p;
            m_state = State::AfterTop;
        } else {
            m_state = State::ObjKey;
        }
        break;
    case State::ObjKey: {
        if (s.peek() != '"')
            throw SyntaxError{s.p, "expected a string key in the top-level object"};
        const std::string_view key = s.string(m_sKey);
        s.expect(':', "expected ':' after a key");
        s.peek();
        if (key == "traceEvents" && !m_sawTraceEvents) {
            if (*s.p != '[')
                throw Error(m_name + ": \"traceEvents\" is not an array (byte " +
                            std::to_string(m_base + (s.p - m_buf.data())) + ").");
            ++s.p;
            m_sawTraceEvents = true;
            m_state = State::ArrFirst;
        } else {
            const bool second = key == "traceEvents";
            const uint64_t at = m_base + static_cast<uint64_t>(s.p - m_buf.data());
            // key may live in m_sKey, which topLevelValue does not touch.
            topLevelValue(key, s);
            if (second) // warned once the whole value was skipped
                m_builder->warn("a second \"traceEvents\" key at byte " + std::to_string(at) +
                                " was ignored; only the first array was read");
            m_state = State::ObjSep;
        }
        break;
    }
    case State::ObjSep: {
        const char c = s.peek();
        ++s.p;
        if (c == ',')
            m_state = State::ObjKey;
        else if (c == '}')
            m_state = State::AfterTop;
        else
            throw SyntaxError{s.p - 1, "expected ',' or '}' in the top-level object"};
        break;
    }
    case State::ArrFirst:
        if (s.peek() == ']') {
            ++s.p;
            m_state = State::AfterArray;
        } else {
            m_state = State::ArrElem;
        }
        break;
    case State::ArrElem: {
        const char c = s.peek();
        const uint64_t offset = m_base + static_cast<uint64_t>(s.p - m_buf.data());
        if (c == ']') {
            // Tolerate the trailing comma some writers leave before ']'.
            ++s.p;
            m_state = State::AfterArray;
            break;
        }
        if (c == '{') {
            RawEvent ev;
            parseEvent(s, ev);
            commit(ev, offset);
        } else {
            s.skipValue();
            m_builder->warn("the trace event at byte " + std::to_string(offset) +
                            " is not an object; it was skipped");
            ++m_builder->counts().skipped;
        }
        ++m_elements;
        if (m_elements % kCheckEvery == 0)
            reportProgress(false);
        m_state = State::ArrSep;
        break;
    }
    case State::ArrSep: {
        const char c = s.peek();
        ++s.p;
        if (c == ',') {
            m_state = State::ArrElem;
        } else if (c == ']') {
            m_state = State::AfterArray;
        } else {
            throw SyntaxError{s.p - 1, "expected ',' or ']' after a trace event"};
        }
        break;
    }
    case State::AfterArray:
        m_state = m_topIsArray ? State::AfterTop : State::ObjSep;
        break;
    case State::AfterTop: {
        // Trailing whitespace is fine; at the end of the data peek() ends the load.
        const char c = s.peek();
        (void)c;
        m_builder->warn("data after the end of the JSON at byte " +
                        std::to_string(m_base + (s.p - m_buf.data())) + " was ignored");
        m_state = State::Done;
        break;
    }
    case State::Done:
        break;
    }
    m_pos = static_cast<size_t>(s.p - m_buf.data());
}

void Loader::topLevelValue(std::string_view key, Scanner &s)
{
    const char *begin = s.p;
    s.skipValue();
    const std::string_view raw(begin, static_cast<size_t>(s.p - begin));
    TraceInfo &info = m_builder->info();
    int64_t n;
    if (key == "deviceProperties") {
        info.devicePropertiesJson.assign(raw);
    } else if (key == "distributedInfo") {
        info.distributedInfoJson.assign(raw);
        if (*begin == '{') {
            Scanner d(begin + 1, s.p);
            if (d.peek() != '}') {
                for (;;) {
                    const std::string_view k = d.string(m_sVal);
                    const bool isRank = k == "rank", isWorld = k == "world_size";
                    d.expect(':', "expected ':' after a key");
                    const char c = d.peek();
                    if ((isRank || isWorld) && (c == '-' || Scanner::isDigit(c))) {
                        if (json::parseInt64(d.number(), n))
                            (isRank ? info.rank : info.worldSize) = n;
                    } else {
                        d.skipValue();
                    }
                    if (d.peek() != ',')
                        break;
                    ++d.p;
                    d.peek();
                }
            }
        }
    } else if (key == "baseTimeNanoseconds" || key == "schemaVersion") {
        if ((*begin == '-' || Scanner::isDigit(*begin)) && json::parseInt64(raw, n))
            (key == "schemaVersion" ? info.schemaVersion : info.baseTimeNanoseconds) = n;
    } else if (key == "displayTimeUnit") {
        if (*begin == '"') {
            Scanner d(begin, s.p);
            info.displayTimeUnit.assign(d.string(m_sVal));
        }
    }
}

void Loader::parseEvent(Scanner &s, RawEvent &ev)
{
    ++s.p; // '{'
    if (s.peek() == '}') {
        ++s.p;
        return;
    }
    for (;;) {
        if (s.peek() != '"')
            throw SyntaxError{s.p, "expected a string key in a trace event"};
        const std::string_view key = s.string(m_sKey);
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
                text = s.string(m_sVal);
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
                str(m_sPh, ph);
                if (!ph.empty()) {
                    ev.ph = ph[0];
                    ev.hasPh = true;
                }
            } else if (key == "ts") {
                time(ev.ts, ev.hasTs);
            } else if (key == "id") {
                bool has = false;
                idField(m_sId, ev.id, has);
                ev.hasId = has;
                ev.idIsNumber = has && c != '"';
            } else if (key == "bp") {
                str(m_sBp, ev.bp);
            } else {
                matched = false;
            }
            break;
        case 1:
            if (key == "s")
                str(m_sScope, ev.scope);
            else
                matched = false;
            break;
        case 3:
            if (key == "pid")
                idField(m_sPid, ev.pid, ev.hasPid);
            else if (key == "tid")
                idField(m_sTid, ev.tid, ev.hasTid);
            else if (key == "cat")
                str(m_sCat, ev.cat);
            else if (key == "dur")
                time(ev.dur, ev.hasDur);
            else
                matched = false;
            break;
        case 4:
            if (key == "name")
                str(m_sName, ev.name);
            else if (key == "args") {
                const char *b = s.p;
                if (c == '{')
                    scanArgs(s, ev);
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
            return;
        if (sep != ',')
            throw SyntaxError{s.p - 1, "expected ',' or '}' in a trace event"};
    }
}

void Loader::scanArgs(Scanner &s, RawEvent &ev)
{
    ++s.p;
    if (s.peek() == '}') {
        ++s.p;
        return;
    }
    for (;;) {
        if (s.peek() != '"')
            throw SyntaxError{s.p, "expected a string key in args"};
        const std::string_view key = s.string(m_sKey);
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
            if (json::parseInt64(s.string(m_sVal), v))
                *target = v;
        } else if (isSyncKind && c == '"') {
            ev.syncKind = s.string(m_sSync);
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

void Loader::eventWarning(uint64_t offset, const RawEvent &ev, const std::string &what)
{
    std::string text = "the event at byte " + std::to_string(offset);
    if (!ev.name.empty())
        text += " ('" + std::string(ev.name.substr(0, 60)) + "')";
    m_builder->warn(text + " " + what);
}

uint32_t Loader::trackFor(const RawEvent &ev, IdValue &pidOut)
{
    if (m_lastTrack != UINT32_MAX && ev.pid == m_lastPid && ev.tid == m_lastTid) {
        pidOut = m_lastPidValue;
        return m_lastTrack;
    }
    TraceBuilder &b = *m_builder;
    const IdValue pid = b.id(ev.pid);
    const IdValue tid = b.id(ev.tid);
    m_lastPid.assign(ev.pid);
    m_lastTid.assign(ev.tid);
    m_lastPidValue = pid;
    m_lastTrack = b.track(pid, tid);
    pidOut = pid;
    return m_lastTrack;
}

void Loader::commit(const RawEvent &ev, uint64_t offset)
{
    TraceBuilder &b = *m_builder;
    if (ev.wrongType) {
        eventWarning(offset, ev, "has a field of the wrong type; it was skipped");
        ++b.counts().skipped;
        return;
    }
    if (ev.outOfRange) {
        eventWarning(offset, ev, "has a \"" + std::string(ev.outOfRange) +
                                     "\" out of range (beyond +-9.2e18 ns); it was skipped");
        ++b.counts().skipped;
        return;
    }
    if (!ev.hasPh) {
        eventWarning(offset, ev, "has no \"ph\"; it was skipped");
        ++b.counts().skipped;
        return;
    }
    const char ph = ev.ph;
    const bool needsTs = ph != 'M';
    if (needsTs && !ev.hasTs) {
        eventWarning(offset, ev, "has no \"ts\"; it was skipped");
        ++b.counts().skipped;
        return;
    }
    IdValue pid;
    switch (ph) {
    case 'X': {
        TimeNs dur = ev.dur;
        if (!ev.hasDur) {
            eventWarning(offset, ev, "is a complete event without \"dur\"; it was kept with dur 0");
            dur = 0;
        } else if (dur < 0) {
            eventWarning(offset, ev, "has a negative \"dur\"; it was skipped");
            ++b.counts().skipped;
            return;
        } else if (ev.ts > std::numeric_limits<TimeNs>::max() - dur) {
            eventWarning(offset, ev, "ends past the largest time (ts + dur overflows); it was skipped");
            ++b.counts().skipped;
            return;
        }
        const uint32_t t = trackFor(ev, pid);
        EventKeys keys = ev.keys;
        if (!ev.syncKind.empty())
            keys.syncKind = b.intern(ev.syncKind);
        // The legacy autograd profiler (LibTorch without Kineto) writes its ops
        // without a category, under the pid "CPU Functions": they are CPU ops.
        const std::string_view cat =
            ev.cat.empty() && ev.pid == "CPU Functions" ? std::string_view("cpu_op") : ev.cat;
        b.addComplete(t, ev.ts, dur, b.intern(ev.name), b.internCategory(cat), b.storeArgs(ev.args), keys);
        return;
    }
    case 'B': {
        const uint32_t t = trackFor(ev, pid);
        EventKeys keys = ev.keys;
        if (!ev.syncKind.empty())
            keys.syncKind = b.intern(ev.syncKind);
        b.addBegin(t, ev.ts, b.intern(ev.name), b.internCategory(ev.cat), b.storeArgs(ev.args),
                   keys);
        return;
    }
    case 'E':
        b.addEnd(trackFor(ev, pid), ev.ts);
        return;
    case 'i':
    case 'I': {
        const uint32_t t = trackFor(ev, pid);
        const char scope = ev.scope.empty() ? 't' : ev.scope[0];
        b.addInstant(t, ev.ts, b.intern(ev.name), b.internCategory(ev.cat), scope,
                     b.storeArgs(ev.args));
        return;
    }
    case 'C':
        withinCompleteValue("counter", [&] { counters(ev, b.id(ev.pid), offset); });
        return;
    case 'M':
        withinCompleteValue("metadata", [&] { metadata(ev, b.id(ev.pid)); });
        return;
    case 's':
    case 't':
    case 'f': {
        if (!ev.hasId) {
            eventWarning(offset, ev, "is a flow event without \"id\"; it was skipped");
            ++b.counts().skipped;
            return;
        }
        FlowEvent f;
        f.phase = ph == 's' ? FlowPhase::Start : ph == 't' ? FlowPhase::Step : FlowPhase::End;
        f.bindEnclosing = ev.bp == "e";
        f.track = trackFor(ev, pid);
        f.ts = ev.ts;
        f.name = b.intern(ev.name);
        f.cat = b.internCategory(ev.cat);
        int64_t n;
        if (ev.idIsNumber && json::parseInt64(ev.id, n))
            f.id = n;
        else
            f.idText = b.intern(ev.id);
        b.addFlow(f);
        return;
    }
    default: {
        ++b.counts().unknownPhase;
        const unsigned char u = static_cast<unsigned char>(ph);
        if (u < 128 && !m_unknownSeen[u]) {
            m_unknownSeen[u] = true;
            eventWarning(offset, ev, "has phase '" + std::string(1, ph) +
                                         "', which is not supported; such events are counted "
                                         "and skipped");
        }
        return;
    }
    }
}

void Loader::counters(const RawEvent &ev, IdValue pid, uint64_t offset)
{
    TraceBuilder &b = *m_builder;
    b.countCounterEvent();
    if (ev.args.empty() || ev.args[0] != '{')
        return;
    const StrId name = b.intern(ev.name);
    Scanner d(ev.args.data() + 1, ev.args.data() + ev.args.size());
    if (d.peek() == '}')
        return;
    for (;;) {
        const std::string_view k = d.string(m_sKey);
        d.expect(':', "expected ':' after a key");
        const char c = d.peek();
        double v;
        if (c == '-' || Scanner::isDigit(c)) {
            if (json::parseDouble(d.number(), v))
                b.addCounterValue(pid, name, b.intern(k), ev.ts, v);
        } else if (c == '"') {
            const StrId key = b.intern(k);
            if (json::parseDouble(d.string(m_sVal), v))
                b.addCounterValue(pid, name, key, ev.ts, v);
            else
                eventWarning(offset, ev, "has a counter value that is not a number; it was skipped");
        } else {
            d.skipValue();
            eventWarning(offset, ev, "has a counter value that is not a number; it was skipped");
        }
        if (d.peek() != ',')
            break;
        ++d.p;
        d.peek();
    }
}

void Loader::metadata(const RawEvent &ev, IdValue pid)
{
    TraceBuilder &b = *m_builder;
    ++b.counts().metadata;
    if (ev.args.empty() || ev.args[0] != '{')
        return;
    std::string_view nameValue;
    int64_t sortIndex = kNoValue;
    Scanner d(ev.args.data() + 1, ev.args.data() + ev.args.size());
    if (d.peek() != '}') {
        for (;;) {
            const std::string_view k = d.string(m_sKey);
            const bool isName = k == "name" || k == "labels";
            const bool isSort = k == "sort_index";
            d.expect(':', "expected ':' after a key");
            const char c = d.peek();
            if (isName && c == '"')
                nameValue = d.string(m_sVal);
            else if (isSort && (c == '-' || Scanner::isDigit(c)))
                json::parseInt64(d.number(), sortIndex);
            else
                d.skipValue();
            if (d.peek() != ',')
                break;
            ++d.p;
            d.peek();
        }
    }
    const std::string_view what = ev.name;
    if (what == "process_name")
        b.setProcessName(pid, b.intern(nameValue));
    else if (what == "process_labels")
        b.setProcessLabels(pid, b.intern(nameValue));
    else if (what == "thread_name")
        b.setThreadName(trackFor(ev, pid), b.intern(nameValue));
    else if (what == "process_sort_index" && sortIndex != kNoValue)
        b.setProcessSortIndex(pid, sortIndex);
    else if (what == "thread_sort_index" && sortIndex != kNoValue)
        b.setThreadSortIndex(trackFor(ev, pid), sortIndex);
}

std::string mib(uint64_t bytes)
{
    char buf[32];
    if (bytes >= (uint64_t(10) << 30))
        std::snprintf(buf, sizeof buf, "%.0f GiB", double(bytes) / double(1u << 30));
    else if (bytes >= (uint64_t(1) << 30))
        std::snprintf(buf, sizeof buf, "%.1f GiB", double(bytes) / double(1u << 30));
    else
        std::snprintf(buf, sizeof buf, "%.0f MiB", std::ceil(double(bytes) / double(1u << 20)));
    return buf;
}

std::string Loader::outOfMemory() const
{
    if (!m_builder)
        return m_name + ": ran out of memory while opening the trace.";
    const TraceBuilder &b = *m_builder;
    const uint64_t held = b.memoryBytes();
    const uint64_t events = b.eventCount();
    // The sort needs a 4-byte order and one 8-byte column per event on top.
    constexpr uint64_t kSortBytesPerEvent = 12;
    std::string what;
    uint64_t need = 0;
    const bool reading = std::strcmp(b.phase(), "reading events") == 0;
    if (reading) {
        const double total = double(std::max<uint64_t>(1, m_in.sourceBytes()));
        const double f = std::min(1.0, std::max(1e-3, double(m_in.sourcePos()) / total));
        char pct[16];
        std::snprintf(pct, sizeof pct, "%.0f%%", 100.0 * f);
        what = "reading events (" + std::string(pct) + " of the file, " + std::to_string(events) +
               " events on " + std::to_string(b.trackCount()) + " tracks so far)";
        need = static_cast<uint64_t>(double(held + kSortBytesPerEvent * events) / f);
    } else {
        what = std::string(b.phase()) + " (" + std::to_string(events) + " events on " +
               std::to_string(b.trackCount()) + " tracks)";
        need = held + kSortBytesPerEvent * events;
    }
    return m_name + ": ran out of memory while " + what + ": the trace model held " + mib(held) +
           " and loading the whole trace needs about " + mib(need) +
           "; free memory, raise the limit (ulimit -v) or load a smaller trace.";
}

TraceModelPtr loadFrom(InputStream &in, const std::string &name, const ProgressFn &progress,
                       const CancelToken *cancel)
{
    Loader loader(in, name, progress, cancel);
    try {
        return loader.run();
    } catch (const std::bad_alloc &) {
        std::string text;
        try {
            text = loader.outOfMemory();
        } catch (const std::bad_alloc &) {
            text = name + ": ran out of memory while loading the trace.";
        }
        throw Error(text);
    }
}

} // namespace

TraceModelPtr loadTrace(const std::string &path, const ProgressFn &progress,
                        const CancelToken *cancel)
{
    auto in = InputStream::openFile(path);
    return loadFrom(*in, path, progress, cancel);
}

TraceModelPtr loadTraceFromMemory(std::string_view bytes, const std::string &name,
                                  const ProgressFn &progress, const CancelToken *cancel)
{
    auto in = InputStream::fromMemory(bytes);
    return loadFrom(*in, name, progress, cancel);
}

} // namespace syncscope
