// Stream dependencies from the profiler's Stream Wait Event records, on a
// hand-made trace whose replay is worked out below.
#include "analysis/jobanalysis.h"
#include "analysis/syncanalysis.h"
#include "testutil.h"
#include "trace/argfield.h"
#include "trace/traceloader.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace syncscope;

// stream_wait_event.json (us): compute_A [10, 110] on stream 7 (launch [0, 5],
// correlation 1); cudaEventRecord (2) at 6, cudaStreamWaitEvent (3) at 9 and the
// Stream Wait Event record: stream 20 waits for stream 7; side_B [110, 130] on
// stream 20 (launch [12, 15], 4); cudaDeviceSynchronize [20, 131]; compute_C
// [136, 146] on stream 7 (launch [131, 134], 5).
// Replay without the sync (head start 111): compute_C is launched ready at
// 134 - 111 = 23 and keeps its 2 us after the launch: 25, but follows compute_A:
// 110, ending at 120. side_B still waits for compute_A: [110, 130]. The last end
// moves from 146 to 130: avoidable 16. Without the wait side_B would run at 15
// and the saving would be 26.
TEST(StreamWait, ExactWaitFromTheProfilersRecords)
{
    auto m = loadTrace(test::dataPath("stream_wait_event.json"));
    const SyncAnalysis a = analyzeSyncs(*m);
    EXPECT_EQ(a.replay.waitMode, WaitMode::Exact);
    ASSERT_EQ(a.replay.deps.size(), 1u);
    const ReplayActivity &to = a.replay.activities[a.replay.deps[0].activity];
    const ReplayActivity &from = a.replay.activities[a.replay.deps[0].on];
    EXPECT_EQ(to.correlation, 4);
    EXPECT_EQ(from.correlation, 1);
    ASSERT_EQ(a.devices.size(), 1u);
    EXPECT_EQ(a.devices[0].avoidable, 16'000);

    const nlohmann::json doc = nlohmann::json::parse(analysisToJson(analyzeJob({m}), 10));
    EXPECT_EQ(doc["files"][0]["wait_mode"], "exact");
    EXPECT_EQ(doc["files"][0]["stream_dependencies"], 1);
    ASSERT_EQ(doc["stream_waits"].size(), 1u);
    const auto &w = doc["stream_waits"][0];
    EXPECT_EQ(w["device"], 0);
    EXPECT_EQ(w["stream"], 20);
    EXPECT_EQ(w["wait_on_stream"], 7);
    EXPECT_EQ(w["from_correlation"], 1);
    EXPECT_EQ(w["to_correlation"], 4);
}

TEST(ArgField, TopLevelMembersOnly)
{
    const std::string args = R"({"a":{"stream":1},"s":"x\"y","stream":20,"n":"42","pg":"0","l":[1,{"stream":3}]})";
    EXPECT_EQ(argInt(args, "stream"), 20);
    EXPECT_EQ(argInt(args, "n"), 42);
    EXPECT_EQ(argString(args, "s"), std::string("x\"y"));
    EXPECT_EQ(argString(args, "pg"), std::string("0"));
    EXPECT_FALSE(argInt(args, "missing"));
    EXPECT_FALSE(argString(args, "a"));
    EXPECT_FALSE(argInt("not json", "stream"));
    EXPECT_FALSE(argInt(R"({"stream":)", "stream"));
}
