// The loader in layers: the scanner (jsonscanner.h) reads JSON tokens; the framing
// here reads the input in chunks and walks the top level (the object or array,
// its keys, the traceEvents array, the end of the data); EventReader (rawevent.h)
// takes the fields of one event object; EventCommitter (eventcommit.h) says what
// the event means for the model, and TraceBuilder (tracebuilder.h) builds it.
#include "trace/traceloader.h"

#include "common/error.h"
#include "trace/eventcommit.h"
#include "trace/inputstream.h"
#include "trace/jsonscanner.h"
#include "trace/rawevent.h"
#include "trace/tracebuilder.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

namespace syncscope {

namespace {

using json::NeedMore;
using json::Scanner;
using json::SyntaxError;

constexpr uint64_t kCheckEvery = 4096;

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

// The JSON read so far that is not yet parsed, in one buffer ending in a '\0'
// sentinel (the scanner stops there). A step that runs into the end of the data
// throws NeedMore: refill() then drops the parsed bytes, reads the next chunk and
// the step runs again from where it began.
class ReadBuffer {
public:
    ReadBuffer(InputStream &in, size_t chunk) : m_in(in), m_chunk(std::max<size_t>(1, chunk)) {}

    void refill();
    // Before the first step: skips a UTF-8 byte order mark, which is harmless.
    void skipByteOrderMark();
    const char *pos() const { return m_buf.data() + m_pos; }
    const char *end() const { return m_buf.data() + m_len; }
    // Offset in the JSON of a position in the buffer.
    uint64_t offset(const char *p) const { return m_base + static_cast<uint64_t>(p - m_buf.data()); }
    // The bytes up to p are parsed: the next step starts there.
    void consume(const char *p) { m_pos = static_cast<size_t>(p - m_buf.data()); }
    bool eof() const { return m_eof; }
    // Bytes of JSON read from the input so far.
    uint64_t bytesRead() const { return m_base + m_len; }
    // Frees the buffer (the sort needs the memory).
    void release()
    {
        std::vector<char>().swap(m_buf);
        m_base += m_len;
        m_len = m_pos = 0;
    }

private:
    InputStream &m_in;
    const size_t m_chunk;
    std::vector<char> m_buf;
    size_t m_len = 0;    // valid bytes in m_buf
    size_t m_pos = 0;    // parse position: bytes before it are done with
    uint64_t m_base = 0; // offset in the JSON of m_buf[0]
    bool m_eof = false;
};

void ReadBuffer::refill()
{
    if (m_pos > 0) {
        std::memmove(m_buf.data(), m_buf.data() + m_pos, m_len - m_pos);
        m_base += m_pos;
        m_len -= m_pos;
        m_pos = 0;
    }
    // An element bigger than half the buffer: grow rather than read a sliver.
    size_t cap = m_buf.empty() ? m_chunk : m_buf.size() - 1;
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

void ReadBuffer::skipByteOrderMark()
{
    // Nothing is parsed yet, so m_buf starts the data; a chunk shorter than the
    // mark reads on until the mark is there or the data ends.
    while (m_len < 3 && !m_eof)
        refill();
    if (m_len >= 3 && std::memcmp(m_buf.data(), "\xEF\xBB\xBF", 3) == 0)
        m_pos = 3;
}

TraceInfo infoOf(const InputStream &in, const std::string &name)
{
    TraceInfo info;
    info.path = name;
    info.format = in.isGzip() ? "json.gz" : "json";
    info.fileBytes = in.sourceBytes();
    return info;
}

// The framing: a state machine over the top level that hands each element of the
// traceEvents array to the event layers and reads the other top-level keys.
class Loader {
public:
    Loader(InputStream &in, std::string name, const ProgressFn &progress,
           const CancelToken *cancel, const LoadOptions &options)
        : m_in(in), m_name(std::move(name)), m_progress(progress), m_cancel(cancel),
          m_builder(new TraceBuilder(infoOf(in, m_name))), m_commit(*m_builder),
          m_data(in, options.chunkBytes)
    {
        // The event columns sized once from the file instead of grown by
        // doubling: no copies, and the spare capacity's pages are never
        // touched. A Kineto event takes 150 bytes of JSON or more; a gzip file
        // is counted at 4 times its size, so the guess errs low.
        const uint64_t json = in.isGzip() ? 4 * in.sourceBytes() : in.sourceBytes();
        m_builder->reserveEvents(json / 150);
    }

    TraceModelPtr run();
    // The sentence for running out of memory: what was being done, what the
    // model held and about how much the whole load needs.
    std::string outOfMemory() const;

private:
    enum class State { Top, ObjFirst, ObjKey, ObjSep, ArrFirst, ArrElem, ArrSep, AfterArray,
                       AfterTop, Done };

    void step();
    void topLevelValue(std::string_view key, Scanner &s);
    [[noreturn]] void syntaxError(const SyntaxError &e);
    void handleEnd();
    void reportProgress(bool force);

    InputStream &m_in;
    std::string m_name;
    const ProgressFn &m_progress;
    const CancelToken *m_cancel;
    std::unique_ptr<TraceBuilder> m_builder;
    EventReader m_reader;
    EventCommitter m_commit;
    ReadBuffer m_data;

    State m_state = State::Top;
    bool m_topIsArray = false;
    bool m_sawTraceEvents = false;
    uint64_t m_elements = 0;
    std::chrono::steady_clock::time_point m_lastProgress;
    std::string m_sKey, m_sVal; // top-level keys and values, read and used at once
};

void Loader::syntaxError(const SyntaxError &e)
{
    const uint64_t off = m_data.offset(e.at);
    const char *end = m_data.end();
    throw Error(m_name + ": not valid JSON at byte " + std::to_string(off) +
                (m_in.isGzip() ? " of the decompressed data" : "") + ": " + e.what +
                " (found " + describeByte(e.at, end) + ").");
}

TraceModelPtr Loader::run()
{
    m_lastProgress = std::chrono::steady_clock::now();
    m_data.refill();
    m_data.skipByteOrderMark();
    while (m_state != State::Done) {
        try {
            step();
        } catch (const NeedMore &) {
            if (m_data.eof()) {
                handleEnd();
                break;
            }
            m_data.refill();
        } catch (const SyntaxError &e) {
            syntaxError(e);
        }
    }
    TraceInfo &info = m_builder->info();
    info.jsonBytes = m_data.bytesRead();
    if (!m_in.gzipProblem().empty() && !info.truncated)
        m_builder->warn(m_in.gzipProblem() + "; the data after it was ignored");
    if (m_topIsArray == false && !m_sawTraceEvents && m_state == State::Done)
        m_builder->warn("the JSON object has no \"traceEvents\" array");
    if (m_progress)
        m_progress(0.95, "sorting events");
    // The read buffer is done with; sorting needs the memory.
    m_data.release();
    const ProgressFn &outer = m_progress;
    ProgressFn inner;
    if (outer)
        inner = [&outer](double f, const char *msg) { outer(0.95 + 0.05 * f, msg); };
    return m_builder->finish(inner, m_cancel);
}

void Loader::handleEnd()
{
    TraceInfo &info = m_builder->info();
    const uint64_t off = m_data.offset(m_data.pos());
    switch (m_state) {
    case State::Top:
        if (!m_in.gzipProblem().empty())
            throw Error(m_name + ": " + m_in.gzipProblem() + " before any JSON.");
        throw Error(m_name + (m_data.bytesRead() == 0 ? ": the file is empty."
                                                  : ": the file holds no JSON value."));
    case State::AfterTop:
        break;
    default: {
        info.truncated = true;
        info.truncatedAtByte = m_data.bytesRead(); // the end of the data, not of the last event kept
        std::string why = m_in.gzipProblem().empty() ? "the file is truncated"
                                                     : m_in.gzipProblem();
        m_builder->warn(why + " at byte " + std::to_string(info.truncatedAtByte) +
                        (m_in.isGzip() ? " of the decompressed data" : "") + "; the " +
                        std::to_string(m_elements) + " complete events before byte " + std::to_string(off) +
                        " were kept");
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
    Scanner s(m_data.pos(), m_data.end());
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
                        std::to_string(m_data.offset(s.p)) + ", found " +
                        describeByte(s.p, m_data.end()) + ".");
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
                            std::to_string(m_data.offset(s.p)) + ").");
            ++s.p;
            m_sawTraceEvents = true;
            m_state = State::ArrFirst;
        } else {
            const bool second = key == "traceEvents";
            const uint64_t at = m_data.offset(s.p);
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
        const uint64_t offset = m_data.offset(s.p);
        if (c == ']') {
            // Tolerate the trailing comma some writers leave before ']'.
            ++s.p;
            m_state = State::AfterArray;
            break;
        }
        if (c == '{') {
            const RawEvent ev = m_reader.read(s);
            m_commit.commit(ev, offset);
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
                        std::to_string(m_data.offset(s.p)) + " was ignored");
        m_state = State::Done;
        break;
    }
    case State::Done:
        break;
    }
    m_data.consume(s.p);
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
    } else if (key == "metadata") {
        info.metadataJson.assign(raw);
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
                       const CancelToken *cancel, const LoadOptions &options)
{
    Loader loader(in, name, progress, cancel, options);
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
                        const CancelToken *cancel, const LoadOptions &options)
{
    auto in = InputStream::openFile(path);
    return loadFrom(*in, path, progress, cancel, options);
}

TraceModelPtr loadTraceFromMemory(std::string_view bytes, const std::string &name,
                                  const ProgressFn &progress, const CancelToken *cancel,
                                  const LoadOptions &options)
{
    auto in = InputStream::fromMemory(bytes);
    return loadFrom(*in, name, progress, cancel, options);
}

} // namespace syncscope
