// The job analysis refuses what it cannot replay, in one sentence.
#include "analysis/jobscale.h"
#include "common/error.h"

#include <gtest/gtest.h>

using namespace syncscope;

namespace {
RankInput rank(int64_t r, const char *file)
{
    RankInput in;
    in.rank = r;
    in.file = file;
    in.replay.deviceIds = {0};
    in.replay.streamIds = {{0, 7}};
    in.replay.activities = {{0, 0, 10, 20, 1}};
    in.replay.launches = {{0, 0, 5, 1}};
    in.localAvoidable = {0};
    return in;
}

std::string errorOf(const std::vector<RankInput> &ranks)
{
    try {
        analyzeJobScale(ranks);
    } catch (const Error &e) {
        return e.what();
    }
    return "no error";
}
} // namespace

TEST(JobScale, TwoFilesOfOneRankAreOneSentence)
{
    const std::string e = errorOf({rank(1, "a.json"), rank(1, "b.json")});
    EXPECT_NE(e.find("'a.json' and 'b.json' are both rank 1"), std::string::npos) << e;
    EXPECT_EQ(e.find('\n'), std::string::npos);
}

TEST(JobScale, InconsistentRankDataIsRefused)
{
    RankInput bad = rank(1, "b.summary");
    bad.replay.activities[0].device = 3; // lists one device only
    const std::string e = errorOf({rank(0, "a.json"), bad});
    EXPECT_NE(e.find("the rank data of 'b.summary' is inconsistent"), std::string::npos) << e;
    RankInput badSource = rank(1, "c.summary");
    badSource.sources.push_back({"cudaStreamSynchronize", "", "", false, false, {4}});
    EXPECT_NE(errorOf({rank(0, "a.json"), badSource}).find("a sync source names a call"), std::string::npos);
}

TEST(JobScale, RanksWithoutCollectivesAreNotCoupled)
{
    // Two ranks, no collective: nothing couples them, no offsets, nothing avoidable.
    const JobScale job = analyzeJobScale({rank(0, "a.json"), rank(1, "b.json")});
    EXPECT_EQ(job.ranks, 2u);
    EXPECT_EQ(job.collectives, 0u);
    ASSERT_EQ(job.rankRows.size(), 2u);
    EXPECT_FALSE(job.rankRows[1].hasClockOffset);
    EXPECT_EQ(job.rankRows[1].file, "b.json");
    EXPECT_EQ(job.avoidable, 0);
    EXPECT_EQ(job.span, 10);
}

TEST(JobScale, ABlameRowNamesItsSourceWithoutTheSourcesCalls)
{
    // Rank 1 blocks for 80 ns before it launches the all-reduce, so it arrives
    // last (at 90 against rank 0's 20); both ranks' kernels end at 200. Without
    // that call rank 1 would arrive at 10, and the all-reduce ends when rank 0's
    // wait of 70 is used up: 70 earlier.
    auto coupledRank = [](int64_t r, TimeNs launch, TimeNs start) {
        RankInput in;
        in.rank = r;
        in.file = r ? "b.json" : "a.json";
        in.replay.deviceIds = {0};
        in.replay.streamIds = {{0, 7}};
        in.replay.threads = 1;
        in.replay.activities = {{0, 0, start, 200, 1}};
        in.replay.launches = {{0, launch, launch + 5, 1}};
        in.replay.collectives = {{0, "g", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 0}};
        in.localAvoidable = {0};
        return in;
    };
    RankInput a = coupledRank(0, 10, 20), b = coupledRank(1, 80, 90);
    b.replay.calls = {{0, 0, 80}};
    RankSource src;
    src.sync = "cudaStreamSynchronize";
    src.op = "aten::item";
    src.hasOp = true;
    src.calls = {0};
    src.advice = "item-in-loop";
    src.callAdvice = {"item-in-loop"};
    b.sources = {src};
    const JobScale job = analyzeJobScale({a, b});
    ASSERT_EQ(job.blame.size(), 1u);
    const CollectiveBlame &blame = job.blame[0];
    EXPECT_EQ(blame.lastRank, 1);
    EXPECT_EQ(blame.lateness, 70);
    ASSERT_TRUE(blame.hasCause);
    EXPECT_EQ(blame.saves, 70);
    EXPECT_EQ(blame.cause.sync, "cudaStreamSynchronize");
    EXPECT_EQ(blame.cause.op, "aten::item");
    EXPECT_EQ(blame.cause.advice, "item-in-loop");
    // Each collective's row holds no copy of the source's per-call lists.
    EXPECT_TRUE(blame.cause.calls.empty());
    EXPECT_TRUE(blame.cause.callAdvice.empty());
}
