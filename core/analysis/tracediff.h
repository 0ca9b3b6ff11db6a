#pragma once
// Before and after: two analysed traces side by side, so a user sees what a fix
// changed. This is the `syncscope-cli diff --json` contract (docs/cli.md
// "Comparing two traces"). Definitions:
//  - devices match by device id; sync calls by name; sync sources by the text of
//    (sync, op, user_frame); ops by (name, category); kernels by name; steps by
//    their order in each trace (the i-th step of one with the i-th of the other).
//  - a side that lacks an entry has no figures there (null in JSON).
//  - a step's figures: dur = end - start of its host window; gpu_busy,
//    sync_gaps and avoidable summed over the devices (syncanalysis.h).
//  - step_time: over the step durations sorted ascending d[0..n-1], the p-th
//    percentile is the nearest rank d[ceil(p * n / 100) - 1] (rank at least 1),
//    computed in integer ns. The median is the middle step, or for an even
//    count the mean of the two middle steps rounded down to the ns.
//  - with kFewSteps steps or fewer on each side, a median hides a change in
//    one step (of two steps, a 7 ms regression in one moves no median), so
//    the headline shows each step's delta instead (the CLI's text, Compare).
//  - ops: every (name, category) of the duration events except GPU activity
//    (kernel, gpu_memcpy, gpu_memset), which the kernels list holds by name,
//    and Kineto's category "Trace" (its envelope around the whole capture).
//    count, total and self as in opstats.h.
//  - deltas are after - before, a missing side counting as zero.
#include "analysis/jobanalysis.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace syncscope {

// One trace with what the comparison needs of it.
struct AnalysedTrace {
    TraceModelPtr model;
    SyncAnalysis sync;
    std::vector<NamedOpStat> ops; // all categories, as analyzeJob gives them
};

// The op statistics of one trace by name and category text (as analyzeJob's ops).
std::vector<NamedOpStat> namedOps(const TraceModel &model, const CancelToken *cancel = nullptr);

// Analyses one loaded trace as `analyze` does.
AnalysedTrace analyseTrace(TraceModelPtr model, const AnalysisOptions &options = {},
                           const ProgressFn &progress = {}, const CancelToken *cancel = nullptr);

constexpr size_t kNoIndex = SIZE_MAX;

struct DiffFile {
    std::string path;
    uint64_t events = 0; // duration events
    TimeNs span = 0;     // last end - first start over the whole trace
};

struct DeviceFigures {
    TimeNs busy = 0, idle = 0, span = 0, syncGap = 0, avoidable = 0;
};
struct DeviceDiff {
    int64_t device = 0;
    std::optional<DeviceFigures> before, after;
};

struct SyncCallDiff {
    std::string name;
    std::optional<uint64_t> before, after; // blocking calls of that name
};

struct SourceFigures {
    uint64_t count = 0, gaps = 0;
    TimeNs gapTime = 0, avoidable = 0;
};
struct SourceDiff {
    std::string sync;
    std::optional<std::string> op, userFrame; // none: no enclosing op / user frame
    std::optional<SourceFigures> before, after;
    size_t beforeIndex = kNoIndex, afterIndex = kNoIndex; // into each side's sync.sources
    TimeNs sortKey() const;                               // the larger avoidable side
};

struct StepFigures {
    std::string step; // its name
    TimeNs start = 0, dur = 0, gpuBusy = 0;
    uint64_t syncGaps = 0;
    TimeNs syncGapTime = 0, avoidable = 0;
};
struct StepDiff {
    size_t index = 0; // into each side's sync.steps
    std::optional<StepFigures> before, after;
};

struct StepTime {
    uint64_t count = 0;
    TimeNs median = 0, p5 = 0, p95 = 0; // meaningful when count > 0
};

// Up to this many steps on each side, the headline lists every step's delta.
inline constexpr uint64_t kFewSteps = 5;

// Whether the headline lists each step (both sides have steps, none more than kFewSteps).
inline bool fewSteps(const StepTime &before, const StepTime &after)
{
    return before.count > 0 && after.count > 0 && before.count <= kFewSteps && after.count <= kFewSteps;
}

struct OpFigures {
    uint64_t count = 0;
    TimeNs total = 0, self = 0;
};
struct OpDiff {
    std::string name, cat;
    std::optional<OpFigures> before, after;
};

struct KernelFigures {
    uint64_t count = 0;
    TimeNs total = 0;
};
struct KernelDiff {
    std::string name;
    std::optional<KernelFigures> before, after;
};

// Sums over a side's devices: the headline.
struct DiffTotals {
    uint64_t devices = 0, syncCalls = 0, syncGaps = 0;
    TimeNs busy = 0, span = 0, syncGap = 0, avoidable = 0;
};

struct TraceDiff {
    DiffFile before, after;
    std::vector<DeviceDiff> devices;     // by device id
    std::vector<SyncCallDiff> syncCalls; // by the larger count, then name
    std::vector<SourceDiff> sources;     // by the larger avoidable side, then text
    std::vector<StepDiff> steps;         // by index
    StepTime stepTimeBefore, stepTimeAfter;
    std::vector<OpDiff> ops;         // by |delta self|, then |delta total|, then (name, cat)
    std::vector<KernelDiff> kernels; // by |delta total|, then name
    DiffTotals totalsBefore, totalsAfter;
};

// Nearest-rank percentile of values (any order), p in [0, 100]; 0 when empty.
TimeNs nearestRank(std::vector<TimeNs> values, unsigned p);
// The median of values (any order): the middle one, or the mean of the two
// middle ones rounded down to the ns; 0 when empty.
TimeNs median(std::vector<TimeNs> values);
StepTime stepTime(const SyncAnalysis &a);

TraceDiff diffTraces(const AnalysedTrace &before, const AnalysedTrace &after);

// The JSON document of `diff --json`; every *_us value is exact.
std::string traceDiffToJson(const TraceDiff &diff, int indent = 1);
// One row per (section, key, metric): section,key,metric,before,after,delta.
// A missing side is an empty cell; delta treats it as zero. Times in exact us.
std::string traceDiffToCsv(const TraceDiff &diff);
// The text that names a source: "sync in op at frame".
std::string sourceLabel(const SourceDiff &s);

} // namespace syncscope
