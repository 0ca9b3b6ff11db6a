#include "analysis/filereport.h"

#include "analysis/advice.h"
#include "analysis/limittext.h"
#include "analysis/timetext.h"
#include "trace/categories.h"

#include <algorithm>
#include <limits>

namespace syncscope {

namespace {

std::optional<std::string> nameOf(const TraceModel &m, const EventRef &r)
{
    if (!r.valid())
        return std::nullopt;
    return std::string(m.str(m.tracks()[r.track].name[r.index]));
}

std::optional<std::string> strOf(const TraceModel &m, StrId s)
{
    if (s == kNoStr)
        return std::nullopt;
    return std::string(m.str(s));
}

ReportId idOf(const TraceModel &m, const IdValue &v) { return {v.num, std::string(m.str(v.text))}; }

} // namespace

FileReport makeFileReport(const TraceModel &m, const SyncAnalysis &a, const CancelToken *cancel)
{
    return makeFileReport(m, a, opStatistics(m, {}, cancel));
}

FileReport makeFileReport(const TraceModel &m, const SyncAnalysis &a, const std::vector<OpStat> &ops)
{
    FileReport r;
    r.path = m.info().path;
    r.format = m.info().format;
    r.rank = m.info().rank;
    r.torchVersion = torchVersionFromMetadata(m.info().metadataJson);
    r.truncated = m.info().truncated;
    r.truncatedAtByte = m.info().truncatedAtByte;
    r.unevenCut = unevenCutSentence(m);
    const TraceCounts &c = m.counts();
    r.durationEvents = c.durationEvents;
    r.flows = c.flows;
    r.instants = c.instants;
    r.counters = c.counters;
    r.minTime = m.minTime();
    r.maxTime = m.maxTime();
    r.warnings = m.warnings().count;
    for (const LoadWarnings::Kind &k : m.warnings().kinds)
        r.warningKinds.push_back({k.pattern, k.example, k.count});
    {
        // Per category id first (a trace has a few dozen), then by name.
        std::vector<std::pair<StrId, uint64_t>> perId;
        for (const Track &t : m.tracks()) {
            size_t last = SIZE_MAX;
            for (StrId cat : t.cat) {
                if (last == SIZE_MAX || perId[last].first != cat) {
                    last = 0;
                    while (last < perId.size() && perId[last].first != cat)
                        ++last;
                    if (last == perId.size())
                        perId.push_back({cat, 0});
                }
                ++perId[last].second;
            }
        }
        for (const auto &[cat, count] : perId)
            r.categories[std::string(m.str(cat))] += count;
    }

    r.runtime = a.runtime;
    r.unplacedActivities = a.unplacedActivities;
    const auto limitOf = [&](const ReplayLimit &l) {
        return ReportLimit{limitKindName(l.kind), limitSentence(l, m, a)};
    };
    for (const DeviceActivity &d : a.devices)
        r.devices.push_back({d.device, d.name, d.kernels, d.memcpys, d.memsets, d.first, d.last, d.busy, d.syncGap,
                             d.avoidable, limitOf(d.limit)});
    // A call's name, time, thread and ops: what a blocking call and a long host call share.
    const auto callOf = [&](const SyncCall &s) {
        const Track t = m.tracks()[s.event.track];
        ReportSyncCall o;
        o.name = m.str(t.name[s.event.index]);
        o.start = s.start;
        o.dur = s.dur;
        o.pid = idOf(m, t.pid);
        o.tid = idOf(m, t.tid);
        o.op = nameOf(m, s.op);
        o.rootOp = nameOf(m, s.rootOp);
        return o;
    };
    for (const SyncCall &s : a.syncCalls) {
        ReportSyncCall o = callOf(s);
        o.pyFrame = nameOf(m, s.pyFrame);
        o.userFrame = nameOf(m, s.userFrame);
        o.pageableCopy = s.pageableCopy;
        o.avoidable = s.avoidable;
        const size_t callIndex = r.syncCalls.size();
        if (callIndex < a.replay.calls.size())
            o.blocks = blockKindName(a.replay.calls[callIndex].kind);
        o.step = s.step;
        if (s.advice >= 0)
            o.advice = builtinAdviceRules().rules[size_t(s.advice)].id;
        r.syncCalls.push_back(std::move(o));
    }
    for (const SyncCall &s : a.longCalls)
        r.longCalls.push_back(callOf(s));
    for (const CudaSyncEvent &e : a.cudaSyncEvents)
        r.cudaSyncEvents.push_back({std::string(m.str(e.kind)), e.start, e.dur, e.device, e.stream});
    const ReplayInput &in = a.replay;
    r.waitMode = in.waitMode;
    r.threadMode = in.threadMode;
    for (const ReplayHandoff &h : in.handoffs)
        r.handoffs.push_back({idOf(m, m.tracks()[h.from].tid), idOf(m, m.tracks()[h.to].tid), h.at, h.back});
    r.streamDependencies = in.deps.size();
    if (in.waitMode == WaitMode::Exact)
        for (const StreamDependency &d : in.deps) {
            const ReplayActivity &to = in.activities[d.activity], &from = in.activities[d.on];
            r.streamWaits.push_back({in.deviceIds[to.device], in.streamIds[to.stream].second,
                                     in.streamIds[from.stream].second, from.correlation, to.correlation});
        }
    std::stable_sort(r.streamWaits.begin(), r.streamWaits.end(),
                     [](const ReportStreamWait &x, const ReportStreamWait &y) {
                         if (x.toCorrelation != y.toCorrelation)
                             return x.toCorrelation < y.toCorrelation;
                         return x.fromCorrelation < y.fromCorrelation;
                     });
    r.syncGaps = a.syncGaps;
    r.idleBreakdown = a.idleBreakdown;
    for (const Step &s : a.steps)
        r.steps.push_back({std::string(m.str(s.name)), s.start, s.end});
    r.stepStats = a.stepStats;
    for (const SyncSource &s : a.sources)
        r.sources.push_back({std::string(m.str(s.sync)), strOf(m, s.op), strOf(m, s.userFrame), s.count, s.gaps,
                             s.gapTime, s.avoidable, s.avoidableByDevice,
                             s.advice >= 0 ? builtinAdviceRules().rules[size_t(s.advice)].id : std::string(),
                             s.adviceCalls, limitOf(s.limit)});

    for (const OpStat &s : ops)
        r.ops.push_back({std::string(m.str(s.name)), std::string(m.str(s.cat)), s.count, s.total, s.self, s.min,
                         s.max, s.gpuCount, s.gpuTime});
    std::sort(r.ops.begin(), r.ops.end(), [](const NamedOpStat &x, const NamedOpStat &y) {
        return std::tie(x.name, x.cat) < std::tie(y.name, y.cat);
    });
    return r;
}

std::vector<NamedOpStat> mergeOps(const std::vector<FileReport> &files)
{
    std::map<std::pair<std::string, std::string>, NamedOpStat> merged;
    for (const FileReport &f : files)
        for (const NamedOpStat &s : f.ops) {
            NamedOpStat &o = merged[{s.name, s.cat}];
            if (o.count == 0) {
                o.name = s.name;
                o.cat = s.cat;
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
    std::vector<NamedOpStat> out;
    out.reserve(merged.size());
    for (auto &kv : merged)
        out.push_back(std::move(kv.second));
    std::stable_sort(out.begin(), out.end(),
                     [](const NamedOpStat &a, const NamedOpStat &b) { return a.total > b.total; });
    return out;
}

std::map<std::string, uint64_t> mergeCategories(const std::vector<FileReport> &files)
{
    std::map<std::string, uint64_t> out;
    for (const FileReport &f : files)
        for (const auto &kv : f.categories)
            out[kv.first] += kv.second;
    return out;
}

std::string truncationSentence(uint64_t atByte, bool gzip, TimeNs covered, uint64_t events)
{
    return "the file ends early at byte " + std::to_string(atByte) + (gzip ? " of its decompressed JSON" : "") +
           ": the analysis covers its first " + formatMillis(covered) + " (" + std::to_string(events) + " events)";
}

std::string truncationSentence(const FileReport &r)
{
    return truncationSentence(r.truncatedAtByte, r.format == "json.gz", r.maxTime - r.minTime, r.durationEvents);
}

std::string unevenCutSentence(const TraceModel &m)
{
    constexpr TimeNs kNever = std::numeric_limits<TimeNs>::min();
    if (!m.info().truncated)
        return {};
    const category::Ids ids(m);
    // The last end of each kind: host ops, runtime calls, GPU activity.
    const char *names[3] = {"host ops", "runtime calls", "GPU activity"};
    TimeNs last[3] = {kNever, kNever, kNever};
    for (const Track &t : m.tracks())
        for (size_t i = 0; i < t.start.size(); ++i) {
            const StrId c = t.cat[i];
            const int kind = c == ids.cpuOp ? 0 : ids.runtimeCall(c) ? 1 : ids.gpuActivity(c) ? 2 : -1;
            if (kind >= 0 && c != kNoStr)
                last[kind] = std::max(last[kind], t.start[i] + t.dur[i]);
        }
    const TimeNs reach = m.maxTime(), span = reach - m.minTime();
    std::vector<std::string> cut;
    for (int k = 0; k < 3; ++k)
        if (last[k] != kNever && (reach - last[k]) * 10 > span)
            cut.push_back(std::string(names[k]) + " at " + formatMillis(last[k] - m.minTime()));
    if (cut.empty())
        return {};
    std::string list;
    for (size_t i = 0; i < cut.size(); ++i)
        list += (i == 0 ? "" : ", ") + cut[i];
    return "events stop early by kind (" + list + ", of the " + formatMillis(span) +
           " read): the file lists events kind by kind and was cut inside them, so the later ones are missing "
           "and this analysis is incomplete";
}

} // namespace syncscope
