#pragma once
// Everything the timeline draws, computed once per loaded job on a worker thread
// and immutable afterwards: the models, their sync analysis, the track layout and
// the per-depth indexes that make level of detail O(pixels * log n).
#include "analysis/jobscale.h"
#include "analysis/syncanalysis.h"
#include "common/progress.h"
#include "trace/tracemodel.h"

#include <QString>

#include <memory>
#include <mutex>
#include <vector>

namespace syncscope::ui {

// An event as the timeline knows it: a drawn track and the index in its columns.
struct TimelineEvent {
    int track = -1; // index into TimelineData::tracks()
    uint32_t index = 0;
    bool valid() const { return track >= 0; }
    bool operator==(const TimelineEvent &o) const { return track == o.track && index == o.index; }
    bool operator!=(const TimelineEvent &o) const { return !(*this == o); }
};

// One level (depth) of a track. Events at one depth never overlap (the builder
// nests partial overlaps deeper), so both starts and ends are sorted here.
struct TimelineLevel {
    std::vector<uint32_t> events;   // indices into the Track columns, by start
    std::vector<uint32_t> widest64; // position in `events` of the longest per block of 64
    std::vector<uint32_t> widest4k; // the same per block of 4096
    // End of the last (= latest ending) event of each block of 64: a small,
    // cache-resident array that narrows every search to one block.
    std::vector<TimeNs> blockEnd;
};

struct TimelineTrack {
    uint32_t file = 0;
    uint32_t track = 0; // index into model->tracks()
    int group = 0;      // index into TimelineData::groups()
    bool gpu = false;   // holds kernels, memcpys, memsets or GPU annotations
    int64_t device = kNoValue;
    QString name;
    std::vector<TimelineLevel> levels;
    // With Python frames hidden: the other events at their depth counted in
    // shown ancestors, so what ran beneath a hidden frame moves up. Empty when
    // the track has no python_function event (levels is the same then).
    std::vector<TimelineLevel> levelsNoPython;
    std::vector<uint16_t> depthNoPython; // per event; kHiddenDepth for a Python frame
    uint64_t pythonEvents = 0;
    static constexpr uint16_t kHiddenDepth = 0xffff;
    // Blocking sync calls on this track (indices into the file's syncCalls, by
    // start): those that caused a gap, and the others.
    std::vector<uint32_t> gapCalls, otherCalls;
};

// A process (or pseudo-process such as "Spans") of one file: its drawn tracks
// and counter series, in display order.
struct TimelineGroup {
    enum class Kind : uint8_t { Cpu, Gpu, Pseudo }; // the default order
    uint32_t file = 0;
    Kind kind = Kind::Cpu;
    QString title;
    std::vector<int> tracks;   // indices into TimelineData::tracks()
    std::vector<int> counters; // indices into TimelineData::counters()
};

// A counter series (ph C) drawn as a step-area track under its process.
struct TimelineCounter {
    uint32_t file = 0;
    uint32_t series = 0; // index into model->counters()
    int group = 0;
    QString name; // "name" or "name.key"
    double minValue = 0, maxValue = 0;
    // Maxima of the samples by blocks: level k holds the largest value of each
    // block of 8^(k+1) samples (the last block of a level may be short).
    static constexpr size_t kMaxFanout = 8;
    std::vector<std::vector<double>> maxPyramid;
    // Builds maxPyramid over a series' samples.
    void buildMaxPyramid(const std::vector<double> &values);
    // The largest of samples [b, e) of its series (b < e), in O(levels * fanout).
    double maxOf(const std::vector<double> &values, size_t b, size_t e) const;
};

// A global instant ("s": "g"): a vertical line across all tracks.
struct TimelineInstant {
    uint32_t file = 0;
    TimeNs ts = 0;
    StrId name = kNoStr;
};


struct TimelineFile {
    TraceModelPtr model;
    SyncAnalysis sync;
    QString label;                   // "rank 3" or the file name
    std::vector<uint8_t> catColor;   // palette index per StrId of a category
    std::vector<int> trackOf;        // model track -> TimelineData track, -1 if not drawn
    std::vector<char> callCausesGap; // per syncCalls index
    TimeNs maxSyncCallDur = 0;
    // The trace has python_function events: without them the frames are null
    // and the tables show the op where a user frame would go.
    bool hasPythonFrames = false;
    // A truncated file cut inside its kinds of events (unevenCutSentence):
    // what is missing; empty when its figures stand.
    std::string unevenCut;
    // Per sync.syncGaps index: its index in TimelineData::gaps().
    std::vector<uint32_t> gapRow;
    // Per device with gaps: gap indices (into sync.syncGaps) by start, and the
    // drawn GPU tracks of the device.
    struct DeviceGaps {
        int64_t device = 0;
        std::vector<uint32_t> gaps;
        std::vector<int> tracks;
    };
    std::vector<DeviceGaps> deviceGaps;
    // Flow events by id: (numeric id or hashed text id, index into model->flows()).
    std::vector<std::pair<int64_t, uint32_t>> flowsById;
};

// A sync gap of the job, for the table and navigation.
struct TimelineGap {
    uint32_t file = 0;
    uint32_t gap = 0; // index into files[file].sync.syncGaps
};

// A step of the job (a ProfilerStep#N or a step-pattern match), for the ruler band
// and the per-step chart.
struct TimelineStep {
    uint32_t file = 0;
    uint32_t step = 0; // index into files[file].sync.steps
};

struct TimelineSummary {
    TimeNs busy = 0, span = 0, syncGapTime = 0;
    uint64_t syncGaps = 0, syncCalls = 0, cudaSyncEvents = 0, events = 0, devices = 0;
    uint64_t warnings = 0;
    double busyPercent() const { return span > 0 ? 100.0 * double(busy) / double(span) : 0.0; }
};

class TimelineData {
public:
    static constexpr int kRowHeight = 18;
    static constexpr int kHeaderHeight = 20;
    static constexpr int kTrackGap = 3;

    // Runs the sync analysis with these options and builds the layout; throws
    // Cancelled, or Error when the options are bad (an invalid step pattern).
    static std::shared_ptr<const TimelineData> build(std::vector<TraceModelPtr> models,
                                                     const AnalysisOptions &options,
                                                     const ProgressFn &progress = {},
                                                     const CancelToken *cancel = nullptr);
    static std::shared_ptr<const TimelineData>
    build(std::vector<TraceModelPtr> models, const ProgressFn &progress = {}, const CancelToken *cancel = nullptr)
    {
        return build(std::move(models), AnalysisOptions{}, progress, cancel);
    }

    const AnalysisOptions &options() const { return m_options; }
    std::vector<TraceModelPtr> models() const;

    const std::vector<TimelineFile> &files() const { return m_files; }
    const std::vector<TimelineTrack> &tracks() const { return m_tracks; }
    const std::vector<TimelineGroup> &groups() const { return m_groups; }
    const std::vector<TimelineCounter> &counters() const { return m_counters; }
    const CounterSeries &counterSeries(int counter) const
    {
        const TimelineCounter &c = m_counters[size_t(counter)];
        return m_files[c.file].model->counters()[c.series];
    }
    const std::vector<TimelineInstant> &globalInstants() const { return m_globalInstants; } // by ts
    uint64_t pythonEvents() const { return m_pythonEvents; }
    // The first global instant within [t - tol, t + tol], else -1.
    int globalInstantNear(TimeNs t, TimeNs tol) const;
    const std::vector<TimelineGap> &gaps() const { return m_gaps; }    // by start time
    const std::vector<TimelineStep> &steps() const { return m_steps; } // by start time
    const Step &step(const TimelineStep &s) const { return m_files[s.file].sync.steps[s.step]; }
    // Indices into gaps() of the gaps that the calls of a sync source cause, by start.
    std::vector<int> gapsOfSource(uint32_t file, size_t source) const;
    // Text of an event or a string of a file ("" for an invalid ref or kNoStr).
    QString text(uint32_t file, const EventRef &ref) const;
    QString text(uint32_t file, StrId id) const;
    // What the tables show as a call's user frame: the frame, or the op when the
    // trace has no Python events.
    QString userFrameText(uint32_t file, const SyncCall &call) const;
    const TimelineSummary &summary() const { return m_summary; }
    // Every file as the job analysis sees it (makeRankInput), made on first
    // use from any thread and kept while this data lives: each what-if of the
    // checked sources and each report reuse them.
    const std::vector<RankInput> &rankInputs() const;
    TimeNs minTime() const { return m_minTime; }
    TimeNs maxTime() const { return m_maxTime; }

    const TimelineFile &fileOf(const TimelineEvent &e) const { return m_files[m_tracks[e.track].file]; }
    Track modelTrack(int track) const
    {
        const TimelineTrack &t = m_tracks[track];
        return m_files[t.file].model->tracks()[t.track];
    }
    std::string_view name(const TimelineEvent &e) const;
    std::string_view category(const TimelineEvent &e) const;
    TimeNs start(const TimelineEvent &e) const { return modelTrack(e.track).start[e.index]; }
    TimeNs end(const TimelineEvent &e) const { return modelTrack(e.track).end(e.index); }
    int colorOf(const TimelineEvent &e) const;
    TimelineEvent eventOf(uint32_t file, const EventRef &ref) const;

    // Position in level.events of the longest event among positions [from, to).
    static size_t widest(const Track &track, const TimelineLevel &level, size_t from, size_t to);
    // First position in a level whose event ends at or after t (ends are sorted).
    static size_t firstEndingAtOrAfter(const Track &track, const TimelineLevel &level, size_t from, TimeNs t);
    // Events linked to e by flows (Kineto ac2g, legacy async launch) or, when the
    // file has no flow for it, by the same correlation id: (from, to) pairs.
    std::vector<std::pair<TimelineEvent, TimelineEvent>> linkedEvents(const TimelineEvent &e) const;
    // The deepest event of a track that contains t, else invalid.
    TimelineEvent enclosing(int track, TimeNs t) const;

private:
    mutable std::once_flag m_rankInputsOnce;
    mutable std::vector<RankInput> m_rankInputs;
    // Names the files so they can be told apart (fileLabels).
    void labelFiles();
    void indexFile(uint32_t file, const CancelToken *cancel);
    // Per file: how much to move it to draw the job on one clock (minus its
    // clock offset against the first rank; 0 for one file or a rank that
    // shares no collective with the first), from each file's collectives
    // (replayInputOf: no figures, no replays). Models on screen already moved
    // (a re-analysis) come out at 0.
    std::vector<TimeNs> alignClocks(const AnalysisOptions &options, const CancelToken *cancel) const;
    static void indexLevels(const Track &t, std::vector<TimelineLevel> &levels,
                            const std::vector<uint16_t> *depthOf);

    std::vector<TimelineFile> m_files;
    std::vector<TimelineTrack> m_tracks;
    std::vector<TimelineGroup> m_groups;
    std::vector<TimelineCounter> m_counters;
    std::vector<TimelineInstant> m_globalInstants;
    uint64_t m_pythonEvents = 0;
    std::vector<TimelineGap> m_gaps;
    std::vector<TimelineStep> m_steps;
    AnalysisOptions m_options;
    TimelineSummary m_summary;
    TimeNs m_minTime = 0, m_maxTime = 0;
};

// Why removing one gap's blocking call saves its device nothing, in one
// sentence: when removing every call does save something, another blocking
// call waits for the same work; when even that saves nothing, the device's
// work waits on something the replay keeps (other streams, launches, latency).
QString whyNothingAvoidable(const SyncAnalysis &analysis, int64_t device);

// The names that tell the open files apart, one per file: a capture
// ("20261201-101500-123-naive-cpu-n100000.json.gz") by its variant, N and
// device; several files by the parts of their names (split at '_', '.', '-')
// that differ between them, the fewest that make every name unique; a rank
// before it ("Rank 3 · worker3"). `ranks[i]` is kNoValue for a file without one.
std::vector<QString> fileLabels(const std::vector<QString> &fileNames, const std::vector<int64_t> &ranks);

} // namespace syncscope::ui
