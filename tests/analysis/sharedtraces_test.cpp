// Every real trace in ../shared/traces loads, and our figures equal those of the
// independent reference script (reference_stats.py, plain json + gzip).
#include "analysis/jobanalysis.h"
#include "analysis/jsonwriter.h"
#include "testutil.h"
#include "trace/argfield.h"
#include "trace/traceloader.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <iterator>
#include <map>
#include <optional>
#include <vector>

using namespace syncscope;
namespace fs = std::filesystem;

namespace {

const char *kTraces[] = {
    "hta_cuda_event_sync.json.gz",
    "hta_alexnet_cuda_sync.json.gz",
    "hta_nccl_data.json.gz",
    "hta_16rank_job_rank0.json.gz",
    "hta_trace_filter_2ranks/sampled_rank-0.json.gz",
    "hta_trace_filter_2ranks/sampled_rank-1.json.gz",
    "kineto_resnet50_worker0.1623143089861.pt.trace.json.gz",
};

bool runReference(const std::string &trace, nlohmann::json &out)
{
    const std::string cmd = std::string("\"") + SYNCSCOPE_PYTHON + "\" \"" + SYNCSCOPE_REFERENCE_SCRIPT + "\" \"" +
                            trace + "\"";
    FILE *pipe = popen(cmd.c_str(), "r");
    if (!pipe)
        return false;
    std::string text;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, pipe)) > 0)
        text.append(buf, n);
    if (pclose(pipe) != 0)
        return false;
    out = nlohmann::json::parse(text);
    return true;
}

class SharedTrace : public testing::TestWithParam<const char *> {};

} // namespace

TEST_P(SharedTrace, MatchesReferenceScript)
{
    const std::string path = test::sharedTrace(GetParam());
    SYNCSCOPE_REQUIRE_SHARED(path);
    if (std::string(SYNCSCOPE_PYTHON).empty())
        GTEST_SKIP() << "python3 not found at configure time";
    nlohmann::json ref;
    ASSERT_TRUE(runReference(path, ref)) << "reference_stats.py failed on " << path;

    auto model = loadTrace(path);
    EXPECT_EQ(model->info().format, "json.gz");
    EXPECT_FALSE(model->info().truncated);
    EXPECT_EQ(model->warnings().count, 0u)
        << (model->warnings().first.empty() ? std::string() : model->warnings().first[0]);
    const JobAnalysis job = analyzeJob({model});

    std::map<std::string, uint64_t> refCategories;
    for (auto &kv : ref["categories"].items())
        refCategories[kv.key()] = kv.value().get<uint64_t>();
    EXPECT_EQ(job.categories, refCategories);

    // Devices, exactly to the ns (the reference writes exact 3-decimal us strings).
    const SyncAnalysis a = analyzeSyncs(*model);
    ASSERT_EQ(a.devices.size(), ref["devices"].size());
    for (size_t i = 0; i < a.devices.size(); ++i) {
        const DeviceActivity &d = a.devices[i];
        const auto &r = ref["devices"][i];
        EXPECT_EQ(d.device, r["device"].get<int64_t>());
        EXPECT_EQ(d.kernels, r["kernels"].get<uint64_t>());
        EXPECT_EQ(formatMicros(d.busy), r["busy_us"].get<std::string>()) << "device " << d.device;
        EXPECT_EQ(formatMicros(d.span()), r["span_us"].get<std::string>());
        EXPECT_EQ(formatMicros(d.syncGap), r["sync_gap_us"].get<std::string>());
        EXPECT_EQ(formatMicros(d.avoidable), r["avoidable_us"].get<std::string>());
    }
    std::map<std::string, uint64_t> calls, refCalls;
    for (const SyncCall &c : a.syncCalls)
        ++calls[std::string(model->str(model->tracks()[c.event.track].name[c.event.index]))];
    for (const auto &c : ref["sync_calls"])
        ++refCalls[c["name"].get<std::string>()];
    EXPECT_EQ(calls, refCalls);
    ASSERT_EQ(a.syncGaps.size(), ref["sync_gaps"].size());
    for (size_t i = 0; i < a.syncGaps.size(); ++i) {
        const auto &r = ref["sync_gaps"][i];
        EXPECT_EQ(formatMicros(a.syncGaps[i].interval.start), r["start_us"].get<std::string>());
        EXPECT_EQ(formatMicros(a.syncGaps[i].avoidable), r["avoidable_us"].get<std::string>());
    }
}

INSTANTIATE_TEST_SUITE_P(Traces, SharedTrace, testing::ValuesIn(kTraces),
                         [](const testing::TestParamInfo<const char *> &info) {
                             std::string name = info.param;
                             name = name.substr(0, name.find(".json"));
                             for (char &c : name)
                                 if (!isalnum(static_cast<unsigned char>(c)))
                                     c = '_';
                             return name;
                         });

// Spot checks against the figures SOURCES.md states for these files.
TEST(SharedTraceFacts, CudaSyncEventsAndOps)
{
    const std::string path = test::sharedTrace("hta_cuda_event_sync.json.gz");
    SYNCSCOPE_REQUIRE_SHARED(path);
    auto model = loadTrace(path);
    const SyncAnalysis a = analyzeSyncs(*model);
    std::map<std::string, int> kinds;
    for (const CudaSyncEvent &e : a.cudaSyncEvents)
        ++kinds[std::string(model->str(e.kind))];
    EXPECT_EQ(kinds["Event Sync"], 2);
    EXPECT_EQ(kinds["Stream Sync"], 1);
    EXPECT_EQ(kinds["Context Sync"], 1);
    // Every runtime sync in this fixture runs inside an aten op.
    for (const SyncCall &c : a.syncCalls)
        EXPECT_TRUE(c.op.valid());
}

// The loader reads each event's "Sequence number" into a column on the way;
// the handoffs between threads read that column. On every event of the real
// traces (ROCm and Nsight Systems among them) it is what argInt reads of the
// stored args.
TEST(SharedTraceFacts, TheSequenceColumnIsWhatTheArgsSay)
{
    std::vector<const char *> names(std::begin(kTraces), std::end(kTraces));
    for (const char *more : {"tracelens_mi300_resnet_act_checkpoint.json.gz", "nsys/mfu_2gpu_after.sqlite",
                             "param_dlrm_8ranks/worker0.json"})
        names.push_back(more);
    size_t withSequence = 0;
    for (const char *name : names) {
        std::string path = test::sharedTrace(name);
        if (std::string(name).rfind("param_dlrm_8ranks/", 0) == 0) {
            for (const auto &entry : fs::directory_iterator(fs::path(test::sharedTrace("param_dlrm_8ranks"))))
                if (entry.path().filename().string().rfind("worker0", 0) == 0)
                    path = entry.path().string();
        }
        SYNCSCOPE_REQUIRE_SHARED(path);
        SCOPED_TRACE(name);
        const TraceModelPtr model = loadTrace(path);
        for (const Track &t : model->tracks())
            for (size_t i = 0; i < t.size(); ++i) {
                const std::optional<int64_t> expected = argInt(model->args(t.args[i]), "Sequence number");
                ASSERT_EQ(t.sequence[i], expected.value_or(kNoValue)) << model->args(t.args[i]);
                withSequence += expected.has_value();
            }
    }
    EXPECT_GT(withSequence, 1000u);
}

TEST(SharedTraceFacts, TwoRanksKeyedByRank)
{
    const std::string r0 = test::sharedTrace("hta_trace_filter_2ranks/sampled_rank-0.json.gz");
    const std::string r1 = test::sharedTrace("hta_trace_filter_2ranks/sampled_rank-1.json.gz");
    SYNCSCOPE_REQUIRE_SHARED(r0);
    SYNCSCOPE_REQUIRE_SHARED(r1);
    auto files = loadTraces({r1, r0});
    ASSERT_EQ(files.size(), 2u);
    EXPECT_EQ(files[0]->info().rank, 0);
    EXPECT_EQ(files[1]->info().rank, 1);
    EXPECT_EQ(files[0]->info().worldSize, 128);
}

// The replays of one call each run on several threads, each on a replay of its
// own: every call's figures must be those of one thread (12 of 21 calls of the
// DLRM rank save something, 19 of 37 of AlexNet's; none of the 151 of the
// 16-rank job's rank 0).
TEST(SharedTraces, PerCallReplaysGiveTheSameFiguresOnAnyThreads)
{
    for (const char *name : {"param_dlrm_8ranks/worker0_step_12.1694128201545.pt.trace.json",
                             "hta_alexnet_cuda_sync.json.gz", "hta_16rank_job_rank0.json.gz"}) {
        const std::string path = test::sharedTrace(name);
        SYNCSCOPE_REQUIRE_SHARED(path);
        const auto model = loadTrace(path);
        AnalysisOptions one, three;
        one.replayThreads = 1;
        three.replayThreads = 3;
        const SyncAnalysis a = analyzeSyncs(*model, one), b = analyzeSyncs(*model, three);
        ASSERT_EQ(a.syncCalls.size(), b.syncCalls.size()) << name;
        size_t saving = 0;
        for (size_t c = 0; c < a.syncCalls.size(); ++c) {
            ASSERT_EQ(a.syncCalls[c].avoidableByDevice, b.syncCalls[c].avoidableByDevice)
                << name << ", call " << c;
            EXPECT_EQ(a.syncCalls[c].avoidable, b.syncCalls[c].avoidable) << name << ", call " << c;
            saving += a.syncCalls[c].avoidable > 0;
        }
        if (std::string(name) != "hta_16rank_job_rank0.json.gz")
            EXPECT_GT(saving, 0u) << name << ": no call saves anything, so threads could not differ";
    }
}
