#pragma once
// The phases of the job analysis, in the order analyzeJobScale runs them; the
// job what-if (jobWhatIfSaving) runs the first ones and one replay. Each takes
// and returns plain values, so each can be tested on its own; the definitions
// of what they compute are in jobscale.h and docs/analysis.md ("Job scale:
// what a sync costs the job").
//
// "Rank r" below is a position in rank order (Ranks::ranks); "file f" a
// position among the inputs.
#include "analysis/jobreplay.h"
#include "analysis/jobscale.h"
#include "common/threadsperrun.h"

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace syncscope::jobphases {

// 1. The ranks in rank order: distributedInfo.rank, else the position of the
//    file. Each input is checked first (a rank read back from a file may be
//    damaged); two files of one rank, or a damaged one, are an Error.
struct Ranks {
    std::vector<size_t> order;                // per rank: its file
    std::vector<const RankInput *> ranks;     // per rank: its input
    std::vector<const ReplayInput *> replays; // per rank: its replay input
    std::vector<int64_t> ids;                 // per rank: its rank id
};
Ranks orderRanks(const std::vector<RankInput> &input);

// The positions of the files in rank order (as Ranks::order), from their ranks
// (kNoValue: by position) and names (for the Error of two files of one rank).
std::vector<size_t> rankOrder(const std::vector<int64_t> &rank, const std::vector<std::string> &file);

// 2. The collectives of the ranks matched by (group, seq), in group, then
//    sequence order, with each rank's wait, the last rank and the lateness;
//    those that cannot be coupled are counted.
struct Collectives {
    std::vector<Coupled> coupled;
    size_t unmatched = 0;
};
Collectives coupleCollectives(const std::vector<const ReplayInput *> &replays);

// 3. Each rank's clock offset against the first rank: the median, p5 and p95
//    of (end on r - end on rank 0) over the collectives rank 0 is part of;
//    unknown where a rank shares none.
std::vector<ClockOffset> offsetsFrom(const std::vector<Coupled> &coupled, size_t ranks);

// 4. The rank rows' clocks: `offset` per rank, on the clock it was analysed in
//    (the median, 0 where unknown), and each row's offsets on its file's clock;
//    `missing` counts the ranks after the first that share no collective with it.
struct Clocks {
    std::vector<TimeNs> offset;
    std::vector<JobRank> rows; // clock fields only
    size_t missing = 0;
};
Clocks rankClocks(const Ranks &ranks, const std::vector<Coupled> &coupled);

// 5. What each row says of its rank: id, file, wait mode, dependencies, and
//    its device (the one most of its collectives run on, ties: the lowest id;
//    else its busiest) with the single-rank replay's figure on it.
void describeRanks(const Ranks &ranks, std::vector<JobRank> &rows);

// 6. The measured job on the aligned clock: per rank its last end (on its
//    analysed clock; kNoEnd: no activity), the first start and the job end
//    (kNoEnd: no rank has GPU activity).
struct Measured {
    std::vector<TimeNs> last;
    TimeNs first = 0;
    TimeNs end = kNoEnd;
    TimeNs span() const { return end - first; }
};
Measured measureJob(const Ranks &ranks, const std::vector<TimeNs> &offset);

// 7. Each rank's parts of the collectives: (collective, part), in collective order.
using PartsOf = std::vector<std::vector<std::pair<size_t, size_t>>>;
PartsOf partsOfRanks(const std::vector<Coupled> &coupled, size_t ranks);

// 8. The step of each of one rank's parts (as PartsOf[r]): the latest-starting
//    step whose window holds the start of its kernel's launch call; -1 (none)
//    without a launch call.
std::vector<int64_t> stepsOfParts(const RankInput &rank, const std::vector<std::pair<size_t, size_t>> &parts,
                                  const std::vector<Coupled> &coupled);

// How much earlier the job ends after a walk: the job end less the latest new
// end of any rank on the aligned clock, never below 0.
TimeNs jobSaving(const Walk &walk, const std::vector<TimeNs> &offset, TimeNs jobEnd);

// Per rank, the calls to remove for a what-if given per file (indices into the
// file's replay calls; those out of range ignored), sorted, once each.
std::vector<std::vector<size_t>> removedByRank(const Ranks &ranks, const std::vector<std::vector<size_t>> &byFile);

// Every call of one rank: 0 .. calls - 1.
std::vector<size_t> allCalls(const RankInput &rank);

// `calls` removed on rank r alone, of n ranks.
std::vector<std::vector<size_t>> onlyRank(size_t n, size_t r, std::vector<size_t> calls);

// 9. What may make the job late: a rank with no wait at some collective, or
//    whose last activity ends the job. Any other rank's fix saves the job 0.
std::vector<char> criticalRanks(const std::vector<Coupled> &coupled, const Measured &measured,
                                const std::vector<TimeNs> &offset);

// 10. Each row's wait (the sum of its w_j) and last arrivals.
void waitFigures(const std::vector<Coupled> &coupled, const PartsOf &parts, std::vector<JobRank> &rows);

// What the replays after the job's own share: the workers, the measured job
// and its clocks, and a tick once per task.
struct ReplayContext {
    ThreadsPerRun<JobReplay> &pool;
    const std::vector<TimeNs> &offset;
    TimeNs jobEnd;
    std::function<void(const char *)> tick;
};

// 11. Each critical rank's replay without all its calls: per rank, the job's
//     saving, and whether its calls save the job nothing (then no part of
//     them does: the replay is monotone in what it removes).
struct RankSavings {
    std::vector<TimeNs> jobAvoidable; // per rank; 0 where not critical
    std::vector<char> savesNothing;   // per rank; 0 where not critical
};
RankSavings rankReplays(const ReplayContext &ctx, const Ranks &ranks, const std::vector<size_t> &critical);

// 12. Which sync on the last rank moved each collective most: each source of a
//     critical rank alone, in rank and then source order (the first of equals).
//     Per collective, the source (null: none) and how much earlier it ended.
struct Blame {
    std::vector<const RankSource *> source;
    std::vector<TimeNs> delta; // <= 0
};
Blame blameSources(const ReplayContext &ctx, const Ranks &ranks, const std::vector<size_t> &critical,
                   const std::vector<Coupled> &coupled);

// 13. The blame rows, by lateness (longest first; a stable sort): each
//     collective's last rank, its times there on the aligned clock, and the
//     source that moved it most without its per-call lists.
std::vector<CollectiveBlame> blameRows(const std::vector<Coupled> &coupled, const Blame &blame,
                                       const std::vector<int64_t> &ids, const std::vector<TimeNs> &offset);

// 14. Each step of each critical rank without the calls of that rank that end
//     in it; a rank whose calls save nothing is not replayed. Per critical
//     rank's steps (by rank, then step): the job's saving.
std::vector<TimeNs> stepReplays(const ReplayContext &ctx, const Ranks &ranks, const std::vector<char> &critical,
                                const std::vector<char> &savesNothing);

// 15. The rank x step rows, by rank, then step: the step's collectives' waits
//     and lateness, and its saving (`stepSaving`, as stepReplays gives them).
//     `stepName(r, k)` gives rank r's step k's name.
std::vector<RankStep> rankStepRows(const Ranks &ranks, const std::vector<Coupled> &coupled, const PartsOf &parts,
                                   const std::vector<std::vector<int64_t>> &stepOfPart,
                                   const std::vector<char> &critical, const std::vector<TimeNs> &stepSaving,
                                   const std::function<std::string(size_t, size_t)> &stepName);

// How many threads the job's replays use: `requested` (0: every core), and no
// more extra threads than fit 1 GiB of their state.
size_t replayThreads(size_t requested, const std::vector<const RankInput *> &ranks,
                     const std::vector<Coupled> &coupled);

} // namespace syncscope::jobphases
