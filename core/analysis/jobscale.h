#pragma once
// What a sync costs the whole job. The ranks meet at every collective, so a
// sync that makes one rank late holds every rank at the next collective, and a
// sync on a rank that is never the last to arrive costs the job nothing.
// Definitions (docs/analysis.md "Job scale: what a sync costs the job"):
//  - collective: a GPU kernel whose name contains "nccl" or "rccl" (any case);
//    matched across ranks by (group, seq). A collective missing on some ranks of
//    its group, or whose kernel names differ across ranks, is counted in
//    `unmatched` and not coupled.
//  - for collective c on rank j: arrival a_j (its kernel's start), duration
//    dur_j; communication time d = min_j dur_j; wait w_j = dur_j - d. The last
//    rank has w_j = 0 (ties: the lowest rank); lateness = the second smallest w.
//  - the job replay: every rank replays as in syncreplay.h; when rank j's kernel
//    of c starts delta_j <= 0 later than measured, c ends
//    Delta = max_j (delta_j - w_j) later than measured on every rank.
//  - clock offset of rank r: the median over matched collectives of
//    (end on r - end on the first rank), with p5 and p95 of the same set.
//  - job end: the latest end of any rank's GPU activity, on the aligned clock
//    (a rank's times minus its offset); span: first start to job end.
#include "analysis/replayinput.h"
#include "common/progress.h"

#include <string>
#include <vector>

namespace syncscope {

class JsonWriter;

// A sync source of one rank by its text, with the indices of its calls in
// ReplayInput::calls.
struct RankSource {
    std::string sync;
    std::string op;        // empty with hasOp false: no enclosing op
    std::string userFrame; // empty with hasUserFrame false
    bool hasOp = false, hasUserFrame = false;
    std::vector<uint32_t> calls;
    std::string advice;                  // the id of its advice rule (advice.h); empty: none
    std::vector<std::string> callAdvice; // each call's rule id, as `calls`; empty: none
};

struct RankStepWindow {
    std::string name;
    TimeNs start = 0, end = 0; // host window [start, end), the rank's clock
};

// One rank as the job analysis sees it: all it needs, without the trace.
struct RankInput {
    int64_t rank = kNoValue; // distributedInfo.rank; kNoValue: by file order
    std::string file;
    ReplayInput replay;
    std::vector<RankSource> sources;    // as in SyncAnalysis::sources
    std::vector<RankStepWindow> steps;  // by start
    std::vector<TimeNs> localAvoidable; // per dense device: the single-rank replay
    TimeNs clockShift = 0;              // the times above minus the file's (TraceInfo::clockShift)
    // The trace's first event: sentences print times after it. A summary
    // does not store it twice: it is its report's minTime.
    TimeNs origin = 0;
};

struct JobRank {
    int64_t rank = 0;
    std::string file;
    size_t fileIndex = 0;      // position among the inputs
    int64_t device = kNoValue; // the device its collectives run on, else its busiest
    bool hasClockOffset = false;
    TimeNs clockOffset = 0, clockOffsetP5 = 0, clockOffsetP95 = 0; // the file's clock
    // What turns an aligned time into this rank's analysed time (RankStep's
    // clock): the offset of the clock it was analysed in, and that clock less
    // its file's (RankInput::clockShift). Both 0 where a viewer has drawn the
    // rank on the aligned clock already.
    TimeNs analysedOffset = 0, clockShift = 0;
    TimeNs localAvoidable = 0; // single-rank replay, on `device`
    TimeNs jobAvoidable = 0;   // job end earlier without this rank's blocking calls
    uint64_t lastArrivals = 0; // collectives this rank was the last to reach
    TimeNs wait = 0;           // sum of its w_j
    WaitMode waitMode = WaitMode::Inferred;
    uint64_t streamWaits = 0; // dependencies found
};

struct CollectiveBlame {
    std::string group;
    uint32_t seq = 0;
    std::string name;
    int64_t lastRank = 0;
    TimeNs lateness = 0;       // last arrival minus the second last
    TimeNs start = 0, end = 0; // on the last rank, aligned clock
    bool hasCause = false;
    RankSource cause; // on the last rank; calls and callAdvice left empty
    TimeNs saves = 0; // how much earlier c ends without that source alone
};

struct RankStep {
    int64_t rank = 0;
    std::string step;
    TimeNs start = 0, end = 0; // host window, the rank's analysed clock
    TimeNs dur = 0;
    TimeNs avoidable = 0; // job end earlier without this rank's calls that end in the step
    TimeNs lateness = 0;  // lateness of the step's collectives this rank was last at
    TimeNs wait = 0;      // sum of this rank's w_j over the step's collectives
};

struct JobScale {
    size_t ranks = 0;
    size_t collectives = 0; // matched
    size_t unmatched = 0;   // collectives not coupled
    TimeNs span = 0;
    TimeNs avoidable = 0;               // job end earlier without every blocking call of every rank
    std::vector<JobRank> rankRows;      // in rank order
    std::vector<CollectiveBlame> blame; // by lateness, longest first
    std::vector<RankStep> rankSteps;    // by rank, then step start
    std::vector<std::string> warnings;  // one sentence each
};

struct SyncAnalysis;
// One rank's input from its trace and its single-rank analysis (which holds
// the replay input); `file` is the model's path.
RankInput makeRankInput(const TraceModel &model, const SyncAnalysis &analysis);

// Each rank's clock offset against the first rank (rank order: `rank`, else
// the position; two of one rank are an Error naming both files), from the ends
// of the collectives they share; known is false where a rank shares none.
// Per input, in the clocks of `replays`.
struct ClockOffset {
    bool known = false;
    TimeNs median = 0, p5 = 0, p95 = 0;
};
std::vector<ClockOffset> clockOffsets(const std::vector<int64_t> &rank, const std::vector<std::string> &file,
                                      const std::vector<const ReplayInput *> &replays);

// Two inputs with the same rank are an Error (one sentence). The replays run on
// `threads` threads (0: every core), no more than fit 1 GiB of the extra
// threads' state; the result does not depend on how many.
JobScale analyzeJobScale(const std::vector<RankInput> &ranks, const ProgressFn &progress = {},
                         const CancelToken *cancel = nullptr, size_t threads = 0);
// The same on inputs given up: the analysis lets go of what its replays no
// longer need as it goes (each rank's launch calls once its replay is indexed).
JobScale analyzeJobScale(std::vector<RankInput> &&ranks, const ProgressFn &progress = {},
                         const CancelToken *cancel = nullptr, size_t threads = 0);

// What-if for the job: how much earlier its last GPU activity ends (aligned
// clock) when exactly removed[f] (indices into file f's replay calls) are
// removed from each file f, together, through the collectives. The same rules
// and errors as analyzeJobScale.
TimeNs jobWhatIfSaving(const std::vector<RankInput> &ranks, const std::vector<std::vector<size_t>> &removed,
                       const CancelToken *cancel = nullptr);

// The `job`, `ranks`, `collective_blame` and `rank_steps` members of the
// `analyze --json` document (docs/cli.md "analyze --json").
void writeJobScaleJson(JsonWriter &w, const JobScale &job);

} // namespace syncscope
