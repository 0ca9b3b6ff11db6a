#include "timeline/timelinedata.h"

#include <QCoreApplication>
#include <QRegularExpression>

#include "analysis/filereport.h"
#include "analysis/jobscale.h"
#include "analysis/runtime.h"
#include "common/error.h"
#include "timeline/timelinepalette.h"
#include "trace/categories.h"

#include <QFileInfo>

#include <algorithm>
#include <limits>
#include <functional>
#include <map>
#include <numeric>
#include <unordered_map>

namespace syncscope::ui {

namespace {

QString qs(std::string_view s) { return QString::fromUtf8(s.data(), int(s.size())); }

int64_t flowKey(const TraceModel &m, const FlowEvent &f)
{
    if (f.id != kNoValue)
        return f.id;
    // Text ids share the key space with numbers; linkedEvents() compares the
    // text again, so a collision costs a comparison, never a wrong arrow.
    return int64_t(std::hash<std::string_view>()(m.str(f.idText)) | (uint64_t(1) << 63));
}

} // namespace

std::shared_ptr<const TimelineData> TimelineData::build(std::vector<TraceModelPtr> models,
                                                        const AnalysisOptions &options, const ProgressFn &progress,
                                                        const CancelToken *cancel)
{
    auto data = std::make_shared<TimelineData>();
    data->m_options = options;
    const size_t n = models.size();
    data->m_files.resize(n);
    const double width = 1.0 / double(std::max<size_t>(n, 1));
    for (size_t f = 0; f < n; ++f)
        data->m_files[f].model = std::move(models[f]);
    // The ranks of a job on one clock: each rank moved by minus its clock
    // offset (from its collectives alone) before it is analysed.
    if (n >= 2) {
        if (progress)
            progress(0.0, "aligning the ranks' clocks");
        const std::vector<TimeNs> shifts = data->alignClocks(options, cancel);
        for (size_t f = 0; f < n; ++f)
            // A model just loaded is held by this data alone: moved in place, no copy.
            if (shifts[f] != 0)
                shiftSoleModel(data->m_files[f].model, shifts[f]);
    }
    for (size_t f = 0; f < n; ++f) {
        TimelineFile &file = data->m_files[f];
        const double lo = double(f) * width;
        ProgressFn sub;
        if (progress)
            sub = [&](double x, const char *msg) { progress(lo + width * 0.7 * x, msg); };
        file.sync = analyzeSyncs(*file.model, options, sub, cancel);
        if (progress)
            progress(lo + width * 0.7, "indexing the timeline");
        data->indexFile(uint32_t(f), cancel);
    }
    data->labelFiles();
    std::stable_sort(data->m_globalInstants.begin(), data->m_globalInstants.end(),
                     [](const TimelineInstant &a, const TimelineInstant &b) { return a.ts < b.ts; });

    bool first = true;
    for (uint32_t f = 0; f < n; ++f) {
        const TimelineFile &file = data->m_files[f];
        const TraceModel &m = *file.model;
        if (m.maxTime() > m.minTime() || m.counts().durationEvents + m.counts().instants > 0) {
            data->m_minTime = first ? m.minTime() : std::min(data->m_minTime, m.minTime());
            data->m_maxTime = first ? m.maxTime() : std::max(data->m_maxTime, m.maxTime());
            first = false;
        }
        TimelineSummary &s = data->m_summary;
        for (const DeviceActivity &d : file.sync.devices) {
            s.busy += d.busy;
            s.span += d.span();
            s.syncGapTime += d.syncGap;
            ++s.devices;
        }
        s.syncGaps += file.sync.syncGaps.size();
        s.syncCalls += file.sync.syncCalls.size();
        s.cudaSyncEvents += file.sync.cudaSyncEvents.size();
        s.events += m.counts().durationEvents;
        s.warnings += m.warnings().count;
        for (uint32_t g = 0; g < file.sync.syncGaps.size(); ++g)
            data->m_gaps.push_back({f, g});
        for (uint32_t st = 0; st < file.sync.steps.size(); ++st)
            data->m_steps.push_back({f, st});
    }
    std::stable_sort(data->m_gaps.begin(), data->m_gaps.end(), [&](const TimelineGap &a, const TimelineGap &b) {
        return data->m_files[a.file].sync.syncGaps[a.gap].interval.start <
               data->m_files[b.file].sync.syncGaps[b.gap].interval.start;
    });
    for (TimelineFile &file : data->m_files)
        file.gapRow.assign(file.sync.syncGaps.size(), 0);
    for (uint32_t i = 0; i < data->m_gaps.size(); ++i)
        data->m_files[data->m_gaps[i].file].gapRow[data->m_gaps[i].gap] = i;
    std::stable_sort(data->m_steps.begin(), data->m_steps.end(),
                     [&](const TimelineStep &a, const TimelineStep &b) {
                         return data->step(a).start < data->step(b).start;
                     });
    if (progress)
        progress(1.0, "ready");
    return data;
}

std::vector<TimeNs> TimelineData::alignClocks(const AnalysisOptions &options, const CancelToken *cancel) const
{
    const size_t n = m_files.size();
    std::vector<TimeNs> shifts(n, 0);
    if (n < 2)
        return shifts;
    std::vector<int64_t> rank;
    std::vector<std::string> file;
    std::vector<ReplayInput> inputs;
    for (const TimelineFile &f : m_files) {
        rank.push_back(f.model->info().rank);
        file.push_back(f.model->info().path);
        inputs.push_back(replayInputOf(*f.model, options, cancel));
    }
    std::vector<const ReplayInput *> replays;
    for (const ReplayInput &in : inputs)
        replays.push_back(&in);
    std::vector<ClockOffset> offsets;
    try {
        offsets = clockOffsets(rank, file, replays);
    } catch (const Error &) {
        return shifts; // two files of one rank: no job clock (the Job view says why)
    }
    for (size_t f = 0; f < n; ++f)
        if (offsets[f].known)
            shifts[f] = -offsets[f].median;
    return shifts;
}

const std::vector<RankInput> &TimelineData::rankInputs() const
{
    std::call_once(m_rankInputsOnce, [this] {
        for (const TimelineFile &f : m_files)
            m_rankInputs.push_back(makeRankInput(*f.model, f.sync));
    });
    return m_rankInputs;
}

std::vector<TraceModelPtr> TimelineData::models() const
{
    std::vector<TraceModelPtr> out;
    for (const TimelineFile &f : m_files)
        out.push_back(f.model);
    return out;
}

std::vector<int> TimelineData::gapsOfSource(uint32_t file, size_t source) const
{
    std::vector<int> out;
    if (file >= m_files.size() || source >= m_files[file].sync.sources.size())
        return out;
    const TimelineFile &tf = m_files[file];
    const SyncAnalysis &sa = tf.sync;
    for (size_t g = 0; g < sa.syncGaps.size(); ++g) {
        const size_t call = sa.syncGaps[g].syncCall;
        if (call < sa.syncCalls.size() && sa.syncCalls[call].source == int32_t(source))
            out.push_back(int(tf.gapRow[g]));
    }
    std::sort(out.begin(), out.end());
    return out;
}

QString TimelineData::text(uint32_t file, const EventRef &ref) const
{
    if (!ref.valid() || file >= m_files.size())
        return {};
    const TraceModel &m = *m_files[file].model;
    return qs(m.str(m.tracks()[ref.track].name[ref.index]));
}

QString TimelineData::text(uint32_t file, StrId id) const
{
    if (id == kNoStr || file >= m_files.size())
        return {};
    return qs(m_files[file].model->str(id));
}

QString TimelineData::userFrameText(uint32_t file, const SyncCall &call) const
{
    return text(file, m_files[file].hasPythonFrames ? call.userFrame : call.op);
}

void TimelineData::indexFile(uint32_t f, const CancelToken *cancel)
{
    TimelineFile &file = m_files[f];
    const TraceModel &m = *file.model;
    const auto &mtracks = m.tracks();
    file.unevenCut = unevenCutSentence(m);
    const StrId pyCat = m.findString(category::kPythonFunction);
    if (pyCat != kNoStr)
        for (const Track &t : mtracks)
            if (std::find(t.cat.begin(), t.cat.end(), pyCat) != t.cat.end()) {
                file.hasPythonFrames = true;
                break;
            }

    // Category colours, looked up per drawn box: a byte per string id.
    file.catColor.assign(m.strings().size(), 0);
    std::vector<char> seen(m.strings().size(), 0);
    for (const Track &t : mtracks)
        for (StrId c : t.cat)
            seen[c] = 1;
    for (size_t id = 0; id < seen.size(); ++id)
        if (seen[id])
            file.catColor[id] = uint8_t(palette::categoryColor(m.str(StrId(id))));

    const category::Ids cats(m);
    auto isGpuCat = [&](StrId c) { return cats.gpuTrackEvent(c); };

    // Processes in display order: CPU processes, then GPU devices, then
    // pseudo-processes (a pid that is no number: "Spans", "Traces").
    struct Proc {
        IdValue pid;
        std::vector<uint32_t> tracks;
        std::vector<uint32_t> counters;
        bool gpu = false;
        const Process *info = nullptr;
        TimelineGroup::Kind kind() const
        {
            return gpu              ? TimelineGroup::Kind::Gpu
                   : pid.isNumber() ? TimelineGroup::Kind::Cpu
                                    : TimelineGroup::Kind::Pseudo;
        }
    };
    std::vector<Proc> procs;
    std::unordered_map<StrId, size_t> procIndex;
    auto procOf = [&](const IdValue &pid) -> Proc & {
        auto it = procIndex.find(pid.text);
        if (it == procIndex.end()) {
            it = procIndex.emplace(pid.text, procs.size()).first;
            Proc p;
            p.pid = pid;
            for (const Process &pr : m.processes())
                if (pr.pid.text == pid.text)
                    p.info = &pr;
            procs.push_back(std::move(p));
        }
        return procs[it->second];
    };
    std::vector<char> trackGpu(mtracks.size(), 0);
    std::vector<int64_t> trackDevice(mtracks.size(), kNoValue);
    for (uint32_t ti = 0; ti < mtracks.size(); ++ti) {
        const Track &t = mtracks[ti];
        // Global instants are lines across every track, not marks on their own.
        size_t localInstants = 0;
        for (size_t i = 0; i < t.instants.ts.size(); ++i) {
            if (t.instants.scope[i] == 'g')
                m_globalInstants.push_back({f, t.instants.ts[i], t.instants.name[i]});
            else
                ++localInstants;
        }
        if (t.size() == 0 && localInstants == 0)
            continue;
        for (size_t i = 0; i < t.size(); ++i)
            if (isGpuCat(t.cat[i])) {
                trackGpu[ti] = 1;
                trackDevice[ti] = t.device[i] != kNoValue ? t.device[i] : t.pid.num;
                break;
            }
        Proc &p = procOf(t.pid);
        p.tracks.push_back(ti);
        p.gpu |= trackGpu[ti] != 0;
        checkCancel(cancel);
    }
    for (uint32_t ci = 0; ci < m.counters().size(); ++ci)
        if (!m.counters()[ci].ts.empty())
            procOf(m.counters()[ci].pid).counters.push_back(ci);
    auto sortIdx = [](int64_t v) { return v == kNoValue ? std::numeric_limits<int64_t>::max() : v; };
    std::stable_sort(procs.begin(), procs.end(), [&](const Proc &a, const Proc &b) {
        if (a.kind() != b.kind())
            return a.kind() < b.kind();
        const int64_t sa = sortIdx(a.info ? a.info->sortIndex : kNoValue);
        const int64_t sb = sortIdx(b.info ? b.info->sortIndex : kNoValue);
        if (sa != sb)
            return sa < sb;
        if (a.pid.num != b.pid.num)
            return a.pid.num < b.pid.num;
        return m.str(a.pid.text) < m.str(b.pid.text);
    });

    file.trackOf.assign(mtracks.size(), -1);
    for (Proc &p : procs) {
        std::stable_sort(p.tracks.begin(), p.tracks.end(), [&](uint32_t a, uint32_t b) {
            const Track &ta = mtracks[a], &tb = mtracks[b];
            if (trackGpu[a] != trackGpu[b])
                return !trackGpu[a];
            const int64_t sa = sortIdx(ta.threadSortIndex), sb = sortIdx(tb.threadSortIndex);
            if (sa != sb)
                return sa < sb;
            if (ta.tid.num != tb.tid.num)
                return ta.tid.num < tb.tid.num;
            return m.str(ta.tid.text) < m.str(tb.tid.text);
        });
        // A process by its name and pid; one whose pid is a name ("CPU
        // Functions", "Spans") and that has no other is called by it.
        const QString pidText = qs(m.str(p.pid.text));
        const bool named = p.info && p.info->name != kEmptyStr;
        const bool pidIsName = !named && !p.pid.isNumber() && !pidText.isEmpty();
        QString procName = named ? qs(m.str(p.info->name)) : pidIsName ? pidText : QStringLiteral("Process");
        if (p.info && p.info->labels != kEmptyStr)
            procName += QStringLiteral(" · ") + qs(m.str(p.info->labels));
        if (!pidIsName)
            procName += QStringLiteral(" (pid %1)").arg(pidText);
        for (uint32_t ti : p.tracks)
            if (trackGpu[ti]) {
                // The device's name from deviceProperties ("AMD Instinct MI300X").
                const size_t di = file.sync.deviceIndex(trackDevice[ti]);
                if (di != SIZE_MAX && !file.sync.devices[di].name.empty())
                    procName += QStringLiteral(" · ") + qs(file.sync.devices[di].name);
                break;
            }
        TimelineGroup group;
        group.file = f;
        group.kind = p.kind();
        group.title = procName;
        const int groupIndex = int(m_groups.size());
        for (uint32_t ti : p.tracks) {
            const Track &t = mtracks[ti];
            TimelineTrack tt;
            tt.file = f;
            tt.track = ti;
            tt.group = groupIndex;
            tt.gpu = trackGpu[ti] != 0;
            tt.device = trackDevice[ti];
            if (t.threadName != kEmptyStr)
                tt.name = qs(m.str(t.threadName));
            else {
                // Legacy traces already write "stream 7" as the tid: no "stream stream 7".
                const QString tid = qs(m.str(t.tid.text));
                const QString word = tt.gpu ? QStringLiteral("stream") : QStringLiteral("thread");
                tt.name = tid.startsWith(word + QLatin1Char(' ')) ? tid : word + QLatin1Char(' ') + tid;
            }
            indexLevels(t, tt.levels, nullptr);
            if (pyCat != kNoStr) {
                // Depth among shown events: count the non-Python ancestors. Parents
                // come first (sorted by start, longer first), so one pass does it.
                std::vector<uint16_t> shown(t.size(), 0); // non-Python events on the path, inclusive
                for (uint32_t i = 0; i < t.size(); ++i) {
                    const bool py = t.cat[i] == pyCat;
                    tt.pythonEvents += py;
                    const int32_t par = t.parent[i];
                    shown[i] = uint16_t((par >= 0 ? shown[size_t(par)] : 0) + (py ? 0 : 1));
                }
                if (tt.pythonEvents > 0) {
                    tt.depthNoPython.resize(t.size());
                    for (uint32_t i = 0; i < t.size(); ++i)
                        tt.depthNoPython[i] = t.cat[i] == pyCat ? TimelineTrack::kHiddenDepth
                                                                : uint16_t(shown[i] - 1);
                    indexLevels(t, tt.levelsNoPython, &tt.depthNoPython);
                    m_pythonEvents += tt.pythonEvents;
                }
            }
            file.trackOf[ti] = int(m_tracks.size());
            group.tracks.push_back(int(m_tracks.size()));
            m_tracks.push_back(std::move(tt));
            checkCancel(cancel);
        }
        for (uint32_t ci : p.counters) {
            const CounterSeries &cs = m.counters()[ci];
            TimelineCounter c;
            c.file = f;
            c.series = ci;
            c.group = groupIndex;
            c.name = qs(m.str(cs.name));
            if (cs.key != kEmptyStr && m.str(cs.key) != m.str(cs.name))
                c.name += QLatin1Char('.') + qs(m.str(cs.key));
            const auto [lo, hi] = std::minmax_element(cs.value.begin(), cs.value.end());
            c.minValue = *lo;
            c.maxValue = *hi;
            c.buildMaxPyramid(cs.value);
            group.counters.push_back(int(m_counters.size()));
            m_counters.push_back(std::move(c));
        }
        m_groups.push_back(std::move(group));
    }

    // Sync gaps per device with the GPU tracks that show them.
    const SyncAnalysis &sa = file.sync;
    file.callCausesGap.assign(sa.syncCalls.size(), 0);
    for (uint32_t g = 0; g < sa.syncGaps.size(); ++g) {
        const SyncGap &gap = sa.syncGaps[g];
        if (gap.syncCall < file.callCausesGap.size())
            file.callCausesGap[gap.syncCall] = 1;
        if (file.deviceGaps.empty() || file.deviceGaps.back().device != gap.device) {
            TimelineFile::DeviceGaps dg;
            dg.device = gap.device;
            for (size_t ti = 0; ti < mtracks.size(); ++ti)
                if (file.trackOf[ti] >= 0 && trackGpu[ti] && trackDevice[ti] == gap.device)
                    dg.tracks.push_back(file.trackOf[ti]);
            file.deviceGaps.push_back(std::move(dg));
        }
        file.deviceGaps.back().gaps.push_back(g);
    }
    for (auto &dg : file.deviceGaps)
        std::stable_sort(dg.gaps.begin(), dg.gaps.end(), [&](uint32_t a, uint32_t b) {
            return sa.syncGaps[a].interval.start < sa.syncGaps[b].interval.start;
        });
    for (uint32_t ci = 0; ci < sa.syncCalls.size(); ++ci) {
        const SyncCall &c = sa.syncCalls[ci];
        file.maxSyncCallDur = std::max(file.maxSyncCallDur, c.dur);
        if (c.event.valid() && c.event.track < file.trackOf.size() && file.trackOf[c.event.track] >= 0) {
            TimelineTrack &tt = m_tracks[size_t(file.trackOf[c.event.track])];
            (file.callCausesGap[ci] ? tt.gapCalls : tt.otherCalls).push_back(ci); // by start already
        }
    }

    const auto &flows = m.flows();
    file.flowsById.reserve(flows.size());
    for (uint32_t i = 0; i < flows.size(); ++i)
        file.flowsById.emplace_back(flowKey(m, flows[i]), i);
    std::sort(file.flowsById.begin(), file.flowsById.end());
}

void TimelineData::indexLevels(const Track &t, std::vector<TimelineLevel> &levels,
                               const std::vector<uint16_t> *depthOf)
{
    // Events per depth, keeping start order.
    auto depth = [&](uint32_t i) { return depthOf ? (*depthOf)[i] : t.depth[i]; };
    std::vector<size_t> counts;
    for (uint32_t i = 0; i < t.size(); ++i) {
        const uint16_t d = depth(i);
        if (d == TimelineTrack::kHiddenDepth)
            continue;
        if (d >= counts.size())
            counts.resize(size_t(d) + 1, 0);
        ++counts[d];
    }
    levels.resize(counts.size());
    for (size_t d = 0; d < levels.size(); ++d)
        levels[d].events.reserve(counts[d]);
    for (uint32_t i = 0; i < t.size(); ++i)
        if (depth(i) != TimelineTrack::kHiddenDepth)
            levels[depth(i)].events.push_back(i);
    for (TimelineLevel &lvl : levels) {
        const size_t cnt = lvl.events.size();
        lvl.widest64.resize((cnt + 63) / 64);
        for (size_t b = 0; b < lvl.widest64.size(); ++b) {
            size_t best = b * 64;
            for (size_t p2 = b * 64 + 1; p2 < std::min(cnt, b * 64 + 64); ++p2)
                if (t.dur[lvl.events[p2]] > t.dur[lvl.events[best]])
                    best = p2;
            lvl.widest64[b] = uint32_t(best);
        }
        lvl.blockEnd.resize(lvl.widest64.size());
        for (size_t b = 0; b < lvl.blockEnd.size(); ++b)
            lvl.blockEnd[b] = t.end(lvl.events[std::min(cnt, b * 64 + 64) - 1]);
        lvl.widest4k.resize((cnt + 4095) / 4096);
        for (size_t b = 0; b < lvl.widest4k.size(); ++b) {
            size_t best = lvl.widest64[b * 64];
            for (size_t q = b * 64 + 1; q < std::min(lvl.widest64.size(), b * 64 + 64); ++q)
                if (t.dur[lvl.events[lvl.widest64[q]]] > t.dur[lvl.events[best]])
                    best = lvl.widest64[q];
            lvl.widest4k[b] = uint32_t(best);
        }
    }
}

void TimelineCounter::buildMaxPyramid(const std::vector<double> &values)
{
    constexpr size_t f = kMaxFanout;
    maxPyramid.clear();
    for (const std::vector<double> *below = &values; below->size() > f; below = &maxPyramid.back()) {
        std::vector<double> level((below->size() + f - 1) / f);
        for (size_t i = 0; i < level.size(); ++i)
            level[i] = *std::max_element(below->begin() + ptrdiff_t(i * f),
                                         below->begin() + ptrdiff_t(std::min(below->size(), (i + 1) * f)));
        maxPyramid.push_back(std::move(level));
    }
}

double TimelineCounter::maxOf(const std::vector<double> &values, size_t b, size_t e) const
{
    // Climb while whole blocks lie inside [b, e): the ragged ends at each level
    // are read one by one, the middle one level up.
    constexpr size_t f = kMaxFanout;
    double v = values[b];
    const std::vector<double> *level = &values;
    size_t k = 0;
    while (b < e) {
        if (k < maxPyramid.size() && (b + f - 1) / f < e / f) {
            for (; b % f; ++b)
                v = std::max(v, (*level)[b]);
            for (; e % f; --e)
                v = std::max(v, (*level)[e - 1]);
            b /= f;
            e /= f;
            level = &maxPyramid[k++];
        } else {
            for (; b < e; ++b)
                v = std::max(v, (*level)[b]);
        }
    }
    return v;
}

int TimelineData::globalInstantNear(TimeNs t, TimeNs tol) const
{
    auto it = std::lower_bound(m_globalInstants.begin(), m_globalInstants.end(), t - tol,
                               [](const TimelineInstant &g, TimeNs v) { return g.ts < v; });
    return it != m_globalInstants.end() && it->ts <= t + tol ? int(it - m_globalInstants.begin()) : -1;
}

void TimelineData::labelFiles()
{
    std::vector<QString> names;
    std::vector<int64_t> ranks;
    for (const TimelineFile &file : m_files) {
        names.push_back(QFileInfo(QString::fromStdString(file.model->info().path)).fileName());
        ranks.push_back(file.model->info().rank);
    }
    const std::vector<QString> labels = fileLabels(names, ranks);
    for (size_t f = 0; f < m_files.size(); ++f)
        m_files[f].label = labels[f];
}

std::string_view TimelineData::name(const TimelineEvent &e) const
{
    return fileOf(e).model->str(modelTrack(e.track).name[e.index]);
}

std::string_view TimelineData::category(const TimelineEvent &e) const
{
    return fileOf(e).model->str(modelTrack(e.track).cat[e.index]);
}

int TimelineData::colorOf(const TimelineEvent &e) const
{
    return fileOf(e).catColor[modelTrack(e.track).cat[e.index]];
}

TimelineEvent TimelineData::eventOf(uint32_t file, const EventRef &ref) const
{
    if (!ref.valid() || file >= m_files.size() || ref.track >= m_files[file].trackOf.size())
        return {};
    const int t = m_files[file].trackOf[ref.track];
    return t < 0 ? TimelineEvent{} : TimelineEvent{t, ref.index};
}

size_t TimelineData::widest(const Track &track, const TimelineLevel &level, size_t from, size_t to)
{
    size_t best = from;
    TimeNs bestDur = -1;
    auto consider = [&](size_t p) {
        const TimeNs d = track.dur[level.events[p]];
        if (d > bestDur) {
            bestDur = d;
            best = p;
        }
    };
    size_t p = from;
    while (p < to && p % 64 != 0)
        consider(p++);
    while (p + 64 <= to && p % 4096 != 0) {
        consider(level.widest64[p / 64]);
        p += 64;
    }
    while (p + 4096 <= to) {
        consider(level.widest4k[p / 4096]);
        p += 4096;
    }
    while (p + 64 <= to) {
        consider(level.widest64[p / 64]);
        p += 64;
    }
    while (p < to)
        consider(p++);
    return best;
}

size_t TimelineData::firstEndingAtOrAfter(const Track &track, const TimelineLevel &level, size_t from, TimeNs t)
{
    const size_t n = level.events.size();
    if (from >= n)
        return n;
    auto b = std::lower_bound(level.blockEnd.begin() + std::ptrdiff_t(from / 64), level.blockEnd.end(), t);
    if (b == level.blockEnd.end())
        return n;
    const size_t block = size_t(b - level.blockEnd.begin());
    const size_t lo = std::max(from, block * 64), hi = std::min(n, block * 64 + 64);
    auto it = std::partition_point(level.events.begin() + std::ptrdiff_t(lo),
                                   level.events.begin() + std::ptrdiff_t(hi),
                                   [&](uint32_t e) { return track.end(e) < t; });
    return size_t(it - level.events.begin());
}

TimelineEvent TimelineData::enclosing(int track, TimeNs t) const
{
    if (track < 0 || track >= int(m_tracks.size()))
        return {};
    const TimelineTrack &tt = m_tracks[track];
    const Track &mt = modelTrack(track);
    for (size_t d = tt.levels.size(); d-- > 0;) {
        const TimelineLevel &lvl = tt.levels[d];
        size_t p = firstEndingAtOrAfter(mt, lvl, 0, t);
        // Back-to-back events: t at one's end and the next one's start belongs
        // to the next one.
        if (p + 1 < lvl.events.size() && mt.end(lvl.events[p]) == t && mt.dur[lvl.events[p]] > 0 &&
            mt.start[lvl.events[p + 1]] <= t)
            ++p;
        if (p < lvl.events.size() && mt.start[lvl.events[p]] <= t)
            return {track, lvl.events[p]};
    }
    return {};
}

std::vector<std::pair<TimelineEvent, TimelineEvent>> TimelineData::linkedEvents(const TimelineEvent &e) const
{
    std::vector<std::pair<TimelineEvent, TimelineEvent>> out;
    if (!e.valid())
        return out;
    const TimelineTrack &tt = m_tracks[e.track];
    const TimelineFile &file = m_files[tt.file];
    const TraceModel &m = *file.model;
    const Track &mt = modelTrack(e.track);
    const TimeNs s = mt.start[e.index], en = mt.end(e.index);
    const auto &flows = m.flows();
    constexpr size_t kMaxLinks = 64;

    auto lo = std::lower_bound(flows.begin(), flows.end(), s,
                               [](const FlowEvent &f, TimeNs t) { return f.ts < t; });
    for (auto it = lo; it != flows.end() && it->ts <= en && out.size() < kMaxLinks; ++it) {
        if (it->track != tt.track || enclosing(e.track, it->ts) != e)
            continue;
        const int64_t key = flowKey(m, *it);
        auto range = std::equal_range(file.flowsById.begin(), file.flowsById.end(),
                                      std::make_pair(key, uint32_t(0)),
                                      [](const auto &a, const auto &b) { return a.first < b.first; });
        for (auto p = range.first; p != range.second; ++p) {
            const FlowEvent &other = flows[p->second];
            if (&other == &*it || other.cat != it->cat || other.idText != it->idText ||
                other.track >= file.trackOf.size())
                continue;
            const TimelineEvent oe = enclosing(file.trackOf[other.track], other.ts);
            if (!oe.valid() || oe == e)
                continue;
            const bool outgoing = it->phase == FlowPhase::Start ||
                                  (it->phase == FlowPhase::Step && other.phase == FlowPhase::End);
            out.push_back(outgoing ? std::make_pair(e, oe) : std::make_pair(oe, e));
        }
    }
    const int64_t corr = mt.correlation[e.index];
    // The GPU-side event of a correlation (the first by start), or invalid.
    auto gpuEventOf = [&](int64_t c) {
        TimelineEvent best;
        for (size_t ti = 0; ti < m.tracks().size(); ++ti) {
            const int drawn = file.trackOf[ti];
            if (drawn < 0 || !m_tracks[size_t(drawn)].gpu)
                continue;
            const Track t = m.tracks()[ti];
            for (uint32_t i = 0; i < t.size(); ++i)
                if (t.correlation[i] == c && (!best.valid() || t.start[i] < start(best)))
                    best = {drawn, i};
        }
        return best;
    };
    if (out.empty() && corr != kNoValue) {
        // A graph launch points at the first of its kernels only (the details
        // panel counts the rest).
        const bool graph = !tt.gpu && isGraphLaunch(m.str(mt.name[e.index]));
        TimelineEvent firstOfGraph;
        for (size_t ti = 0; ti < m.tracks().size() && out.size() < kMaxLinks; ++ti) {
            const int drawn = file.trackOf[ti];
            if (drawn < 0)
                continue;
            const auto &col = m.tracks()[ti].correlation;
            for (uint32_t i = 0; i < col.size(); ++i) {
                if (col[i] != corr || (drawn == e.track && i == e.index))
                    continue;
                const TimelineEvent oe{drawn, i};
                if (graph && m_tracks[size_t(drawn)].gpu) {
                    if (!firstOfGraph.valid() || start(oe) < start(firstOfGraph))
                        firstOfGraph = oe;
                    continue;
                }
                // The launch (host) points at what runs on the device.
                const bool eFirst = tt.gpu != m_tracks[drawn].gpu ? !tt.gpu : s <= start(oe);
                out.push_back(eFirst ? std::make_pair(e, oe) : std::make_pair(oe, e));
            }
        }
        if (firstOfGraph.valid())
            out.push_back({e, firstOfGraph});
    }
    // Stream waits: from what this activity waited for, to what waited for it.
    const ReplayInput &rin = file.sync.replay;
    if (tt.gpu && corr != kNoValue && !rin.deps.empty()) {
        for (const StreamDependency &d : rin.deps) {
            if (out.size() >= kMaxLinks)
                break;
            const int64_t to = rin.activities[d.activity].correlation, from = rin.activities[d.on].correlation;
            if ((to != corr && from != corr) || to == kNoValue || from == kNoValue)
                continue;
            const TimelineEvent other = gpuEventOf(to == corr ? from : to);
            if (other.valid() && other != e)
                out.push_back(to == corr ? std::make_pair(other, e) : std::make_pair(e, other));
        }
    }
    // Handoffs between host threads (the autograd engine running backward): an
    // event of either thread that spans the wake or the resume shows both
    // arrows between top-level events: the waker's (at the wake, else its last
    // before) to the woken thread's first, and the woken thread's last to the
    // waker's at its resume.
    if (!tt.gpu) {
        for (const ReplayHandoff &h : rin.handoffs) {
            if (out.size() + 2 > kMaxLinks)
                break;
            if (h.from >= file.trackOf.size() || h.to >= file.trackOf.size())
                continue;
            const int from = file.trackOf[h.from], to = file.trackOf[h.to];
            if (from < 0 || to < 0 || (e.track != from && e.track != to))
                continue;
            if (!((s <= h.at && h.at <= en) || (s <= h.back && h.back <= en)))
                continue;
            // A thread's last top-level event that ends by t (invalid: none since `after`).
            auto lastTopBy = [&](int track, TimeNs t, TimeNs after) -> TimelineEvent {
                const Track &mt2 = modelTrack(track);
                if (m_tracks[size_t(track)].levels.empty())
                    return {};
                const TimelineLevel &top = m_tracks[size_t(track)].levels[0];
                const size_t p = firstEndingAtOrAfter(mt2, top, 0, t + 1);
                if (p == 0 || mt2.start[top.events[p - 1]] < after)
                    return {};
                return {track, top.events[p - 1]};
            };
            // A thread's top-level event at t (invalid: none).
            auto topAt = [&](int track, TimeNs t) -> TimelineEvent {
                const Track &mt2 = modelTrack(track);
                if (m_tracks[size_t(track)].levels.empty())
                    return {};
                const TimelineLevel &top = m_tracks[size_t(track)].levels[0];
                const size_t p = firstEndingAtOrAfter(mt2, top, 0, t);
                if (p == top.events.size() || mt2.start[top.events[p]] > t)
                    return {};
                return {track, top.events[p]};
            };
            const TimelineEvent woke = topAt(to, h.at), resumed = topAt(from, h.back);
            TimelineEvent waker = topAt(from, h.at);
            if (!waker.valid())
                waker = lastTopBy(from, h.at, std::numeric_limits<TimeNs>::min());
            const TimelineEvent last = lastTopBy(to, h.back, h.at);
            if (waker.valid() && woke.valid())
                out.push_back({waker, woke});
            if (last.valid() && resumed.valid())
                out.push_back({last, resumed});
        }
    }
    return out;
}

QString whyNothingAvoidable(const SyncAnalysis &analysis, int64_t device)
{
    const size_t d = analysis.deviceIndex(device);
    if (d != SIZE_MAX && analysis.devices[d].avoidable > 0)
        return QCoreApplication::translate("syncscope::ui::TimelineData",
                                           "another blocking call waits for the same work, so removing this one "
                                           "alone moves nothing; check several sources to see what removing them "
                                           "together saves");
    return QCoreApplication::translate("syncscope::ui::TimelineData",
                                       "removing every blocking call saves this device nothing either: its work "
                                       "waits on other streams, launches or latency that the replay keeps");
}

std::vector<QString> fileLabels(const std::vector<QString> &fileNames, const std::vector<int64_t> &ranks)
{
    static const QRegularExpression capture(
        QStringLiteral("^\\d{8}-\\d{6}-\\d{3}-(.+)-([a-z]+[0-9]*)-n(\\d+)\\.json(\\.gz)?$"));
    static const QRegularExpression separators(QStringLiteral("[._-]"));
    const size_t n = fileNames.size();
    std::vector<QString> part(n);
    std::vector<QStringList> tokens(n);
    for (size_t i = 0; i < n; ++i) {
        const QRegularExpressionMatch m = capture.match(fileNames[i]);
        if (m.hasMatch())
            part[i] = QStringLiteral("%1, N=%2 (%3)").arg(m.captured(1), m.captured(3), m.captured(2));
        tokens[i] = fileNames[i].split(separators);
    }
    // Several files: the positions whose tokens differ, fewest first that make names unique.
    if (n >= 2) {
        size_t width = 0;
        for (const QStringList &t : tokens)
            width = std::max(width, size_t(t.size()));
        std::vector<size_t> differing;
        for (size_t p = 0; p < width; ++p) {
            const QString first = p < size_t(tokens[0].size()) ? tokens[0][int(p)] : QString();
            for (size_t i = 1; i < n; ++i)
                if ((p < size_t(tokens[i].size()) ? tokens[i][int(p)] : QString()) != first) {
                    differing.push_back(p);
                    break;
                }
        }
        std::vector<QString> joined(n);
        auto tokenAt = [&](size_t i, size_t p) {
            return p < size_t(tokens[i].size()) ? tokens[i][int(p)] : QString();
        };
        for (size_t used = 0; used < differing.size(); ++used) {
            for (size_t i = 0; i < n; ++i) {
                const size_t p = differing[used];
                QString tok = tokenAt(i, p);
                // A bare number reads better with the word before it ("rank-0").
                bool numeric = false;
                tok.toLongLong(&numeric);
                if (numeric && p > 0 && !tokenAt(i, p - 1).isEmpty())
                    tok = tokenAt(i, p - 1) + QLatin1Char('-') + tok;
                joined[i] += (used ? QStringLiteral(" ") : QString()) + tok;
            }
            std::vector<QString> sorted = joined;
            std::sort(sorted.begin(), sorted.end());
            if (std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end())
                break;
        }
        std::map<QString, int> seen;
        for (const QString &p : part)
            ++seen[p];
        for (size_t i = 0; i < n; ++i) {
            if (joined[i].isEmpty())
                continue;
            if (part[i].isEmpty())
                part[i] = joined[i];
            else if (seen[part[i]] > 1) // captures of one variant and N: their times tell them apart
                part[i] += QStringLiteral(" · ") + joined[i];
        }
    }
    std::vector<QString> out(n);
    for (size_t i = 0; i < n; ++i) {
        const QString name = part[i].isEmpty() ? fileNames[i] : part[i];
        out[i] = ranks[i] != kNoValue ? QStringLiteral("Rank %1 · %2").arg(ranks[i]).arg(name) : name;
    }
    return out;
}

} // namespace syncscope::ui
