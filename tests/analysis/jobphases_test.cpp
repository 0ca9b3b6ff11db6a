// The phases of the job analysis, each on its own, on hand-made ranks whose
// figures are worked out by hand in each test.
#include "analysis/jobphases.h"
#include "common/error.h"
#include "jobfixtures.h"

#include <gtest/gtest.h>

using namespace syncscope;
using namespace syncscope::jobphases;

namespace {
using namespace syncscope::jobfixtures;

// `run` throws an Error whose sentence contains `text`.
template <class F> void expectErrorContaining(F run, const std::string &text)
{
    try {
        run();
        ADD_FAILURE() << "no error";
    } catch (const Error &e) {
        EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
}

std::vector<const ReplayInput *> replaysOf(const std::vector<RankInput> &in)
{
    std::vector<const ReplayInput *> out;
    for (const RankInput &r : in)
        out.push_back(&r.replay);
    return out;
}

// Two ranks, one all-reduce ending at 200 on both: rank 0 launches at 10
// after a call [0, 10) that blocks and arrives at 20; rank 1 launches at 80
// after a call [0, 80) that blocks and arrives at 90, the last. d = 110: rank
// 0 waits 70, the lateness is 70. Without rank 1's call the all-reduce ends 70
// earlier; without rank 0's, as measured. Rank 0 has one step [0, 300); rank 1
// two, [0, 100) and [100, 300).
struct LateJob {
    std::vector<RankInput> inputs;
    Ranks ranks;
    Collectives collectives;
    Clocks clocks;
    Measured measured;
    LateJob()
    {
        RankInput a = coupledRank(0, 10, 20);
        RankInput b = coupledRank(1, 80, 90);
        a.replay.calls = {{0, 0, 10}};
        b.replay.calls = {{0, 0, 80}};
        RankSource sa, sb;
        sa.sync = "cudaDeviceSynchronize";
        sb.sync = "cudaStreamSynchronize";
        sb.op = "aten::item";
        sb.hasOp = true;
        sa.calls = sb.calls = {0};
        sb.callAdvice = {"item-in-loop"};
        sb.advice = "item-in-loop";
        a.sources = {sa};
        b.sources = {sb};
        a.steps = {{"s1", 0, 300}};
        b.steps = {{"s1", 0, 100}, {"s2", 100, 300}};
        inputs = {a, b};
        ranks = orderRanks(inputs);
        collectives = coupleCollectives(ranks.replays);
        clocks = rankClocks(ranks, collectives.coupled);
        measured = measureJob(ranks, clocks.offset);
    }
};
} // namespace

TEST(JobPhases, OrderRanksByRankThenPosition)
{
    // Rank 3, no rank (its position: 1), rank 0.
    std::vector<RankInput> in = {bare(3, "a.json"), bare(kNoValue, "b.json"), bare(0, "c.json")};
    const Ranks ranks = orderRanks(in);
    EXPECT_EQ(ranks.order, (std::vector<size_t>{2, 1, 0}));
    EXPECT_EQ(ranks.ids, (std::vector<int64_t>{0, 1, 3}));
    ASSERT_EQ(ranks.ranks.size(), 3u);
    EXPECT_EQ(ranks.ranks[0], &in[2]);
    EXPECT_EQ(ranks.replays[2], &in[0].replay);
    // A file of rank 1 and a file without a rank at position 1 are one rank twice.
    in[0].rank = 1;
    expectErrorContaining([&] { orderRanks(in); }, "'a.json' and 'b.json' are both rank 1");
}

TEST(JobPhases, OrderRanksChecksEachInputFirst)
{
    // A damaged input is named even where two files are one rank.
    std::vector<RankInput> in = {bare(0, "a.json"), bare(0, "b.summary")};
    in[1].replay.activities = {{0, 0, 20, 10, kNoValue}}; // ends before it starts
    expectErrorContaining([&] { orderRanks(in); }, "the rank data of 'b.summary' is inconsistent");
}

TEST(JobPhases, CoupleCollectivesWaitsLastAndLateness)
{
    // Seq 0 on three ranks: durations 100, 130, 170, so d = 100 and the waits
    // are 0, 30, 70; rank 0 is last and the lateness is the second smallest
    // wait, 30. Seq 1 runs on ranks 0 and 1 only (rank 2 is in the group): not
    // coupled. Group "h" has one rank: not coupled either.
    std::vector<RankInput> in = {withCollectives(0, "a", {{400, 500}, {600, 700}}),
                                 withCollectives(1, "b", {{370, 500}, {600, 700}}),
                                 withCollectives(2, "c", {{330, 500}})};
    in[2].replay.activities.push_back({0, 0, 600, 650, kNoValue});
    in[2].replay.collectives.push_back({1, "h", kAllReduce, 0});
    const Collectives c = coupleCollectives(replaysOf(in));
    EXPECT_EQ(c.unmatched, 2u);
    ASSERT_EQ(c.coupled.size(), 1u);
    const Coupled &k = c.coupled[0];
    EXPECT_EQ(k.group, "g");
    EXPECT_EQ(k.seq, 0u);
    EXPECT_EQ(k.name, kAllReduce);
    ASSERT_EQ(k.parts.size(), 3u);
    EXPECT_EQ(k.parts[0].wait, 0);
    EXPECT_EQ(k.parts[1].wait, 30);
    EXPECT_EQ(k.parts[2].wait, 70);
    EXPECT_EQ(k.parts[2].start, 330);
    EXPECT_EQ(k.last, 0u);
    EXPECT_EQ(k.lateness, 30);
}

TEST(JobPhases, CoupleCollectivesRefusesDifferentKernelNames)
{
    std::vector<RankInput> in = {withCollectives(0, "a", {{0, 100}}), withCollectives(1, "b", {{0, 100}})};
    in[1].replay.collectives[0].name = "ncclDevKernel_Broadcast";
    const Collectives c = coupleCollectives(replaysOf(in));
    EXPECT_EQ(c.coupled.size(), 0u);
    EXPECT_EQ(c.unmatched, 1u);
}

TEST(JobPhases, ClockOffsetsAreNearestRankPercentiles)
{
    // Rank 1 ends 5, 15 and 10 after rank 0: sorted 5, 10, 15; the median at
    // (3 - 1) / 2 = 1 (10), p5 at 0 (5), p95 at ceil(0.95 * 2) = 2 (15). Rank
    // 2 shares no collective with rank 0: unknown.
    std::vector<RankInput> in = {withCollectives(0, "a", {{0, 1000}, {1500, 2000}, {2500, 3000}}),
                                 withCollectives(1, "b", {{0, 1005}, {1500, 2015}, {2500, 3010}}),
                                 withCollectives(2, "c", {{0, 1000}}, "other")};
    const std::vector<ClockOffset> o = offsetsFrom(coupleCollectives(replaysOf(in)).coupled, 3);
    ASSERT_EQ(o.size(), 3u);
    EXPECT_TRUE(o[0].known);
    EXPECT_EQ(o[0].median, 0);
    EXPECT_TRUE(o[1].known);
    EXPECT_EQ(o[1].median, 10);
    EXPECT_EQ(o[1].p5, 5);
    EXPECT_EQ(o[1].p95, 15);
    EXPECT_FALSE(o[2].known);
}

TEST(JobPhases, RankClocksReportTheFilesClocks)
{
    // As above; rank 0 was analysed 100 after its file's clock, rank 1 130
    // after: on the files' clocks rank 1 is 10 - 30 = -20 off.
    std::vector<RankInput> in = {withCollectives(0, "a", {{0, 1000}, {1500, 2000}, {2500, 3000}}),
                                 withCollectives(1, "b", {{0, 1005}, {1500, 2015}, {2500, 3010}}),
                                 withCollectives(2, "c", {{0, 1000}}, "other")};
    in[0].clockShift = 100;
    in[1].clockShift = 130;
    const Ranks ranks = orderRanks(in);
    const Clocks c = rankClocks(ranks, coupleCollectives(ranks.replays).coupled);
    EXPECT_EQ(c.offset, (std::vector<TimeNs>{0, 10, 0}));
    EXPECT_EQ(c.missing, 1u);
    ASSERT_EQ(c.rows.size(), 3u);
    EXPECT_TRUE(c.rows[1].hasClockOffset);
    EXPECT_EQ(c.rows[1].analysedOffset, 10);
    EXPECT_EQ(c.rows[1].clockShift, 130);
    EXPECT_EQ(c.rows[1].clockOffset, -20);
    EXPECT_EQ(c.rows[1].clockOffsetP5, -25);
    EXPECT_EQ(c.rows[1].clockOffsetP95, -15);
    EXPECT_FALSE(c.rows[2].hasClockOffset);
    EXPECT_EQ(c.rows[2].clockOffset, 0);
}

TEST(JobPhases, DescribeRanksPicksTheCollectivesDevice)
{
    // Rank 0: devices 4 and 9, three kernels on 4 and a collective on 9: its
    // device is 9. Rank 1 (file 0): no collective, two kernels on 4 and one
    // on 9: its busiest, 4.
    RankInput a = bare(1, "a.json"), b = bare(0, "b.json");
    for (RankInput *r : {&a, &b}) {
        r->replay.deviceIds = {4, 9};
        r->replay.streamIds = {{4, 7}, {9, 7}};
        r->localAvoidable = {11, 22};
    }
    b.replay.activities = {{0, 0, 0, 10, 1}, {0, 0, 10, 20, 2}, {0, 0, 20, 30, 3}, {1, 1, 0, 10, 4}};
    b.replay.collectives = {{3, "g", kAllReduce, 0}};
    a.replay.activities = {{0, 0, 0, 10, 1}, {0, 0, 10, 20, 2}, {1, 1, 0, 10, 3}};
    a.replay.deps = {{0, 2}};
    a.replay.waitMode = WaitMode::Exact;
    const std::vector<RankInput> in = {a, b};
    const Ranks ranks = orderRanks(in);
    std::vector<JobRank> rows(2);
    describeRanks(ranks, rows);
    EXPECT_EQ(rows[0].rank, 0);
    EXPECT_EQ(rows[0].file, "b.json");
    EXPECT_EQ(rows[0].fileIndex, 1u);
    EXPECT_EQ(rows[0].device, 9);
    EXPECT_EQ(rows[0].localAvoidable, 22);
    EXPECT_EQ(rows[1].rank, 1);
    EXPECT_EQ(rows[1].fileIndex, 0u);
    EXPECT_EQ(rows[1].device, 4);
    EXPECT_EQ(rows[1].localAvoidable, 11);
    EXPECT_EQ(rows[1].streamWaits, 1u);
    EXPECT_EQ(rows[1].waitMode, WaitMode::Exact);
}

TEST(JobPhases, MeasureJobOnTheAlignedClock)
{
    // Rank 1 runs [50, 400) on a clock 100 ahead: [-50, 300) aligned; rank 0
    // [0, 250); rank 2 has nothing. First -50, end 300, span 350.
    std::vector<RankInput> in = {bare(0, "a"), bare(1, "b"), bare(2, "c")};
    in[0].replay.activities = {{0, 0, 0, 100, 1}, {0, 0, 200, 250, 2}};
    in[1].replay.activities = {{0, 0, 50, 400, 1}};
    const Ranks ranks = orderRanks(in);
    const Measured m = measureJob(ranks, {0, 100, 0});
    EXPECT_EQ(m.last, (std::vector<TimeNs>{250, 400, kNoEnd}));
    EXPECT_EQ(m.first, -50);
    EXPECT_EQ(m.end, 300);
    EXPECT_EQ(m.span(), 350);
    EXPECT_EQ(measureJob(orderRanks({bare(0, "a")}), {0}).end, kNoEnd);
}

TEST(JobPhases, CriticalRanksAndWaits)
{
    LateJob job;
    const std::vector<Coupled> &coupled = job.collectives.coupled;
    // Rank 1 has no wait; rank 0's last end, 200, is the job end.
    EXPECT_EQ(criticalRanks(coupled, job.measured, job.clocks.offset), (std::vector<char>{1, 1}));
    // With rank 0 ending at 150 it waits at the one collective and does not end the job.
    Measured early = job.measured;
    early.last[0] = 150;
    EXPECT_EQ(criticalRanks(coupled, early, job.clocks.offset), (std::vector<char>{0, 1}));
    const PartsOf parts = partsOfRanks(coupled, 2);
    EXPECT_EQ(parts, (PartsOf{{{0, 0}}, {{0, 1}}}));
    std::vector<JobRank> rows(2);
    waitFigures(coupled, parts, rows);
    EXPECT_EQ(rows[0].wait, 70);
    EXPECT_EQ(rows[0].lastArrivals, 0u);
    EXPECT_EQ(rows[1].wait, 0);
    EXPECT_EQ(rows[1].lastArrivals, 1u);
}

TEST(JobPhases, StepsOfPartsByTheLaunchCall)
{
    // Rank 1's all-reduce is launched at 80: in its step [0, 100). Without a
    // correlation, no step; launched at 400, after every step: none either.
    LateJob job;
    const PartsOf parts = partsOfRanks(job.collectives.coupled, 2);
    EXPECT_EQ(stepsOfParts(job.inputs[1], parts[1], job.collectives.coupled), (std::vector<int64_t>{0}));
    RankInput late = job.inputs[1];
    late.replay.launches[0].start = 400;
    EXPECT_EQ(stepsOfParts(late, parts[1], job.collectives.coupled), (std::vector<int64_t>{-1}));
    RankInput none = job.inputs[1];
    none.replay.activities[0].correlation = kNoValue;
    EXPECT_EQ(stepsOfParts(none, parts[1], job.collectives.coupled), (std::vector<int64_t>{-1}));
}

TEST(JobPhases, JobSavingOnTheAlignedClock)
{
    // Ends 130 (offset 0) and 180 (offset 20, so 160): the job ends at 160,
    // 40 before 200. A rank with no end does not count; never below 0.
    Walk w;
    w.newLast = {130, 180, kNoEnd};
    EXPECT_EQ(jobSaving(w, {0, 20, 0}, 200), 40);
    EXPECT_EQ(jobSaving(w, {0, 20, 0}, 150), 0);
}

TEST(JobPhases, RemovedCallsByRank)
{
    // File 0 is rank 1, file 1 rank 0. Calls out of range are dropped, the
    // rest sorted and once each.
    std::vector<RankInput> in = {bare(1, "a"), bare(0, "b")};
    in[0].replay.calls = {{0, 0, 1}, {0, 2, 3}, {0, 4, 5}};
    in[1].replay.calls = {{0, 0, 1}};
    const Ranks ranks = orderRanks(in);
    EXPECT_EQ(removedByRank(ranks, {{2, 0, 2, 7}, {0}}), (std::vector<std::vector<size_t>>{{0}, {0, 2}}));
    EXPECT_EQ(removedByRank(ranks, {{1}}), (std::vector<std::vector<size_t>>{{}, {1}}));
    EXPECT_EQ(allCalls(in[0]), (std::vector<size_t>{0, 1, 2}));
    EXPECT_EQ(onlyRank(3, 1, {4}), (std::vector<std::vector<size_t>>{{}, {4}, {}}));
}

TEST(JobPhases, ReplaysOfRanksSourcesAndSteps)
{
    LateJob job;
    const std::vector<Coupled> &coupled = job.collectives.coupled;
    JobReplay replay(job.ranks.ranks, coupled, job.measured.last, nullptr);
    ThreadsPerRun<JobReplay> pool({&replay});
    std::vector<std::string> ticks;
    const ReplayContext ctx{pool, job.clocks.offset, job.measured.end, [&](const char *w) { ticks.push_back(w); }};
    // Without all of rank 0's calls: nothing (it is not last); rank 1's: 70.
    const RankSavings s = rankReplays(ctx, job.ranks, {0, 1});
    EXPECT_EQ(s.jobAvoidable, (std::vector<TimeNs>{0, 70}));
    EXPECT_EQ(s.savesNothing, (std::vector<char>{1, 0}));
    // Rank 1 is last at the all-reduce, and its one source moves it 70.
    const Blame blame = blameSources(ctx, job.ranks, {0, 1}, coupled);
    ASSERT_EQ(blame.source.size(), 1u);
    EXPECT_EQ(blame.source[0], &job.inputs[1].sources[0]);
    EXPECT_EQ(blame.delta[0], -70);
    // Rank 0's step is not replayed (its calls save nothing); rank 1's first
    // step holds its call (ends at 80): 70; its second none.
    EXPECT_EQ(stepReplays(ctx, job.ranks, {1, 1}, s.savesNothing), (std::vector<TimeNs>{0, 70, 0}));
    EXPECT_EQ(ticks,
              (std::vector<std::string>{"replay of each rank", "replay of each rank", "blame", "blame",
                                        "replay of each step", "replay of each step", "replay of each step"}));
}

TEST(JobPhases, BlameRowsByLatenessWithoutTheSourcesCalls)
{
    // Three collectives of lateness 10, 30, 30: by lateness, the two of 30 in
    // their order first. The second's last rank is rank 1, 5 ahead.
    std::vector<Coupled> coupled(3);
    const TimeNs lateness[] = {10, 30, 30};
    for (size_t c = 0; c < 3; ++c) {
        coupled[c].group = "g";
        coupled[c].seq = uint32_t(c);
        coupled[c].name = kAllReduce;
        coupled[c].parts = {{0, 0, 100, 200, 0}, {1, 0, 105, 205, 0}};
        coupled[c].last = c == 1 ? 1 : 0;
        coupled[c].lateness = lateness[c];
    }
    RankSource src;
    src.sync = "cudaStreamSynchronize";
    src.op = "aten::item";
    src.hasOp = true;
    src.calls = {3, 4};
    src.callAdvice = {"a", "b"};
    src.advice = "item-in-loop";
    Blame blame;
    blame.source = {nullptr, &src, nullptr};
    blame.delta = {0, -25, 0};
    const std::vector<CollectiveBlame> rows = blameRows(coupled, blame, {0, 7}, {0, 5});
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0].seq, 1u);
    EXPECT_EQ(rows[1].seq, 2u);
    EXPECT_EQ(rows[2].seq, 0u);
    EXPECT_EQ(rows[0].lastRank, 7);
    EXPECT_EQ(rows[0].start, 100);
    EXPECT_EQ(rows[0].end, 200);
    ASSERT_TRUE(rows[0].hasCause);
    EXPECT_EQ(rows[0].saves, 25);
    EXPECT_EQ(rows[0].cause.op, "aten::item");
    EXPECT_EQ(rows[0].cause.advice, "item-in-loop");
    EXPECT_TRUE(rows[0].cause.calls.empty());
    EXPECT_TRUE(rows[0].cause.callAdvice.empty());
    EXPECT_FALSE(rows[1].hasCause);
    EXPECT_EQ(rows[2].lastRank, 0);
}

TEST(JobPhases, RankStepRowsFromPartsAndSavings)
{
    LateJob job;
    const std::vector<Coupled> &coupled = job.collectives.coupled;
    const PartsOf parts = partsOfRanks(coupled, 2);
    const std::vector<std::vector<int64_t>> stepOf = {{0}, {0}};
    // Rank 0 is not critical here: its step has no saving of its own.
    const std::vector<RankStep> rows = rankStepRows(job.ranks, coupled, parts, stepOf, {0, 1}, {70, 0},
                                                    [](size_t r, size_t k) {
                                                        return "r" + std::to_string(r) + "k" + std::to_string(k);
                                                    });
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0].rank, 0);
    EXPECT_EQ(rows[0].step, "r0k0");
    EXPECT_EQ(rows[0].dur, 300);
    EXPECT_EQ(rows[0].wait, 70);
    EXPECT_EQ(rows[0].lateness, 0);
    EXPECT_EQ(rows[0].avoidable, 0);
    EXPECT_EQ(rows[1].rank, 1);
    EXPECT_EQ(rows[1].step, "r1k0");
    EXPECT_EQ(rows[1].start, 0);
    EXPECT_EQ(rows[1].end, 100);
    EXPECT_EQ(rows[1].wait, 0);
    EXPECT_EQ(rows[1].lateness, 70);
    EXPECT_EQ(rows[1].avoidable, 70);
    EXPECT_EQ(rows[2].step, "r1k1");
    EXPECT_EQ(rows[2].lateness, 0);
    EXPECT_EQ(rows[2].avoidable, 0);
}

TEST(JobPhases, ReplayThreadsFitTheirState)
{
    LateJob job;
    EXPECT_EQ(replayThreads(3, job.ranks.ranks, job.collectives.coupled), 3u);
    EXPECT_GE(replayThreads(0, job.ranks.ranks, job.collectives.coupled), 1u);
}
