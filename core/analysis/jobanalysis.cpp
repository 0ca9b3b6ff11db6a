#include "analysis/jobanalysis.h"

#include "analysis/jsonwriter.h"
#include "common/error.h"

#include <algorithm>

namespace syncscope {

JobAnalysis analyzeJob(std::vector<TraceModelPtr> files, const AnalysisOptions &options,
                       const ProgressFn &progress, const CancelToken *cancel)
{
    JobAnalysis job;
    job.files = std::move(files);
    std::map<std::pair<std::string, std::string>, NamedOpStat> merged;
    const double n = double(std::max<size_t>(1, job.files.size()));
    for (size_t f = 0; f < job.files.size(); ++f) {
        const TraceModel &m = *job.files[f];
        ProgressFn inner;
        if (progress)
            inner = [&, f](double x, const char *msg) { progress((double(f) + 0.8 * x) / n, msg); };
        job.sync.push_back(analyzeSyncs(m, options, inner, cancel));
        for (const Track &t : m.tracks())
            for (StrId c : t.cat)
                ++job.categories[std::string(m.str(c))];
        for (const OpStat &s : opStatistics(m, {}, cancel)) {
            NamedOpStat &o = merged[{std::string(m.str(s.name)), std::string(m.str(s.cat))}];
            if (o.count == 0) {
                o.name = m.str(s.name);
                o.cat = m.str(s.cat);
                o.min = s.min;
                o.max = s.max;
            }
            o.count += s.count;
            o.total += s.total;
            o.self += s.self;
            o.gpuCount += s.gpuCount;
            o.gpuTime += s.gpuTime;
            o.min = std::min(o.min, s.min);
            o.max = std::max(o.max, s.max);
        }
    }
    for (auto &kv : merged)
        job.ops.push_back(std::move(kv.second));
    if (job.files.size() >= 2) {
        std::vector<RankInput> ranks;
        for (size_t f = 0; f < job.files.size(); ++f)
            ranks.push_back(makeRankInput(*job.files[f], job.sync[f]));
        ProgressFn inner;
        if (progress)
            inner = [&](double x, const char *msg) { progress(0.8 + 0.2 * x, msg); };
        job.scale = analyzeJobScale(ranks, inner, cancel);
        job.hasScale = true;
    }
    std::stable_sort(job.ops.begin(), job.ops.end(),
                     [](const NamedOpStat &a, const NamedOpStat &b) { return a.total > b.total; });
    if (progress)
        progress(1.0, "done");
    return job;
}

const std::vector<std::string> &defaultTopCategories()
{
    static const std::vector<std::string> kCats = {"cpu_op", "user_annotation", "kernel",
                                                   "gpu_memcpy", "gpu_memset"};
    return kCats;
}

namespace {

void id(JsonWriter &w, const TraceModel &m, const IdValue &v)
{
    if (v.isNumber())
        w.value(v.num);
    else
        w.value(m.str(v.text));
}

void name(JsonWriter &w, const TraceModel &m, const EventRef &ref)
{
    if (ref.valid())
        w.value(m.str(m.tracks()[ref.track].name[ref.index]));
    else
        w.null();
}

void strOrNull(JsonWriter &w, const TraceModel &m, StrId s)
{
    if (s == kNoStr)
        w.null();
    else
        w.value(m.str(s));
}

void stepName(JsonWriter &w, const TraceModel &m, const SyncAnalysis &a, int32_t step)
{
    if (step < 0)
        w.null();
    else
        w.value(m.str(a.steps[static_cast<size_t>(step)].name));
}

} // namespace

std::string analysisToJson(const JobAnalysis &job, size_t topN,
                           const std::vector<std::string> &topCategories, int indent)
{
    JsonWriter w(indent);
    const size_t nFiles = job.files.size();
    auto each = [&](auto &&fn) {
        for (size_t f = 0; f < nFiles; ++f)
            fn(f, *job.files[f], job.sync[f]);
    };
    w.beginObject();
    w.key("files").beginArray();
    each([&](size_t, const TraceModel &m, const SyncAnalysis &a) {
        const TraceCounts &c = m.counts();
        w.beginObject();
        w.key("path").value(m.info().path);
        w.key("rank").optional(m.info().rank);
        w.key("format").value(m.info().format);
        w.key("runtime");
        if (const char *r = runtimeKey(a.runtime.runtime))
            w.value(r);
        else
            w.null();
        w.key("events").value(c.durationEvents);
        w.key("flows").value(c.flows);
        w.key("instants").value(c.instants);
        w.key("counters").value(c.counters);
        w.key("warnings").value(m.warnings().count);
        w.key("unplaced_gpu_events").value(a.unplacedActivities);
        w.key("span_us").micros(m.maxTime() - m.minTime());
        w.key("wait_mode").value(a.replay.waitMode == WaitMode::Exact ? "exact" : "inferred");
        w.key("stream_dependencies").value(uint64_t(a.replay.deps.size()));
        w.key("warning_kinds").beginArray();
        for (const LoadWarnings::Kind &k : m.warnings().kinds) {
            w.beginObject();
            w.key("count").value(k.count);
            w.key("kind").value(k.pattern);
            w.key("example").value(k.example);
            w.endObject();
        }
        w.endArray();
        w.endObject();
    });
    w.endArray();
    w.key("categories").beginObject();
    for (const auto &kv : job.categories)
        w.key(kv.first).value(kv.second);
    w.endObject();
    w.key("devices").beginArray();
    each([&](size_t f, const TraceModel &, const SyncAnalysis &a) {
        for (const DeviceActivity &d : a.devices) {
            w.beginObject();
            w.key("file").value(uint64_t(f));
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
            w.endObject();
        }
    });
    w.endArray();
    w.key("sync_calls").beginArray();
    each([&](size_t f, const TraceModel &m, const SyncAnalysis &a) {
        for (const SyncCall &s : a.syncCalls) {
            const Track &t = m.tracks()[s.event.track];
            w.beginObject();
            w.key("file").value(uint64_t(f));
            w.key("name").value(m.str(t.name[s.event.index]));
            w.key("ts_us").micros(s.start);
            w.key("dur_us").micros(s.dur);
            w.key("pid");
            id(w, m, t.pid);
            w.key("tid");
            id(w, m, t.tid);
            w.key("op");
            name(w, m, s.op);
            w.key("root_op");
            name(w, m, s.rootOp);
            w.key("pageable_copy").value(s.pageableCopy);
            w.key("blocked_us").micros(s.dur);
            w.key("avoidable_us").micros(s.avoidable);
            w.key("py_frame");
            name(w, m, s.pyFrame);
            w.key("user_frame");
            name(w, m, s.userFrame);
            w.key("step");
            stepName(w, m, a, s.step);
            w.endObject();
        }
    });
    w.endArray();
    w.key("cuda_sync_events").beginArray();
    each([&](size_t f, const TraceModel &m, const SyncAnalysis &a) {
        for (const CudaSyncEvent &e : a.cudaSyncEvents) {
            w.beginObject();
            w.key("file").value(uint64_t(f));
            w.key("kind").value(m.str(e.kind));
            w.key("ts_us").micros(e.start);
            w.key("dur_us").micros(e.dur);
            w.key("device").optional(e.device);
            w.key("stream").optional(e.stream);
            w.endObject();
        }
    });
    w.endArray();
    w.key("stream_waits").beginArray();
    each([&](size_t f, const TraceModel &, const SyncAnalysis &a) {
        const ReplayInput &in = a.replay;
        if (in.waitMode != WaitMode::Exact)
            return;
        // By the dependent's correlation, then the awaited one's.
        std::vector<const StreamDependency *> order;
        for (const StreamDependency &d : in.deps)
            order.push_back(&d);
        std::stable_sort(order.begin(), order.end(), [&](const StreamDependency *x, const StreamDependency *y) {
            const int64_t xt = in.activities[x->activity].correlation, yt = in.activities[y->activity].correlation;
            if (xt != yt)
                return xt < yt;
            return in.activities[x->on].correlation < in.activities[y->on].correlation;
        });
        for (const StreamDependency *dp : order) {
            const StreamDependency &d = *dp;
            const ReplayActivity &to = in.activities[d.activity], &from = in.activities[d.on];
            w.beginObject();
            w.key("file").value(uint64_t(f));
            w.key("device").value(in.deviceIds[to.device]);
            w.key("stream").value(in.streamIds[to.stream].second);
            w.key("wait_on_stream").value(in.streamIds[from.stream].second);
            w.key("from_correlation").optional(from.correlation);
            w.key("to_correlation").optional(to.correlation);
            w.endObject();
        }
    });
    w.endArray();
    w.key("sync_gaps").beginArray();
    each([&](size_t f, const TraceModel &m, const SyncAnalysis &a) {
        for (const SyncGap &g : a.syncGaps) {
            const SyncCall &s = a.syncCalls[g.syncCall];
            w.beginObject();
            w.key("file").value(uint64_t(f));
            w.key("device").value(g.device);
            w.key("start_us").micros(g.interval.start);
            w.key("end_us").micros(g.interval.end);
            w.key("dur_us").micros(g.interval.length());
            w.key("sync");
            name(w, m, s.event);
            w.key("op");
            name(w, m, s.op);
            w.key("root_op");
            name(w, m, s.rootOp);
            w.key("blocked_us").micros(g.blocked);
            w.key("avoidable_us").micros(g.avoidable);
            w.key("py_frame");
            name(w, m, s.pyFrame);
            w.key("user_frame");
            name(w, m, s.userFrame);
            w.key("step");
            stepName(w, m, a, g.step);
            w.endObject();
        }
    });
    w.endArray();
    w.key("idle_breakdown").beginArray();
    each([&](size_t f, const TraceModel &, const SyncAnalysis &a) {
        for (const IdleBreakdown &b : a.idleBreakdown) {
            w.beginObject();
            w.key("file").value(uint64_t(f));
            w.key("device").value(b.device);
            w.key("stream").optional(b.stream);
            w.key("host_wait_us").micros(b.hostWait);
            w.key("kernel_wait_us").micros(b.kernelWait);
            w.key("other_us").micros(b.other);
            w.endObject();
        }
    });
    w.endArray();
    w.key("steps").beginArray();
    each([&](size_t f, const TraceModel &m, const SyncAnalysis &a) {
        for (const StepDeviceStats &st : a.stepStats) {
            const Step &step = a.steps[st.step];
            w.beginObject();
            w.key("file").value(uint64_t(f));
            w.key("device").value(st.device);
            w.key("step").value(m.str(step.name));
            w.key("start_us").micros(step.start);
            w.key("end_us").micros(step.end);
            w.key("gpu_busy_us").micros(st.gpuBusy);
            w.key("sync_gaps").value(st.syncGaps);
            w.key("sync_gap_us").micros(st.syncGapTime);
            w.key("avoidable_us").micros(st.avoidable);
            w.endObject();
        }
    });
    w.endArray();
    w.key("sync_sources").beginArray();
    {
        // All files' sources, longest avoidable first.
        std::vector<std::pair<size_t, const SyncSource *>> all;
        each([&](size_t f, const TraceModel &, const SyncAnalysis &a) {
            for (const SyncSource &s : a.sources)
                all.push_back({f, &s});
        });
        std::stable_sort(all.begin(), all.end(), [](const auto &x, const auto &y) {
            return x.second->avoidable > y.second->avoidable;
        });
        for (const auto &e : all) {
            const TraceModel &m = *job.files[e.first];
            const SyncSource &s = *e.second;
            w.beginObject();
            w.key("file").value(uint64_t(e.first));
            w.key("sync").value(m.str(s.sync));
            w.key("op");
            strOrNull(w, m, s.op);
            w.key("user_frame");
            strOrNull(w, m, s.userFrame);
            w.key("count").value(s.count);
            w.key("gaps").value(s.gaps);
            w.key("gap_us").micros(s.gapTime);
            w.key("avoidable_us").micros(s.avoidable);
            w.endObject();
        }
    }
    w.endArray();
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
    if (job.hasScale)
        writeJobScaleJson(w, job.scale);
    w.endObject();
    return w.take();
}

} // namespace syncscope
