// The loader in layers: the scanner (jsonscanner.h) reads JSON tokens; the framing
// here reads the input in chunks and walks the top level (the object or array,
// its keys, the traceEvents array, the end of the data); EventReader (rawevent.h)
// takes the fields of one event object; EventCommitter (eventcommit.h) says what
// the event means for the model, and TraceBuilder (tracebuilder.h) builds it.
// The framing and the reader fill batches of events that the committer takes in
// order, on a thread of their own when the file is bigger than a chunk.
#include "trace/traceloader.h"

#include "trace/nsysloader.h"

#include "common/error.h"
#include "trace/eventcommit.h"
#include "trace/inputstream.h"
#include "trace/jsonscanner.h"
#include "trace/mappedfile.h"
#include "trace/rawevent.h"
#include "trace/tracebuilder.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace syncscope {

namespace {

using json::NeedMore;
using json::Scanner;
using json::SyntaxError;

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

// Buffers of JSON, reused. A chunk goes back to its pool when the last batch of
// events that points into it has been committed (or at once, if none does).
class ChunkPool : public std::enable_shared_from_this<ChunkPool> {
public:
    using Chunk = std::vector<char>;

    // A chunk of at least `size` bytes; its contents are left as they were.
    std::shared_ptr<Chunk> take(size_t size)
    {
        std::unique_ptr<Chunk> c;
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            for (auto it = m_free.begin(); it != m_free.end(); ++it) {
                if ((*it)->size() >= size) {
                    c = std::move(*it);
                    m_free.erase(it);
                    break;
                }
            }
        }
        if (!c)
            c = std::make_unique<Chunk>(size);
        std::weak_ptr<ChunkPool> pool = weak_from_this();
        return std::shared_ptr<Chunk>(c.release(), [pool](Chunk *p) {
            if (auto owner = pool.lock())
                owner->give(p);
            else
                delete p;
        });
    }

    // Frees the chunks nobody holds.
    void clear()
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_free.clear();
    }

private:
    static constexpr size_t kKeep = 4;

    void give(Chunk *p)
    {
        std::unique_ptr<Chunk> c(p);
        std::lock_guard<std::mutex> lock(m_mutex);
        if (m_free.size() < kKeep)
            m_free.push_back(std::move(c));
    }

    std::mutex m_mutex;
    std::vector<std::unique_ptr<Chunk>> m_free;
};

// The JSON read so far that is not yet parsed, in one chunk ending in a '\0'
// sentinel (the scanner stops there). A step that runs into the end of the data
// throws NeedMore: refill() then moves the unparsed bytes to the start of a fresh
// chunk, reads the next bytes after them and the step runs again from where it
// began. The chunk before stays valid for whoever still holds it.
//
// A plain file is mapped instead when it can be: the whole file is then the one
// chunk, read to its end from the start, and the pages behind the events
// committed are released as the load goes.
class ReadBuffer {
public:
    ReadBuffer(InputStream &in, size_t chunk, bool map)
        : m_in(in), m_chunk(std::max<size_t>(1, chunk)), m_map(map), m_pool(std::make_shared<ChunkPool>())
    {
    }

    // Before the first step: maps the file or reads the first chunk.
    void start();
    void refill();
    // Before the first step: skips a UTF-8 byte order mark, which is harmless.
    void skipByteOrderMark();
    const char *begin() const { return m_begin; }
    const char *pos() const { return begin() + m_pos; }
    const char *end() const { return begin() + m_len; }
    // The chunk pos() and end() point into (null for a mapped file), and the
    // bytes it spans.
    const std::shared_ptr<ChunkPool::Chunk> &chunk() const { return m_buf; }
    const char *spanEnd() const { return m_begin + m_cap + 1; }
    // How far into the file (its compressed bytes for gzip) the reading is.
    uint64_t sourcePos() const { return m_mapped ? offset(pos()) : m_in.sourcePos(); }
    // The bytes before `offset` are committed; a mapped file releases their
    // pages. The committer's side: it may run beside the steps.
    void releaseBefore(uint64_t offset)
    {
        if (m_mapped)
            m_mapped->releaseBefore(offset);
    }
    // The mapped file shrank while it was read: the data from some point on
    // read as zeros.
    bool shrank() const { return m_mapped && m_mapped->shrank(); }
    // Offset in the JSON of a position in the buffer.
    uint64_t offset(const char *p) const { return m_base + static_cast<uint64_t>(p - begin()); }
    // The bytes up to p are parsed: the next step starts there.
    void consume(const char *p) { m_pos = static_cast<size_t>(p - begin()); }
    bool eof() const { return m_eof; }
    // Bytes of JSON read from the input so far.
    uint64_t bytesRead() const { return m_base + m_len; }
    // Frees the buffers (the sort needs the memory); nobody may hold a chunk.
    void release()
    {
        m_mapped.reset();
        m_begin = nullptr;
        m_buf.reset();
        m_pool->clear();
        m_base += m_len;
        m_len = m_pos = 0;
    }

private:
    InputStream &m_in;
    const size_t m_chunk;
    const bool m_map;
    std::unique_ptr<MappedFile> m_mapped;
    std::shared_ptr<ChunkPool> m_pool;
    std::shared_ptr<ChunkPool::Chunk> m_buf;
    const char *m_begin = nullptr; // m_buf's bytes or the mapped file's
    size_t m_cap = 0;              // bytes of JSON m_buf holds at most (it has one more, for the sentinel)
    size_t m_len = 0;              // valid bytes in m_buf
    size_t m_pos = 0;              // parse position: bytes before it are done with
    uint64_t m_base = 0;           // offset in the JSON of m_buf[0]
    bool m_eof = false;
};

void ReadBuffer::start()
{
    if (m_map)
        m_mapped = m_in.mapWhole();
    if (!m_mapped) {
        refill();
        return;
    }
    m_begin = m_mapped->data();
    m_len = m_cap = m_mapped->size();
    m_eof = true;
}

void ReadBuffer::refill()
{
    const size_t tail = m_len - m_pos;
    // An element bigger than half the buffer: grow rather than read a sliver.
    size_t cap = m_cap == 0 ? m_chunk : m_cap;
    if (tail > cap / 2)
        cap *= 2;
    std::shared_ptr<ChunkPool::Chunk> next = m_pool->take(cap + 1);
    if (tail > 0)
        std::memcpy(next->data(), m_buf->data() + m_pos, tail);
    m_base += m_pos;
    m_len = tail;
    m_pos = 0;
    m_cap = cap;
    m_buf = std::move(next);
    m_begin = m_buf->data();
    while (m_len < cap) {
        const size_t got = m_in.read(m_buf->data() + m_len, cap - m_len);
        if (got == 0) {
            m_eof = true;
            break;
        }
        m_len += got;
    }
    (*m_buf)[m_len] = '\0';
}

void ReadBuffer::skipByteOrderMark()
{
    // Nothing is parsed yet, so the chunk starts the data; a chunk shorter than
    // the mark reads on until the mark is there or the data ends.
    while (m_len < 3 && !m_eof)
        refill();
    if (m_len >= 3 && std::memcmp(begin(), "\xEF\xBB\xBF", 3) == 0)
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

struct ScannedEvent {
    RawEvent ev;
    uint64_t offset = 0; // where it starts in the JSON
};

// What the framing read from one chunk, in order: the events, and the builder
// calls of the framing itself (warnings, top-level values), each to be made
// before the event at its index.
struct Batch {
    std::shared_ptr<ChunkPool::Chunk> chunk; // the events' views point into it (null: into the mapped file)
    const char *lo = nullptr, *hi = nullptr; // the bytes of the chunk or file
    std::vector<ScannedEvent> events;
    std::deque<std::string> strings; // the views the reader unescaped into its scratch
    std::vector<std::pair<size_t, std::function<void(TraceBuilder &)>>> actions;
    uint64_t sourcePos = 0;  // how far into the file the reading was, for progress
    uint64_t doneOffset = 0; // the JSON before it is read: the next batch starts after it

    void clear()
    {
        chunk.reset();
        events.clear();
        strings.clear();
        actions.clear();
    }
    void act(std::function<void(TraceBuilder &)> fn) { actions.emplace_back(events.size(), std::move(fn)); }
    // The events that follow point into the data's current chunk (or file).
    void pointInto(const ReadBuffer &data)
    {
        chunk = data.chunk();
        lo = data.begin();
        hi = data.spanEnd();
    }
    // A view that does not point into the chunk (the reader's scratch) is copied.
    void keep(std::string_view &v)
    {
        if (v.empty() || (v.data() >= lo && v.data() < hi))
            return;
        strings.emplace_back(v);
        v = strings.back();
    }
};

// The keys of the top-level object the model keeps.
bool keptTopLevelKey(std::string_view key)
{
    return key == "deviceProperties" || key == "metadata" || key == "distributedInfo" ||
           key == "baseTimeNanoseconds" || key == "schemaVersion" || key == "displayTimeUnit";
}

// Stores the raw value of a kept top-level key in the trace's info.
void applyTopLevelValue(TraceInfo &info, const std::string &key, std::string raw)
{
    // raw is one whole value; its '\0' terminator stops the scanners.
    const char *begin = raw.data(), *end = raw.data() + raw.size();
    int64_t n;
    std::string scratch;
    if (key == "deviceProperties") {
        info.devicePropertiesJson = std::move(raw);
    } else if (key == "metadata") {
        info.metadataJson = std::move(raw);
    } else if (key == "distributedInfo") {
        if (*begin == '{') {
            Scanner d(begin + 1, end);
            if (d.peek() != '}') {
                for (;;) {
                    const std::string_view k = d.string(scratch);
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
        info.distributedInfoJson = std::move(raw);
    } else if (key == "baseTimeNanoseconds" || key == "schemaVersion") {
        if ((*begin == '-' || Scanner::isDigit(*begin)) && json::parseInt64(raw, n))
            (key == "schemaVersion" ? info.schemaVersion : info.baseTimeNanoseconds) = n;
    } else if (key == "displayTimeUnit") {
        if (*begin == '"') {
            Scanner d(begin, end);
            info.displayTimeUnit.assign(d.string(scratch));
        }
    }
}

// The framing: a state machine over the top level that reads the input in
// chunks, hands each element of the traceEvents array to the EventReader and
// reads the other top-level keys. It fills batches for the committer and never
// touches the builder itself, so it can run on a thread of its own.
class EventFramer {
public:
    EventFramer(InputStream &in, const std::string &name, size_t chunkBytes, bool map)
        : m_in(in), m_name(name), m_data(in, chunkBytes, map)
    {
    }

    // Reads on into b (cleared first): kBatchEvents events, or fewer where the
    // chunk or the data ends. Returns false once the data is done; b then holds
    // the last items. Throws Error (one sentence) on data that is not a trace.
    bool fill(Batch &b);

    // Once fill() returned false:
    bool topIsArray() const { return m_topIsArray; }
    bool sawTraceEvents() const { return m_sawTraceEvents; }
    uint64_t bytesRead() const { return m_data.bytesRead(); }
    void releaseBefore(uint64_t offset) { m_data.releaseBefore(offset); }
    bool shrank() const { return m_data.shrank(); }
    void release() { m_data.release(); }

private:
    static constexpr size_t kBatchEvents = 2048;
    enum class State { Top, ObjFirst, ObjKey, ObjSep, ArrFirst, ArrElem, ArrSep, AfterArray, AfterTop, Done };

    void step(Batch &b);
    [[noreturn]] void syntaxError(const SyntaxError &e);
    void handleEnd(Batch &b);

    InputStream &m_in;
    const std::string &m_name;
    ReadBuffer m_data;
    EventReader m_reader;
    State m_state = State::Top;
    bool m_started = false;
    bool m_topIsArray = false;
    bool m_sawTraceEvents = false;
    std::string m_sKey; // top-level keys, read and used at once
};

bool EventFramer::fill(Batch &b)
{
    b.clear();
    if (!m_started) {
        m_started = true;
        m_data.start();
        m_data.skipByteOrderMark();
    }
    b.pointInto(m_data);
    while (m_state != State::Done && b.events.size() < kBatchEvents) {
        try {
            step(b);
        } catch (const NeedMore &) {
            if (m_data.eof()) {
                handleEnd(b);
                break;
            }
            // The events so far point into this chunk: they go first, and the
            // next fill() runs the step again and refills then.
            if (!b.events.empty())
                break;
            m_data.refill();
            b.pointInto(m_data);
        } catch (const SyntaxError &e) {
            syntaxError(e);
        }
    }
    b.sourcePos = m_data.sourcePos();
    b.doneOffset = m_data.offset(m_data.pos());
    return m_state != State::Done;
}

void EventFramer::syntaxError(const SyntaxError &e)
{
    const uint64_t off = m_data.offset(e.at);
    const char *end = m_data.end();
    throw Error(m_name + ": not valid JSON at byte " + std::to_string(off) +
                (m_in.isGzip() ? " of the decompressed data" : "") + ": " + e.what + " (found " +
                describeByte(e.at, end) + ").");
}

void EventFramer::handleEnd(Batch &b)
{
    const uint64_t off = m_data.offset(m_data.pos());
    switch (m_state) {
    case State::Top:
        if (!m_in.gzipProblem().empty())
            throw Error(m_name + ": " + m_in.gzipProblem() + " before any JSON.");
        throw Error(m_name +
                    (m_data.bytesRead() == 0 ? ": the file is empty." : ": the file holds no JSON value."));
    case State::AfterTop: break;
    default: {
        const uint64_t at = m_data.bytesRead(); // the end of the data, not of the last event kept
        std::string why = m_in.gzipProblem().empty() ? "the file is truncated" : m_in.gzipProblem();
        std::string text = why + " at byte " + std::to_string(at) +
                           (m_in.isGzip() ? " of the decompressed data" : "") +
                           "; the complete events before byte " + std::to_string(off) + " were kept";
        b.act([at, text = std::move(text)](TraceBuilder &builder) {
            TraceInfo &info = builder.info();
            info.truncated = true;
            info.truncatedAtByte = at;
            builder.warn(text);
        });
        break;
    }
    }
    m_state = State::Done;
}

void EventFramer::step(Batch &b)
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
                        std::to_string(m_data.offset(s.p)) + ", found " + describeByte(s.p, m_data.end()) + ".");
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
            const char *begin = s.p;
            s.skipValue(); // key may live in m_sKey, which this does not touch
            if (keptTopLevelKey(key)) {
                b.act([k = std::string(key), raw = std::string(begin, s.p)](TraceBuilder &builder) mutable {
                    applyTopLevelValue(builder.info(), k, std::move(raw));
                });
            }
            if (second) { // warned once the whole value was skipped
                b.act([at](TraceBuilder &builder) {
                    builder.warn("a second \"traceEvents\" key at byte " + std::to_string(at) +
                                 " was ignored; only the first array was read");
                });
            }
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
            // Read in place into a fresh slot; an event cut by the end of the
            // chunk is dropped.
            b.events.emplace_back();
            ScannedEvent &e = b.events.back();
            try {
                m_reader.read(s, e.ev);
            } catch (...) {
                b.events.pop_back();
                throw;
            }
            e.offset = offset;
            for (std::string_view *v :
                 {&e.ev.name, &e.ev.cat, &e.ev.pid, &e.ev.tid, &e.ev.id, &e.ev.bp, &e.ev.scope, &e.ev.syncKind})
                b.keep(*v);
        } else {
            s.skipValue();
            b.act([offset](TraceBuilder &builder) {
                builder.warn("the trace event at byte " + std::to_string(offset) +
                             " is not an object; it was skipped");
                ++builder.counts().skipped;
            });
        }
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
    case State::AfterArray: m_state = m_topIsArray ? State::AfterTop : State::ObjSep; break;
    case State::AfterTop: {
        // Trailing whitespace is fine; at the end of the data peek() ends the load.
        const char c = s.peek();
        (void)c;
        const uint64_t at = m_data.offset(s.p);
        b.act([at](TraceBuilder &builder) {
            builder.warn("data after the end of the JSON at byte " + std::to_string(at) + " was ignored");
        });
        m_state = State::Done;
        break;
    }
    case State::Done: break;
    }
    m_data.consume(s.p);
}

// Batches handed from the framing's thread to the committer, in order, at most
// `depth` of them at once; the committed ones go back to be filled again.
class BatchQueue {
public:
    explicit BatchQueue(size_t depth) : m_depth(depth) {}

    // The framing's side. Null once the committer stopped.
    std::unique_ptr<Batch> emptyBatch()
    {
        std::unique_lock<std::mutex> lock(m_mutex);
        m_cv.wait(lock, [&] { return m_stopped || !m_free.empty() || m_made < m_depth; });
        if (m_stopped)
            return nullptr;
        if (m_free.empty()) {
            ++m_made;
            return std::make_unique<Batch>();
        }
        std::unique_ptr<Batch> b = std::move(m_free.back());
        m_free.pop_back();
        return b;
    }
    void push(std::unique_ptr<Batch> b, bool last)
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_full.push_back(std::move(b));
        m_last = last;
        m_cv.notify_all();
    }
    // The framing failed: the committer gets the error after the batches before it.
    void fail(std::exception_ptr e)
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_error = std::move(e);
        m_last = true;
        m_cv.notify_all();
    }

    // The committer's side: the next batch, null after the last; rethrows the
    // framing's error in its place.
    std::unique_ptr<Batch> pop()
    {
        std::unique_lock<std::mutex> lock(m_mutex);
        m_cv.wait(lock, [&] { return !m_full.empty() || m_last; });
        if (m_full.empty()) {
            if (m_error)
                std::rethrow_exception(m_error);
            return nullptr;
        }
        std::unique_ptr<Batch> b = std::move(m_full.front());
        m_full.pop_front();
        return b;
    }
    void recycle(std::unique_ptr<Batch> b)
    {
        b->clear(); // gives its chunk back
        std::lock_guard<std::mutex> lock(m_mutex);
        m_free.push_back(std::move(b));
        m_cv.notify_all();
    }
    // The committer gives up (an error, a cancel): the framing ends at its next batch.
    void stop()
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stopped = true;
        m_cv.notify_all();
        m_full.clear();
    }

private:
    const size_t m_depth;
    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::deque<std::unique_ptr<Batch>> m_full;
    std::vector<std::unique_ptr<Batch>> m_free;
    size_t m_made = 0;
    bool m_last = false, m_stopped = false;
    std::exception_ptr m_error;
};

// The load: the framing fills batches, EventCommitter says what each event
// means for the model and TraceBuilder builds it. On a file of more than one
// chunk the framing (reading, gunzipping, scanning) runs on a thread of its own
// while this one commits.
class Loader {
public:
    Loader(InputStream &in, std::string name, const ProgressFn &progress, const CancelToken *cancel,
           const LoadOptions &options)
        : m_in(in), m_name(std::move(name)), m_progress(progress), m_cancel(cancel), m_options(options),
          m_builder(new TraceBuilder(infoOf(in, m_name))), m_commit(*m_builder),
          m_framer(in, m_name, options.chunkBytes, options.mapFile)
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
    void readInline();
    void readThreaded();
    std::string shrankSentence() const
    {
        return m_name + ": the file shrank while it was being read (is it still being written?); open it "
                        "again once it is complete.";
    }
    void commit(Batch &b);
    // Checks the cancel; says how far the reading is, at most every 50 ms.
    void reportProgress();

    InputStream &m_in;
    std::string m_name;
    const ProgressFn &m_progress;
    const CancelToken *m_cancel;
    const LoadOptions m_options;
    std::unique_ptr<TraceBuilder> m_builder;
    EventCommitter m_commit;
    EventFramer m_framer;
    uint64_t m_sourcePos = 0; // of the last batch committed
    std::chrono::steady_clock::time_point m_lastProgress;
};

TraceModelPtr Loader::run()
{
    m_lastProgress = std::chrono::steady_clock::now();
    try {
        if (m_options.scanThread && m_in.sourceBytes() > m_options.chunkBytes)
            readThreaded();
        else
            readInline();
    } catch (const Error &) {
        // Whatever the scan made of the zeros where the data went, the cause
        // is the file's.
        if (m_framer.shrank())
            throw Error(shrankSentence());
        throw;
    }
    if (m_framer.shrank())
        throw Error(shrankSentence());
    TraceInfo &info = m_builder->info();
    info.jsonBytes = m_framer.bytesRead();
    if (!m_in.gzipProblem().empty() && !info.truncated)
        m_builder->warn(m_in.gzipProblem() + "; the data after it was ignored");
    if (!m_framer.topIsArray() && !m_framer.sawTraceEvents())
        m_builder->warn("the JSON object has no \"traceEvents\" array");
    if (m_progress)
        m_progress(0.95, "sorting events");
    // The read buffer is done with; sorting needs the memory.
    m_framer.release();
    const ProgressFn &outer = m_progress;
    ProgressFn inner;
    if (outer)
        inner = [&outer](double f, const char *msg) { outer(0.95 + 0.05 * f, msg); };
    return m_builder->finish(inner, m_cancel);
}

void Loader::readInline()
{
    Batch b;
    for (bool more = true; more;) {
        more = m_framer.fill(b);
        commit(b);
    }
    b.clear();
}

void Loader::readThreaded()
{
    BatchQueue queue(8);
    std::thread framing([&] {
        try {
            for (;;) {
                std::unique_ptr<Batch> b = queue.emptyBatch();
                if (!b)
                    return;
                const bool more = m_framer.fill(*b);
                queue.push(std::move(b), !more);
                if (!more)
                    return;
            }
        } catch (...) {
            queue.fail(std::current_exception());
        }
    });
    // However this ends, the framing stops and is joined before the batches,
    // the chunks and the framer go.
    struct Join {
        BatchQueue &queue;
        std::thread &thread;
        ~Join()
        {
            queue.stop();
            thread.join();
        }
    } join{queue, framing};
    while (std::unique_ptr<Batch> b = queue.pop()) {
        commit(*b);
        queue.recycle(std::move(b));
    }
}

void Loader::commit(Batch &b)
{
    size_t a = 0;
    for (size_t i = 0; i < b.events.size(); ++i) {
        for (; a < b.actions.size() && b.actions[a].first == i; ++a)
            b.actions[a].second(*m_builder);
        m_commit.commit(b.events[i].ev, b.events[i].offset);
    }
    for (; a < b.actions.size(); ++a)
        b.actions[a].second(*m_builder);
    m_sourcePos = b.sourcePos;
    m_framer.releaseBefore(b.doneOffset);
    reportProgress();
}

void Loader::reportProgress()
{
    if (m_cancel && m_cancel->cancelled())
        throw Cancelled();
    if (!m_progress)
        return;
    const auto now = std::chrono::steady_clock::now();
    if (now - m_lastProgress < std::chrono::milliseconds(50))
        return;
    m_lastProgress = now;
    const double total = double(std::max<uint64_t>(1, m_in.sourceBytes()));
    m_progress(std::min(0.95, 0.95 * double(m_sourcePos) / total), "reading events");
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
        const double f = std::min(1.0, std::max(1e-3, double(m_sourcePos) / total));
        char pct[16];
        std::snprintf(pct, sizeof pct, "%.0f%%", 100.0 * f);
        what = "reading events (" + std::string(pct) + " of the file, " + std::to_string(events) + " events on " +
               std::to_string(b.trackCount()) + " tracks so far)";
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

TraceModelPtr loadTrace(const std::string &path, const ProgressFn &progress, const CancelToken *cancel,
                        const LoadOptions &options)
{
    if (isNsysInput(path))
        return loadNsysTrace(path, progress, cancel);
    auto in = InputStream::openFile(path);
    return loadFrom(*in, path, progress, cancel, options);
}

TraceModelPtr loadTraceFromMemory(std::string_view bytes, const std::string &name, const ProgressFn &progress,
                                  const CancelToken *cancel, const LoadOptions &options)
{
    auto in = InputStream::fromMemory(bytes);
    return loadFrom(*in, name, progress, cancel, options);
}

} // namespace syncscope
