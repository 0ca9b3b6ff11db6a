// Rank summaries: every field survives the file, and a file that is not a
// summary, of another version, truncated or damaged is refused with one
// sentence that names it.
#include "analysis/ranksummary.h"
#include "common/error.h"
#include "testutil.h"
#include "trace/traceloader.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <fstream>
#include <tuple>
#include <unistd.h>

namespace syncscope {

// Field-by-field equality, written out here so that a field the format drops
// shows up as a difference.
#define SAME(T, ...)                                                                                              \
    bool operator==(const T &a, const T &b)                                                                       \
    {                                                                                                             \
        auto tie = [](const T &x) { return std::tie(__VA_ARGS__); };                                              \
        return tie(a) == tie(b);                                                                                  \
    }
SAME(ReportId, x.num, x.text)
SAME(ReportWarningKind, x.pattern, x.example, x.count)
SAME(ReportLimit, x.kind, x.text)
SAME(ReportDevice, x.device, x.name, x.kernels, x.memcpys, x.memsets, x.first, x.last, x.busy, x.syncGap,
     x.avoidable, x.limitedBy)
SAME(ReportSyncCall, x.name, x.start, x.dur, x.pid, x.tid, x.op, x.rootOp, x.pyFrame, x.userFrame, x.pageableCopy,
     x.blocks, x.avoidable, x.step, x.advice)
SAME(ReportCudaSyncEvent, x.kind, x.start, x.dur, x.device, x.stream)
SAME(ReportStreamWait, x.device, x.stream, x.waitOnStream, x.fromCorrelation, x.toCorrelation)
SAME(ReportHandoff, x.fromTid, x.toTid, x.at, x.back)
SAME(Interval, x.start, x.end)
SAME(SyncGap, x.device, x.interval, x.syncCall, x.blocked, x.avoidable, x.step)
SAME(IdleBreakdown, x.device, x.stream, x.hostWait, x.kernelWait, x.other)
SAME(ReportStep, x.name, x.start, x.end)
SAME(StepDeviceStats, x.step, x.device, x.gpuBusy, x.syncGaps, x.syncGapTime, x.avoidable)
SAME(ReportSource, x.sync, x.op, x.userFrame, x.count, x.gaps, x.gapTime, x.avoidable, x.avoidableByDevice,
     x.advice, x.adviceCalls, x.limitedBy)
SAME(NamedOpStat, x.name, x.cat, x.count, x.total, x.self, x.min, x.max, x.gpuCount, x.gpuTime)
SAME(RuntimeUse, x.runtime, x.cudaCalls, x.hipCalls, x.otherCalls, x.namesSeen, x.distinctNames)
SAME(FileReport, x.path, x.format, x.rank, x.torchVersion, x.truncated, x.truncatedAtByte, x.unevenCut,
     x.durationEvents, x.flows, x.instants, x.counters, x.minTime, x.maxTime, x.warnings, x.warningKinds,
     x.categories, x.runtime, x.unplacedActivities, x.devices, x.syncCalls, x.longCalls, x.cudaSyncEvents,
     x.waitMode, x.streamDependencies, x.streamWaits, x.threadMode, x.handoffs, x.syncGaps, x.idleBreakdown,
     x.steps, x.stepStats, x.sources, x.ops)
SAME(ReplayActivity, x.device, x.stream, x.start, x.end, x.correlation)
SAME(ReplayLaunch, x.thread, x.start, x.end, x.correlation)
SAME(ReplayBlocking, x.thread, x.start, x.end, x.kind, x.stream, x.device, x.cut)
SAME(ReplayHandoff, x.from, x.to, x.at, x.back)
SAME(StreamDependency, x.activity, x.on)
SAME(CollectiveKernel, x.activity, x.group, x.name, x.seq)
SAME(ReplayInput, x.deviceIds, x.streamIds, x.threads, x.activities, x.launches, x.calls, x.handoffs, x.threadMode,
     x.threadNames, x.deps, x.waitMode, x.collectives)
SAME(RankSource, x.sync, x.op, x.userFrame, x.hasOp, x.hasUserFrame, x.calls, x.advice, x.callAdvice)
SAME(RankStepWindow, x.name, x.start, x.end)
SAME(RankInput, x.rank, x.file, x.replay, x.sources, x.steps, x.localAvoidable)
SAME(AnalysisOptions, x.clockSkew, x.kernelWaitThreshold, x.libPrefixes, x.stepRegex, x.longCallThreshold)
#undef SAME

namespace {

using test::dataPath;

// Every field set, none to its default, with values at the ends of their types.
RankSummary everyField()
{
    RankSummary s;
    s.options.clockSkew = 12'345;
    s.options.kernelWaitThreshold = 67'890;
    s.options.libPrefixes = {"mylib/", "vendor/"};
    s.options.stepRegex = "^iter#\\d+$";
    s.options.longCallThreshold = 2'500'000;
    FileReport &r = s.report;
    r.path = "/data/rank 7.json.gz";
    r.format = "json.gz";
    r.rank = 7;
    r.torchVersion = "2.1.0+cu121";
    r.truncated = true;
    r.truncatedAtByte = UINT64_MAX - 1;
    r.durationEvents = 1'000'001;
    r.flows = 2;
    r.instants = 3;
    r.unevenCut = "runtime calls stop at 1.000 ms";
    r.counters = 4;
    r.minTime = 1'712'195'495'519'689'047;
    r.maxTime = INT64_MAX;
    r.warnings = 5;
    r.warningKinds = {{"pattern #", "example 1", 4}, {"other", "", 1}};
    r.categories = {{"kernel", 6}, {"cpu_op", 9}, {"", 1}};
    r.runtime.runtime = Runtime::Hip;
    r.runtime.cudaCalls = 1;
    r.runtime.hipCalls = 2;
    r.runtime.otherCalls = 3;
    r.runtime.namesSeen = {"hipLaunchKernel", "hipMemcpyAsync"};
    r.runtime.distinctNames = 4;
    r.unplacedActivities = 11;
    r.devices = {{0, "NVIDIA H200", 1, 2, 3, 10, 20, 5, 4, 3, {"gpu_busy", "the queue \xe2\x82\xac"}},
                 {-1, "", 7, 8, 9, -40, -30, 1, 2, 0, {}}};
    ReportSyncCall c;
    c.name = "cudaStreamSynchronize";
    c.start = -5;
    c.dur = 99;
    c.pid = {42, "42"};
    c.tid = {kNoValue, "stream 7"};
    c.op = "aten::item";
    c.rootOp = std::nullopt;
    c.pyFrame = "";
    c.userFrame = "train.py(42): step \xe2\x82\xac";
    c.pageableCopy = true;
    c.blocks = "copy";
    c.avoidable = 17;
    c.step = 1;
    c.advice = "item";
    r.syncCalls = {c, c};
    r.longCalls = {c};
    r.syncCalls[1].advice.clear();
    r.syncCalls[1].step = -1;
    r.syncCalls[1].op = std::nullopt;
    r.cudaSyncEvents = {{"Stream Wait Event", 1, 2, 0, kNoValue}, {"Event Sync", 3, 4, kNoValue, 13}};
    r.waitMode = WaitMode::Exact;
    r.streamDependencies = 2;
    r.streamWaits = {{0, 20, 7, 101, kNoValue}, {3, 21, 20, kNoValue, 102}};
    r.threadMode = ThreadMode::Frames;
    r.handoffs = {{{42, "42"}, {kNoValue, "engine"}, -3, INT64_MAX}, {{1, "1"}, {2, "2"}, 5, 6}};
    r.syncGaps = {{0, {100, 200}, 1, 50, 25, 0}, {-1, {300, 400}, 0, 5, 0, -1}};
    r.idleBreakdown = {{0, 7, 1, 2, 3}, {1, kNoValue, 4, 5, 6}};
    r.steps = {{"ProfilerStep#1", 0, 1000}, {"ProfilerStep#2", 1000, 2000}};
    r.stepStats = {{0, 0, 10, 1, 20, 30}, {1, -1, 11, 2, 21, 31}};
    r.sources = {{"cudaStreamSynchronize", std::string("aten::item"), std::nullopt, 2, 1, 50, 25, {25, 0}},
                 {"cudaDeviceSynchronize", std::nullopt, std::string("a.py(1)"), 1, 0, 0, 0, {INT64_MIN, 1}}};
    r.sources[0].advice = "item";
    r.sources[0].adviceCalls = 2;
    r.sources[1].limitedBy = {"resynchronized", "a kept call"};
    r.ops = {{"aten::mm", "cpu_op", 3, 30, 20, 5, 15, 2, 40},
             {"k", "kernel", 1, INT64_MAX, 0, INT64_MIN, 1, 0, 0}};

    RankInput &j = s.job;
    j.rank = 7;
    j.file = r.path;
    ReplayInput &p = j.replay;
    p.deviceIds = {0, 3};
    p.streamIds = {{0, 7}, {3, 20}, {3, 21}};
    p.threads = 2;
    p.activities = {{0, 0, 10, 20, 100}, {1, 2, 15, 40, kNoValue}, {1, 1, 40, 50, 102}};
    p.launches = {{0, 5, 8, 100}, {1, 9, 12, 102}};
    p.calls = {{0, 30, 60, BlockKind::Event, 2, -1, 25}, {1, 70, 80, BlockKind::Device, -1, 1, kNoValue}};
    p.handoffs = {{0, 1, 61, 69}};
    p.threadMode = ThreadMode::Inferred;
    p.threadNames = {"main", "7"};
    p.deps = {{1, 0}, {2, 1}};
    p.waitMode = WaitMode::Exact;
    p.collectives = {{2, "default_pg", "ncclDevKernel_AllReduce_Sum_f32", 0}, {1, "stream 21", "ncclKernel", 4}};
    j.sources = {{"cudaStreamSynchronize", "aten::item", "", true, false, {0, 1}},
                 {"x", "", "", false, false, {}}};
    j.sources[0].advice = "item";
    j.sources[0].callAdvice = {"item", ""};
    j.steps = {{"ProfilerStep#1", 0, 1000}};
    j.localAvoidable = {25, 0};
    return s;
}

void expectSameSummary(const RankSummary &a, const RankSummary &b)
{
    EXPECT_TRUE(a.options == b.options);
    EXPECT_TRUE(a.report == b.report);
    EXPECT_TRUE(a.job == b.job);
}

// The message of the Error that decoding bytes throws ("" when none).
std::string refusal(const std::string &bytes, const std::string &name = "r.summary")
{
    try {
        decodeRankSummary(bytes, name);
    } catch (const Error &e) {
        return e.what();
    }
    return "";
}

void setLE(std::string &bytes, size_t at, uint64_t v, int n)
{
    for (int i = 0; i < n; ++i)
        bytes[at + size_t(i)] = char((v >> (8 * i)) & 0xff);
}

void fixCrc(std::string &bytes)
{
    const auto *body = reinterpret_cast<const Bytef *>(bytes.data() + 40);
    setLE(bytes, 36, crc32_z(0, body, bytes.size() - 40), 4);
}

} // namespace

TEST(RankSummary, EveryFieldRoundTrips)
{
    const RankSummary s = everyField();
    const std::string bytes = encodeRankSummary(s);
    expectSameSummary(decodeRankSummary(bytes, "r.summary"), s);
    // The origin of the job's sentences is its report's first event, not stored twice.
    EXPECT_EQ(decodeRankSummary(bytes, "r.summary").job.origin, s.report.minTime);
    // A changed field is seen (the comparison above can fail).
    RankSummary other = s;
    other.job.replay.deps[1].on = 0;
    EXPECT_FALSE(decodeRankSummary(encodeRankSummary(other), "r.summary").job == s.job);
    other = s;
    other.report.syncCalls[0].pyFrame = std::nullopt; // absent differs from ""
    EXPECT_FALSE(decodeRankSummary(encodeRankSummary(other), "r.summary").report == s.report);
}

TEST(RankSummary, APackedReportUnpacksFieldForField)
{
    const RankSummary s = everyField();
    const std::string packed = packReport(s.report);
    EXPECT_TRUE(unpackReport(packed) == s.report);
    // A trace's report.
    const auto model = loadTrace(dataPath("gpu_sync_gaps.json"));
    const FileReport r = makeFileReport(*model, analyzeSyncs(*model));
    ASSERT_FALSE(r.syncCalls.empty());
    const std::string bytes = packReport(r);
    EXPECT_TRUE(unpackReport(bytes) == r);
    EXPECT_THROW(unpackReport(bytes.substr(0, bytes.size() - 1)), Error);
}

TEST(RankSummary, JobOrderPutsTheRankedFilesFirstByRankThenTheOthersAsGiven)
{
    EXPECT_EQ(jobOrder({kNoValue, 3, 1, kNoValue, 2}), (std::vector<size_t>{2, 4, 1, 0, 3}));
    EXPECT_EQ(jobOrder({}), std::vector<size_t>{});
    std::vector<RankSummary> ranks(3);
    ranks[0].report.rank = 5;
    ranks[0].report.path = "a";
    ranks[1].report.path = "b";
    ranks[2].report.rank = 4;
    ranks[2].report.path = "c";
    sortByRank(ranks);
    EXPECT_EQ(ranks[0].report.path, "c");
    EXPECT_EQ(ranks[1].report.path, "a");
    EXPECT_EQ(ranks[2].report.path, "b");
}

TEST(RankSummary, HeaderIsLittleEndianFixedWidth)
{
    const std::string bytes = encodeRankSummary(everyField());
    ASSERT_GE(bytes.size(), 40u);
    EXPECT_EQ(bytes.substr(0, 24), std::string("syncscope rank summary\n\0", 24));
    EXPECT_EQ(bytes.substr(24, 4), std::string("\x04\0\0\0", 4)); // version 4
    uint64_t length = 0;
    for (int i = 0; i < 8; ++i)
        length |= uint64_t(static_cast<unsigned char>(bytes[size_t(28 + i)])) << (8 * i);
    EXPECT_EQ(length, bytes.size() - 40);
    const auto *body = reinterpret_cast<const Bytef *>(bytes.data() + 40);
    uint32_t crc = 0;
    for (int i = 0; i < 4; ++i)
        crc |= uint32_t(static_cast<unsigned char>(bytes[size_t(36 + i)])) << (8 * i);
    EXPECT_EQ(crc, uint32_t(crc32_z(0, body, bytes.size() - 40)));
}

TEST(RankSummary, FromATraceRoundTrips)
{
    for (const char *name : {"gpu_sync_gaps.json", "sync_replay.json", "kineto_exact_times.json"}) {
        const auto model = loadTrace(dataPath(name));
        const SyncAnalysis a = analyzeSyncs(*model);
        RankSummary s;
        s.report = makeFileReport(*model, a);
        s.job.replay = a.replay;
        s.job.file = model->info().path;
        const RankSummary back = decodeRankSummary(encodeRankSummary(s), name);
        expectSameSummary(back, s);
        // The report holds what analyze prints, resolved from the model.
        EXPECT_EQ(back.report.path, model->info().path);
        EXPECT_EQ(back.report.durationEvents, model->counts().durationEvents);
        ASSERT_EQ(back.report.syncCalls.size(), a.syncCalls.size());
        ASSERT_EQ(back.report.devices.size(), a.devices.size());
        for (size_t i = 0; i < a.devices.size(); ++i)
            EXPECT_EQ(back.report.devices[i].avoidable, a.devices[i].avoidable);
    }
    // gpu_sync_gaps.json by hand: rank 3, 26 events, the first gap's cause.
    const auto model = loadTrace(dataPath("gpu_sync_gaps.json"));
    const FileReport r = makeFileReport(*model, analyzeSyncs(*model));
    EXPECT_EQ(r.rank, 3);
    EXPECT_EQ(r.durationEvents, 26u);
    EXPECT_EQ(r.categories.at("kernel"), 6u);
    ASSERT_FALSE(r.syncGaps.empty());
    EXPECT_EQ(r.syncCalls[r.syncGaps[0].syncCall].name, "cudaStreamSynchronize");
    EXPECT_EQ(r.syncCalls[r.syncGaps[0].syncCall].op, std::optional<std::string>("aten::item"));
}

TEST(RankSummary, RefusesANonSummary)
{
    const std::string why = refusal("{\"traceEvents\": []}", "trace.json");
    EXPECT_NE(why.find("'trace.json' is not a syncscope rank summary"), std::string::npos) << why;
    EXPECT_NE(refusal("").find("is not a syncscope rank summary"), std::string::npos);
    EXPECT_NE(refusal("syncscope rank summar").find("is not a syncscope rank summary"), std::string::npos);
}

TEST(RankSummary, RefusesAnotherVersion)
{
    for (uint32_t version : {0u, 3u, 5u, 0xffffffffu}) {
        std::string bytes = encodeRankSummary(everyField());
        setLE(bytes, 24, version, 4);
        const std::string why = refusal(bytes);
        EXPECT_NE(why.find("'r.summary' is a rank summary of format version " + std::to_string(version) +
                           ", and this syncscope reads version 4"),
                  std::string::npos)
            << why;
    }
}

TEST(RankSummary, RefusesATruncatedFile)
{
    const std::string bytes = encodeRankSummary(everyField());
    // Every prefix that still has the magic is truncated (shorter ones are not a summary).
    for (size_t n = 24; n < bytes.size(); ++n) {
        const std::string why = refusal(bytes.substr(0, n));
        ASSERT_NE(why.find("'r.summary' is a truncated rank summary (" + std::to_string(n) + " of "),
                  std::string::npos)
            << n << ": " << why;
    }
}

TEST(RankSummary, RefusesADamagedFile)
{
    const std::string bytes = encodeRankSummary(everyField());
    // Any flipped bit of the body fails the checksum.
    for (size_t at = 40; at < bytes.size(); at += 7) {
        std::string bad = bytes;
        bad[at] = char(bad[at] ^ 0x10);
        const std::string why = refusal(bad);
        ASSERT_NE(why.find("'r.summary' is a damaged rank summary (its checksum does not match)"),
                  std::string::npos)
            << at << ": " << why;
    }
    EXPECT_NE(refusal(bytes + "x").find("is a damaged rank summary (1 bytes follow its end)"), std::string::npos);

    // A body that passes its checksum but points outside a list (a writer's
    // bug, or a forged file) is refused too, never read out of bounds.
    RankSummary s = everyField();
    s.report.syncGaps[0].syncCall = 99;
    EXPECT_NE(refusal(encodeRankSummary(s)).find("an index points outside its list"), std::string::npos);
    s = everyField();
    s.job.replay.deps[0].on = 3;
    EXPECT_NE(refusal(encodeRankSummary(s)).find("an index points outside its list"), std::string::npos);
    // A list count larger than the file.
    std::string forged = encodeRankSummary(RankSummary());
    // Body: one string (""), then clockSkew, kernelWaitThreshold and the count of libPrefixes.
    ASSERT_GT(forged.size(), 72u);
    ASSERT_EQ(forged.substr(40, 8), std::string("\x01\0\0\0\0\0\0\0", 8));
    setLE(forged, 64, uint64_t(1) << 60, 8);
    fixCrc(forged);
    const std::string why = refusal(forged);
    EXPECT_NE(why.find("'r.summary' is a damaged rank summary"), std::string::npos) << why;
}

TEST(RankSummary, FileIsWrittenAndToldApartByContent)
{
    char dir[] = "/tmp/syncscope-summary-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    const std::string path = std::string(dir) + "/rank.json"; // the name says nothing
    const RankSummary s = everyField();
    writeRankSummary(path, s);
    EXPECT_TRUE(isRankSummaryFile(path));
    expectSameSummary(readRankSummary(path), s);
    EXPECT_FALSE(isRankSummaryFile(dataPath("gpu_sync_gaps.json")));
    EXPECT_FALSE(isRankSummaryFile(std::string(dir) + "/absent"));
    try {
        readRankSummary(dataPath("gpu_sync_gaps.json"));
        ADD_FAILURE() << "a trace was read as a summary";
    } catch (const Error &e) {
        EXPECT_NE(std::string(e.what()).find("gpu_sync_gaps.json' is not a syncscope rank summary"),
                  std::string::npos);
    }
    std::remove(path.c_str());
    rmdir(dir);
}

TEST(RankSummary, OptionsMustMatch)
{
    const RankSummary s = everyField();
    EXPECT_NO_THROW(checkSummaryOptions(s, s.options, "r.summary"));
    AnalysisOptions other = s.options;
    other.stepRegex.clear();
    try {
        checkSummaryOptions(s, other, "r.summary");
        ADD_FAILURE() << "different options were accepted";
    } catch (const Error &e) {
        EXPECT_NE(std::string(e.what()).find("'r.summary' was summarized with --step-regex '^iter#\\d+$'"),
                  std::string::npos)
            << e.what();
    }
    other = s.options;
    other.libPrefixes.pop_back();
    EXPECT_THROW(checkSummaryOptions(s, other, "r.summary"), Error);
}

} // namespace syncscope
