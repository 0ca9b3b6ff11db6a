#include "trace/tracewriter.h"

#include "common/error.h"
#include "trace/atomicfile.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <functional>
#include <zlib.h>

namespace syncscope {

namespace {

// Buffers text and hands it on in large pieces, deflating when asked to.
class Sink {
public:
    explicit Sink(std::function<void(std::string_view)> out, bool gzip) : m_out(std::move(out))
    {
        if (gzip) {
            m_gzip = true;
            if (deflateInit2(&m_zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
                throw Error("cannot start the gzip compressor.");
        }
        m_buf.reserve(kFlushAt + 4096);
    }
    ~Sink()
    {
        if (m_gzip)
            deflateEnd(&m_zs);
    }
    std::string &buf() { return m_buf; }
    void maybeFlush()
    {
        if (m_buf.size() >= kFlushAt)
            flush(false);
    }
    void flush(bool finish)
    {
        if (!m_gzip) {
            m_out(m_buf);
            m_buf.clear();
            return;
        }
        // zlib counts in 32-bit uInt: feed a buffer over 4 GiB (one huge
        // event name) in pieces of at most 1 GiB.
        constexpr size_t kPiece = size_t(1) << 30;
        size_t fed = 0;
        char out[1 << 16];
        do {
            const size_t piece = std::min(kPiece, m_buf.size() - fed);
            const bool last = fed + piece == m_buf.size();
            m_zs.next_in = reinterpret_cast<Bytef *>(m_buf.data() + fed);
            m_zs.avail_in = static_cast<uInt>(piece);
            fed += piece;
            const int mode = finish && last ? Z_FINISH : Z_NO_FLUSH;
            int rc;
            do {
                m_zs.next_out = reinterpret_cast<Bytef *>(out);
                m_zs.avail_out = sizeof out;
                rc = deflate(&m_zs, mode);
                m_out(std::string_view(out, sizeof out - m_zs.avail_out));
            } while (m_zs.avail_out == 0 || (mode == Z_FINISH && rc != Z_STREAM_END));
        } while (fed < m_buf.size());
        m_buf.clear();
    }

private:
    static constexpr size_t kFlushAt = 1 << 20;
    std::function<void(std::string_view)> m_out;
    std::string m_buf;
    bool m_gzip = false;
    z_stream m_zs{};
};

void escaped(std::string &out, std::string_view s)
{
    out += '"';
    for (char ch : s) {
        const unsigned char c = static_cast<unsigned char>(ch);
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (c < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                out += buf;
            } else {
                out += ch;
            }
        }
    }
    out += '"';
}

// Nanoseconds as microseconds with up to three decimals: exact, as we read them.
void micros(std::string &out, TimeNs ns)
{
    char buf[40];
    const bool neg = ns < 0;
    const uint64_t a = neg ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
    const uint64_t whole = a / 1000, frac = a % 1000;
    if (frac == 0)
        std::snprintf(buf, sizeof buf, "%s%" PRIu64, neg ? "-" : "", whole);
    else
        std::snprintf(buf, sizeof buf, "%s%" PRIu64 ".%03" PRIu64, neg ? "-" : "", whole, frac);
    out += buf;
}

void idValue(std::string &out, const TraceModel &m, const IdValue &v)
{
    if (v.isNumber())
        out += std::to_string(v.num);
    else
        escaped(out, m.str(v.text));
}

void writeAll(const TraceModel &m, Sink &sink, const ProgressFn &progress, const CancelToken *cancel)
{
    std::string &o = sink.buf();
    const TraceInfo &info = m.info();
    o += "{\n";
    if (info.schemaVersion != kNoValue)
        o += "\"schemaVersion\": " + std::to_string(info.schemaVersion) + ",\n";
    if (!info.devicePropertiesJson.empty())
        o += "\"deviceProperties\": " + info.devicePropertiesJson + ",\n";
    if (!info.distributedInfoJson.empty())
        o += "\"distributedInfo\": " + info.distributedInfoJson + ",\n";
    if (info.baseTimeNanoseconds != kNoValue)
        o += "\"baseTimeNanoseconds\": " + std::to_string(info.baseTimeNanoseconds) + ",\n";
    if (!info.displayTimeUnit.empty()) {
        o += "\"displayTimeUnit\": ";
        escaped(o, info.displayTimeUnit);
        o += ",\n";
    }
    o += "\"traceEvents\": [\n";
    bool first = true;
    auto begin = [&](char ph, const IdValue &pid, const IdValue *tid) {
        o += first ? "{\"ph\": \"" : ",\n{\"ph\": \"";
        first = false;
        o += ph;
        o += "\", \"pid\": ";
        idValue(o, m, pid);
        if (tid) {
            o += ", \"tid\": ";
            idValue(o, m, *tid);
        }
    };
    auto nameCat = [&](StrId name, StrId cat) {
        o += ", \"name\": ";
        escaped(o, m.str(name));
        if (cat != kEmptyStr) {
            o += ", \"cat\": ";
            escaped(o, m.str(cat));
        }
    };
    auto argsOf = [&](ArgsRef a) {
        if (!a.empty()) {
            o += ", \"args\": ";
            o += m.args(a);
        }
    };
    auto meta = [&](const char *what, const IdValue &pid, const IdValue *tid, const std::string &args) {
        begin('M', pid, tid);
        o += ", \"name\": \"";
        o += what;
        o += "\", \"args\": {" + args + "}}";
    };
    for (const Process &p : m.processes()) {
        std::string v;
        if (p.name != kEmptyStr) {
            escaped(v, m.str(p.name));
            meta("process_name", p.pid, nullptr, "\"name\": " + v);
        }
        if (p.labels != kEmptyStr) {
            v.clear();
            escaped(v, m.str(p.labels));
            meta("process_labels", p.pid, nullptr, "\"labels\": " + v);
        }
        if (p.sortIndex != kNoValue)
            meta("process_sort_index", p.pid, nullptr, "\"sort_index\": " + std::to_string(p.sortIndex));
    }
    const size_t nTracks = m.tracks().size();
    for (size_t ti = 0; ti < nTracks; ++ti) {
        const Track &t = m.tracks()[ti];
        checkCancel(cancel);
        if (progress)
            progress(double(ti) / double(nTracks + 1), "writing events");
        if (t.threadName != kEmptyStr) {
            std::string v;
            escaped(v, m.str(t.threadName));
            meta("thread_name", t.pid, &t.tid, "\"name\": " + v);
        }
        if (t.threadSortIndex != kNoValue)
            meta("thread_sort_index", t.pid, &t.tid, "\"sort_index\": " + std::to_string(t.threadSortIndex));
        for (size_t i = 0; i < t.size(); ++i) {
            begin('X', t.pid, &t.tid);
            o += ", \"ts\": ";
            micros(o, t.start[i]);
            o += ", \"dur\": ";
            micros(o, t.dur[i]);
            nameCat(t.name[i], t.cat[i]);
            argsOf(t.args[i]);
            o += '}';
            sink.maybeFlush();
        }
        const auto &in = t.instants;
        for (size_t i = 0; i < in.ts.size(); ++i) {
            begin('i', t.pid, &t.tid);
            o += ", \"ts\": ";
            micros(o, in.ts[i]);
            o += ", \"s\": \"";
            o += in.scope[i];
            o += '"';
            nameCat(in.name[i], in.cat[i]);
            argsOf(in.args[i]);
            o += '}';
            sink.maybeFlush();
        }
    }
    char num[40];
    for (const CounterSeries &s : m.counters()) {
        for (size_t i = 0; i < s.ts.size(); ++i) {
            begin('C', s.pid, nullptr);
            o += ", \"ts\": ";
            micros(o, s.ts[i]);
            nameCat(s.name, kEmptyStr);
            o += ", \"args\": {";
            escaped(o, m.str(s.key));
            std::snprintf(num, sizeof num, ": %.17g}}", s.value[i]);
            o += num;
            sink.maybeFlush();
        }
    }
    for (const FlowEvent &f : m.flows()) {
        const Track &t = m.tracks()[f.track];
        begin(f.phase == FlowPhase::Start ? 's' : f.phase == FlowPhase::Step ? 't' : 'f', t.pid, &t.tid);
        o += ", \"ts\": ";
        micros(o, f.ts);
        o += ", \"id\": ";
        if (f.id != kNoValue)
            o += std::to_string(f.id);
        else
            escaped(o, m.str(f.idText));
        nameCat(f.name, f.cat);
        if (f.bindEnclosing)
            o += ", \"bp\": \"e\"";
        o += '}';
        sink.maybeFlush();
    }
    o += "\n]}\n";
    sink.flush(true);
    if (progress)
        progress(1.0, "done");
}

} // namespace

std::string traceToJson(const TraceModel &model)
{
    std::string out;
    Sink sink([&out](std::string_view s) { out.append(s); }, false);
    writeAll(model, sink, {}, nullptr);
    return out;
}

void writeTrace(const TraceModel &model, const std::string &path, TraceCompression compression,
                const ProgressFn &progress, const CancelToken *cancel)
{
    const bool gzip = compression == TraceCompression::Gzip ||
                      (compression == TraceCompression::ByName && path.size() >= 3 &&
                       path.compare(path.size() - 3, 3, ".gz") == 0);
    AtomicFile file(path);
    Sink sink([&file](std::string_view s) { file.write(s); }, gzip);
    writeAll(model, sink, progress, cancel);
    file.commit();
}

} // namespace syncscope
