#include "trace/nsysloader.h"

#include "common/error.h"
#include "trace/argfield.h"
#include "trace/categories.h"
#include "trace/tracebuilder.h"

#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <unordered_map>

extern char **environ;

namespace syncscope {

namespace {

constexpr int64_t kPidMask = 0xFFFFFF;

bool endsWith(const std::string &s, const std::string &tail)
{
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

bool isReportPath(const std::string &path) { return endsWith(path, ".nsys-rep"); }

bool hasSqliteHeader(const std::string &path)
{
    // Only a regular file is looked into: reading a pipe's first bytes would
    // take them from the loader that reads it next.
    struct stat st;
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
        return false;
    std::ifstream in(path, std::ios::binary);
    char head[16] = {};
    if (!in.read(head, sizeof head))
        return false;
    return std::memcmp(head, "SQLite format 3", 16) == 0; // the 16 bytes end in '\0'
}

bool fileExists(const std::string &path)
{
    struct stat st;
    return ::stat(path.c_str(), &st) == 0;
}

// "FILE#PID" -> FILE and PID when FILE is Nsight Systems input and the whole
// path names no file; otherwise the path itself and kNoValue.
void splitProcess(const std::string &path, std::string &file, int64_t &pid)
{
    file = path;
    pid = kNoValue;
    const size_t hash = path.rfind('#');
    // A pid is at most 0xFFFFFF: 8 digits.
    if (hash == std::string::npos || hash + 1 == path.size() || path.size() - hash - 1 > 8)
        return;
    int64_t v = 0;
    for (size_t i = hash + 1; i < path.size(); ++i) {
        if (path[i] < '0' || path[i] > '9')
            return;
        v = v * 10 + (path[i] - '0');
    }
    const std::string head = path.substr(0, hash);
    if (fileExists(path) || !(isReportPath(head) || hasSqliteHeader(head)))
        return;
    file = head;
    pid = v;
}

// --- SQLite, the few calls we need ---------------------------------------

class Db {
public:
    Db(const std::string &path, const std::string &name) : m_name(name)
    {
        // One connection per thread: no SQLite mutex on every step.
        const int rc = sqlite3_open_v2(path.c_str(), &m_db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
        if (rc != SQLITE_OK) {
            const std::string why = m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
            sqlite3_close(m_db);
            m_db = nullptr;
            throw Error(m_name + ": cannot be opened as an SQLite database (" + why + ").");
        }
    }
    ~Db() { sqlite3_close(m_db); }

    // A long statement (a scan past rows of other processes) checks the cancel
    // too: SQLite calls this every few thousand steps of its machine.
    void watch(const CancelToken *cancel)
    {
        if (cancel)
            sqlite3_progress_handler(
                m_db, 10000,
                [](void *token) { return static_cast<const CancelToken *>(token)->cancelled() ? 1 : 0; },
                const_cast<CancelToken *>(cancel));
    }
    Db(const Db &) = delete;
    Db &operator=(const Db &) = delete;

    sqlite3 *handle() const { return m_db; }
    const std::string &name() const { return m_name; }

    [[noreturn]] void fail(int rc) const
    {
        if (rc == SQLITE_INTERRUPT)
            throw Cancelled();
        std::string why = sqlite3_errmsg(m_db);
        if (rc == SQLITE_NOTADB)
            throw Error(m_name + ": not an SQLite database (" + why + ").");
        throw Error(m_name + ": the SQLite database cannot be read (" + why +
                    "); the file may be truncated or corrupt: export the report again.");
    }

    std::set<std::string> columns(const std::string &table) const;

private:
    std::string m_name;
    sqlite3 *m_db = nullptr;
};

class Stmt {
public:
    Stmt(const Db &db, const std::string &sql) : m_db(db)
    {
        const int rc = sqlite3_prepare_v2(db.handle(), sql.c_str(), -1, &m_stmt, nullptr);
        if (rc != SQLITE_OK)
            db.fail(rc);
    }
    ~Stmt() { sqlite3_finalize(m_stmt); }
    Stmt(const Stmt &) = delete;
    Stmt &operator=(const Stmt &) = delete;

    void bind(int i, int64_t v) { sqlite3_bind_int64(m_stmt, i, v); }
    void reset() { sqlite3_reset(m_stmt); }
    // The next row; false at the end. A read error throws.
    bool step()
    {
        const int rc = sqlite3_step(m_stmt);
        if (rc == SQLITE_ROW)
            return true;
        if (rc == SQLITE_DONE)
            return false;
        m_db.fail(rc);
    }
    bool isNull(int c) const { return sqlite3_column_type(m_stmt, c) == SQLITE_NULL; }
    int64_t i64(int c) const { return sqlite3_column_int64(m_stmt, c); }
    int64_t i64or(int c, int64_t none) const { return isNull(c) ? none : i64(c); }
    std::string_view text(int c) const
    {
        const auto *p = reinterpret_cast<const char *>(sqlite3_column_text(m_stmt, c));
        return p ? std::string_view(p, static_cast<size_t>(sqlite3_column_bytes(m_stmt, c))) : std::string_view();
    }

private:
    const Db &m_db;
    sqlite3_stmt *m_stmt = nullptr;
};

std::set<std::string> Db::columns(const std::string &table) const
{
    std::set<std::string> out;
    Stmt s(*this, "PRAGMA table_info(\"" + table + "\")");
    while (s.step())
        out.emplace(s.text(1));
    return out;
}

// --- the export's tables ---------------------------------------------------

const char *const kRuntime = "CUPTI_ACTIVITY_KIND_RUNTIME";
const char *const kKernel = "CUPTI_ACTIVITY_KIND_KERNEL";
const char *const kMemcpy = "CUPTI_ACTIVITY_KIND_MEMCPY";
const char *const kMemset = "CUPTI_ACTIVITY_KIND_MEMSET";
const char *const kSync = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
const char *const kCudaEvent = "CUPTI_ACTIVITY_KIND_CUDA_EVENT";
const char *const kNvtx = "NVTX_EVENTS";
const char *const kOsrt = "OSRT_API";

// Kineto's spellings of CUPTI's copy and memory kinds.
std::string copyKindText(int64_t k)
{
    static const char *const names[] = {"Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD",
                                        "DtoA",    "DtoD", "HtoH", "PtoP", "HtoD", "DtoH", "DtoD"};
    return k >= 0 && k < int64_t(sizeof names / sizeof *names) ? names[k] : "Unknown";
}

std::string memKindText(int64_t k)
{
    static const char *const names[] = {"Pageable", "Pinned",        "Device",         "Array",
                                        "Managed",  "Device Static", "Managed Static", "Unknown"};
    return k >= 0 && k < int64_t(sizeof names / sizeof *names) ? names[k] : "Unknown";
}

// cudaStreamSynchronize_v3020 -> cudaStreamSynchronize; a name without the
// suffix stays as it is.
std::string_view withoutVersion(std::string_view name)
{
    const size_t u = name.rfind("_v");
    if (u == std::string_view::npos || u + 2 == name.size())
        return name;
    for (size_t i = u + 2; i < name.size(); ++i)
        if (name[i] < '0' || name[i] > '9')
            return name;
    return name.substr(0, u);
}

// PyTorch's NVTX range text: "NAME, seq = N, op_id = M, sizes = [...]". The
// name and the sequence number are kept (what a Kineto trace has of an op);
// op_id, an id of the recording process, is not.
struct RangeText {
    std::string_view name;
    int64_t seq = kNoValue;
};

int64_t numberAfter(std::string_view text, std::string_view key)
{
    const size_t k = text.find(key);
    if (k == std::string_view::npos)
        return kNoValue;
    size_t i = k + key.size();
    int64_t v = 0;
    bool any = false;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9' && v < (int64_t(1) << 58); ++i) {
        v = v * 10 + (text[i] - '0');
        any = true;
    }
    return any ? v : kNoValue;
}

RangeText parseRange(std::string_view text)
{
    RangeText r;
    r.name = text;
    size_t cut = std::string_view::npos;
    for (std::string_view key : {", seq = ", ", op_id = ", ", sizes = "})
        cut = std::min(cut, text.find(key));
    if (cut != std::string_view::npos)
        r.name = text.substr(0, cut);
    r.seq = numberAfter(text, ", seq = ");
    return r;
}

// The load of one export: every table read once, in order, row by row.
class NsysReader {
public:
    NsysReader(const std::string &file, const std::string &name, int64_t pid, const ProgressFn &progress,
               const CancelToken *cancel)
        : m_db(file, name), m_name(name), m_pid(pid), m_progress(progress), m_cancel(cancel)
    {
        TraceInfo info;
        info.path = name;
        info.format = "sqlite";
        struct stat st;
        if (::stat(file.c_str(), &st) == 0)
            info.fileBytes = static_cast<uint64_t>(st.st_size);
        m_builder = std::make_unique<TraceBuilder>(std::move(info));
        m_db.watch(cancel);
    }

    TraceModelPtr run();

private:
    void checkExport();
    void require(const char *table, std::initializer_list<const char *> cols);
    uint64_t rowEstimate(const char *table);
    void tick();
    StrId string(int64_t id);
    std::string_view stringText(int64_t id);
    std::string pidFilter(const char *column) const;
    uint32_t gpuTrack(int64_t device, int64_t stream);

    void readRuntime();
    void readKernels();
    void readMemcpys();
    void readMemsets();
    void readSyncs();
    void readNvtx();
    void readOsrt();
    void readNames();

    Db m_db;
    std::string m_name;
    int64_t m_pid;
    const ProgressFn &m_progress;
    const CancelToken *m_cancel;
    std::unique_ptr<TraceBuilder> m_builder;
    std::set<std::string> m_tables;
    std::unique_ptr<Stmt> m_stringStmt;
    std::unordered_map<int64_t, StrId> m_strings;
    std::string m_stringScratch;
    std::set<int64_t> m_hostPids;
    std::set<int64_t> m_devices;
    uint64_t m_rows = 0, m_total = 1;
    std::chrono::steady_clock::time_point m_lastProgress;
    std::string m_args;
};

void NsysReader::checkExport()
{
    Stmt t(m_db, "SELECT name FROM sqlite_master WHERE type = 'table'");
    while (t.step())
        m_tables.emplace(t.text(0));
    if (!m_tables.count("StringIds"))
        throw Error(m_name + ": an SQLite database but not an Nsight Systems export (it has no StringIds "
                             "table); export a report with `nsys export --type sqlite`.");
    require("StringIds", {"id", "value"});
    require(kRuntime, {"start", "end", "globalTid", "correlationId", "nameId"});
    require(kKernel,
            {"start", "end", "deviceId", "streamId", "correlationId", "globalPid", "demangledName", "shortName"});
    require(kMemcpy, {"start", "end", "deviceId", "streamId", "correlationId", "globalPid", "bytes", "copyKind"});
    require(kMemset, {"start", "end", "deviceId", "streamId", "correlationId", "globalPid", "bytes"});
    require(kSync, {"start", "end", "deviceId", "streamId", "correlationId", "globalPid", "syncType"});
    require(kNvtx, {"start", "end", "eventType", "text", "globalTid", "textId"});
    m_stringStmt = std::make_unique<Stmt>(m_db, "SELECT value FROM StringIds WHERE id = ?");
}

void NsysReader::require(const char *table, std::initializer_list<const char *> cols)
{
    if (!m_tables.count(table))
        return; // an export has a table only where the report has such data
    const std::set<std::string> have = m_db.columns(table);
    for (const char *c : cols)
        if (!have.count(c))
            throw Error(m_name + ": the Nsight Systems export's " + table + " table has no column \"" + c +
                        "\" (an older export schema); export the report again with a newer nsys.");
}

uint64_t NsysReader::rowEstimate(const char *table)
{
    if (!m_tables.count(table))
        return 0;
    Stmt s(m_db, std::string("SELECT max(rowid) FROM ") + table);
    return s.step() ? static_cast<uint64_t>(std::max<int64_t>(0, s.i64or(0, 0))) : 0;
}

void NsysReader::tick()
{
    ++m_rows;
    if ((m_rows & 1023) != 0)
        return;
    checkCancel(m_cancel);
    if (!m_progress)
        return;
    const auto now = std::chrono::steady_clock::now();
    if (now - m_lastProgress < std::chrono::milliseconds(50))
        return;
    m_lastProgress = now;
    m_progress(std::min(0.95, 0.95 * double(m_rows) / double(m_total)), "reading events");
}

std::string_view NsysReader::stringText(int64_t id)
{
    Stmt &s = *m_stringStmt;
    s.reset();
    s.bind(1, id);
    if (!s.step())
        return {};
    m_stringScratch.assign(s.text(0));
    return m_stringScratch;
}

StrId NsysReader::string(int64_t id)
{
    auto it = m_strings.find(id);
    if (it != m_strings.end())
        return it->second;
    const StrId s = m_builder->intern(stringText(id));
    m_strings.emplace(id, s);
    return s;
}

std::string NsysReader::pidFilter(const char *column) const
{
    if (m_pid == kNoValue)
        return "";
    return std::string(" WHERE ((") + column + " >> 24) & " + std::to_string(kPidMask) +
           ") = " + std::to_string(m_pid);
}

uint32_t NsysReader::gpuTrack(int64_t device, int64_t stream)
{
    m_devices.insert(device);
    return m_builder->track(m_builder->id(device), m_builder->id(stream));
}

void NsysReader::readRuntime()
{
    if (!m_tables.count(kRuntime))
        return;
    TraceBuilder &b = *m_builder;
    const StrId cat = b.internCategory(category::kRuntime);
    std::unordered_map<int64_t, StrId> names; // nameId -> the name without its version
    Stmt s(m_db, std::string("SELECT start, end, globalTid, correlationId, nameId FROM ") + kRuntime +
                     pidFilter("globalTid"));
    while (s.step()) {
        tick();
        const int64_t g = s.i64or(2, 0);
        const int64_t pid = (g >> 24) & kPidMask, tid = g & kPidMask;
        m_hostPids.insert(pid);
        const int64_t nameId = s.i64(4);
        auto it = names.find(nameId);
        if (it == names.end())
            it = names.emplace(nameId, b.intern(withoutVersion(stringText(nameId)))).first;
        EventKeys keys;
        ArgsRef args;
        if (!s.isNull(3)) {
            keys.correlation = s.i64(3);
            args = b.storeArgs("{\"correlation\":" + std::to_string(keys.correlation) + "}");
        }
        b.addComplete(b.track(b.id(pid), b.id(tid)), s.i64(0), s.i64(1) - s.i64(0), it->second, cat, args, keys);
    }
}

void NsysReader::readKernels()
{
    if (!m_tables.count(kKernel))
        return;
    TraceBuilder &b = *m_builder;
    const StrId cat = b.internCategory(category::kKernel);
    // A collective's process group is not in the export. Each rank runs a
    // communicator's kernels on a stream of its own, in the same order: the
    // k-th stream of a device to run NCCL kernels (by its first one) stands for
    // the group on every rank, so that the job analysis can match them.
    std::map<std::pair<int64_t, int64_t>, int> groupOf;
    {
        std::string where = pidFilter("k.globalPid");
        where += where.empty() ? " WHERE" : " AND";
        Stmt q(m_db, std::string("SELECT k.deviceId, k.streamId, min(k.start) FROM ") + kKernel +
                         " k JOIN StringIds s ON s.id = k.shortName" + where +
                         " (lower(s.value) LIKE '%nccl%' OR lower(s.value) LIKE '%rccl%')"
                         " GROUP BY k.deviceId, k.streamId ORDER BY 3, 1, 2");
        std::map<int64_t, int> perDevice;
        while (q.step())
            groupOf.emplace(std::make_pair(q.i64(0), q.i64(1)), ++perDevice[q.i64(0)]);
    }
    std::unordered_map<int64_t, bool> collective; // shortName id -> an NCCL kernel
    Stmt s(m_db,
           std::string("SELECT start, end, deviceId, streamId, correlationId, demangledName, shortName FROM ") +
               kKernel + pidFilter("globalPid"));
    while (s.step()) {
        tick();
        EventKeys keys;
        keys.device = s.i64(2);
        keys.stream = s.i64(3);
        m_args = "{\"device\":" + std::to_string(keys.device) + ",\"stream\":" + std::to_string(keys.stream);
        if (!s.isNull(4)) {
            keys.correlation = s.i64(4);
            m_args += ",\"correlation\":" + std::to_string(keys.correlation);
        }
        auto g = groupOf.find({keys.device, keys.stream});
        if (g != groupOf.end()) {
            const int64_t shortId = s.i64(6);
            auto c = collective.find(shortId);
            if (c == collective.end()) {
                std::string lower(stringText(shortId));
                for (char &ch : lower)
                    ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
                c = collective
                        .emplace(shortId, lower.find("nccl") != std::string::npos ||
                                              lower.find("rccl") != std::string::npos)
                        .first;
            }
            if (c->second)
                m_args += ",\"Process Group Name\":\"nccl stream #" + std::to_string(g->second) + "\"";
        }
        m_args += "}";
        const StrId name = !s.isNull(5) ? string(s.i64(5)) : string(s.i64(6));
        b.addComplete(gpuTrack(keys.device, keys.stream), s.i64(0), s.i64(1) - s.i64(0), name, cat,
                      b.storeArgs(m_args), keys);
    }
}

void NsysReader::readMemcpys()
{
    if (!m_tables.count(kMemcpy))
        return;
    TraceBuilder &b = *m_builder;
    const StrId cat = b.internCategory(category::kMemcpy);
    const std::set<std::string> cols = m_db.columns(kMemcpy);
    const bool kinds = cols.count("srcKind") && cols.count("dstKind");
    if (!kinds)
        b.warn("the export's copies have no source and destination memory kinds (srcKind, dstKind): pageable "
               "copies cannot be told apart from pinned ones");
    Stmt s(m_db, std::string("SELECT start, end, deviceId, streamId, correlationId, bytes, copyKind") +
                     (kinds ? ", srcKind, dstKind" : "") + " FROM " + kMemcpy + pidFilter("globalPid"));
    std::map<std::tuple<int64_t, int64_t, int64_t>, StrId> names;
    while (s.step()) {
        tick();
        EventKeys keys;
        keys.device = s.i64(2);
        keys.stream = s.i64(3);
        keys.bytes = s.i64(5);
        const int64_t copy = s.i64or(6, 0);
        const int64_t src = kinds ? s.i64or(7, 7) : 7, dst = kinds ? s.i64or(8, 7) : 7;
        auto it = names.find({copy, src, dst});
        if (it == names.end())
            it = names
                     .emplace(std::make_tuple(copy, src, dst),
                              b.intern("Memcpy " + copyKindText(copy) + " (" + memKindText(src) + " -> " +
                                       memKindText(dst) + ")"))
                     .first;
        m_args = "{\"device\":" + std::to_string(keys.device) + ",\"stream\":" + std::to_string(keys.stream);
        if (!s.isNull(4)) {
            keys.correlation = s.i64(4);
            m_args += ",\"correlation\":" + std::to_string(keys.correlation);
        }
        m_args += ",\"bytes\":" + std::to_string(keys.bytes) + "}";
        b.addComplete(gpuTrack(keys.device, keys.stream), s.i64(0), s.i64(1) - s.i64(0), it->second, cat,
                      b.storeArgs(m_args), keys);
    }
}

void NsysReader::readMemsets()
{
    if (!m_tables.count(kMemset))
        return;
    TraceBuilder &b = *m_builder;
    const StrId cat = b.internCategory(category::kMemset);
    const bool kinds = m_db.columns(kMemset).count("memKind") > 0;
    Stmt s(m_db, std::string("SELECT start, end, deviceId, streamId, correlationId, bytes") +
                     (kinds ? ", memKind" : "") + " FROM " + kMemset + pidFilter("globalPid"));
    std::map<int64_t, StrId> names;
    while (s.step()) {
        tick();
        EventKeys keys;
        keys.device = s.i64(2);
        keys.stream = s.i64(3);
        keys.bytes = s.i64(5);
        const int64_t kind = kinds ? s.i64or(6, 2) : 2;
        auto it = names.find(kind);
        if (it == names.end())
            it = names.emplace(kind, b.intern("Memset (" + memKindText(kind) + ")")).first;
        m_args = "{\"device\":" + std::to_string(keys.device) + ",\"stream\":" + std::to_string(keys.stream);
        if (!s.isNull(4)) {
            keys.correlation = s.i64(4);
            m_args += ",\"correlation\":" + std::to_string(keys.correlation);
        }
        m_args += ",\"bytes\":" + std::to_string(keys.bytes) + "}";
        b.addComplete(gpuTrack(keys.device, keys.stream), s.i64(0), s.i64(1) - s.i64(0), it->second, cat,
                      b.storeArgs(m_args), keys);
    }
}

void NsysReader::readSyncs()
{
    if (!m_tables.count(kSync))
        return;
    TraceBuilder &b = *m_builder;
    const StrId cat = b.internCategory(category::kCudaSync);
    // The event records a wait or an event sync names: (stream, correlation of
    // the record call) by eventSyncId, where the export has them.
    struct Record {
        int64_t stream, correlation;
    };
    std::unordered_map<int64_t, Record> records;
    const std::set<std::string> syncCols = m_db.columns(kSync);
    const bool linked = syncCols.count("eventSyncId") > 0;
    if (linked && m_tables.count(kCudaEvent)) {
        const std::set<std::string> cols = m_db.columns(kCudaEvent);
        if (cols.count("eventSyncId") && cols.count("streamId") && cols.count("correlationId")) {
            Stmt r(m_db, std::string("SELECT eventSyncId, streamId, correlationId FROM ") + kCudaEvent +
                             pidFilter("globalPid"));
            while (r.step()) {
                tick();
                if (!r.isNull(0) && !r.isNull(2))
                    records.emplace(r.i64(0), Record{r.i64(1), r.i64(2)});
            }
        }
    }
    static const char *const kinds[] = {nullptr, "Event Sync", "Stream Wait Event", "Stream Sync", "Context Sync"};
    StrId kindIds[5] = {};
    for (int k = 1; k < 5; ++k)
        kindIds[k] = b.intern(kinds[k]);
    Stmt s(m_db, std::string("SELECT start, end, deviceId, streamId, correlationId, syncType") +
                     (linked ? ", eventSyncId" : "") + " FROM " + kSync + pidFilter("globalPid"));
    uint64_t unlinkedWaits = 0;
    while (s.step()) {
        tick();
        const int64_t type = s.i64(5);
        if (type < 1 || type > 4)
            continue;
        EventKeys keys;
        keys.device = s.i64(2);
        keys.stream = s.i64(3);
        keys.syncKind = kindIds[type];
        const Record *rec = nullptr;
        if ((type == 1 || type == 2) && linked && !s.isNull(6)) {
            auto it = records.find(s.i64(6));
            if (it != records.end())
                rec = &it->second;
        }
        if (type == 2 && !rec) {
            // Without its record a wait names no stream: left out, so that the
            // replay infers the stream dependencies rather than find none.
            ++unlinkedWaits;
            continue;
        }
        m_args = std::string("{\"cuda_sync_kind\":\"") + kinds[type] +
                 "\",\"device\":" + std::to_string(keys.device) + ",\"stream\":" + std::to_string(keys.stream);
        if (!s.isNull(4)) {
            keys.correlation = s.i64(4);
            m_args += ",\"correlation\":" + std::to_string(keys.correlation);
        }
        if (rec)
            m_args += ",\"wait_on_stream\":" + std::to_string(rec->stream) +
                      ",\"wait_on_cuda_event_record_corr_id\":" + std::to_string(rec->correlation);
        m_args += "}";
        b.addComplete(gpuTrack(keys.device, keys.stream), s.i64(0), s.i64(1) - s.i64(0), kindIds[type], cat,
                      b.storeArgs(m_args), keys);
    }
    if (unlinkedWaits > 0)
        b.warn(std::to_string(unlinkedWaits) +
               " stream waits have no event record in the export (CUPTI_ACTIVITY_KIND_CUDA_EVENT): the replay "
               "infers the stream dependencies");
}

void NsysReader::readNvtx()
{
    if (!m_tables.count(kNvtx))
        return;
    TraceBuilder &b = *m_builder;
    const bool domains = m_db.columns(kNvtx).count("domainId") > 0;
    const StrId opCat = b.internCategory(category::kCpuOp);
    const StrId annotationCat = b.internCategory(category::kUserAnnotation);
    std::string where = pidFilter("globalTid");
    where += where.empty() ? " WHERE" : " AND";
    where += " eventType = 59 AND end IS NOT NULL";
    Stmt s(m_db, std::string("SELECT start, end, globalTid, text, textId") + (domains ? ", domainId" : "") +
                     " FROM " + kNvtx + where);
    std::unordered_map<int64_t, std::string> registered;
    std::string text;
    while (s.step()) {
        tick();
        const int64_t g = s.i64or(2, 0);
        const int64_t pid = (g >> 24) & kPidMask, tid = g & kPidMask;
        if (!s.isNull(3))
            text.assign(s.text(3));
        else if (!s.isNull(4))
            text.assign(stringText(s.i64(4)));
        else
            continue;
        const RangeText r = parseRange(text);
        // The default domain is PyTorch's (emit_nvtx, record_function); a
        // library's own domain (NCCL's) gives annotations.
        const bool op = !domains || s.i64or(5, 0) == 0;
        m_args.clear();
        EventKeys keys;
        if (r.seq != kNoValue) {
            const std::string seq = std::to_string(r.seq);
            m_args = "\"Sequence number\":" + seq;
            keys.sequence = argIntText(seq).value_or(kNoValue);
        }
        const ArgsRef args = m_args.empty() ? ArgsRef{} : b.storeArgs("{" + m_args + "}");
        b.addComplete(b.track(b.id(pid), b.id(tid)), s.i64(0), s.i64(1) - s.i64(0), b.intern(r.name),
                      op ? opCat : annotationCat, args, keys);
    }
}

// OS runtime calls (read, ioctl, pthread_cond_wait, ...): drawn on their
// thread, a category of their own that the analysis gives no meaning.
void NsysReader::readOsrt()
{
    if (!m_tables.count(kOsrt))
        return;
    TraceBuilder &b = *m_builder;
    const std::set<std::string> cols = m_db.columns(kOsrt);
    for (const char *c : {"start", "end", "globalTid", "nameId"})
        if (!cols.count(c)) {
            b.warn(std::string("the export's OSRT_API table has no column \"") + c +
                   "\": its OS runtime calls were left out");
            return;
        }
    const StrId cat = b.internCategory(category::kOsRuntime);
    std::unordered_map<int64_t, StrId> names;
    Stmt s(m_db, std::string("SELECT start, end, globalTid, nameId FROM ") + kOsrt + pidFilter("globalTid"));
    while (s.step()) {
        tick();
        if (s.isNull(2))
            continue;
        const int64_t g = s.i64(2);
        const int64_t nameId = s.i64(3);
        auto it = names.find(nameId);
        if (it == names.end())
            it = names.emplace(nameId, string(nameId)).first;
        b.addComplete(b.track(b.id((g >> 24) & kPidMask), b.id(g & kPidMask)), s.i64(0), s.i64(1) - s.i64(0),
                      it->second, cat);
    }
}

void NsysReader::readNames()
{
    TraceBuilder &b = *m_builder;
    if (m_tables.count("PROCESSES") && m_db.columns("PROCESSES").count("pid")) {
        Stmt s(m_db, "SELECT pid, name FROM PROCESSES");
        while (s.step())
            if (!s.isNull(0) && !s.isNull(1) && m_hostPids.count(s.i64(0)))
                b.setProcessName(b.id(s.i64(0)), b.intern(s.text(1)));
    }
    for (int64_t d : m_devices)
        b.setProcessName(b.id(d), b.intern("GPU " + std::to_string(d)));
    if (m_tables.count("ThreadNames")) {
        Stmt s(m_db, std::string("SELECT globalTid, nameId FROM ThreadNames") + pidFilter("globalTid"));
        while (s.step()) {
            if (s.isNull(0))
                continue;
            const int64_t g = s.i64(0);
            const int64_t pid = (g >> 24) & kPidMask;
            if (m_hostPids.count(pid))
                b.setThreadName(b.track(b.id(pid), b.id(g & kPidMask)), string(s.i64(1)));
        }
    }
}

TraceModelPtr NsysReader::run()
{
    m_lastProgress = std::chrono::steady_clock::now();
    checkExport();
    for (const char *t : {kRuntime, kKernel, kMemcpy, kMemset, kSync, kNvtx, kOsrt})
        m_total += rowEstimate(t);
    readRuntime();
    readNvtx();
    readOsrt();
    // The host pids seen so far are those of the calls and ranges read.
    readKernels();
    readMemcpys();
    readMemsets();
    readSyncs();
    readNames();
    if (m_pid != kNoValue && m_builder->eventCount() == 0)
        throw Error(m_name + ": the export has no events of process " + std::to_string(m_pid) + ".");
    if (m_progress)
        m_progress(0.95, "sorting events");
    const ProgressFn &outer = m_progress;
    ProgressFn inner;
    if (outer)
        inner = [&outer](double f, const char *msg) { outer(0.95 + 0.05 * f, msg); };
    return m_builder->finish(inner, m_cancel);
}

// --- reports: exported with the nsys on PATH -------------------------------

std::string findOnPath(const std::string &program)
{
    const char *path = std::getenv("PATH");
    if (!path)
        return "";
    std::string dirs(path);
    size_t start = 0;
    while (start <= dirs.size()) {
        size_t end = dirs.find(':', start);
        if (end == std::string::npos)
            end = dirs.size();
        std::string dir = dirs.substr(start, end - start);
        if (dir.empty())
            dir = ".";
        const std::string candidate = dir + "/" + program;
        if (::access(candidate.c_str(), X_OK) == 0)
            return candidate;
        start = end + 1;
    }
    return "";
}

// A report's SQLite export in a temporary folder of its own, removed with it.
class ReportExport {
public:
    ReportExport(const std::string &report, const CancelToken *cancel)
    {
        if (!fileExists(report))
            throw Error(report + ": no such file.");
        const std::string nsys = findOnPath("nsys");
        if (nsys.empty())
            throw Error(report +
                        ": an Nsight Systems report is read from its SQLite export and nsys is not on "
                        "PATH; export it with `nsys export --type sqlite --output REPORT.sqlite " +
                        report + "` and open the .sqlite file.");
        const char *tmp = std::getenv("TMPDIR");
        std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/syncscope-nsys-XXXXXX";
        std::vector<char> buf(templ.begin(), templ.end());
        buf.push_back('\0');
        if (!::mkdtemp(buf.data()))
            throw Error(report + ": cannot make a temporary folder for its SQLite export (" +
                        std::strerror(errno) + ").");
        m_dir = buf.data();
        m_path = m_dir + "/export.sqlite";
        std::vector<std::string> argv = {nsys, "export", "--type", "sqlite", "--output", m_path, report};
        std::vector<char *> args;
        for (std::string &a : argv)
            args.push_back(a.data());
        args.push_back(nullptr);
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0); // its stdout is not ours
        pid_t child = 0;
        const int rc = posix_spawn(&child, nsys.c_str(), &actions, nullptr, args.data(), environ);
        posix_spawn_file_actions_destroy(&actions);
        if (rc != 0) {
            cleanup();
            throw Error(report + ": nsys could not be started to export it (" + std::strerror(rc) + ").");
        }
        int status = 0;
        for (;;) {
            const pid_t w = ::waitpid(child, &status, WNOHANG);
            if (w == child)
                break;
            if (cancel && cancel->cancelled()) {
                ::kill(child, SIGTERM);
                ::waitpid(child, &status, 0);
                cleanup();
                throw Cancelled();
            }
            ::usleep(20000);
        }
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !fileExists(m_path)) {
            cleanup();
            throw Error(report + ": `nsys export --type sqlite` failed on it (exit status " +
                        std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ").");
        }
    }
    ~ReportExport() { cleanup(); }
    ReportExport(const ReportExport &) = delete;
    ReportExport &operator=(const ReportExport &) = delete;
    const std::string &path() const { return m_path; }

private:
    void cleanup()
    {
        if (!m_path.empty())
            ::unlink(m_path.c_str());
        if (!m_dir.empty())
            ::rmdir(m_dir.c_str());
        m_path.clear();
        m_dir.clear();
    }
    std::string m_dir, m_path;
};

// Live exports by report path: a "REPORT.nsys-rep#PID" load reads the export
// an expansion made instead of exporting again.
std::mutex g_exportsMutex;
std::map<std::string, std::weak_ptr<ReportExport>> g_exports;

std::shared_ptr<ReportExport> exportOf(const std::string &report, const CancelToken *cancel)
{
    {
        std::lock_guard<std::mutex> lock(g_exportsMutex);
        auto it = g_exports.find(report);
        if (it != g_exports.end())
            if (auto live = it->second.lock())
                return live;
    }
    auto made = std::make_shared<ReportExport>(report, cancel);
    std::lock_guard<std::mutex> lock(g_exportsMutex);
    g_exports[report] = made;
    return made;
}

} // namespace

bool isNsysInput(const std::string &path)
{
    std::string file;
    int64_t pid;
    splitProcess(path, file, pid);
    return isReportPath(file) || hasSqliteHeader(file);
}

TraceModelPtr loadNsysTrace(const std::string &path, const ProgressFn &progress, const CancelToken *cancel)
{
    std::string file;
    int64_t pid;
    splitProcess(path, file, pid);
    std::shared_ptr<ReportExport> exported;
    if (isReportPath(file)) {
        exported = exportOf(file, cancel);
        file = exported->path();
    }
    NsysReader reader(file, path, pid, progress, cancel);
    try {
        return reader.run();
    } catch (const std::bad_alloc &) {
        throw Error(path + ": ran out of memory while loading the Nsight Systems export.");
    }
}

std::vector<int64_t> nsysGpuProcesses(const std::string &sqlitePath)
{
    Db db(sqlitePath, sqlitePath);
    std::set<std::string> tables;
    {
        Stmt t(db, "SELECT name FROM sqlite_master WHERE type = 'table'");
        while (t.step())
            tables.emplace(t.text(0));
    }
    std::string sql;
    for (const char *t : {kKernel, kMemcpy, kMemset}) {
        if (!tables.count(t) || !db.columns(t).count("globalPid"))
            continue;
        if (!sql.empty())
            sql += " UNION ";
        sql += std::string("SELECT DISTINCT (globalPid >> 24) & ") + std::to_string(kPidMask) + " FROM " + t +
               " WHERE globalPid IS NOT NULL";
    }
    std::vector<int64_t> out;
    if (sql.empty())
        return out;
    Stmt s(db, sql + " ORDER BY 1");
    while (s.step())
        out.push_back(s.i64(0));
    return out;
}

TraceInputs expandTraceInputs(const std::vector<std::string> &paths, const CancelToken *cancel)
{
    TraceInputs out;
    for (const std::string &p : paths) {
        std::string file;
        int64_t pid;
        splitProcess(p, file, pid);
        if (pid != kNoValue || !isNsysInput(p)) {
            out.paths.push_back(p);
            continue;
        }
        std::string sqlite = file;
        if (isReportPath(file)) {
            auto e = exportOf(file, cancel);
            sqlite = e->path();
            out.exports.push_back(e);
        }
        std::vector<int64_t> pids;
        try {
            pids = nsysGpuProcesses(sqlite);
        } catch (const Error &) {
            pids.clear(); // the load says what is wrong with the file
        }
        if (pids.size() < 2) {
            out.paths.push_back(p);
            continue;
        }
        for (int64_t pid : pids)
            out.paths.push_back(p + "#" + std::to_string(pid));
    }
    return out;
}

} // namespace syncscope
