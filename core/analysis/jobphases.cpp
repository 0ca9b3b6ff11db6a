#include "analysis/jobphases.h"

#include "analysis/windowsearch.h"
#include "common/cores.h"
#include "common/error.h"

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>

namespace syncscope::jobphases {

namespace {

constexpr TimeNs kNever = kNoEnd;

// Nearest-rank percentiles of a sorted list: p5 at floor(0.05 (n-1)), the median
// at floor((n-1)/2), p95 at ceil(0.95 (n-1)).
void percentiles(std::vector<TimeNs> v, TimeNs &median, TimeNs &p5, TimeNs &p95)
{
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    median = v[(n - 1) / 2];
    p5 = v[(5 * (n - 1)) / 100];
    p95 = v[(95 * (n - 1) + 99) / 100];
}


// A rank input read back from a file may be damaged: every index must point
// inside its table before a replay touches it.
void validate(const RankInput &r)
{
    const ReplayInput &in = r.replay;
    auto bad = [&](const char *what) {
        throw Error("the rank data of '" + r.file + "' is inconsistent (" + what + "): summarize the trace again");
    };
    for (const ReplayActivity &a : in.activities)
        if (a.device >= in.deviceIds.size() || a.stream >= in.streamIds.size() || a.end < a.start)
            bad("an activity names a device or stream it does not list, or ends before it starts");
    for (const StreamDependency &d : in.deps)
        if (d.activity >= in.activities.size() || d.on >= in.activities.size())
            bad("a stream dependency names an activity it does not have");
    {
        std::vector<uint32_t> kernels;
        kernels.reserve(in.collectives.size());
        for (const CollectiveKernel &c : in.collectives) {
            if (c.activity >= in.activities.size())
                bad("a collective names an activity it does not have");
            kernels.push_back(c.activity);
        }
        std::sort(kernels.begin(), kernels.end());
        if (std::adjacent_find(kernels.begin(), kernels.end()) != kernels.end())
            bad("two collectives name one activity");
    }
    for (const RankSource &s : r.sources)
        for (uint32_t c : s.calls)
            if (c >= in.calls.size())
                bad("a sync source names a call it does not have");
    for (const ReplayBlocking &c : in.calls)
        if (c.end < c.start)
            bad("a blocking call ends before it starts");
    if (r.localAvoidable.size() > in.deviceIds.size())
        bad("more per-device figures than devices");
}

} // namespace


// How many threads the job's replays use: `requested` (0: every core), and no
// more extra threads than fit 1 GiB of their state: each twin walks every rank
// at most once (about 4 bytes per GPU activity of the job) and keeps its own
// per-collective state (about 64 bytes per collective and 8 per part); the
// collectives' order is one plan they share.
size_t replayThreads(size_t requested, const std::vector<const RankInput *> &ranks,
                     const std::vector<Coupled> &coupled)
{
    size_t activities = 0, parts = 0;
    for (const RankInput *r : ranks)
        activities += r->replay.activities.size();
    for (const Coupled &c : coupled)
        parts += c.parts.size();
    return threadsWithinBudget(requested, activities * 4 + coupled.size() * 64 + parts * 8);
}

// Rank identity: distributedInfo.rank, else the position of the file. The
// positions in rank order; two files of one rank are an Error.
std::vector<size_t> rankOrder(const std::vector<int64_t> &rank, const std::vector<std::string> &file)
{
    std::vector<std::pair<int64_t, size_t>> order;
    for (size_t i = 0; i < rank.size(); ++i)
        order.push_back({rank[i] != kNoValue ? rank[i] : int64_t(i), i});
    std::stable_sort(order.begin(), order.end(), [](const auto &x, const auto &y) { return x.first < y.first; });
    for (size_t i = 1; i < order.size(); ++i)
        if (order[i].first == order[i - 1].first)
            throw Error("'" + file[order[i - 1].second] + "' and '" + file[order[i].second] + "' are both rank " +
                        std::to_string(order[i].first) + " of the job: give each rank's trace once");
    std::vector<size_t> out;
    for (const auto &o : order)
        out.push_back(o.second);
    return out;
}

// The collectives of ranks (in rank order) matched by (group, seq), in group,
// then sequence order; the ones that cannot be coupled are counted in `unmatched`.
Collectives coupleCollectives(const std::vector<const ReplayInput *> &ranks)
{
    Collectives out;
    size_t &unmatched = out.unmatched;
    const size_t n = ranks.size();
    // Collectives: by group, the ranks that have any, and each (group, seq).
    std::map<std::string, std::vector<char>> groupRanks;
    std::map<std::pair<std::string, uint32_t>, std::vector<const CollectiveKernel *>> bySeq;
    for (size_t r = 0; r < n; ++r)
        for (const CollectiveKernel &c : ranks[r]->collectives) {
            auto &g = groupRanks[c.group];
            g.resize(n, 0);
            g[r] = 1;
            auto &v = bySeq[{c.group, c.seq}];
            v.resize(n, nullptr);
            v[r] = &c;
        }
    std::vector<Coupled> &coupled = out.coupled;
    for (const auto &kv : bySeq) {
        const std::vector<char> &members = groupRanks[kv.first.first];
        bool ok = true;
        const CollectiveKernel *first = nullptr;
        for (size_t r = 0; r < n && ok; ++r) {
            if (!members[r])
                continue;
            const CollectiveKernel *k = kv.second[r];
            if (!k || (first && k->name != first->name))
                ok = false;
            else if (!first)
                first = k;
        }
        size_t memberCount = 0;
        for (char m : members)
            memberCount += m != 0;
        if (!ok || !first || memberCount < 2) {
            ++unmatched;
            continue;
        }
        Coupled c;
        c.group = kv.first.first;
        c.seq = kv.first.second;
        c.name = first->name;
        TimeNs d = std::numeric_limits<TimeNs>::max();
        for (size_t r = 0; r < n; ++r) {
            const CollectiveKernel *k = members[r] ? kv.second[r] : nullptr;
            if (!k)
                continue;
            const ReplayActivity &a = ranks[r]->activities[k->activity];
            c.parts.push_back({static_cast<uint32_t>(r), k->activity, a.start, a.end, 0});
            d = std::min(d, a.end - a.start);
        }
        for (Coupled::Part &p : c.parts)
            p.wait = (p.end - p.start) - d;
        // The last: no wait (ties: the lowest rank); lateness: the second smallest wait.
        std::vector<TimeNs> waits;
        for (size_t i = 0; i < c.parts.size(); ++i) {
            waits.push_back(c.parts[i].wait);
            if (c.parts[i].wait < c.parts[c.last].wait)
                c.last = i;
        }
        std::sort(waits.begin(), waits.end());
        c.lateness = waits.size() > 1 ? waits[1] : 0;
        coupled.push_back(std::move(c));
    }
    return out;
}

// Clock offsets from the coupled collectives' ends, against the first rank.
std::vector<ClockOffset> offsetsFrom(const std::vector<Coupled> &coupled, size_t n)
{
    std::vector<std::vector<TimeNs>> diffs(n);
    for (const Coupled &c : coupled) {
        if (c.parts.front().rank != 0)
            continue;
        const TimeNs end0 = c.parts.front().end;
        for (const Coupled::Part &p : c.parts)
            diffs[p.rank].push_back(p.end - end0);
    }
    std::vector<ClockOffset> out(n);
    for (size_t r = 0; r < n; ++r)
        if (!diffs[r].empty()) {
            out[r].known = true;
            percentiles(diffs[r], out[r].median, out[r].p5, out[r].p95);
        }
    return out;
}
Ranks orderRanks(const std::vector<RankInput> &input)
{
    for (const RankInput &r : input)
        validate(r);
    std::vector<int64_t> rank;
    std::vector<std::string> file;
    for (const RankInput &r : input) {
        rank.push_back(r.rank);
        file.push_back(r.file);
    }
    Ranks out;
    out.order = rankOrder(rank, file);
    for (size_t i : out.order) {
        out.ranks.push_back(&input[i]);
        out.replays.push_back(&input[i].replay);
        out.ids.push_back(input[i].rank != kNoValue ? input[i].rank : int64_t(i));
    }
    return out;
}

Clocks rankClocks(const Ranks &ranks, const std::vector<Coupled> &coupled)
{
    // On the clocks the ranks were analysed in (offset); the rows report them
    // on the files' clocks.
    const size_t n = ranks.ranks.size();
    Clocks out;
    out.offset.assign(n, 0);
    out.rows.resize(n);
    const std::vector<ClockOffset> clocks = offsetsFrom(coupled, n);
    for (size_t r = 0; r < n; ++r) {
        JobRank &row = out.rows[r];
        const ClockOffset &c = clocks[r];
        out.missing += r > 0 && !c.known;
        out.offset[r] = c.median;
        row.analysedOffset = c.median;
        row.clockShift = ranks.ranks[r]->clockShift;
        if (!c.known)
            continue;
        // analysed = file + shift, so the file clocks differ by the shifts less.
        const TimeNs fileDelta = ranks.ranks[r]->clockShift - ranks.ranks[0]->clockShift;
        row.hasClockOffset = true;
        row.clockOffset = c.median - fileDelta;
        row.clockOffsetP5 = c.p5 - fileDelta;
        row.clockOffsetP95 = c.p95 - fileDelta;
    }
    return out;
}

void describeRanks(const Ranks &ranks, std::vector<JobRank> &rows)
{
    for (size_t r = 0; r < rows.size(); ++r) {
        JobRank &row = rows[r];
        const RankInput &ri = *ranks.ranks[r];
        row.rank = ranks.ids[r];
        row.file = ri.file;
        row.fileIndex = ranks.order[r];
        row.waitMode = ri.replay.waitMode;
        row.streamWaits = ri.replay.deps.size();
        std::vector<uint64_t> count(ri.replay.deviceIds.size(), 0);
        for (const CollectiveKernel &k : ri.replay.collectives)
            if (k.activity < ri.replay.activities.size())
                ++count[ri.replay.activities[k.activity].device];
        if (std::all_of(count.begin(), count.end(), [](uint64_t x) { return x == 0; }))
            for (const ReplayActivity &a : ri.replay.activities)
                ++count[a.device];
        size_t dense = SIZE_MAX;
        if (!count.empty() && *std::max_element(count.begin(), count.end()) > 0) {
            dense = size_t(std::max_element(count.begin(), count.end()) - count.begin());
            row.device = ri.replay.deviceIds[dense];
        }
        if (dense != SIZE_MAX && dense < ri.localAvoidable.size())
            row.localAvoidable = ri.localAvoidable[dense];
    }
}

Measured measureJob(const Ranks &ranks, const std::vector<TimeNs> &offset)
{
    const size_t n = ranks.ranks.size();
    Measured out;
    out.last.assign(n, kNever);
    out.first = std::numeric_limits<TimeNs>::max();
    out.end = kNever;
    for (size_t r = 0; r < n; ++r) {
        for (const ReplayActivity &a : ranks.ranks[r]->replay.activities) {
            out.last[r] = std::max(out.last[r], a.end);
            out.first = std::min(out.first, a.start - offset[r]);
        }
        if (out.last[r] != kNever)
            out.end = std::max(out.end, out.last[r] - offset[r]);
    }
    return out;
}

PartsOf partsOfRanks(const std::vector<Coupled> &coupled, size_t ranks)
{
    PartsOf out(ranks);
    for (size_t c = 0; c < coupled.size(); ++c)
        for (size_t i = 0; i < coupled[c].parts.size(); ++i)
            out[coupled[c].parts[i].rank].push_back({c, i});
    return out;
}

std::vector<int64_t> stepsOfParts(const RankInput &rank, const std::vector<std::pair<size_t, size_t>> &parts,
                                  const std::vector<Coupled> &coupled)
{
    std::unordered_map<int64_t, TimeNs> launchStart;
    for (const ReplayLaunch &l : rank.replay.launches)
        launchStart.emplace(l.correlation, l.start);
    const WindowSearch<RankStepWindow> search(rank.steps);
    std::vector<int64_t> out;
    out.reserve(parts.size());
    for (const auto &ck : parts) {
        const ReplayActivity &act = rank.replay.activities[coupled[ck.first].parts[ck.second].activity];
        auto it = act.correlation == kNoValue ? launchStart.end() : launchStart.find(act.correlation);
        out.push_back(it == launchStart.end() ? -1 : search.find(it->second));
    }
    return out;
}

TimeNs jobSaving(const Walk &walk, const std::vector<TimeNs> &offset, TimeNs jobEnd)
{
    TimeNs end = kNever;
    for (size_t r = 0; r < walk.newLast.size(); ++r)
        if (walk.newLast[r] != kNever)
            end = std::max(end, walk.newLast[r] - offset[r]);
    return std::max<TimeNs>(0, jobEnd - end);
}

std::vector<std::vector<size_t>> removedByRank(const Ranks &ranks, const std::vector<std::vector<size_t>> &byFile)
{
    const size_t n = ranks.ranks.size();
    std::vector<std::vector<size_t>> removed(n);
    for (size_t r = 0; r < n; ++r) {
        const size_t f = ranks.order[r];
        if (f < byFile.size())
            for (size_t c : byFile[f])
                if (c < ranks.ranks[r]->replay.calls.size())
                    removed[r].push_back(c);
        std::sort(removed[r].begin(), removed[r].end());
        removed[r].erase(std::unique(removed[r].begin(), removed[r].end()), removed[r].end());
    }
    return removed;
}

std::vector<size_t> allCalls(const RankInput &rank)
{
    std::vector<size_t> v(rank.replay.calls.size());
    for (size_t i = 0; i < v.size(); ++i)
        v[i] = i;
    return v;
}

std::vector<std::vector<size_t>> onlyRank(size_t n, size_t r, std::vector<size_t> calls)
{
    std::vector<std::vector<size_t>> removed(n);
    removed[r] = std::move(calls);
    return removed;
}

std::vector<char> criticalRanks(const std::vector<Coupled> &coupled, const Measured &measured,
                                const std::vector<TimeNs> &offset)
{
    const size_t n = measured.last.size();
    std::vector<char> critical(n, 0);
    for (const Coupled &c : coupled)
        for (const Coupled::Part &p : c.parts)
            if (p.wait == 0)
                critical[p.rank] = 1;
    for (size_t r = 0; r < n; ++r)
        if (measured.last[r] != kNever && measured.last[r] - offset[r] == measured.end)
            critical[r] = 1;
    return critical;
}

void waitFigures(const std::vector<Coupled> &coupled, const PartsOf &parts, std::vector<JobRank> &rows)
{
    for (size_t r = 0; r < rows.size(); ++r) {
        JobRank &row = rows[r];
        for (const auto &ck : parts[r]) {
            row.wait += coupled[ck.first].parts[ck.second].wait;
            row.lastArrivals += ck.second == coupled[ck.first].last;
        }
    }
}

RankSavings rankReplays(const ReplayContext &ctx, const Ranks &ranks, const std::vector<size_t> &critical)
{
    const size_t n = ranks.ranks.size();
    RankSavings out;
    out.jobAvoidable.assign(n, 0);
    out.savesNothing.assign(n, 0);
    std::vector<size_t> forced(critical.size(), 0);
    ctx.pool.run(
        critical.size(),
        [&](JobReplay &rp, size_t i) {
            const size_t r = critical[i];
            const Walk w = rp.run(onlyRank(n, r, allCalls(*ranks.ranks[r])));
            out.jobAvoidable[r] = jobSaving(w, ctx.offset, ctx.jobEnd);
            forced[i] = w.forced;
        },
        [&] { ctx.tick("replay of each rank"); });
    for (size_t i = 0; i < critical.size(); ++i) {
        const size_t r = critical[i];
        out.savesNothing[r] = out.jobAvoidable[r] == 0 && forced[i] == 0;
    }
    return out;
}

Blame blameSources(const ReplayContext &ctx, const Ranks &ranks, const std::vector<size_t> &critical,
                   const std::vector<Coupled> &coupled)
{
    const size_t n = ranks.ranks.size();
    std::vector<std::vector<size_t>> lastAt(n); // per rank: the collectives it was last at
    for (size_t c = 0; c < coupled.size(); ++c)
        lastAt[coupled[c].parts[coupled[c].last].rank].push_back(c);
    std::vector<std::pair<size_t, const RankSource *>> tasks;
    for (size_t r : critical)
        for (const RankSource &s : ranks.ranks[r]->sources)
            tasks.push_back({r, &s});
    std::vector<std::vector<std::pair<size_t, TimeNs>>> moved(tasks.size()); // (collective, delta < 0)
    ctx.pool.run(
        tasks.size(),
        [&](JobReplay &rp, size_t i) {
            const size_t r = tasks[i].first;
            if (lastAt[r].empty())
                return;
            const RankSource &s = *tasks[i].second;
            rp.run(onlyRank(n, r, std::vector<size_t>(s.calls.begin(), s.calls.end())));
            for (size_t c : lastAt[r])
                if (rp.delta(c) < 0)
                    moved[i].push_back({c, rp.delta(c)});
        },
        [&] { ctx.tick("blame"); });
    Blame out;
    out.delta.assign(coupled.size(), 0);
    out.source.assign(coupled.size(), nullptr);
    for (size_t i = 0; i < tasks.size(); ++i)
        for (const auto &cd : moved[i])
            if (cd.second < out.delta[cd.first]) {
                out.delta[cd.first] = cd.second;
                out.source[cd.first] = tasks[i].second;
            }
    return out;
}

std::vector<CollectiveBlame> blameRows(const std::vector<Coupled> &coupled, const Blame &blame,
                                       const std::vector<int64_t> &ids, const std::vector<TimeNs> &offset)
{
    std::vector<CollectiveBlame> out;
    out.reserve(coupled.size());
    for (size_t c = 0; c < coupled.size(); ++c) {
        const Coupled &k = coupled[c];
        const Coupled::Part &p = k.parts[k.last];
        CollectiveBlame b;
        b.group = k.group;
        b.seq = k.seq;
        b.name = k.name;
        b.lastRank = ids[p.rank];
        b.lateness = k.lateness;
        b.start = p.start - offset[p.rank];
        b.end = p.end - offset[p.rank];
        if (blame.source[c]) {
            // The source without its per-call lists: every collective holding a
            // copy of them made the memory grow with the square of the steps.
            const RankSource &src = *blame.source[c];
            b.hasCause = true;
            b.cause.sync = src.sync;
            b.cause.op = src.op;
            b.cause.userFrame = src.userFrame;
            b.cause.hasOp = src.hasOp;
            b.cause.hasUserFrame = src.hasUserFrame;
            b.cause.advice = src.advice;
            b.saves = -blame.delta[c];
        }
        out.push_back(std::move(b));
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const CollectiveBlame &x, const CollectiveBlame &y) { return x.lateness > y.lateness; });
    return out;
}

std::vector<TimeNs> stepReplays(const ReplayContext &ctx, const Ranks &ranks, const std::vector<char> &critical,
                                const std::vector<char> &savesNothing)
{
    // Each step of a critical rank is a task (one tick each); those with calls
    // to remove, on a rank whose calls can save the job anything, replay. A
    // task's calls are a range of its rank's calls by end (byEnd).
    struct StepTask {
        uint32_t rank, begin, end; // begin == end: nothing to replay
    };
    const size_t n = ranks.ranks.size();
    std::vector<StepTask> tasks;                 // by rank, then step
    std::vector<std::vector<uint32_t>> byEnd(n); // per rank that can save the job anything
    size_t count = 0;
    for (size_t r = 0; r < n; ++r)
        count += critical[r] ? ranks.ranks[r]->steps.size() : 0;
    tasks.reserve(count);
    for (size_t r = 0; r < n; ++r) {
        if (!critical[r])
            continue;
        const RankInput &ri = *ranks.ranks[r];
        // The calls by end, for each step's calls.
        if (!savesNothing[r]) {
            byEnd[r].resize(ri.replay.calls.size());
            for (size_t c = 0; c < byEnd[r].size(); ++c)
                byEnd[r][c] = uint32_t(c);
            std::stable_sort(byEnd[r].begin(), byEnd[r].end(), [&](uint32_t x, uint32_t y) {
                return ri.replay.calls[x].end < ri.replay.calls[y].end;
            });
        }
        auto endsBefore = [&](uint32_t c, TimeNs t) { return ri.replay.calls[c].end < t; };
        const std::vector<uint32_t> &mine = byEnd[r]; // empty where it saves nothing
        for (const RankStepWindow &s : ri.steps) {
            const auto b = std::lower_bound(mine.begin(), mine.end(), s.start, endsBefore);
            const auto e = std::lower_bound(b, mine.end(), s.end, endsBefore);
            tasks.push_back({uint32_t(r), uint32_t(b - mine.begin()), uint32_t(e - mine.begin())});
        }
    }
    std::vector<TimeNs> saving(tasks.size(), 0);
    ctx.pool.run(
        tasks.size(),
        [&](JobReplay &rp, size_t i) {
            const StepTask &t = tasks[i];
            if (t.begin == t.end)
                return;
            std::vector<size_t> calls(byEnd[t.rank].begin() + t.begin, byEnd[t.rank].begin() + t.end);
            std::sort(calls.begin(), calls.end());
            saving[i] = jobSaving(rp.run(onlyRank(n, t.rank, std::move(calls))), ctx.offset, ctx.jobEnd);
        },
        [&] { ctx.tick("replay of each step"); });
    return saving;
}

std::vector<RankStep> rankStepRows(const Ranks &ranks, const std::vector<Coupled> &coupled, const PartsOf &parts,
                                   const std::vector<std::vector<int64_t>> &stepOfPart,
                                   const std::vector<char> &critical, const std::vector<TimeNs> &stepSaving,
                                   const std::function<std::string(size_t, size_t)> &stepName)
{
    const size_t n = ranks.ranks.size();
    std::vector<RankStep> out;
    size_t rows = 0;
    for (size_t r = 0; r < n; ++r)
        rows += ranks.ranks[r]->steps.size();
    out.reserve(rows);
    size_t task = 0;
    for (size_t r = 0; r < n; ++r) {
        const RankInput &ri = *ranks.ranks[r];
        std::vector<std::vector<std::pair<size_t, size_t>>> inStep(ri.steps.size());
        for (size_t i = 0; i < parts[r].size(); ++i)
            if (stepOfPart[r][i] >= 0)
                inStep[size_t(stepOfPart[r][i])].push_back(parts[r][i]);
        for (size_t k = 0; k < ri.steps.size(); ++k) {
            const RankStepWindow &s = ri.steps[k];
            RankStep st;
            st.rank = ranks.ids[r];
            st.start = s.start;
            st.end = s.end;
            st.dur = s.end - s.start;
            st.step = stepName(r, k);
            for (const auto &ck : inStep[k]) {
                st.wait += coupled[ck.first].parts[ck.second].wait;
                if (ck.second == coupled[ck.first].last)
                    st.lateness += coupled[ck.first].lateness;
            }
            if (critical[r])
                st.avoidable = stepSaving[task++];
            out.push_back(std::move(st));
        }
    }
    return out;
}

} // namespace syncscope::jobphases
