#include "analysis/jobanalysis.h"

#include "common/error.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace syncscope {

using ojson = nlohmann::ordered_json;

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
            o.min = std::min(o.min, s.min);
            o.max = std::max(o.max, s.max);
        }
    }
    for (auto &kv : merged)
        job.ops.push_back(std::move(kv.second));
    std::stable_sort(job.ops.begin(), job.ops.end(),
                     [](const NamedOpStat &a, const NamedOpStat &b) { return a.total > b.total; });
    if (progress)
        progress(1.0, "done");
    return job;
}

namespace {

double us(TimeNs ns) { return double(ns) / 1000.0; }

ojson idJson(const TraceModel &m, const IdValue &v)
{
    if (v.isNumber())
        return v.num;
    return std::string(m.str(v.text));
}

ojson optionalInt(int64_t v) { return v == kNoValue ? ojson(nullptr) : ojson(v); }

ojson opName(const TraceModel &m, const EventRef &ref)
{
    if (!ref.valid())
        return nullptr;
    return std::string(m.str(m.tracks()[ref.track].name[ref.index]));
}

} // namespace

std::string analysisToJson(const JobAnalysis &job, size_t topN, int indent)
{
    ojson doc = ojson::object();
    ojson files = ojson::array(), devices = ojson::array(), calls = ojson::array(),
          cudaSyncs = ojson::array(), gaps = ojson::array(), breakdown = ojson::array(),
          ops = ojson::array();
    for (size_t f = 0; f < job.files.size(); ++f) {
        const TraceModel &m = *job.files[f];
        const SyncAnalysis &a = job.sync[f];
        const TraceCounts &c = m.counts();
        files.push_back({{"path", m.info().path},
                         {"rank", optionalInt(m.info().rank)},
                         {"format", m.info().format},
                         {"events", c.durationEvents},
                         {"flows", c.flows},
                         {"instants", c.instants},
                         {"counters", c.counters},
                         {"warnings", m.warnings().count},
                         {"span_us", us(m.maxTime() - m.minTime())}});
        for (const DeviceActivity &d : a.devices)
            devices.push_back({{"file", f},
                               {"device", d.device},
                               {"kernels", d.kernels},
                               {"memcpys", d.memcpys},
                               {"memsets", d.memsets},
                               {"busy_us", us(d.busy)},
                               {"idle_us", us(d.idle())},
                               {"span_us", us(d.span())},
                               {"sync_gap_us", us(d.syncGap)}});
        for (const SyncCall &s : a.syncCalls) {
            const Track &t = m.tracks()[s.event.track];
            calls.push_back({{"file", f},
                             {"name", std::string(m.str(t.name[s.event.index]))},
                             {"ts_us", us(s.start)},
                             {"dur_us", us(s.dur)},
                             {"pid", idJson(m, t.pid)},
                             {"tid", idJson(m, t.tid)},
                             {"op", opName(m, s.op)},
                             {"root_op", opName(m, s.rootOp)}});
        }
        for (const CudaSyncEvent &e : a.cudaSyncEvents)
            cudaSyncs.push_back({{"file", f},
                                 {"kind", std::string(m.str(e.kind))},
                                 {"ts_us", us(e.start)},
                                 {"dur_us", us(e.dur)},
                                 {"device", optionalInt(e.device)},
                                 {"stream", optionalInt(e.stream)}});
        for (const SyncGap &g : a.syncGaps) {
            const SyncCall &s = a.syncCalls[g.syncCall];
            gaps.push_back({{"file", f},
                            {"device", g.device},
                            {"start_us", us(g.interval.start)},
                            {"end_us", us(g.interval.end)},
                            {"dur_us", us(g.interval.length())},
                            {"sync", opName(m, s.event)},
                            {"op", opName(m, s.op)},
                            {"root_op", opName(m, s.rootOp)}});
        }
        for (const IdleBreakdown &b : a.idleBreakdown)
            breakdown.push_back({{"file", f},
                                 {"device", b.device},
                                 {"stream", optionalInt(b.stream)},
                                 {"host_wait_us", us(b.hostWait)},
                                 {"kernel_wait_us", us(b.kernelWait)},
                                 {"other_us", us(b.other)}});
    }
    ojson categories = ojson::object();
    for (const auto &kv : job.categories)
        categories[kv.first] = kv.second;
    for (size_t i = 0; i < job.ops.size() && i < topN; ++i) {
        const NamedOpStat &o = job.ops[i];
        ops.push_back({{"name", o.name},
                       {"cat", o.cat},
                       {"count", o.count},
                       {"total_us", us(o.total)},
                       {"self_us", us(o.self)}});
    }
    doc["files"] = std::move(files);
    doc["categories"] = std::move(categories);
    doc["devices"] = std::move(devices);
    doc["sync_calls"] = std::move(calls);
    doc["cuda_sync_events"] = std::move(cudaSyncs);
    doc["sync_gaps"] = std::move(gaps);
    doc["idle_breakdown"] = std::move(breakdown);
    doc["top_ops"] = std::move(ops);
    // Invalid UTF-8 in names from a broken profiler must not make dump() throw.
    return doc.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

} // namespace syncscope
