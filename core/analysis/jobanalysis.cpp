#include "analysis/jobanalysis.h"

#include "analysis/advice.h"
#include "analysis/jsonwriter.h"
#include "common/error.h"
#include "trace/categories.h"

#include <algorithm>

namespace syncscope {

JobAnalysis analyzeJob(const std::vector<TraceModelPtr> &files, const AnalysisOptions &options,
                       const ProgressFn &progress, const CancelToken *cancel)
{
    std::vector<FileReport> reports;
    std::vector<RankInput> ranks;
    const double n = double(std::max<size_t>(1, files.size()));
    for (size_t f = 0; f < files.size(); ++f) {
        const TraceModel &m = *files[f];
        ProgressFn inner;
        if (progress)
            inner = [&, f](double x, const char *msg) { progress((double(f) + 0.8 * x) / n, msg); };
        const SyncAnalysis a = analyzeSyncs(m, options, inner, cancel);
        reports.push_back(makeFileReport(m, a, cancel));
        if (files.size() >= 2)
            ranks.push_back(makeRankInput(m, a));
    }
    ProgressFn rest;
    if (progress)
        rest = [&](double x, const char *msg) { progress(0.8 + 0.2 * x, msg); };
    return assembleJob(std::move(reports), ranks, rest, cancel);
}

JobAnalysis assembleJob(std::vector<FileReport> files, const std::vector<RankInput> &ranks,
                        const ProgressFn &progress, const CancelToken *cancel, size_t threads)
{
    std::optional<JobScale> jobScale;
    if (files.size() >= 2) {
        if (ranks.size() != files.size())
            throw Error("the job analysis needs one rank input per file (" + std::to_string(ranks.size()) +
                        " for " + std::to_string(files.size()) + " files)");
        jobScale = analyzeJobScale(ranks, progress, cancel, threads);
    }
    if (progress)
        progress(1.0, "done");
    return assembleJob(std::move(files), std::move(jobScale));
}

JobAnalysis assembleJob(std::vector<FileReport> files, std::optional<JobScale> jobScale)
{
    JobAnalysis job;
    job.files = std::move(files);
    job.categories = mergeCategories(job.files);
    job.ops = mergeOps(job.files);
    if (jobScale) {
        job.jobScale = std::move(*jobScale);
        job.hasJobScale = true;
    }
    return job;
}

const std::vector<std::string> &defaultTopCategories()
{
    static const std::vector<std::string> kCats = {
        std::string(category::kCpuOp), std::string(category::kUserAnnotation), std::string(category::kKernel),
        std::string(category::kMemcpy), std::string(category::kMemset)};
    return kCats;
}

namespace {

void id(JsonWriter &w, const ReportId &v)
{
    if (v.num != kNoValue)
        w.value(v.num);
    else
        w.value(v.text);
}

void strOrNull(JsonWriter &w, const std::optional<std::string> &s)
{
    if (s)
        w.value(*s);
    else
        w.null();
}

void stepName(JsonWriter &w, const FileReport &r, int32_t step)
{
    if (step < 0)
        w.null();
    else
        w.value(r.steps[static_cast<size_t>(step)].name);
}

void adviceId(JsonWriter &w, const std::string &id)
{
    if (id.empty())
        w.null();
    else
        w.value(id);
}

} // namespace

void writeAdviceJson(JsonWriter &w, const std::string &id, const std::string &torchVersion)
{
    const AdviceRules &rules = builtinAdviceRules();
    const int at = id.empty() ? -1 : rules.find(id);
    if (at < 0) {
        w.null();
        return;
    }
    const AdviceRule &r = rules.rules[size_t(at)];
    w.beginObject();
    w.key("id").value(r.id);
    w.key("class").value(adviceClassName(r.cls));
    w.key("title").value(r.title);
    w.key("why").value(r.why);
    w.key("rewrite").beginObject();
    w.key("text").value(r.rewrite);
    w.key("before").value(r.before);
    w.key("after").value(r.after);
    w.endObject();
    w.key("min_torch");
    if (r.minTorch.empty())
        w.null();
    else
        w.value(r.minTorch);
    w.key("refs").beginArray();
    for (const std::string &ref : r.refs)
        w.value(ref);
    w.endArray();
    w.key("needs_newer_torch").value(torchOlderThan(torchVersion, r.minTorch));
    w.endObject();
}

std::string analysisToJson(const JobAnalysis &job, size_t topN, const std::vector<std::string> &topCategories,
                           int indent)
{
    std::string out;
    writeAnalysisJson(
        job, topN, topCategories, [&out](std::string_view piece) { out.append(piece); }, indent);
    return out;
}

namespace {

// A member of the document with one row per element of each file's `member`,
// in file order: each row an object that starts with its file's index, then
// what row(file, element) writes.
template <class T, class Row>
void perFileArray(JsonWriter &w, const char *key, const JobAnalysis &job, std::vector<T> FileReport::*member,
                  const Row &row)
{
    w.key(key).beginArray();
    for (size_t f = 0; f < job.files.size(); ++f)
        for (const T &e : job.files[f].*member) {
            w.beginObject();
            w.key("file").value(uint64_t(f));
            row(job.files[f], e);
            w.endObject();
        }
    w.endArray();
}

void writeFiles(JsonWriter &w, const JobAnalysis &job)
{
    w.key("files").beginArray();
    for (const FileReport &r : job.files) {
        w.beginObject();
        w.key("path").value(r.path);
        w.key("rank").optional(r.rank);
        w.key("format").value(r.format);
        // What wrote the file: an Nsight Systems export (format "sqlite") or a Chrome trace.
        w.key("source").value(r.format == "sqlite" ? "nsys" : "kineto");
        w.key("torch_version");
        if (r.torchVersion.empty())
            w.null();
        else
            w.value(r.torchVersion);
        w.key("runtime");
        if (const char *rt = runtimeKey(r.runtime.runtime))
            w.value(rt);
        else
            w.null();
        w.key("events").value(r.durationEvents);
        w.key("flows").value(r.flows);
        w.key("instants").value(r.instants);
        w.key("counters").value(r.counters);
        w.key("warnings").value(r.warnings);
        w.key("truncated_at_byte");
        if (r.truncated)
            w.value(r.truncatedAtByte);
        else
            w.null();
        w.key("incomplete");
        if (!r.unevenCut.empty())
            w.value(r.unevenCut);
        else
            w.null();
        w.key("unplaced_gpu_events").value(r.unplacedActivities);
        w.key("span_us").micros(r.maxTime - r.minTime);
        w.key("wait_mode").value(r.waitMode == WaitMode::Exact ? "exact" : "inferred");
        w.key("stream_dependencies").value(r.streamDependencies);
        w.key("thread_mode").value(threadModeName(r.threadMode));
        w.key("handoffs").value(uint64_t(r.handoffs.size()));
        w.key("warning_kinds").beginArray();
        for (const ReportWarningKind &k : r.warningKinds) {
            w.beginObject();
            w.key("count").value(k.count);
            w.key("kind").value(k.pattern);
            w.key("example").value(k.example);
            w.endObject();
        }
        w.endArray();
        w.endObject();
    }
    w.endArray();
}

void writeCategories(JsonWriter &w, const JobAnalysis &job)
{
    w.key("categories").beginObject();
    for (const auto &kv : job.categories)
        w.key(kv.first).value(kv.second);
    w.endObject();
}

void writeDevices(JsonWriter &w, const JobAnalysis &job)
{
    perFileArray(w, "devices", job, &FileReport::devices, [&](const FileReport &, const ReportDevice &d) {
        w.key("device").value(d.device);
        w.key("name");
        if (d.name.empty())
            w.null();
        else
            w.value(d.name);
        w.key("kernels").value(d.kernels);
        w.key("memcpys").value(d.memcpys);
        w.key("memsets").value(d.memsets);
        w.key("busy_us").micros(d.busy);
        w.key("idle_us").micros(d.idle());
        w.key("span_us").micros(d.span());
        w.key("sync_gap_us").micros(d.syncGap);
        w.key("avoidable_us").micros(d.avoidable);
        w.key("limited_by").beginObject();
        w.key("kind").value(d.limitedBy.kind);
        w.key("text").value(d.limitedBy.text);
        w.endObject();
    });
}

// What a sync call and a long host call both are, after the file: where,
// when, which op.
void callHead(JsonWriter &w, const ReportSyncCall &s)
{
    w.key("name").value(s.name);
    w.key("ts_us").micros(s.start);
    w.key("dur_us").micros(s.dur);
    w.key("pid");
    id(w, s.pid);
    w.key("tid");
    id(w, s.tid);
    w.key("op");
    strOrNull(w, s.op);
    w.key("root_op");
    strOrNull(w, s.rootOp);
}

// What a sync call's row and its gaps' rows end with: what it cost, where in
// the code, in which step, and what to write instead.
void costTail(JsonWriter &w, const FileReport &r, const ReportSyncCall &s, TimeNs blocked, TimeNs avoidable,
              int32_t step)
{
    w.key("blocked_us").micros(blocked);
    w.key("avoidable_us").micros(avoidable);
    w.key("py_frame");
    strOrNull(w, s.pyFrame);
    w.key("user_frame");
    strOrNull(w, s.userFrame);
    w.key("step");
    stepName(w, r, step);
    w.key("advice");
    adviceId(w, s.advice);
}

void writeSyncCalls(JsonWriter &w, const JobAnalysis &job)
{
    perFileArray(w, "sync_calls", job, &FileReport::syncCalls, [&](const FileReport &r, const ReportSyncCall &s) {
        callHead(w, s);
        w.key("pageable_copy").value(s.pageableCopy);
        w.key("blocks").value(s.blocks);
        costTail(w, r, s, s.dur, s.avoidable, s.step);
    });
}

void writeLongCalls(JsonWriter &w, const JobAnalysis &job)
{
    perFileArray(w, "long_calls", job, &FileReport::longCalls,
                 [&](const FileReport &, const ReportSyncCall &s) { callHead(w, s); });
}

void writeCudaSyncEvents(JsonWriter &w, const JobAnalysis &job)
{
    perFileArray(w, "cuda_sync_events", job, &FileReport::cudaSyncEvents,
                 [&](const FileReport &, const ReportCudaSyncEvent &e) {
                     w.key("kind").value(e.kind);
                     w.key("ts_us").micros(e.start);
                     w.key("dur_us").micros(e.dur);
                     w.key("device").optional(e.device);
                     w.key("stream").optional(e.stream);
                 });
}

void writeStreamWaits(JsonWriter &w, const JobAnalysis &job)
{
    perFileArray(w, "stream_waits", job, &FileReport::streamWaits,
                 [&](const FileReport &, const ReportStreamWait &s) {
                     w.key("device").value(s.device);
                     w.key("stream").value(s.stream);
                     w.key("wait_on_stream").value(s.waitOnStream);
                     w.key("from_correlation").optional(s.fromCorrelation);
                     w.key("to_correlation").optional(s.toCorrelation);
                 });
}

void writeHandoffs(JsonWriter &w, const JobAnalysis &job)
{
    perFileArray(w, "handoffs", job, &FileReport::handoffs, [&](const FileReport &, const ReportHandoff &h) {
        w.key("from_tid");
        id(w, h.fromTid);
        w.key("to_tid");
        id(w, h.toTid);
        w.key("at_us").micros(h.at);
        w.key("back_us").micros(h.back);
    });
}

void writeSyncGaps(JsonWriter &w, const JobAnalysis &job)
{
    perFileArray(w, "sync_gaps", job, &FileReport::syncGaps, [&](const FileReport &r, const SyncGap &g) {
        const ReportSyncCall &s = r.syncCalls[g.syncCall];
        w.key("device").value(g.device);
        w.key("start_us").micros(g.interval.start);
        w.key("end_us").micros(g.interval.end);
        w.key("dur_us").micros(g.interval.length());
        w.key("sync").value(s.name);
        w.key("op");
        strOrNull(w, s.op);
        w.key("root_op");
        strOrNull(w, s.rootOp);
        costTail(w, r, s, g.blocked, g.avoidable, g.step);
    });
}

void writeIdleBreakdown(JsonWriter &w, const JobAnalysis &job)
{
    perFileArray(w, "idle_breakdown", job, &FileReport::idleBreakdown,
                 [&](const FileReport &, const IdleBreakdown &b) {
                     w.key("device").value(b.device);
                     w.key("stream").optional(b.stream);
                     w.key("host_wait_us").micros(b.hostWait);
                     w.key("kernel_wait_us").micros(b.kernelWait);
                     w.key("other_us").micros(b.other);
                 });
}

void writeSteps(JsonWriter &w, const JobAnalysis &job)
{
    perFileArray(w, "steps", job, &FileReport::stepStats, [&](const FileReport &r, const StepDeviceStats &st) {
        const ReportStep &step = r.steps[st.step];
        w.key("device").value(st.device);
        w.key("step").value(step.name);
        w.key("start_us").micros(step.start);
        w.key("end_us").micros(step.end);
        w.key("gpu_busy_us").micros(st.gpuBusy);
        w.key("sync_gaps").value(st.syncGaps);
        w.key("sync_gap_us").micros(st.syncGapTime);
        w.key("avoidable_us").micros(st.avoidable);
    });
}

// All files' sources, longest avoidable first.
void writeSyncSources(JsonWriter &w, const JobAnalysis &job)
{
    std::vector<std::pair<uint64_t, const ReportSource *>> all;
    for (size_t f = 0; f < job.files.size(); ++f)
        for (const ReportSource &s : job.files[f].sources)
            all.push_back({uint64_t(f), &s});
    std::stable_sort(all.begin(), all.end(),
                     [](const auto &x, const auto &y) { return x.second->avoidable > y.second->avoidable; });
    w.key("sync_sources").beginArray();
    for (const auto &e : all) {
        const ReportSource &s = *e.second;
        w.beginObject();
        w.key("file").value(e.first);
        w.key("sync").value(s.sync);
        w.key("op");
        strOrNull(w, s.op);
        w.key("user_frame");
        strOrNull(w, s.userFrame);
        w.key("count").value(s.count);
        w.key("gaps").value(s.gaps);
        w.key("gap_us").micros(s.gapTime);
        w.key("avoidable_us").micros(s.avoidable);
        w.key("advice");
        writeAdviceJson(w, s.advice, job.files[e.first].torchVersion);
        w.key("advice_calls").value(s.adviceCalls);
        w.key("limited_by").beginObject();
        w.key("kind").value(s.limitedBy.kind);
        w.key("text").value(s.limitedBy.text);
        w.endObject();
        w.endObject();
    }
    w.endArray();
}

// The first topN ops of the given categories (all: none given).
void writeTopOps(JsonWriter &w, const JobAnalysis &job, size_t topN, const std::vector<std::string> &topCategories)
{
    w.key("top_ops").beginArray();
    size_t listed = 0;
    for (const NamedOpStat &o : job.ops) {
        if (listed >= topN)
            break;
        if (!topCategories.empty() &&
            std::find(topCategories.begin(), topCategories.end(), o.cat) == topCategories.end())
            continue;
        ++listed;
        w.beginObject();
        w.key("name").value(o.name);
        w.key("cat").value(o.cat);
        w.key("count").value(o.count);
        w.key("total_us").micros(o.total);
        w.key("self_us").micros(o.self);
        w.key("gpu_count").value(o.gpuCount);
        w.key("gpu_us").micros(o.gpuTime);
        w.endObject();
    }
    w.endArray();
}

} // namespace

void writeAnalysisJson(const JobAnalysis &job, size_t topN, const std::vector<std::string> &topCategories,
                       const JsonWriter::Sink &sink, int indent)
{
    JsonWriter w(indent, sink);
    w.beginObject();
    writeFiles(w, job);
    writeCategories(w, job);
    writeDevices(w, job);
    writeSyncCalls(w, job);
    writeLongCalls(w, job);
    writeCudaSyncEvents(w, job);
    writeStreamWaits(w, job);
    writeHandoffs(w, job);
    writeSyncGaps(w, job);
    writeIdleBreakdown(w, job);
    writeSteps(w, job);
    writeSyncSources(w, job);
    writeTopOps(w, job, topN, topCategories);
    if (job.hasJobScale)
        writeJobScaleJson(w, job.jobScale);
    if (job.hasWhatIf)
        writeWhatIfJson(w, job.whatIf);
    w.endObject();
    w.finish();
}

} // namespace syncscope
