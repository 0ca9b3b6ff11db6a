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
