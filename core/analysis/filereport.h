#pragma once
// What `analyze` prints for one file, as plain values: every string resolved,
// no StrId and no TraceModel. The report outlives the model it was made from,
// so a job's ranks can be analysed one at a time, and a rank summary
// (ranksummary.h) can carry it to another machine.
#include "analysis/opstats.h"
#include "analysis/syncanalysis.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace syncscope {

// An op statistic merged over files by its text (files intern separately).
struct NamedOpStat {
    std::string name, cat;
    uint64_t count = 0;
    TimeNs total = 0, self = 0, min = 0, max = 0;
    uint64_t gpuCount = 0; // GPU activities launched inside (OpStat::gpuCount)
    TimeNs gpuTime = 0;
};

// A pid or tid as written: a number, else its text.
struct ReportId {
    int64_t num = kNoValue;
    std::string text;
};

struct ReportWarningKind {
    std::string pattern, example;
    uint64_t count = 0;
};

// Where a replay's head start stopped (ReplayLimit): its kind's name and the sentence.
struct ReportLimit {
    std::string kind = "none", text;
};

struct ReportDevice {
    int64_t device = 0;
    std::string name; // from deviceProperties; empty when unknown
    uint64_t kernels = 0, memcpys = 0, memsets = 0;
    TimeNs first = 0, last = 0, busy = 0, syncGap = 0, avoidable = 0;
    ReportLimit limitedBy;
    TimeNs span() const { return last - first; }
    TimeNs idle() const { return span() - busy; }
};

// A blocking call; a name is absent (nullopt) where SyncCall's reference is invalid.
struct ReportSyncCall {
    std::string name;
    TimeNs start = 0, dur = 0;
    ReportId pid, tid;
    std::optional<std::string> op, rootOp, pyFrame, userFrame;
    bool pageableCopy = false;
    std::string blocks; // what it waits for: "stream", "device", "event" or "copy"
    TimeNs avoidable = 0;
    int32_t step = -1;  // index into FileReport::steps
    std::string advice; // the id of its advice rule (advice.h); empty: no known rewrite
};

struct ReportCudaSyncEvent {
    std::string kind;
    TimeNs start = 0, dur = 0;
    int64_t device = kNoValue, stream = kNoValue;
};

struct ReportStep {
    std::string name;
    TimeNs start = 0, end = 0;
};

struct ReportSource {
    std::string sync;
    std::optional<std::string> op, userFrame;
    uint64_t count = 0, gaps = 0;
    TimeNs gapTime = 0, avoidable = 0;
    std::vector<TimeNs> avoidableByDevice; // order of FileReport::devices
    std::string advice;                    // the id of the rule most of its calls match; empty: none
    uint64_t adviceCalls = 0;              // how many of its calls match it
    ReportLimit limitedBy;                 // on the device it saves most on
};

// A stream dependency from the profiler's `Stream Wait Event` records: the
// first activity launched on `stream` after the wait waits for the last one
// launched on `waitOnStream` before the event was recorded.
struct ReportStreamWait {
    int64_t device = 0, stream = 0, waitOnStream = 0;
    int64_t fromCorrelation = kNoValue, toCorrelation = kNoValue;
};

// Control passing from one host thread to another and back (handoffs.h).
struct ReportHandoff {
    ReportId fromTid, toTid;
    TimeNs at = 0, back = 0;
};

struct FileReport {
    // The trace file.
    std::string path, format;
    int64_t rank = kNoValue;  // distributedInfo.rank
    std::string torchVersion; // the PyTorch version the trace states; empty when none
    bool truncated = false;   // the data ends early: the report covers the events before the cut
    // Not empty when the cut left some kinds of events short (unevenCutSentence):
    // no figure of this file is a finding then.
    std::string unevenCut;
    uint64_t truncatedAtByte = 0; // where (of the decompressed JSON for json.gz)
    uint64_t durationEvents = 0, flows = 0, instants = 0, counters = 0;
    TimeNs minTime = 0, maxTime = 0;
    uint64_t warnings = 0;
    std::vector<ReportWarningKind> warningKinds;
    std::map<std::string, uint64_t> categories; // normalized category -> duration events
    RuntimeUse runtime;                         // CUDA, HIP or none, and the calls seen
    // Its analysis, in the orders of SyncAnalysis.
    uint64_t unplacedActivities = 0;
    std::vector<ReportDevice> devices;
    std::vector<ReportSyncCall> syncCalls;
    // Runtime calls of at least the long-call threshold that are not blocking
    // calls (name, start, dur, pid, tid, op, rootOp set): the host waited
    // inside a call that is not a sync. Not replayed.
    std::vector<ReportSyncCall> longCalls;
    std::vector<ReportCudaSyncEvent> cudaSyncEvents;
    WaitMode waitMode = WaitMode::Inferred;    // how the stream dependencies were found
    uint64_t streamDependencies = 0;           // how many
    std::vector<ReportStreamWait> streamWaits; // exact mode only: by to, then from correlation
    ThreadMode threadMode = ThreadMode::None;  // how the handoffs were found
    std::vector<ReportHandoff> handoffs;       // by at, then back
    std::vector<SyncGap> syncGaps;             // syncCall indexes syncCalls, step indexes steps
    std::vector<IdleBreakdown> idleBreakdown;
    std::vector<ReportStep> steps;
    std::vector<StepDeviceStats> stepStats;
    std::vector<ReportSource> sources;
    std::vector<NamedOpStat> ops; // by (name, cat)
};

// The report of one file from its model and its analysis.
FileReport makeFileReport(const TraceModel &model, const SyncAnalysis &analysis,
                          const CancelToken *cancel = nullptr);
// The same with the model's whole-trace op statistics already computed
// (opStatistics), e.g. on another thread while the analysis ran.
FileReport makeFileReport(const TraceModel &model, const SyncAnalysis &analysis, const std::vector<OpStat> &ops);

// Whether a device's total avoidable time is far from what any single source
// saves (the largest under half of it): the syncs re-synchronize each other,
// and the header, the text and the report say so in words.
inline bool noSingleSourceExplains(TimeNs largestSource, TimeNs total)
{
    return total > 0 && largestSource * 2 < total;
}

// What a truncated file covers, in one sentence: "the file ends early at byte
// B (of its decompressed JSON): the analysis covers its first T (N events)".
std::string truncationSentence(uint64_t atByte, bool gzip, TimeNs covered, uint64_t events);
std::string truncationSentence(const FileReport &r);

// A truncated file that lists its events kind by kind (host ops, runtime
// calls, GPU activity) can end inside one kind while an earlier one ran to
// its end: the later events of the cut kinds are missing, not absent from the
// program. Empty when the file is whole or every kind present reaches within
// 10 % of the span read; else one sentence naming the kinds cut and where
// each stops ("events stop early by kind (runtime calls at 419.573 ms, GPU
// activity at 585.679 ms, of the 1074.204 ms read): the file lists events
// kind by kind and was cut inside them, so the later ones are missing and
// this analysis is incomplete").
std::string unevenCutSentence(const TraceModel &model);

// The op statistics of several files merged by (name, cat), longest total first
// (ties in (name, cat) order).
std::vector<NamedOpStat> mergeOps(const std::vector<FileReport> &files);

// The category counts of several files, summed.
std::map<std::string, uint64_t> mergeCategories(const std::vector<FileReport> &files);

} // namespace syncscope
