// The Nsight Systems loader on hand-made exports: what each table becomes in
// the model, exact ns, one process per "#PID", progress, cancel, and the
// sentences for input that is not an export.
#include "trace/nsysloader.h"
#include "trace/traceloader.h"

#include "common/error.h"
#include "trace/argfield.h"
#include "testutil.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>
#include <vector>

namespace syncscope {
namespace {

using test::findEvent;

int64_t gtid(int64_t pid, int64_t tid) { return (pid << 24) | tid; }

void exec(sqlite3 *db, const std::string &sql)
{
    char *err = nullptr;
    ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "") << "\n" << sql;
}

// Two processes (100 on device 0, 200 on device 1), each with a launch, a
// pageable copy, a stream sync and PyTorch NVTX ranges; `extraCalls` more
// runtime rows on process 100 for the progress and cancel tests.
std::string makeExport(const std::string &dir, int extraCalls = 0)
{
    const std::string path = dir + "/two.sqlite";
    sqlite3 *db = nullptr;
    EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    exec(db,
         "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
         "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, globalTid INTEGER,"
         " correlationId INTEGER, nameId INTEGER);"
         "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER,"
         " streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, shortName INTEGER);"
         "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER,"
         " correlationId INTEGER, globalPid INTEGER, bytes INTEGER, copyKind INTEGER, srcKind INTEGER,"
         " dstKind INTEGER);"
         "CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER, end INTEGER, deviceId INTEGER,"
         " streamId INTEGER, correlationId INTEGER, globalPid INTEGER, syncType INTEGER, eventSyncId INTEGER);"
         "CREATE TABLE CUPTI_ACTIVITY_KIND_CUDA_EVENT (deviceId INTEGER, streamId INTEGER, correlationId INTEGER,"
         " globalPid INTEGER, eventId INTEGER, eventSyncId INTEGER);"
         "CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, eventType INTEGER, text TEXT, globalTid INTEGER,"
         " textId INTEGER, domainId INTEGER);"
         "CREATE TABLE OSRT_API (start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER,"
         " correlationId INTEGER, nameId INTEGER, returnValue INTEGER, nestingLevel INTEGER,"
         " callchainId INTEGER);"
         "INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), (2, 'cudaMemcpyAsync_v3020'),"
         " (3, 'cudaStreamSynchronize_v3020'), (4, 'void gemm<float>(float*)'), (5, 'gemm'),"
         " (6, 'aten::mm, seq = 12, op_id = 34'), (7, 'cudaStreamWaitEvent_v3020'),"
         " (8, 'cudaEventRecord_v3020'), (9, 'cudaStreamGetCaptureInfo_v2_v11030'), (10, 'ioctl');");
    for (int64_t pid : {100, 200}) {
        const int64_t dev = pid == 100 ? 0 : 1, t = gtid(pid, pid + 1), g = pid << 24, c = pid * 10;
        const std::string P = std::to_string(pid), T = std::to_string(t), G = std::to_string(g);
        const std::string D = std::to_string(dev);
        auto corr = [&](int k) { return std::to_string(c + k); };
        exec(db, "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES"
                 " (1000000000001, 1000000000501, " +
                     T + ", " + corr(1) +
                     ", 1),"
                     " (1000000001000, 1000000001400, " +
                     T + ", " + corr(5) +
                     ", 8),"
                     " (1000000001500, 1000000001700, " +
                     T + ", " + corr(6) +
                     ", 7),"
                     " (1000000002000, 1000000003000, " +
                     T + ", " + corr(2) +
                     ", 2),"
                     " (1000000004000, 1000000009000, " +
                     T + ", " + corr(3) +
                     ", 3),"
                     " (1000000009100, 1000000009200, " +
                     T +
                     ", NULL, 9);"
                     "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1000000000600, 1000000003500, " +
                     D + ", 7, " + corr(1) + ", " + G +
                     ", 4, 5);"
                     "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (1000000003600, 1000000003900, " +
                     D + ", 7, " + corr(2) + ", " + G +
                     ", 4096, 1, 0, 2);"
                     "INSERT INTO CUPTI_ACTIVITY_KIND_CUDA_EVENT VALUES (" +
                     D + ", 7, " + corr(5) + ", " + G +
                     ", 1, 77);"
                     "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES"
                     " (1000000004100, 1000000008900, " +
                     D + ", 7, " + corr(3) + ", " + G +
                     ", 3, NULL),"
                     " (1000000001600, 1000000001600, " +
                     D + ", 9, " + corr(6) + ", " + G +
                     ", 2, 77),"
                     " (1000000001650, 1000000001650, " +
                     D + ", 9, " + corr(7) + ", " + G +
                     ", 2, 78);"
                     "INSERT INTO OSRT_API VALUES (1000000004200, 1000000008800, 0, " +
                     T +
                     ", 0, 10, 0, 0, NULL);"
                     "INSERT INTO NVTX_EVENTS VALUES"
                     " (1000000000000, 1000000009500, 59, NULL, " +
                     T +
                     ", 6, 0),"
                     " (1000000001900, 1000000003100, 59, 'aten::copy_, seq = 46174, op_id = 993406', " +
                     T +
                     ", NULL, 0),"
                     " (1000000001950, 1000000002950, 59, 'ncclSend', " +
                     T +
                     ", NULL, 1),"
                     " (1000000009600, NULL, 59, 'never closed', " +
                     T + ", NULL, 0);");
        (void)P;
    }
    exec(db, "BEGIN");
    for (int i = 0; i < extraCalls; ++i)
        exec(db, "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (" + std::to_string(2000000000000 + 10 * i) +
                     ", " + std::to_string(2000000000005 + 10 * i) + ", " + std::to_string(gtid(100, 101)) +
                     ", NULL, 1)");
    exec(db, "COMMIT");
    sqlite3_close(db);
    return path;
}

struct Found {
    Track track;
    size_t index;
};

Found find(const TraceModel &m, std::string_view name)
{
    size_t t = 0, i = 0;
    EXPECT_TRUE(findEvent(m, name, t, i)) << name;
    return {m.tracks()[t], i};
}

TEST(NsysLoader, TablesBecomeTheModelKinetoGives)
{
    const std::string path = makeExport(test::freshDir("nsys"));
    ASSERT_TRUE(isNsysInput(path));
    const TraceModelPtr m = loadTrace(path + "#100");
    EXPECT_EQ(m->info().format, "sqlite");
    EXPECT_EQ(m->info().path, path + "#100");

    // Runtime calls: the name without its version, on (pid, tid), exact ns.
    Found call = find(*m, "cudaStreamSynchronize");
    EXPECT_EQ(call.track.pid.num, 100);
    EXPECT_EQ(call.track.tid.num, 101);
    EXPECT_EQ(call.track.start[call.index], 1000000004000);
    EXPECT_EQ(call.track.dur[call.index], 5000);
    EXPECT_EQ(call.track.correlation[call.index], 1003);
    EXPECT_EQ(m->str(call.track.cat[call.index]), "cuda_runtime");
    size_t t, i;
    EXPECT_TRUE(findEvent(*m, "cudaStreamGetCaptureInfo_v2", t, i)); // only the last suffix goes
    EXPECT_FALSE(findEvent(*m, "cudaMemcpyAsync_v3020", t, i));

    // GPU activity on (device, stream), the copy named as Kineto names it.
    Found kernel = find(*m, "void gemm<float>(float*)");
    EXPECT_EQ(kernel.track.pid.num, 0);
    EXPECT_EQ(kernel.track.tid.num, 7);
    EXPECT_EQ(kernel.track.device[kernel.index], 0);
    EXPECT_EQ(kernel.track.stream[kernel.index], 7);
    EXPECT_EQ(kernel.track.correlation[kernel.index], 1001);
    Found copy = find(*m, "Memcpy HtoD (Pageable -> Device)");
    EXPECT_EQ(copy.track.bytes[copy.index], 4096);
    EXPECT_EQ(m->str(copy.track.cat[copy.index]), "gpu_memcpy");

    // Syncs: cuda_sync records; a wait names its record's stream, a wait
    // without one is left out (and said).
    Found sync = find(*m, "Stream Sync");
    EXPECT_EQ(m->str(sync.track.cat[sync.index]), "cuda_sync");
    EXPECT_EQ(m->str(sync.track.syncKind[sync.index]), "Stream Sync");
    EXPECT_EQ(sync.track.correlation[sync.index], 1003);
    Found wait = find(*m, "Stream Wait Event");
    const std::string_view args = m->args(wait.track.args[wait.index]);
    EXPECT_EQ(argInt(args, "wait_on_stream").value_or(-1), 7);
    EXPECT_EQ(argInt(args, "wait_on_cuda_event_record_corr_id").value_or(-1), 1005);
    EXPECT_EQ(wait.track.stream[wait.index], 9);
    ASSERT_EQ(m->warnings().count, 1u);
    EXPECT_NE(m->warnings().first[0].find("1 stream waits have no event record"), std::string::npos);

    // NVTX ranges: PyTorch's ops with their sequence number, nested; another
    // domain's ranges are annotations; an open range is left out.
    Found op = find(*m, "aten::copy_");
    EXPECT_EQ(m->str(op.track.cat[op.index]), "cpu_op");
    EXPECT_EQ(argInt(m->args(op.track.args[op.index]), "Sequence number").value_or(-1), 46174);
    EXPECT_EQ(m->str(op.track.name[static_cast<size_t>(op.track.parent[op.index])]), "aten::mm");
    Found nccl = find(*m, "ncclSend");
    EXPECT_EQ(m->str(nccl.track.cat[nccl.index]), "user_annotation");
    EXPECT_FALSE(findEvent(*m, "never closed", t, i));

    // OS runtime calls on their thread, inside the call that made them.
    Found os = find(*m, "ioctl");
    EXPECT_EQ(m->str(os.track.cat[os.index]), "os_runtime");
    EXPECT_EQ(os.track.tid.num, 101);
    EXPECT_EQ(os.track.dur[os.index], 4600);
    EXPECT_EQ(m->str(os.track.name[static_cast<size_t>(os.track.parent[os.index])]), "cudaStreamSynchronize");

    // Only process 100's events.
    for (const Track &tr : m->tracks())
        EXPECT_NE(tr.pid.num, 200);
}

TEST(NsysLoader, EachGpuProcessIsARank)
{
    const std::string path = makeExport(test::freshDir("nsys"));
    EXPECT_EQ(nsysGpuProcesses(path), (std::vector<int64_t>{100, 200}));
    const TraceInputs in = expandTraceInputs({path, test::dataPath("bare_array.json")});
    EXPECT_EQ(in.paths,
              (std::vector<std::string>{path + "#100", path + "#200", test::dataPath("bare_array.json")}));
    const std::vector<TraceModelPtr> models = loadTraces({path});
    ASSERT_EQ(models.size(), 2u);
    EXPECT_EQ(models[1]->info().path, path + "#200");
    size_t t, i;
    ASSERT_TRUE(findEvent(*models[1], "Memcpy HtoD (Pageable -> Device)", t, i));
    EXPECT_EQ(models[1]->tracks()[t].pid.num, 1); // device 1
    // A process the export does not have is an error, not an empty trace.
    EXPECT_THROW(loadTrace(path + "#300"), Error);
    // The whole file: both processes in one model.
    const TraceModelPtr all = loadTrace(path);
    EXPECT_EQ(all->counts().durationEvents,
              models[0]->counts().durationEvents + models[1]->counts().durationEvents);
}

TEST(NsysLoader, ReportsProgressAndStopsOnCancel)
{
    const std::string path = makeExport(test::freshDir("nsys"), 20000);
    std::vector<double> seen;
    const TraceModelPtr m = loadTrace(path, [&](double f, const char *) { seen.push_back(f); });
    ASSERT_FALSE(seen.empty());
    for (size_t k = 1; k < seen.size(); ++k)
        EXPECT_LE(seen[k - 1], seen[k]);
    EXPECT_GE(seen.back(), 0.95);
    CancelToken cancel;
    cancel.cancel();
    EXPECT_THROW(loadTrace(path, {}, &cancel), Cancelled);
}

TEST(NsysLoader, BadInputIsOneSentenceNamingTheFile)
{
    const std::string dir = test::freshDir("nsys");
    const std::string other = dir + "/other.sqlite";
    sqlite3 *db = nullptr;
    ASSERT_EQ(sqlite3_open(other.c_str(), &db), SQLITE_OK);
    exec(db, "CREATE TABLE notes (body TEXT)");
    sqlite3_close(db);
    try {
        loadTrace(other);
        FAIL() << "loaded";
    } catch (const Error &e) {
        EXPECT_NE(std::string(e.what()).find(other + ": an SQLite database but not an Nsight Systems export"),
                  std::string::npos)
            << e.what();
    }
    const std::string older = makeExport(dir);
    ASSERT_EQ(sqlite3_open(older.c_str(), &db), SQLITE_OK);
    exec(db, "ALTER TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION RENAME COLUMN syncType TO deprecatedSyncType");
    sqlite3_close(db);
    try {
        loadTrace(older);
        FAIL() << "loaded";
    } catch (const Error &e) {
        EXPECT_NE(
            std::string(e.what()).find("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION table has no column \"syncType\""),
            std::string::npos)
            << e.what();
    }
}

} // namespace
} // namespace syncscope
