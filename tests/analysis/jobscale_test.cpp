// The job analysis refuses what it cannot replay, in one sentence.
#include "analysis/jobscale.h"
#include "common/error.h"
#include "jobfixtures.h"

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
    // Two collectives of one kernel (a damaged summary): each kernel is one
    // collective's part, or the replay could not tell which one it resumes.
    RankInput twice = rank(1, "d.summary");
    twice.replay.collectives = {{0, "g", "ncclKernel_AllReduce", 0}, {0, "g", "ncclKernel_AllReduce", 1}};
    EXPECT_NE(errorOf({rank(0, "a.json"), twice}).find("two collectives name one activity"), std::string::npos);
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
    using jobfixtures::coupledRank;
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

namespace {
// Groups A = {0, 1} and B = {1, 2}, two steps, one stream and one thread per
// rank, clocks aligned, times in ns. Rank 0 blocks 50 in each step before it
// launches its A kernel, so it is last at A; rank 1 runs A then B; rank 2's
// last kernel K, after its second B, ends the job at 900.
std::vector<RankInput> twoGroupJob()
{
    //  rank 0: c0 [10,60) A0 [70,200) | c1 [510,560) A1 [570,700)
    //  rank 1: A0 [10,200) B0 [200,300) A1 [410,700) B1 [700,800)
    //  rank 2: B0 [10,300) B1 [320,800) K [800,900)
    // Waits: A0 (0, 60), B0 (0, 190), A1 (0, 160), B1 (0, 380).
    // Without c1 alone: rank 0's head start 50 moves A1 to start at 520
    // (delta -50), so A1 ends at max(-50 - 0, 0 - 160) = -50 earlier (650) on
    // both; rank 1's B1 then starts at 650, B1 ends 50 earlier on rank 2 too,
    // and K ends at 850: 50. Rank 2 shares no collective with rank 0, so only
    // B1 carries the change to it. Without c0 alone, A0, B0, A1 and B1 all end
    // 50 earlier (the head start stays: c1 does not wait on the GPU) and K too:
    // 50. Without both, A1 starts at 470 (delta -100), A1 and B1 end 100
    // earlier, K at 800: 100.
    const char *ar = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";
    using jobfixtures::bare;
    RankInput r0 = bare(0, "r0.json"), r1 = bare(1, "r1.json"), r2 = bare(2, "r2.json");
    r0.replay.activities = {{0, 0, 70, 200, 1}, {0, 0, 570, 700, 2}};
    r0.replay.launches = {{0, 60, 65, 1}, {0, 560, 565, 2}};
    r0.replay.calls = {{0, 10, 60}, {0, 510, 560}};
    r0.replay.collectives = {{0, "A", ar, 0}, {1, "A", ar, 1}};
    r0.steps = {{"ProfilerStep#1", 0, 500}, {"ProfilerStep#2", 500, 1000}};
    RankSource second, first; // the step-2 source comes first: a tie keeps the earlier
    second.sync = first.sync = "cudaStreamSynchronize";
    second.op = "aten::nonzero";
    first.op = "aten::item";
    second.hasOp = first.hasOp = true;
    second.calls = {1};
    first.calls = {0};
    r0.sources = {second, first};
    r1.replay.activities = {{0, 0, 10, 200, 1}, {0, 0, 200, 300, 2}, {0, 0, 410, 700, 3}, {0, 0, 700, 800, 4}};
    r1.replay.launches = {{0, 0, 5, 1}, {0, 6, 9, 2}, {0, 400, 405, 3}, {0, 406, 409, 4}};
    r1.replay.collectives = {{0, "A", ar, 0}, {1, "B", ar, 0}, {2, "A", ar, 1}, {3, "B", ar, 1}};
    r2.replay.activities = {{0, 0, 10, 300, 1}, {0, 0, 320, 800, 2}, {0, 0, 800, 900, 3}};
    r2.replay.launches = {{0, 0, 5, 1}, {0, 310, 315, 2}, {0, 320, 325, 3}};
    r2.replay.collectives = {{0, "B", ar, 0}, {1, "B", ar, 1}};
    return {r0, r1, r2};
}
} // namespace

TEST(JobScale, AChangeReachesARankThroughAnotherGroupsCollective)
{
    // On inputs kept and on inputs given up, which the analysis lets go of
    // (the launch calls) once their replays are indexed.
    const std::vector<RankInput> kept = twoGroupJob();
    for (const bool givenUp : {false, true})
        for (size_t threads : {1, 2, 3, 8}) {
            SCOPED_TRACE("threads " + std::to_string(threads) + (givenUp ? ", inputs given up" : ""));
            const JobScale job = givenUp ? analyzeJobScale(twoGroupJob(), {}, nullptr, threads)
                                         : analyzeJobScale(kept, {}, nullptr, threads);
            EXPECT_EQ(job.collectives, 4u);
            EXPECT_EQ(job.unmatched, 0u);
            for (const std::string &w : job.warnings)
                EXPECT_EQ(w.find("different order"), std::string::npos) << w;
            EXPECT_EQ(job.avoidable, 100);
            ASSERT_EQ(job.rankRows.size(), 3u);
            EXPECT_EQ(job.rankRows[0].jobAvoidable, 100);
            EXPECT_EQ(job.rankRows[1].jobAvoidable, 0);
            EXPECT_EQ(job.rankRows[2].jobAvoidable, 0);
            ASSERT_EQ(job.rankSteps.size(), 2u);
            EXPECT_EQ(job.rankSteps[0].step, "ProfilerStep#1");
            EXPECT_EQ(job.rankSteps[0].avoidable, 50);
            EXPECT_EQ(job.rankSteps[0].lateness, 60);
            EXPECT_EQ(job.rankSteps[1].avoidable, 50);
            EXPECT_EQ(job.rankSteps[1].lateness, 160);
            // By lateness: B1, B0 (rank 1, no source), A1, A0 (rank 0).
            ASSERT_EQ(job.blame.size(), 4u);
            EXPECT_EQ(job.blame[0].lateness, 380);
            EXPECT_FALSE(job.blame[0].hasCause);
            EXPECT_EQ(job.blame[1].lateness, 190);
            EXPECT_FALSE(job.blame[1].hasCause);
            // A1: either source moves it 50; the first listed is kept.
            EXPECT_EQ(job.blame[2].group, "A");
            EXPECT_EQ(job.blame[2].seq, 1u);
            ASSERT_TRUE(job.blame[2].hasCause);
            EXPECT_EQ(job.blame[2].cause.op, "aten::nonzero");
            EXPECT_EQ(job.blame[2].saves, 50);
            // A0 comes before c1: only c0 moves it.
            EXPECT_EQ(job.blame[3].seq, 0u);
            ASSERT_TRUE(job.blame[3].hasCause);
            EXPECT_EQ(job.blame[3].cause.op, "aten::item");
            EXPECT_EQ(job.blame[3].saves, 50);
        }
}
