#include "analysis/ranksummary.h"

#include "analysis/opstats.h"
#include "analysis/timetext.h"
#include "common/cores.h"
#include "common/error.h"
#include "trace/atomicfile.h"
#include "trace/traceloader.h"

#include <algorithm>

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <future>
#include <iterator>
#include <unordered_map>

namespace syncscope {

namespace {

constexpr char kMagic[24] = "syncscope rank summary\n"; // 23 characters and the NUL
constexpr size_t kHeaderBytes = sizeof kMagic + 4 + 8 + 4;
constexpr uint32_t kAbsent = 0xffffffffu;

// One list of fields for both directions: serialize(ar, x) writes x through a
// Writer and fills x through a Reader, so the two cannot drift apart.
class Writer {
public:
    static constexpr bool reading = false;
    void io(uint8_t &v) { m_fields.push_back(char(v)); }
    void io(bool &v) { m_fields.push_back(v ? 1 : 0); }
    void io(uint32_t &v) { put(v, 4); }
    void io(int32_t &v) { put(uint32_t(v), 4); }
    void io(uint64_t &v) { put(v, 8); }
    void io(int64_t &v) { put(uint64_t(v), 8); }
    void io(std::string &s) { put(intern(s), 4); }
    void io(std::optional<std::string> &s) { put(s ? intern(*s) : kAbsent, 4); }
    void io(NameList &names) // as a list of strings
    {
        put(uint64_t(names.size()), 8);
        for (size_t i = 0; i < names.size(); ++i)
            put(intern(std::string(names[i])), 4);
    }
    template <typename T, typename Fn> void list(std::vector<T> &v, Fn &&each)
    {
        put(uint64_t(v.size()), 8);
        for (T &x : v)
            each(x);
    }

    std::string body() const
    {
        std::string out;
        putTo(out, uint64_t(m_table.size()), 4);
        for (const std::string &s : m_table) {
            if (s.size() >= kAbsent)
                throw Error("a string of the summary is longer than 4 GiB");
            putTo(out, s.size(), 4);
            out += s;
        }
        return out + m_fields;
    }

private:
    static void putTo(std::string &out, uint64_t v, int bytes)
    {
        for (int i = 0; i < bytes; ++i)
            out.push_back(char((v >> (8 * i)) & 0xff));
    }
    void put(uint64_t v, int bytes) { putTo(m_fields, v, bytes); }
    uint32_t intern(const std::string &s)
    {
        auto it = m_ids.find(s);
        if (it != m_ids.end())
            return it->second;
        const uint32_t id = uint32_t(m_table.size());
        m_ids.emplace(s, id);
        m_table.push_back(s);
        return id;
    }
    std::string m_fields;
    std::vector<std::string> m_table;
    std::unordered_map<std::string, uint32_t> m_ids;
};

class Reader {
public:
    static constexpr bool reading = true;
    Reader(std::string_view body, const std::string &name)
        : m_p(body.data()), m_end(body.data() + body.size()), m_name(name)
    {
        const uint64_t n = get(4);
        if (n > remaining() / 4)
            damaged("its string table is larger than the file");
        m_table.reserve(size_t(n));
        for (uint64_t i = 0; i < n; ++i) {
            const uint64_t len = get(4);
            if (len > remaining())
                damaged("a string runs past the end of the file");
            m_table.emplace_back(m_p, size_t(len));
            m_p += len;
        }
    }
    void io(uint8_t &v) { v = uint8_t(get(1)); }
    void io(bool &v)
    {
        const uint64_t b = get(1);
        if (b > 1)
            damaged("a flag is neither 0 nor 1");
        v = b == 1;
    }
    void io(uint32_t &v) { v = uint32_t(get(4)); }
    void io(int32_t &v) { v = int32_t(uint32_t(get(4))); }
    void io(uint64_t &v) { v = get(8); }
    void io(int64_t &v) { v = int64_t(get(8)); }
    void io(std::string &s)
    {
        const uint64_t id = get(4);
        if (id >= m_table.size())
            damaged("a string index is out of range");
        s = m_table[size_t(id)];
    }
    void io(std::optional<std::string> &s)
    {
        const uint64_t id = get(4);
        if (id == kAbsent)
            s.reset();
        else if (id >= m_table.size())
            damaged("a string index is out of range");
        else
            s = m_table[size_t(id)];
    }
    void io(NameList &names) // as a list of strings
    {
        const uint64_t n = get(8);
        if (n > remaining() / 4)
            damaged("a list is longer than the file");
        names.clear();
        names.reserve(size_t(n));
        for (uint64_t i = 0; i < n; ++i) {
            const uint64_t id = get(4);
            if (id >= m_table.size())
                damaged("a string index is out of range");
            names.push_back(m_table[size_t(id)]);
        }
    }
    template <typename T, typename Fn> void list(std::vector<T> &v, Fn &&each)
    {
        const uint64_t n = get(8);
        if (n > remaining()) // every item takes at least one byte
            damaged("a list is longer than the file");
        v.clear();
        v.resize(size_t(n));
        for (T &x : v)
            each(x);
    }
    bool atEnd() const { return m_p == m_end; }
    [[noreturn]] void damaged(const char *why) const
    {
        throw Error("'" + m_name + "' is a damaged rank summary (" + why + "): summarize its trace again");
    }

private:
    size_t remaining() const { return size_t(m_end - m_p); }
    uint64_t get(int bytes)
    {
        if (remaining() < size_t(bytes))
            damaged("its fields end early");
        uint64_t v = 0;
        for (int i = 0; i < bytes; ++i)
            v |= uint64_t(static_cast<unsigned char>(m_p[i])) << (8 * i);
        m_p += bytes;
        return v;
    }
    const char *m_p, *m_end;
    const std::string &m_name;
    std::vector<std::string> m_table;
};

template <typename Ar> void timeList(Ar &ar, std::vector<TimeNs> &v)
{
    ar.list(v, [&](TimeNs &t) { ar.io(t); });
}

template <typename Ar> void serialize(Ar &ar, AnalysisOptions &o)
{
    ar.io(o.clockSkew);
    ar.io(o.kernelWaitThreshold);
    ar.list(o.libPrefixes, [&](std::string &s) { ar.io(s); });
    ar.io(o.stepRegex);
    ar.io(o.longCallThreshold);
}

template <typename Ar> void serialize(Ar &ar, ReportSyncCall &s)
{
    ar.io(s.name);
    ar.io(s.start);
    ar.io(s.dur);
    ar.io(s.pid.num);
    ar.io(s.pid.text);
    ar.io(s.tid.num);
    ar.io(s.tid.text);
    ar.io(s.op);
    ar.io(s.rootOp);
    ar.io(s.pyFrame);
    ar.io(s.userFrame);
    ar.io(s.pageableCopy);
    ar.io(s.blocks);
    ar.io(s.avoidable);
    ar.io(s.step);
    ar.io(s.advice);
}

template <typename Ar> void serialize(Ar &ar, FileReport &r)
{
    ar.io(r.path);
    ar.io(r.format);
    ar.io(r.rank);
    ar.io(r.torchVersion);
    ar.io(r.truncated);
    ar.io(r.truncatedAtByte);
    ar.io(r.unevenCut);
    ar.io(r.durationEvents);
    ar.io(r.flows);
    ar.io(r.instants);
    ar.io(r.counters);
    ar.io(r.minTime);
    ar.io(r.maxTime);
    ar.io(r.warnings);
    ar.list(r.warningKinds, [&](ReportWarningKind &k) {
        ar.io(k.pattern);
        ar.io(k.example);
        ar.io(k.count);
    });
    // A map as a list of (key, count) in key order.
    std::vector<std::pair<std::string, uint64_t>> cats;
    if constexpr (!Ar::reading)
        cats.assign(r.categories.begin(), r.categories.end());
    ar.list(cats, [&](std::pair<std::string, uint64_t> &kv) {
        ar.io(kv.first);
        ar.io(kv.second);
    });
    if constexpr (Ar::reading)
        r.categories = std::map<std::string, uint64_t>(cats.begin(), cats.end());
    uint8_t runtime = uint8_t(r.runtime.runtime);
    ar.io(runtime);
    r.runtime.runtime = Runtime(runtime);
    ar.io(r.runtime.cudaCalls);
    ar.io(r.runtime.hipCalls);
    ar.io(r.runtime.otherCalls);
    ar.list(r.runtime.namesSeen, [&](std::string &n) { ar.io(n); });
    ar.io(r.runtime.distinctNames);
    ar.io(r.unplacedActivities);
    ar.list(r.devices, [&](ReportDevice &d) {
        ar.io(d.device);
        ar.io(d.name);
        ar.io(d.kernels);
        ar.io(d.memcpys);
        ar.io(d.memsets);
        ar.io(d.first);
        ar.io(d.last);
        ar.io(d.busy);
        ar.io(d.syncGap);
        ar.io(d.avoidable);
        ar.io(d.limitedBy.kind);
        ar.io(d.limitedBy.text);
    });
    ar.list(r.syncCalls, [&](ReportSyncCall &s) { serialize(ar, s); });
    ar.list(r.longCalls, [&](ReportSyncCall &s) { serialize(ar, s); });
    ar.list(r.cudaSyncEvents, [&](ReportCudaSyncEvent &e) {
        ar.io(e.kind);
        ar.io(e.start);
        ar.io(e.dur);
        ar.io(e.device);
        ar.io(e.stream);
    });
    uint8_t mode = uint8_t(r.waitMode);
    ar.io(mode);
    r.waitMode = WaitMode(mode);
    ar.io(r.streamDependencies);
    ar.list(r.streamWaits, [&](ReportStreamWait &s) {
        ar.io(s.device);
        ar.io(s.stream);
        ar.io(s.waitOnStream);
        ar.io(s.fromCorrelation);
        ar.io(s.toCorrelation);
    });
    uint8_t threadMode = uint8_t(r.threadMode);
    ar.io(threadMode);
    r.threadMode = ThreadMode(threadMode);
    ar.list(r.handoffs, [&](ReportHandoff &h) {
        ar.io(h.fromTid.num);
        ar.io(h.fromTid.text);
        ar.io(h.toTid.num);
        ar.io(h.toTid.text);
        ar.io(h.at);
        ar.io(h.back);
    });
    ar.list(r.syncGaps, [&](SyncGap &g) {
        ar.io(g.device);
        ar.io(g.interval.start);
        ar.io(g.interval.end);
        ar.io(g.syncCall);
        ar.io(g.blocked);
        ar.io(g.avoidable);
        ar.io(g.step);
    });
    ar.list(r.idleBreakdown, [&](IdleBreakdown &b) {
        ar.io(b.device);
        ar.io(b.stream);
        ar.io(b.hostWait);
        ar.io(b.kernelWait);
        ar.io(b.other);
    });
    ar.list(r.steps, [&](ReportStep &s) {
        ar.io(s.name);
        ar.io(s.start);
        ar.io(s.end);
    });
    ar.list(r.stepStats, [&](StepDeviceStats &s) {
        ar.io(s.step);
        ar.io(s.device);
        ar.io(s.gpuBusy);
        ar.io(s.syncGaps);
        ar.io(s.syncGapTime);
        ar.io(s.avoidable);
    });
    ar.list(r.sources, [&](ReportSource &s) {
        ar.io(s.sync);
        ar.io(s.op);
        ar.io(s.userFrame);
        ar.io(s.count);
        ar.io(s.gaps);
        ar.io(s.gapTime);
        ar.io(s.avoidable);
        timeList(ar, s.avoidableByDevice);
        ar.io(s.advice);
        ar.io(s.adviceCalls);
        ar.io(s.limitedBy.kind);
        ar.io(s.limitedBy.text);
    });
    ar.list(r.ops, [&](NamedOpStat &o) {
        ar.io(o.name);
        ar.io(o.cat);
        ar.io(o.count);
        ar.io(o.total);
        ar.io(o.self);
        ar.io(o.min);
        ar.io(o.max);
        ar.io(o.gpuCount);
        ar.io(o.gpuTime);
    });
}

template <typename Ar> void serialize(Ar &ar, ReplayInput &r)
{
    ar.list(r.deviceIds, [&](int64_t &d) { ar.io(d); });
    ar.list(r.streamIds, [&](std::pair<int64_t, int64_t> &s) {
        ar.io(s.first);
        ar.io(s.second);
    });
    ar.io(r.threads);
    ar.list(r.activities, [&](ReplayActivity &a) {
        ar.io(a.device);
        ar.io(a.stream);
        ar.io(a.start);
        ar.io(a.end);
        ar.io(a.correlation);
    });
    ar.list(r.launches, [&](ReplayLaunch &l) {
        ar.io(l.thread);
        ar.io(l.start);
        ar.io(l.end);
        ar.io(l.correlation);
    });
    ar.list(r.calls, [&](ReplayBlocking &c) {
        ar.io(c.thread);
        ar.io(c.start);
        ar.io(c.end);
        uint8_t kind = uint8_t(c.kind);
        ar.io(kind);
        c.kind = BlockKind(kind);
        ar.io(c.stream);
        ar.io(c.device);
        ar.io(c.cut);
    });
    ar.list(r.handoffs, [&](ReplayHandoff &h) {
        ar.io(h.from);
        ar.io(h.to);
        ar.io(h.at);
        ar.io(h.back);
    });
    uint8_t threadMode = uint8_t(r.threadMode);
    ar.io(threadMode);
    r.threadMode = ThreadMode(threadMode);
    ar.io(r.threadNames);
    ar.list(r.deps, [&](StreamDependency &d) {
        ar.io(d.activity);
        ar.io(d.on);
    });
    uint8_t mode = uint8_t(r.waitMode);
    ar.io(mode);
    r.waitMode = WaitMode(mode);
    ar.list(r.collectives, [&](CollectiveKernel &c) {
        ar.io(c.activity);
        ar.io(c.group);
        ar.io(c.name);
        ar.io(c.seq);
    });
}

template <typename Ar> void serialize(Ar &ar, RankInput &r)
{
    ar.io(r.rank);
    ar.io(r.file);
    serialize(ar, r.replay);
    ar.list(r.sources, [&](RankSource &s) {
        ar.io(s.sync);
        ar.io(s.op);
        ar.io(s.userFrame);
        ar.io(s.hasOp);
        ar.io(s.hasUserFrame);
        ar.list(s.calls, [&](uint32_t &c) { ar.io(c); });
        ar.io(s.advice);
        ar.list(s.callAdvice, [&](std::string &a) { ar.io(a); });
    });
    ar.list(r.steps, [&](RankStepWindow &s) {
        ar.io(s.name);
        ar.io(s.start);
        ar.io(s.end);
    });
    timeList(ar, r.localAvoidable);
}

template <typename Ar> void serialize(Ar &ar, RankSummary &s)
{
    serialize(ar, s.options);
    serialize(ar, s.report);
    serialize(ar, s.job);
}

// Every index the report and the job analysis follow points inside its list,
// so a summary that passed its checksum cannot make them read out of bounds.
void checkIndices(const Reader &rd, const RankSummary &s)
{
    const FileReport &r = s.report;
    auto need = [&](bool ok) {
        if (!ok)
            rd.damaged("an index points outside its list");
    };
    for (const ReportSyncCall &c : r.syncCalls)
        need(c.step >= -1 && c.step < int64_t(r.steps.size()));
    for (const SyncGap &g : r.syncGaps)
        need(g.syncCall < r.syncCalls.size() && g.step >= -1 && g.step < int64_t(r.steps.size()));
    for (const StepDeviceStats &st : r.stepStats)
        need(st.step < r.steps.size());
    for (const ReportSource &src : r.sources)
        need(src.avoidableByDevice.size() == r.devices.size());
    const ReplayInput &p = s.job.replay;
    need(p.waitMode == WaitMode::Exact || p.waitMode == WaitMode::Inferred);
    need(r.waitMode == WaitMode::Exact || r.waitMode == WaitMode::Inferred);
    need(r.runtime.runtime == Runtime::None || r.runtime.runtime == Runtime::Cuda ||
         r.runtime.runtime == Runtime::Hip);
    for (const ReplayActivity &a : p.activities)
        need(a.device < p.deviceIds.size() && a.stream < p.streamIds.size());
    for (const ReplayLaunch &l : p.launches)
        need(l.thread < p.threads);
    for (const ReplayBlocking &c : p.calls)
        need(c.thread < p.threads && uint8_t(c.kind) <= uint8_t(BlockKind::Copy) && c.stream >= -1 &&
             c.stream < int64_t(p.streamIds.size()) && c.device >= -1 && c.device < int64_t(p.deviceIds.size()));
    for (const ReplayHandoff &h : p.handoffs)
        need(h.from < p.threads && h.to < p.threads);
    need(uint8_t(p.threadMode) <= uint8_t(ThreadMode::Inferred));
    need(uint8_t(r.threadMode) <= uint8_t(ThreadMode::Inferred));
    for (const StreamDependency &d : p.deps)
        need(d.activity < p.activities.size() && d.on < p.activities.size());
    for (const CollectiveKernel &c : p.collectives)
        need(c.activity < p.activities.size());
    for (const RankSource &src : s.job.sources) {
        for (uint32_t c : src.calls)
            need(c < p.calls.size());
        need(src.callAdvice.size() == src.calls.size());
    }
    need(s.job.localAvoidable.size() <= p.deviceIds.size() || p.deviceIds.empty());
}

void putLE(std::string &out, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; ++i)
        out.push_back(char((v >> (8 * i)) & 0xff));
}

uint64_t getLE(const char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i)
        v |= uint64_t(static_cast<unsigned char>(p[i])) << (8 * i);
    return v;
}

uint32_t crcOf(std::string_view body)
{
    return uint32_t(crc32_z(crc32_z(0, nullptr, 0), reinterpret_cast<const Bytef *>(body.data()), body.size()));
}

} // namespace

RankSummary makeRankSummary(const TraceModel &model, const SyncAnalysis &analysis, const AnalysisOptions &options,
                            const CancelToken *cancel)
{
    RankSummary s;
    s.report = makeFileReport(model, analysis, cancel);
    s.job = makeRankInput(model, analysis);
    s.options = options;
    return s;
}

std::string encodeRankSummary(const RankSummary &summary)
{
    Writer w;
    serialize(w, const_cast<RankSummary &>(summary)); // the Writer only reads
    const std::string body = w.body();
    std::string out(kMagic, sizeof kMagic);
    putLE(out, kRankSummaryVersion, 4);
    putLE(out, body.size(), 8);
    putLE(out, crcOf(body), 4);
    out.reserve(out.size() + body.size());
    out += body;
    return out;
}

RankSummary decodeRankSummary(std::string_view bytes, const std::string &name)
{
    if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
        throw Error("'" + name +
                    "' is not a syncscope rank summary (it does not start with \"syncscope rank "
                    "summary\")");
    auto truncated = [&](uint64_t want) {
        return Error("'" + name + "' is a truncated rank summary (" + std::to_string(bytes.size()) + " of " +
                     std::to_string(want) + " bytes): summarize its trace again");
    };
    if (bytes.size() < kHeaderBytes)
        throw truncated(kHeaderBytes);
    const uint32_t version = uint32_t(getLE(bytes.data() + sizeof kMagic, 4));
    if (version != kRankSummaryVersion)
        throw Error("'" + name + "' is a rank summary of format version " + std::to_string(version) +
                    ", and this syncscope reads version " + std::to_string(kRankSummaryVersion) +
                    ": summarize its trace again with this syncscope-cli");
    const uint64_t length = getLE(bytes.data() + sizeof kMagic + 4, 8);
    const uint32_t crc = uint32_t(getLE(bytes.data() + sizeof kMagic + 12, 4));
    const uint64_t have = bytes.size() - kHeaderBytes;
    if (have < length)
        throw truncated(kHeaderBytes + length);
    if (have > length)
        throw Error("'" + name + "' is a damaged rank summary (" + std::to_string(have - length) +
                    " bytes follow its end): summarize its trace again");
    const std::string_view body = bytes.substr(kHeaderBytes);
    if (crcOf(body) != crc)
        throw Error("'" + name +
                    "' is a damaged rank summary (its checksum does not match): summarize its "
                    "trace again");
    Reader rd(body, name);
    RankSummary s;
    serialize(rd, s);
    if (!rd.atEnd())
        rd.damaged("bytes are left after its last field");
    checkIndices(rd, s);
    s.job.origin = s.report.minTime;
    return s;
}

std::string packReport(FileReport report)
{
    RankSummary s;
    s.report = std::move(report);
    return encodeRankSummary(s);
}

FileReport unpackReport(std::string_view packed) { return decodeRankSummary(packed, "a packed report").report; }

void writeRankSummary(const std::string &path, const RankSummary &summary)
{
    writeFileAtomically(path, encodeRankSummary(summary));
}

RankSummary readRankSummary(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw Error("cannot open '" + path + "': " + std::strerror(errno));
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad())
        throw Error("cannot read '" + path + "': " + std::strerror(errno));
    return decodeRankSummary(bytes, path);
}

bool isRankSummaryFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    char head[sizeof kMagic];
    if (!in.read(head, sizeof head))
        return false;
    return std::memcmp(head, kMagic, sizeof kMagic) == 0;
}

namespace {

std::string describe(const AnalysisOptions &o)
{
    std::string t = "--step-regex '" + o.stepRegex + "'";
    for (const std::string &p : o.libPrefixes)
        t += " --lib-prefix '" + p + "'";
    if (o.libPrefixes.empty())
        t += " and no --lib-prefix";
    t += ", --long-call-ms " +
         formatMillis(o.longCallThreshold).substr(0, formatMillis(o.longCallThreshold).size() - 3);
    return t;
}

} // namespace

void checkSummaryOptions(const RankSummary &summary, const AnalysisOptions &options, const std::string &name)
{
    const AnalysisOptions &o = summary.options;
    if (o.clockSkew == options.clockSkew && o.kernelWaitThreshold == options.kernelWaitThreshold &&
        o.libPrefixes == options.libPrefixes && o.stepRegex == options.stepRegex &&
        o.longCallThreshold == options.longCallThreshold)
        return;
    throw Error("'" + name + "' was summarized with " + describe(o) + ", and this analysis runs with " +
                describe(options) + ": give analyze the options summarize had, or summarize again");
}

RankSummary loadRank(const std::string &path, const AnalysisOptions &options, bool withJobInput,
                     const ProgressFn &progress, const CancelToken *cancel)
{
    if (isRankSummaryFile(path)) {
        RankSummary s = readRankSummary(path);
        checkSummaryOptions(s, options, path);
        if (progress)
            progress(1.0, "read the summary");
        return s;
    }
    ProgressFn loading, analysing;
    if (progress) {
        loading = [&](double f, const char *msg) { progress(0.8 * f, msg); };
        analysing = [&](double f, const char *msg) { progress(0.8 + 0.2 * f, msg); };
    }
    RankSummary s;
    s.options = options;
    {
        const TraceModelPtr model = loadTrace(path, loading, cancel);
        // The op statistics read the model alone: on a second core they run
        // beside the sync analysis.
        std::future<std::vector<OpStat>> ops;
        if (usableCores() > 1)
            ops = std::async(std::launch::async, [&] { return opStatistics(*model, {}, cancel); });
        const SyncAnalysis analysis = [&] {
            try {
                return analyzeSyncs(*model, options, analysing, cancel);
            } catch (...) {
                if (ops.valid())
                    ops.wait(); // it reads the model: let it end before the model goes
                throw;
            }
        }();
        s.report = makeFileReport(*model, analysis, ops.valid() ? ops.get() : opStatistics(*model, {}, cancel));
        if (withJobInput)
            s.job = makeRankInput(*model, analysis);
    } // the model and its analysis go here
    if (progress)
        progress(1.0, "analysed");
    return s;
}

std::vector<size_t> jobOrder(const std::vector<int64_t> &ranks)
{
    std::vector<size_t> order(ranks.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        const bool ha = ranks[a] != kNoValue, hb = ranks[b] != kNoValue;
        if (ha != hb)
            return ha;
        return ha && ranks[a] < ranks[b];
    });
    return order;
}

void sortByRank(std::vector<RankSummary> &ranks)
{
    std::vector<int64_t> ids;
    for (const RankSummary &r : ranks)
        ids.push_back(r.report.rank);
    std::vector<RankSummary> sorted;
    sorted.reserve(ranks.size());
    for (size_t i : jobOrder(ids))
        sorted.push_back(std::move(ranks[i]));
    ranks = std::move(sorted);
}

} // namespace syncscope
