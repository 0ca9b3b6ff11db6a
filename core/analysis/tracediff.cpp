#include "analysis/tracediff.h"

#include "common/csv.h"
#include "analysis/jsonwriter.h"
#include "trace/categories.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace syncscope {

std::vector<NamedOpStat> namedOps(const TraceModel &model, const CancelToken *cancel)
{
    std::vector<NamedOpStat> out;
    for (const OpStat &s : opStatistics(model, {}, cancel)) {
        NamedOpStat o;
        o.name = model.str(s.name);
        o.cat = model.str(s.cat);
        o.count = s.count;
        o.total = s.total;
        o.self = s.self;
        o.gpuCount = s.gpuCount;
        o.gpuTime = s.gpuTime;
        o.min = s.min;
        o.max = s.max;
        out.push_back(std::move(o));
    }
    return out;
}

AnalysedTrace analyseTrace(TraceModelPtr model, const AnalysisOptions &options, const ProgressFn &progress,
                           const CancelToken *cancel)
{
    AnalysedTrace t;
    t.sync = analyzeSyncs(*model, options, progress, cancel);
    t.ops = namedOps(*model, cancel);
    t.model = std::move(model);
    return t;
}

TimeNs SourceDiff::sortKey() const
{
    return std::max(before ? before->avoidable : 0, after ? after->avoidable : 0);
}

TimeNs nearestRank(std::vector<TimeNs> values, unsigned p)
{
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    const uint64_t n = values.size();
    uint64_t rank = (uint64_t(std::min(p, 100u)) * n + 99) / 100; // ceil(p * n / 100)
    rank = std::max<uint64_t>(rank, 1);
    return values[rank - 1];
}

TimeNs median(std::vector<TimeNs> values)
{
    if (values.empty())
        return 0;
    const size_t n = values.size(), mid = n / 2;
    std::nth_element(values.begin(), values.begin() + mid, values.end());
    const TimeNs upper = values[mid];
    if (n % 2)
        return upper;
    const TimeNs lower = *std::max_element(values.begin(), values.begin() + mid);
    // floor((lower + upper) / 2) without overflow
    return lower + (upper - lower) / 2;
}

StepTime stepTime(const SyncAnalysis &a)
{
    std::vector<TimeNs> d;
    for (const Step &s : a.steps)
        d.push_back(s.end - s.start);
    StepTime t;
    t.count = d.size();
    t.median = median(d);
    t.p5 = nearestRank(d, 5);
    t.p95 = nearestRank(d, 95);
    return t;
}

namespace {

bool isGpuActivity(const std::string &cat) { return category::isGpuActivity(cat); }

std::optional<std::string> text(const TraceModel &m, StrId s)
{
    if (s == kNoStr)
        return std::nullopt;
    return std::string(m.str(s));
}

std::vector<StepFigures> stepFigures(const AnalysedTrace &t)
{
    const TraceModel &m = *t.model;
    std::vector<StepFigures> out;
    for (const Step &s : t.sync.steps) {
        StepFigures f;
        f.step = m.str(s.name);
        f.start = s.start;
        f.dur = s.end - s.start;
        out.push_back(f);
    }
    for (const StepDeviceStats &st : t.sync.stepStats) {
        StepFigures &f = out[st.step];
        f.gpuBusy += st.gpuBusy;
        f.syncGaps += st.syncGaps;
        f.syncGapTime += st.syncGapTime;
        f.avoidable += st.avoidable;
    }
    return out;
}

DiffTotals totals(const SyncAnalysis &a)
{
    DiffTotals t;
    t.devices = a.devices.size();
    t.syncCalls = a.syncCalls.size();
    t.syncGaps = a.syncGaps.size();
    for (const DeviceActivity &d : a.devices) {
        t.busy += d.busy;
        t.span += d.span();
        t.syncGap += d.syncGap;
        t.avoidable += d.avoidable;
    }
    return t;
}

template <typename T> TimeNs absDelta(const std::optional<T> &b, const std::optional<T> &a, TimeNs T::*field)
{
    const TimeNs d = (a ? (*a).*field : 0) - (b ? (*b).*field : 0);
    return d < 0 ? -d : d;
}

} // namespace

TraceDiff diffTraces(const AnalysedTrace &before, const AnalysedTrace &after)
{
    TraceDiff diff;
    const AnalysedTrace *side[2] = {&before, &after};
    DiffFile *files[2] = {&diff.before, &diff.after};
    for (int s = 0; s < 2; ++s) {
        const TraceModel &m = *side[s]->model;
        files[s]->path = m.info().path;
        files[s]->events = m.counts().durationEvents;
        files[s]->span = m.maxTime() - m.minTime();
    }

    std::map<int64_t, DeviceDiff> devices;
    for (int s = 0; s < 2; ++s)
        for (const DeviceActivity &d : side[s]->sync.devices) {
            DeviceDiff &e = devices[d.device];
            e.device = d.device;
            (s ? e.after : e.before) = DeviceFigures{d.busy, d.idle(), d.span(), d.syncGap, d.avoidable};
        }
    for (auto &kv : devices)
        diff.devices.push_back(kv.second);

    std::map<std::string, SyncCallDiff> calls;
    for (int s = 0; s < 2; ++s) {
        const TraceModel &m = *side[s]->model;
        for (const SyncCall &c : side[s]->sync.syncCalls) {
            const std::string name(m.str(m.tracks()[c.event.track].name[c.event.index]));
            SyncCallDiff &e = calls[name];
            e.name = name;
            auto &count = s ? e.after : e.before;
            count = count.value_or(0) + 1;
        }
    }
    for (auto &kv : calls)
        diff.syncCalls.push_back(kv.second);
    std::stable_sort(diff.syncCalls.begin(), diff.syncCalls.end(),
                     [](const SyncCallDiff &x, const SyncCallDiff &y) {
                         return std::max(x.before.value_or(0), x.after.value_or(0)) >
                                std::max(y.before.value_or(0), y.after.value_or(0));
                     });

    using SourceKey = std::tuple<std::string, std::optional<std::string>, std::optional<std::string>>;
    std::map<SourceKey, SourceDiff> sources;
    for (int s = 0; s < 2; ++s) {
        const TraceModel &m = *side[s]->model;
        const auto &list = side[s]->sync.sources;
        for (size_t i = 0; i < list.size(); ++i) {
            const SyncSource &src = list[i];
            SourceKey key{std::string(m.str(src.sync)), text(m, src.op), text(m, src.userFrame)};
            SourceDiff &e = sources[key];
            e.sync = std::get<0>(key);
            e.op = std::get<1>(key);
            e.userFrame = std::get<2>(key);
            (s ? e.after : e.before) = SourceFigures{src.count, src.gaps, src.gapTime, src.avoidable};
            (s ? e.afterIndex : e.beforeIndex) = i;
        }
    }
    for (auto &kv : sources)
        diff.sources.push_back(kv.second);
    std::stable_sort(diff.sources.begin(), diff.sources.end(),
                     [](const SourceDiff &x, const SourceDiff &y) { return x.sortKey() > y.sortKey(); });

    const std::vector<StepFigures> stepsB = stepFigures(before), stepsA = stepFigures(after);
    for (size_t i = 0; i < std::max(stepsB.size(), stepsA.size()); ++i) {
        StepDiff e;
        e.index = i;
        if (i < stepsB.size())
            e.before = stepsB[i];
        if (i < stepsA.size())
            e.after = stepsA[i];
        diff.steps.push_back(std::move(e));
    }
    diff.stepTimeBefore = stepTime(before.sync);
    diff.stepTimeAfter = stepTime(after.sync);

    std::map<std::pair<std::string, std::string>, OpDiff> ops;
    std::map<std::string, KernelDiff> kernels;
    for (int s = 0; s < 2; ++s)
        for (const NamedOpStat &o : side[s]->ops) {
            if (o.cat == "Trace")
                continue; // the profiler's own envelope around the whole capture, not an op
            if (isGpuActivity(o.cat)) {
                KernelDiff &k = kernels[o.name];
                k.name = o.name;
                auto &f = s ? k.after : k.before;
                // Copies and sets of one name in two GPU categories add up.
                f = KernelFigures{f ? f->count + o.count : o.count, f ? f->total + o.total : o.total};
            } else {
                OpDiff &e = ops[{o.name, o.cat}];
                e.name = o.name;
                e.cat = o.cat;
                (s ? e.after : e.before) = OpFigures{o.count, o.total, o.self};
            }
        }
    for (auto &kv : ops)
        diff.ops.push_back(kv.second);
    std::stable_sort(diff.ops.begin(), diff.ops.end(), [](const OpDiff &x, const OpDiff &y) {
        const TimeNs sx = absDelta(x.before, x.after, &OpFigures::self);
        const TimeNs sy = absDelta(y.before, y.after, &OpFigures::self);
        if (sx != sy)
            return sx > sy;
        return absDelta(x.before, x.after, &OpFigures::total) > absDelta(y.before, y.after, &OpFigures::total);
    });
    for (auto &kv : kernels)
        diff.kernels.push_back(kv.second);
    std::stable_sort(diff.kernels.begin(), diff.kernels.end(), [](const KernelDiff &x, const KernelDiff &y) {
        return absDelta(x.before, x.after, &KernelFigures::total) >
               absDelta(y.before, y.after, &KernelFigures::total);
    });

    diff.totalsBefore = totals(before.sync);
    diff.totalsAfter = totals(after.sync);
    return diff;
}

std::string sourceLabel(const SourceDiff &s)
{
    std::string t = s.sync;
    if (s.op)
        t += " in " + *s.op;
    if (s.userFrame)
        t += " at " + *s.userFrame;
    return t;
}

namespace {

void file(JsonWriter &w, const DiffFile &f)
{
    w.beginObject();
    w.key("path").value(f.path);
    w.key("events").value(f.events);
    w.key("span_us").micros(f.span);
    w.endObject();
}

void strOrNull(JsonWriter &w, const std::optional<std::string> &s)
{
    if (s)
        w.value(*s);
    else
        w.null();
}

// Writes key: fn(*value) or key: null.
template <typename T, typename Fn> void side(JsonWriter &w, const char *key, const std::optional<T> &v, Fn &&fn)
{
    w.key(key);
    if (v)
        fn(*v);
    else
        w.null();
}

void stepTimeJson(JsonWriter &w, const StepTime &t)
{
    w.beginObject();
    for (auto [key, value] :
         {std::pair<const char *, TimeNs>{"median_us", t.median}, {"p5_us", t.p5}, {"p95_us", t.p95}}) {
        w.key(key);
        if (t.count)
            w.micros(value);
        else
            w.null();
    }
    w.key("count").value(t.count);
    w.endObject();
}

void totalsJson(JsonWriter &w, const DiffTotals &t)
{
    w.beginObject();
    w.key("devices").value(t.devices);
    w.key("busy_us").micros(t.busy);
    w.key("span_us").micros(t.span);
    w.key("sync_gap_us").micros(t.syncGap);
    w.key("avoidable_us").micros(t.avoidable);
    w.key("sync_calls").value(t.syncCalls);
    w.key("sync_gaps").value(t.syncGaps);
    w.endObject();
}

} // namespace

std::string traceDiffToJson(const TraceDiff &d, int indent)
{
    JsonWriter w(indent);
    w.beginObject();
    w.key("before");
    file(w, d.before);
    w.key("after");
    file(w, d.after);

    w.key("devices").beginArray();
    for (const DeviceDiff &e : d.devices) {
        w.beginObject();
        w.key("device").value(e.device);
        for (int s = 0; s < 2; ++s)
            side(w, s ? "after" : "before", s ? e.after : e.before, [&](const DeviceFigures &f) {
                w.beginObject();
                w.key("busy_us").micros(f.busy);
                w.key("idle_us").micros(f.idle);
                w.key("span_us").micros(f.span);
                w.key("sync_gap_us").micros(f.syncGap);
                w.key("avoidable_us").micros(f.avoidable);
                w.endObject();
            });
        w.endObject();
    }
    w.endArray();

    w.key("sync_calls").beginArray();
    for (const SyncCallDiff &e : d.syncCalls) {
        w.beginObject();
        w.key("name").value(e.name);
        for (int s = 0; s < 2; ++s)
            side(w, s ? "after" : "before", s ? e.after : e.before, [&](uint64_t n) { w.value(n); });
        w.endObject();
    }
    w.endArray();

    w.key("sync_sources").beginArray();
    for (const SourceDiff &e : d.sources) {
        w.beginObject();
        w.key("sync").value(e.sync);
        w.key("op");
        strOrNull(w, e.op);
        w.key("user_frame");
        strOrNull(w, e.userFrame);
        for (int s = 0; s < 2; ++s)
            side(w, s ? "after" : "before", s ? e.after : e.before, [&](const SourceFigures &f) {
                w.beginObject();
                w.key("count").value(f.count);
                w.key("gap_us").micros(f.gapTime);
                w.key("avoidable_us").micros(f.avoidable);
                w.key("gaps").value(f.gaps);
                w.endObject();
            });
        w.endObject();
    }
    w.endArray();

    w.key("steps").beginArray();
    for (const StepDiff &e : d.steps) {
        w.beginObject();
        w.key("index").value(uint64_t(e.index));
        for (int s = 0; s < 2; ++s)
            side(w, s ? "after" : "before", s ? e.after : e.before, [&](const StepFigures &f) {
                w.beginObject();
                w.key("step").value(f.step);
                w.key("dur_us").micros(f.dur);
                w.key("gpu_busy_us").micros(f.gpuBusy);
                w.key("sync_gaps").value(f.syncGaps);
                w.key("avoidable_us").micros(f.avoidable);
                w.key("sync_gap_us").micros(f.syncGapTime);
                w.key("start_us").micros(f.start);
                w.endObject();
            });
        w.endObject();
    }
    w.endArray();

    w.key("step_time").beginObject();
    w.key("before");
    stepTimeJson(w, d.stepTimeBefore);
    w.key("after");
    stepTimeJson(w, d.stepTimeAfter);
    w.endObject();

    w.key("ops").beginArray();
    for (const OpDiff &e : d.ops) {
        w.beginObject();
        w.key("name").value(e.name);
        w.key("cat").value(e.cat);
        for (int s = 0; s < 2; ++s)
            side(w, s ? "after" : "before", s ? e.after : e.before, [&](const OpFigures &f) {
                w.beginObject();
                w.key("count").value(f.count);
                w.key("total_us").micros(f.total);
                w.key("self_us").micros(f.self);
                w.endObject();
            });
        w.endObject();
    }
    w.endArray();

    w.key("kernels").beginArray();
    for (const KernelDiff &e : d.kernels) {
        w.beginObject();
        w.key("name").value(e.name);
        for (int s = 0; s < 2; ++s)
            side(w, s ? "after" : "before", s ? e.after : e.before, [&](const KernelFigures &f) {
                w.beginObject();
                w.key("count").value(f.count);
                w.key("total_us").micros(f.total);
                w.endObject();
            });
        w.endObject();
    }
    w.endArray();

    w.key("totals").beginObject();
    w.key("before");
    totalsJson(w, d.totalsBefore);
    w.key("after");
    totalsJson(w, d.totalsAfter);
    w.endObject();
    w.endObject();
    return w.take();
}

namespace {

class CsvRows {
public:
    CsvRows() { m_out = "section,key,metric,before,after,delta\n"; }
    // A time: exact us, delta after - before with a missing side as zero.
    void time(const char *section, const std::string &key, const char *metric, std::optional<TimeNs> b,
              std::optional<TimeNs> a)
    {
        row(section, key, metric, b ? formatMicros(*b) : "", a ? formatMicros(*a) : "",
            formatMicros(a.value_or(0) - b.value_or(0)));
    }
    void count(const char *section, const std::string &key, const char *metric, std::optional<uint64_t> b,
               std::optional<uint64_t> a)
    {
        const int64_t delta = int64_t(a.value_or(0)) - int64_t(b.value_or(0));
        row(section, key, metric, b ? std::to_string(*b) : "", a ? std::to_string(*a) : "", std::to_string(delta));
    }
    void text(const char *section, const std::string &key, const char *metric, std::optional<std::string> b,
              std::optional<std::string> a)
    {
        row(section, key, metric, b.value_or(""), a.value_or(""), "");
    }
    std::string take() { return std::move(m_out); }

private:
    void row(const char *section, const std::string &key, const char *metric, const std::string &b,
             const std::string &a, const std::string &delta)
    {
        m_out += std::string(section) + ',' + csvField(key) + ',' + metric + ',' + csvField(b) + ',' +
                 csvField(a) + ',' + delta + '\n';
    }
    std::string m_out;
};

template <typename T, typename F> auto pick(const std::optional<T> &v, F T::*field) -> std::optional<F>
{
    if (!v)
        return std::nullopt;
    return (*v).*field;
}

} // namespace

std::string traceDiffToCsv(const TraceDiff &d)
{
    CsvRows r;
    r.text("file", "trace", "path", d.before.path, d.after.path);
    r.count("file", "trace", "events", d.before.events, d.after.events);
    r.time("file", "trace", "span_us", d.before.span, d.after.span);
    for (const DeviceDiff &e : d.devices) {
        const std::string key = std::to_string(e.device);
        r.time("devices", key, "busy_us", pick(e.before, &DeviceFigures::busy),
               pick(e.after, &DeviceFigures::busy));
        r.time("devices", key, "idle_us", pick(e.before, &DeviceFigures::idle),
               pick(e.after, &DeviceFigures::idle));
        r.time("devices", key, "span_us", pick(e.before, &DeviceFigures::span),
               pick(e.after, &DeviceFigures::span));
        r.time("devices", key, "sync_gap_us", pick(e.before, &DeviceFigures::syncGap),
               pick(e.after, &DeviceFigures::syncGap));
        r.time("devices", key, "avoidable_us", pick(e.before, &DeviceFigures::avoidable),
               pick(e.after, &DeviceFigures::avoidable));
    }
    for (const SyncCallDiff &e : d.syncCalls)
        r.count("sync_calls", e.name, "count", e.before, e.after);
    for (const SourceDiff &e : d.sources) {
        const std::string key = sourceLabel(e);
        r.count("sync_sources", key, "count", pick(e.before, &SourceFigures::count),
                pick(e.after, &SourceFigures::count));
        r.time("sync_sources", key, "gap_us", pick(e.before, &SourceFigures::gapTime),
               pick(e.after, &SourceFigures::gapTime));
        r.time("sync_sources", key, "avoidable_us", pick(e.before, &SourceFigures::avoidable),
               pick(e.after, &SourceFigures::avoidable));
    }
    for (const StepDiff &e : d.steps) {
        const std::string key = std::to_string(e.index);
        r.text("steps", key, "step", pick(e.before, &StepFigures::step), pick(e.after, &StepFigures::step));
        r.time("steps", key, "dur_us", pick(e.before, &StepFigures::dur), pick(e.after, &StepFigures::dur));
        r.time("steps", key, "gpu_busy_us", pick(e.before, &StepFigures::gpuBusy),
               pick(e.after, &StepFigures::gpuBusy));
        r.count("steps", key, "sync_gaps", pick(e.before, &StepFigures::syncGaps),
                pick(e.after, &StepFigures::syncGaps));
        r.time("steps", key, "avoidable_us", pick(e.before, &StepFigures::avoidable),
               pick(e.after, &StepFigures::avoidable));
    }
    auto st = [](const StepTime &t, TimeNs StepTime::*f) -> std::optional<TimeNs> {
        return t.count ? std::optional<TimeNs>(t.*f) : std::nullopt;
    };
    r.time("step_time", "steps", "median_us", st(d.stepTimeBefore, &StepTime::median),
           st(d.stepTimeAfter, &StepTime::median));
    r.time("step_time", "steps", "p5_us", st(d.stepTimeBefore, &StepTime::p5), st(d.stepTimeAfter, &StepTime::p5));
    r.time("step_time", "steps", "p95_us", st(d.stepTimeBefore, &StepTime::p95),
           st(d.stepTimeAfter, &StepTime::p95));
    r.count("step_time", "steps", "count", d.stepTimeBefore.count, d.stepTimeAfter.count);
    for (const OpDiff &e : d.ops) {
        const std::string key = e.name + " [" + e.cat + "]";
        r.count("ops", key, "count", pick(e.before, &OpFigures::count), pick(e.after, &OpFigures::count));
        r.time("ops", key, "total_us", pick(e.before, &OpFigures::total), pick(e.after, &OpFigures::total));
        r.time("ops", key, "self_us", pick(e.before, &OpFigures::self), pick(e.after, &OpFigures::self));
    }
    for (const KernelDiff &e : d.kernels) {
        r.count("kernels", e.name, "count", pick(e.before, &KernelFigures::count),
                pick(e.after, &KernelFigures::count));
        r.time("kernels", e.name, "total_us", pick(e.before, &KernelFigures::total),
               pick(e.after, &KernelFigures::total));
    }
    return r.take();
}

} // namespace syncscope
