// The job replay alone: small hand-made jobs whose replayed ends are worked
// out by hand in each test.
#include "analysis/jobreplay.h"
#include "jobfixtures.h"

#include <gtest/gtest.h>

using namespace syncscope;

namespace {
using namespace syncscope::jobfixtures;

// The all-reduce as the job sees it: rank 0 arrives at 20, rank 1 at 90, both
// end at 200. Communication d = min(180, 110) = 110, so rank 0 waits 70, rank
// 1 (the last) 0, and the lateness is 70.
Coupled allReduce()
{
    Coupled c;
    c.group = "g";
    c.name = kAllReduce;
    c.seq = 0;
    c.parts = {{0, 0, 20, 200, 70}, {1, 0, 90, 200, 0}};
    c.last = 1;
    c.lateness = 70;
    return c;
}

// Rank 0 launches at 10 (after a call [0, 10) that blocks), rank 1 at 80,
// after a call [0, 80) that blocks.
struct TwoRanks {
    std::vector<RankInput> inputs;
    std::vector<const RankInput *> ranks;
    std::vector<Coupled> coupled{allReduce()};
    std::vector<TimeNs> oldLast{200, 200};
    TwoRanks()
    {
        inputs = {coupledRank(0, 10, 20), coupledRank(1, 80, 90)};
        inputs[0].replay.calls = {{0, 0, 10}};
        inputs[1].replay.calls = {{0, 0, 80}};
        ranks = {&inputs[0], &inputs[1]};
    }
};
} // namespace

TEST(JobReplay, NothingRemovedEndsAsMeasured)
{
    TwoRanks job;
    JobReplay replay(job.ranks, job.coupled, job.oldLast, nullptr);
    const Walk w = replay.run({{}, {}});
    EXPECT_EQ(w.newLast, (std::vector<TimeNs>{200, 200}));
    EXPECT_EQ(w.forced, 0u);
    EXPECT_EQ(replay.delta(0), 0);
}

TEST(JobReplay, TheLateRanksCallMovesTheCollectiveByTheOtherRanksWait)
{
    // Without rank 1's call its host starts 80 earlier: the launch at 0, the
    // kernel at 10 (delta_1 = -80). Rank 0 arrives as measured (delta_0 = 0,
    // w_0 = 70): Delta = max(0 - 70, -80 - 0) = -70, so the all-reduce ends at
    // 130 on both ranks.
    TwoRanks job;
    JobReplay replay(job.ranks, job.coupled, job.oldLast, nullptr);
    const Walk w = replay.run({{}, {0}});
    EXPECT_EQ(replay.delta(0), -70);
    EXPECT_EQ(w.newLast, (std::vector<TimeNs>{130, 130}));
    EXPECT_EQ(w.forced, 0u);
}

TEST(JobReplay, TheEarlyRanksCallSavesNothing)
{
    // Without rank 0's call its kernel starts 10 earlier (delta_0 = -10), but
    // rank 1 is still last: Delta = max(-10 - 70, 0 - 0) = 0.
    TwoRanks job;
    JobReplay replay(job.ranks, job.coupled, job.oldLast, nullptr);
    const Walk w = replay.run({{0}, {}});
    EXPECT_EQ(replay.delta(0), 0);
    EXPECT_EQ(w.newLast, (std::vector<TimeNs>{200, 200}));
}

TEST(JobReplay, BothCallsTogether)
{
    // delta_0 = -10, delta_1 = -80: Delta = max(-10 - 70, -80 - 0) = -80.
    TwoRanks job;
    JobReplay replay(job.ranks, job.coupled, job.oldLast, nullptr);
    const Walk w = replay.run({{0}, {0}});
    EXPECT_EQ(replay.delta(0), -80);
    EXPECT_EQ(w.newLast, (std::vector<TimeNs>{120, 120}));
}

TEST(JobReplay, ATwinAnswersAsItsOriginalAndRunsAreIndependent)
{
    TwoRanks job;
    std::vector<size_t> indexed;
    JobReplay replay(job.ranks, job.coupled, job.oldLast, nullptr, [&](size_t r) { indexed.push_back(r); });
    EXPECT_EQ(indexed, (std::vector<size_t>{0, 1})); // each rank's index, in rank order
    const std::unique_ptr<JobReplay> twin = replay.twin();
    EXPECT_EQ(twin->run({{}, {0}}).newLast, (std::vector<TimeNs>{130, 130}));
    EXPECT_EQ(replay.run({{0}, {}}).newLast, (std::vector<TimeNs>{200, 200}));
    EXPECT_EQ(twin->delta(0), -70); // the original's run left the twin's state alone
    EXPECT_EQ(replay.delta(0), 0);
    // A run after another starts from the measured job again.
    EXPECT_EQ(replay.run({{}, {0}}).newLast, (std::vector<TimeNs>{130, 130}));
    EXPECT_EQ(replay.run({{}, {}}).newLast, (std::vector<TimeNs>{200, 200}));
}

TEST(JobReplay, ARankWithoutActivityKeepsNoEnd)
{
    // A third rank with no GPU activity and no collective: nothing moves on
    // it, and its end stays none.
    TwoRanks job;
    RankInput idle;
    idle.rank = 2;
    idle.file = "c.json";
    job.inputs.push_back(idle);
    job.ranks = {&job.inputs[0], &job.inputs[1], &job.inputs[2]};
    job.oldLast.push_back(kNoEnd);
    JobReplay replay(job.ranks, job.coupled, job.oldLast, nullptr);
    const Walk w = replay.run({{}, {0}, {}});
    EXPECT_EQ(w.newLast, (std::vector<TimeNs>{130, 130, kNoEnd}));
}
