#include "analysis/jobscale.h"

#include "analysis/advice.h"
#include "analysis/jobphases.h"
#include "analysis/jsonwriter.h"
#include "analysis/syncanalysis.h"

#include <functional>
#include <memory>

namespace syncscope {

RankInput makeRankInput(const TraceModel &model, const SyncAnalysis &analysis)
{
    RankInput r;
    r.rank = model.info().rank;
    r.file = model.info().path;
    r.clockShift = model.info().clockShift;
    r.origin = model.minTime();
    r.replay = analysis.replay;
    for (const SyncSource &s : analysis.sources) {
        RankSource rs;
        rs.sync = std::string(model.str(s.sync));
        rs.hasOp = s.op != kNoStr;
        if (rs.hasOp)
            rs.op = std::string(model.str(s.op));
        rs.hasUserFrame = s.userFrame != kNoStr;
        if (rs.hasUserFrame)
            rs.userFrame = std::string(model.str(s.userFrame));
        const AdviceRules &rules = builtinAdviceRules();
        for (size_t c : s.calls) {
            rs.calls.push_back(static_cast<uint32_t>(c));
            const int32_t a = analysis.syncCalls[c].advice;
            rs.callAdvice.push_back(a >= 0 ? rules.rules[size_t(a)].id : std::string());
        }
        if (s.advice >= 0)
            rs.advice = builtinAdviceRules().rules[size_t(s.advice)].id;
        r.sources.push_back(std::move(rs));
    }
    for (const Step &s : analysis.steps)
        r.steps.push_back({std::string(model.str(s.name)), s.start, s.end});
    for (const DeviceActivity &d : analysis.devices)
        r.localAvoidable.push_back(d.avoidable);
    return r;
}

std::vector<ClockOffset> clockOffsets(const std::vector<int64_t> &rank, const std::vector<std::string> &file,
                                      const std::vector<const ReplayInput *> &replays)
{
    const std::vector<size_t> order = jobphases::rankOrder(rank, file);
    std::vector<const ReplayInput *> sorted;
    for (size_t i : order)
        sorted.push_back(replays[i]);
    const std::vector<ClockOffset> byRank = jobphases::offsetsFrom(jobphases::coupleCollectives(sorted).coupled,
                                                                   sorted.size());
    std::vector<ClockOffset> out(replays.size());
    for (size_t r = 0; r < order.size(); ++r)
        out[order[r]] = byRank[r];
    return out;
}

namespace {

// Where a caller that gave its inputs up lets go of what the analysis no
// longer reads, per file; each empty where the inputs are kept.
struct LetGo {
    std::function<void(size_t file)> collectives;                  // coupled and described: no longer read
    std::function<void(size_t file)> launches;                     // the replay index holds what it needs of them
    std::function<std::string(size_t file, size_t step)> stepName; // its last use
};

// The job analysis: the phases of jobphases.h in order.
JobScale runJobScale(const std::vector<RankInput> &input, const ProgressFn &progress, const CancelToken *cancel,
                     size_t threads, const LetGo &letGo)
{
    using namespace jobphases;
    JobScale job;
    const Ranks ranks = orderRanks(input);
    const size_t n = ranks.ranks.size();
    job.ranks = n;
    Collectives collectives = coupleCollectives(ranks.replays);
    const std::vector<Coupled> &coupled = collectives.coupled;
    job.unmatched = collectives.unmatched;
    job.collectives = coupled.size();

    Clocks clocks = rankClocks(ranks, coupled);
    const std::vector<TimeNs> &offset = clocks.offset;
    job.rankRows = std::move(clocks.rows);
    if (clocks.missing)
        job.warnings.push_back(std::to_string(clocks.missing) +
                               " rank(s) share no collective with the first rank: their clocks "
                               "are taken as aligned with it");
    describeRanks(ranks, job.rankRows);
    if (letGo.collectives)
        for (size_t r = 0; r < n; ++r)
            letGo.collectives(ranks.order[r]);

    const Measured measured = measureJob(ranks, offset);
    if (measured.end == kNoEnd) {
        job.warnings.push_back("no rank has GPU activity: nothing to replay");
        return job;
    }
    job.span = measured.span();

    const PartsOf parts = partsOfRanks(coupled, n);
    // Each collective's step is the last use of the launch calls, which the
    // replay index holds what it needs of: worked out for each rank as soon as
    // its index is built.
    std::vector<std::vector<int64_t>> stepOfPart(n);
    auto replay = std::make_unique<JobReplay>(ranks.ranks, coupled, measured.last, cancel, [&](size_t r) {
        stepOfPart[r] = stepsOfParts(*ranks.ranks[r], parts[r], coupled);
        if (letGo.launches)
            letGo.launches(ranks.order[r]);
    });

    const std::vector<char> critical = criticalRanks(coupled, measured, offset);
    size_t work = 1, doneWork = 0;
    for (size_t r = 0; r < n; ++r)
        if (critical[r])
            work += 1 + ranks.ranks[r]->steps.size() + ranks.ranks[r]->sources.size();
    auto tick = [&](const char *what) {
        checkCancel(cancel);
        if (progress)
            progress(double(++doneWork) / double(work), what);
    };

    {
        std::vector<std::vector<size_t>> removed(n);
        for (size_t r = 0; r < n; ++r)
            removed[r] = allCalls(*ranks.ranks[r]);
        const Walk w = replay->run(removed);
        job.avoidable = jobSaving(w, offset, measured.end);
        if (w.forced)
            job.warnings.push_back(std::to_string(w.forced) +
                                   " collective(s) were met in a different order on different ranks; "
                                   "the replay counted the ranks not yet there as not moved");
        tick("job replay");
    }

    // The replays below are independent of each other: they run on a pool of
    // threads, each task writing its own slot.
    std::vector<std::unique_ptr<JobReplay>> twins;
    std::vector<JobReplay *> workers{replay.get()};
    for (size_t t = 1, count = replayThreads(threads, ranks.ranks, coupled); t < count; ++t) {
        twins.push_back(replay->twin());
        workers.push_back(twins.back().get());
    }
    ThreadsPerRun<JobReplay> pool(workers);
    const ReplayContext ctx{pool, offset, measured.end, tick};

    waitFigures(coupled, parts, job.rankRows);
    std::vector<size_t> criticalList;
    for (size_t r = 0; r < n; ++r)
        if (critical[r])
            criticalList.push_back(r);
    const RankSavings savings = rankReplays(ctx, ranks, criticalList);
    for (size_t r : criticalList)
        job.rankRows[r].jobAvoidable = savings.jobAvoidable[r];

    job.blame = blameRows(coupled, blameSources(ctx, ranks, criticalList, coupled), ranks.ids, offset);

    const std::vector<TimeNs> stepSaving = stepReplays(ctx, ranks, critical, savings.savesNothing);
    // The replays are done: their indexes and walk state go before the rows come.
    twins.clear();
    replay.reset();

    job.rankSteps = rankStepRows(ranks, coupled, parts, stepOfPart, critical, stepSaving, [&](size_t r, size_t k) {
        return letGo.stepName ? letGo.stepName(ranks.order[r], k) : ranks.ranks[r]->steps[k].name;
    });
    if (job.unmatched)
        job.warnings.push_back(std::to_string(job.unmatched) +
                               " collective(s) are missing on some ranks of their group or differ in "
                               "kernel name: they were not coupled");
    if (progress)
        progress(1.0, "done");
    return job;
}

} // namespace

JobScale analyzeJobScale(const std::vector<RankInput> &input, const ProgressFn &progress,
                         const CancelToken *cancel, size_t threads)
{
    return runJobScale(input, progress, cancel, threads, {});
}

JobScale analyzeJobScale(std::vector<RankInput> &&input, const ProgressFn &progress, const CancelToken *cancel,
                         size_t threads)
{
    std::vector<RankInput> owned = std::move(input);
    LetGo letGo;
    letGo.collectives = [&](size_t f) { std::vector<CollectiveKernel>().swap(owned[f].replay.collectives); };
    letGo.launches = [&](size_t f) { std::vector<ReplayLaunch>().swap(owned[f].replay.launches); };
    letGo.stepName = [&](size_t f, size_t k) { return std::move(owned[f].steps[k].name); };
    return runJobScale(owned, progress, cancel, threads, letGo);
}

TimeNs jobWhatIfSaving(const std::vector<RankInput> &input, const std::vector<std::vector<size_t>> &removed,
                       const CancelToken *cancel)
{
    using namespace jobphases;
    const Ranks ranks = orderRanks(input);
    const Collectives collectives = coupleCollectives(ranks.replays);
    const std::vector<TimeNs> offset = rankClocks(ranks, collectives.coupled).offset;
    const Measured measured = measureJob(ranks, offset);
    if (measured.end == kNoEnd)
        return 0;
    JobReplay replay(ranks.ranks, collectives.coupled, measured.last, cancel);
    return jobSaving(replay.run(removedByRank(ranks, removed)), offset, measured.end);
}


void writeJobScaleJson(JsonWriter &w, const JobScale &job)
{
    w.key("job").beginObject();
    w.key("ranks").value(uint64_t(job.ranks));
    w.key("collectives").value(uint64_t(job.collectives));
    w.key("unmatched_collectives").value(uint64_t(job.unmatched));
    w.key("span_us").micros(job.span);
    w.key("avoidable_us").micros(job.avoidable);
    w.key("warnings").beginArray();
    for (const std::string &s : job.warnings)
        w.value(s);
    w.endArray();
    w.endObject();
    w.key("ranks").beginArray();
    for (size_t i = 0; i < job.rankRows.size(); ++i) {
        const JobRank &r = job.rankRows[i];
        w.beginObject();
        w.key("rank").value(r.rank);
        w.key("file").value(uint64_t(r.fileIndex));
        w.key("device").optional(r.device);
        auto optMicros = [&](TimeNs v) {
            if (r.hasClockOffset)
                w.micros(v);
            else
                w.null();
        };
        w.key("clock_offset_us");
        optMicros(r.clockOffset);
        w.key("clock_offset_p5_us");
        optMicros(r.clockOffsetP5);
        w.key("clock_offset_p95_us");
        optMicros(r.clockOffsetP95);
        w.key("local_avoidable_us").micros(r.localAvoidable);
        w.key("job_avoidable_us").micros(r.jobAvoidable);
        w.key("last_arrivals").value(r.lastArrivals);
        w.key("wait_us").micros(r.wait);
        w.key("wait_mode").value(r.waitMode == WaitMode::Exact ? "exact" : "inferred");
        w.key("stream_dependencies").value(r.streamWaits);
        w.endObject();
    }
    w.endArray();
    w.key("collective_blame").beginArray();
    for (const CollectiveBlame &b : job.blame) {
        w.beginObject();
        w.key("group").value(b.group);
        w.key("seq").value(uint64_t(b.seq));
        w.key("name").value(b.name);
        w.key("last_rank").value(b.lastRank);
        w.key("lateness_us").micros(b.lateness);
        w.key("cause");
        if (!b.hasCause) {
            w.null();
        } else {
            w.beginObject();
            w.key("sync").value(b.cause.sync);
            w.key("op");
            if (b.cause.hasOp)
                w.value(b.cause.op);
            else
                w.null();
            w.key("user_frame");
            if (b.cause.hasUserFrame)
                w.value(b.cause.userFrame);
            else
                w.null();
            w.key("saves_us").micros(b.saves);
            w.endObject();
        }
        w.endObject();
    }
    w.endArray();
    w.key("rank_steps").beginArray();
    for (const RankStep &s : job.rankSteps) {
        w.beginObject();
        w.key("rank").value(s.rank);
        w.key("step").value(s.step);
        w.key("dur_us").micros(s.dur);
        w.key("avoidable_us").micros(s.avoidable);
        w.key("lateness_us").micros(s.lateness);
        w.key("wait_us").micros(s.wait);
        w.endObject();
    }
    w.endArray();
}

} // namespace syncscope
