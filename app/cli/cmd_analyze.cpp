// `syncscope-cli analyze FILE... [--json OUT] [--top N]`: the traces (or rank
// summaries) of one job, one per rank: the sync gaps, what caused them, and
// with two or more ranks what the syncs cost the whole job.
#include "analysis/advice.h"
#include "analysis/jobanalysis.h"
#include "analysis/ranksummary.h"
#include "analysis/timetext.h"
#include "cliutil.h"
#include "commands.h"
#include "jobranks.h"
#include "outputs.h"
#include "trace/atomicfile.h"
#include "trace/nsysloader.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <optional>

namespace syncscope::cli {

namespace {

std::string ms(TimeNs ns) { return formatMillis(ns); }

std::string pct(TimeNs part, TimeNs whole) { return formatPercent(part, whole); }

std::string clip(std::string_view s, size_t n = 100)
{
    return s.size() <= n ? std::string(s) : std::string(s.substr(0, n - 3)) + "...";
}

std::string nameOf(const std::optional<std::string> &s) { return s ? *s : "-"; }

// "cudaStreamSynchronize in aten::item at train.py(42): step"
template <typename Source> std::string sourceText(const Source &s)
{
    std::string t = s.sync;
    if (s.op)
        t += " in " + clip(*s.op, 60);
    if (s.userFrame)
        t += " at " + clip(*s.userFrame, 80);
    return t;
}

// The advice under a source: its title and id, or that no rule knows it.
std::string adviceLine(const std::string &id, const std::string &torchVersion)
{
    const AdviceRules &rules = builtinAdviceRules();
    const int at = id.empty() ? -1 : rules.find(id);
    if (at < 0)
        return "what to change: no known rewrite";
    const AdviceRule &rule = rules.rules[size_t(at)];
    std::string line = "what to change: " + rule.title + " [" + rule.id + "]";
    if (torchOlderThan(torchVersion, rule.minTorch)) {
        std::string need = torchNeedSentence(rule, torchVersion);
        need[0] = 'n';
        line += " (the rewrite " + need + ")";
    }
    return line;
}

std::string causeText(const RankSource &s)
{
    std::string t = s.sync;
    if (s.hasOp)
        t += " in " + clip(s.op, 60);
    if (s.hasUserFrame)
        t += " at " + clip(s.userFrame, 80);
    return t;
}

// The job first: what removing every host wait would save it, the ranks by
// what removing theirs alone would, and the collectives that waited longest.
void printJob(const JobScale &job, size_t top)
{
    std::cout << "\nJob of " << job.ranks << " ranks: the job would finish up to " << ms(job.avoidable)
              << " earlier without host waits (" << pct(job.avoidable, job.span) << " of its span " << ms(job.span)
              << "; every blocking call of every rank removed)\n"
              << "    " << job.collectives << " collective(s) matched across the ranks, " << job.unmatched
              << " not coupled\n";
    for (const std::string &w : job.warnings)
        std::cout << "    warning: " << w << "\n";
    std::vector<const JobRank *> ranks;
    for (const JobRank &r : job.rankRows)
        ranks.push_back(&r);
    std::stable_sort(ranks.begin(), ranks.end(),
                     [](const JobRank *a, const JobRank *b) { return a->jobAvoidable > b->jobAvoidable; });
    std::cout << "    Ranks, by how much earlier the job would end without their blocking calls alone:\n";
    for (const JobRank *r : ranks) {
        std::cout << "      rank " << r->rank << ": job " << ms(r->jobAvoidable) << ", local "
                  << ms(r->localAvoidable) << ", last at " << r->lastArrivals << " collective(s), waited "
                  << ms(r->wait) << ", clock offset ";
        if (r->hasClockOffset)
            std::cout << ms(r->clockOffset) << " (p5 " << ms(r->clockOffsetP5) << ", p95 " << ms(r->clockOffsetP95)
                      << ")";
        else
            std::cout << "unknown";
        std::cout << "  " << r->file << "\n";
    }
    if (!job.blame.empty())
        std::cout << "    Collectives, by how late their last rank arrived:\n";
    for (size_t i = 0; i < job.blame.size() && i < top; ++i) {
        const CollectiveBlame &b = job.blame[i];
        std::cout << "      " << clip(b.name, 60) << " (" << b.group << " #" << b.seq << "): rank " << b.lastRank
                  << " arrived " << ms(b.lateness) << " late";
        if (b.hasCause)
            std::cout << "; without " << causeText(b.cause) << " it would end " << ms(b.saves) << " earlier";
        else
            std::cout << "; no sync of that rank moves it";
        std::cout << "\n";
    }
}

void printSummary(const JobAnalysis &job, size_t top)
{
    std::cout << "syncscope analyze: " << job.files.size() << " file(s)\n";
    if (job.hasJobScale)
        printJob(job.jobScale, top);
    if (job.hasWhatIf) {
        const WhatIf &w = job.whatIf;
        std::string specs;
        for (const std::string &s : w.specs)
            specs += (specs.empty() ? "" : " or ") + s;
        std::cout << "\nWhat-if (" << specs << "): " << w.selectedSources << " sync source(s), " << w.selectedCalls
                  << " blocking call(s) removed together\n";
        if (w.hasJob)
            std::cout << "    the job would finish " << ms(w.jobAvoidable)
                      << " earlier (every rank's selected calls removed together, through the collectives)\n";
        for (const WhatIfDevice &d : w.devices) {
            std::cout << "    GPU " << d.device << " would finish " << ms(d.avoidable) << " earlier  "
                      << job.files[d.file].path << "\n";
            if (d.limitKind != "none")
                std::cout << "        limited by: " << d.limitText << "\n";
        }
    }
    for (size_t f = 0; f < job.files.size(); ++f) {
        const FileReport &r = job.files[f];
        std::cout << "\n[" << f << "] " << r.path;
        if (r.rank != kNoValue)
            std::cout << " (rank " << r.rank << ")";
        if (r.runtime.runtime != Runtime::None)
            std::cout << ", runtime " << runtimeLabel(r.runtime.runtime);
        std::cout << "\n    " << r.durationEvents << " events, " << r.flows << " flows, " << r.instants
                  << " instants, " << r.counters << " counters, span " << ms(r.maxTime - r.minTime) << "\n";
        if (r.truncated)
            std::cout << "    " << truncationSentence(r) << "\n";
        // Cut inside its kinds of events: counts of what was read, no finding.
        const bool incomplete = !r.unevenCut.empty();
        if (incomplete)
            std::cout << "    INCOMPLETE: " << r.unevenCut << "\n";
        if (r.warnings) {
            std::cout << "    " << r.warnings << " warning(s), " << r.warningKinds.size() << " kind(s):\n";
            for (const ReportWarningKind &k : r.warningKinds)
                std::cout << "      " << k.count << " x " << clip(k.example, 200) << "\n";
        }
        if (r.unplacedActivities)
            std::cout << "    " << r.unplacedActivities
                      << " GPU event(s) name no device (no args.device, no numeric pid, no \"GPU n\" "
                         "process name) and were left out\n";
        for (size_t di = 0; di < r.devices.size(); ++di) {
            const ReportDevice &d = r.devices[di];
            if (incomplete) {
                std::cout << "    GPU " << d.device << (d.name.empty() ? "" : " (" + d.name + ")") << ": "
                          << d.kernels << " kernel(s), " << d.memcpys << " copies and " << d.memsets
                          << " set(s) read, up to " << ms(d.last - r.minTime)
                          << "; no busy or avoidable figure: the file was cut inside its events\n";
                continue;
            }
            std::cout << "    GPU " << d.device << (d.name.empty() ? "" : " (" + d.name + ")")
                      << ": would finish up to " << ms(d.avoidable) << " earlier without host waits ("
                      << pct(d.avoidable, d.span()) << " of its span; every blocking call removed)\n"
                      << "           busy " << ms(d.busy) << " of " << ms(d.span()) << " ("
                      << pct(d.busy, d.span()) << "), idle " << ms(d.idle()) << ", of which " << ms(d.syncGap)
                      << " (" << pct(d.syncGap, d.idle()) << ") in gaps that end in a blocking call\n";
            if (!r.syncCalls.empty())
                std::cout << "           limited by: " << d.limitedBy.text << "\n";
            const ReportSource *best = nullptr;
            for (const ReportSource &s : r.sources)
                if (!best || s.avoidableByDevice[di] > best->avoidableByDevice[di])
                    best = &s;
            if (best && best->avoidableByDevice[di] > 0)
                std::cout << "           largest single source: " << ms(best->avoidableByDevice[di])
                          << " earlier without the " << best->count << " call(s) of " << sourceText(*best) << "\n";
            const TimeNs largest = best ? best->avoidableByDevice[di] : 0;
            if (noSingleSourceExplains(largest, d.avoidable))
                std::cout << "           no single source saves much: the syncs re-synchronize each other; "
                             "removing all "
                          << r.syncCalls.size() << " blocking call(s) together saves " << ms(d.avoidable)
                          << " (pick a set with --what-if)\n";
        }
        if (r.devices.empty())
            std::cout << (r.truncated ? "    no GPU activity (kernels, memcpys, memsets) in the part read\n"
                                      : "    no GPU activity (kernels, memcpys, memsets) in this trace\n");
        size_t copies = 0;
        for (const ReportSyncCall &s : r.syncCalls)
            copies += s.pageableCopy;
        if (r.runtime.runtime == Runtime::None)
            std::cout << "    " << runtimeUnavailableSentence(r.runtime);
        else if (incomplete)
            std::cout << "    " << r.syncCalls.size() << " blocking call(s) in the part read (incomplete)";
        else
            std::cout << "    " << r.syncCalls.size() << " blocking call(s)";
        if (copies)
            std::cout << " (" << copies << " pageable copies)";
        std::cout << ", " << r.cudaSyncEvents.size() << " cuda_sync event(s), " << r.syncGaps.size()
                  << " sync gap(s), " << r.steps.size() << " step(s)\n";
        if (!r.longCalls.empty()) {
            // The host waited inside calls that are not syncs: shown, not replayed.
            const ReportSyncCall *longest = &r.longCalls.front();
            TimeNs total = 0;
            for (const ReportSyncCall &c : r.longCalls) {
                total += c.dur;
                if (c.dur > longest->dur)
                    longest = &c;
            }
            std::cout << "    " << r.longCalls.size() << " long host call(s) that are not syncs, " << ms(total)
                      << " in all (the host waited inside them, e.g. a full launch queue or a module load; "
                         "not counted in the replay): the longest "
                      << longest->name << (longest->op ? " in " + *longest->op : std::string()) << ", "
                      << ms(longest->dur) << " at " << ms(longest->start - r.minTime) << "\n";
        }
        if (!r.devices.empty())
            std::cout << "    " << r.streamDependencies << " stream wait(s) kept by the replay, "
                      << (r.waitMode == WaitMode::Exact ? "exact (from the profiler's Stream Wait Event records)"
                          : r.format == "sqlite"
                              ? "inferred from the measured schedule (the export has no CUDA event records, "
                                "so its stream waits cannot say what they wait for)"
                              : "inferred from the measured schedule (no Stream Wait Event records; "
                                "record with enable_cuda_sync_events=True for exact ones)")
                      << "\n";
        if (!r.devices.empty()) {
            if (r.handoffs.empty())
                std::cout << "    no handoffs between host threads: each thread keeps its own head start\n";
            else
                std::cout << "    " << r.handoffs.size()
                          << " handoff(s) between host threads carry the head start (backward on the autograd "
                             "engine's thread), found "
                          << (r.threadMode == ThreadMode::Flows
                                  ? "from the profiler's fwdbwd flows and sequence numbers"
                              : r.threadMode == ThreadMode::Frames
                                  ? "from python backward frames"
                                  : "from timing alone (no flows, no python frames)")
                          << "\n";
        }
        if (!r.sources.empty()) {
            std::cout << "    Sync sources, by what removing all their calls would save:\n";
            for (size_t i = 0; i < r.sources.size() && i < top; ++i) {
                const ReportSource &s = r.sources[i];
                std::cout << "      " << ms(s.avoidable) << " avoidable, " << ms(s.gapTime) << " in " << s.gaps
                          << " gap(s), " << s.count << " call(s): " << sourceText(s) << "\n";
                if (s.limitedBy.kind != "none")
                    std::cout << "        limited by: " << s.limitedBy.text << "\n";
                std::cout << "        " << adviceLine(s.advice, r.torchVersion);
                if (s.adviceCalls < s.count)
                    std::cout << " (for " << s.adviceCalls << " of its " << s.count
                              << " calls; the others match other rules" << (s.advice.empty() ? ")" : " or none)");
                std::cout << "\n";
            }
        }
        std::vector<const SyncGap *> gaps;
        for (const SyncGap &g : r.syncGaps)
            gaps.push_back(&g);
        std::stable_sort(gaps.begin(), gaps.end(), [](const SyncGap *x, const SyncGap *y) {
            if (x->avoidable != y->avoidable)
                return x->avoidable > y->avoidable;
            return x->interval.length() > y->interval.length();
        });
        if (!gaps.empty())
            std::cout << "    Sync gaps, by what removing their cause alone would save:\n";
        for (size_t i = 0; i < gaps.size() && i < top; ++i) {
            const SyncGap &g = *gaps[i];
            const ReportSyncCall &s = r.syncCalls[g.syncCall];
            std::cout << "      GPU " << g.device << " idle " << ms(g.interval.length()) << " at "
                      << ms(g.interval.start - r.minTime) << ": avoidable " << ms(g.avoidable) << ", host blocked "
                      << ms(g.blocked) << " in " << s.name << " in " << nameOf(s.op);
            if (s.userFrame)
                std::cout << " at " << clip(*s.userFrame, 80);
            if (g.step >= 0)
                std::cout << " (" << r.steps[size_t(g.step)].name << ")";
            std::cout << "\n";
        }
    }
    std::cout << "\nTop ops by total time (outermost instances; nested same-name calls counted once):\n";
    for (size_t i = 0, listed = 0; i < job.ops.size() && listed < top; ++i) {
        const NamedOpStat &o = job.ops[i];
        if (!job.topCategories.empty() &&
            std::find(job.topCategories.begin(), job.topCategories.end(), o.cat) == job.topCategories.end())
            continue;
        ++listed;
        std::cout << "  " << ms(o.total) << "  self " << ms(o.self) << "  x" << o.count << "  [" << o.cat << "] "
                  << clip(o.name) << "\n";
    }
}

} // namespace

void registerAnalyze(CLI::App &app, int &exitCode)
{
    auto *cmd = app.add_subcommand(
        "analyze", "Find GPU idle time caused by host-device syncs in PyTorch profiler traces.\n"
                   "Several files are the ranks of one job; a rank summary (summarize) stands for its trace.\n"
                   "Example: syncscope-cli analyze rank0.json.gz rank1.json.gz --json out.json");
    struct Options {
        std::vector<std::string> files;
        std::string json;
        std::string top = "10";
        AnalysisOptions analysis;
        std::vector<std::string> cats;
        std::vector<std::string> whatIf;
        int threads = 0;
    };
    auto opts = std::make_shared<Options>();
    cmd->add_option("files", opts->files,
                    "Chrome trace files (.json or .json.gz), Nsight Systems exports (.sqlite, or .nsys-rep "
                    "with nsys on PATH; one rank per GPU process) or rank summaries (summarize), in any mix")
        ->required();
    cmd->add_option("--json", opts->json, "Also write the analysis as JSON to this file ('-' for stdout)");
    cmd->add_option("--top", opts->top, "How many top ops, sync sources and sync gaps to list (default 10)");
    addAnalysisOptions(cmd, opts->analysis);
    cmd->add_option("--what-if", opts->whatIf,
                    "Also replay without every sync source this selects, together: sync=, op=, frame= "
                    "substrings or advice= a rule id, comma-joined (repeatable: the union), "
                    "e.g. --what-if op=aten::item --what-if advice=cpu-index");
    cmd->add_option("--threads", opts->threads,
                    "CPU threads for the replays (a file's, one per blocking call, source or step; the job's), 0 "
                    "= every core "
                    "this process may run on (default 0, at most " +
                        std::to_string(kMaxThreads) +
                        "; fewer where their state would pass 1 GiB); the figures do not depend on it")
        ->check(threadsValidator());
    cmd->add_option("--cat", opts->cats,
                    "Categories of the top-ops list (repeatable; default cpu_op, user_annotation, "
                    "kernel, gpu_memcpy, gpu_memset)");
    cmd->callback([&exitCode, opts] {
        guarded(exitCode, [&] {
            const int64_t top = parseCount(opts->top, "--top");
            if (top < 0)
                throw Error("--top takes a count of 0 or more (got '" + opts->top + "')");
            checkOutputs(opts->files, {{"--json", opts->json}});
            std::vector<WhatIfSpec> whatIf;
            for (const std::string &s : opts->whatIf)
                whatIf.push_back(parseWhatIfSpec(s));
            opts->analysis.replayThreads = size_t(opts->threads);
            const AnalysisOptions &options = opts->analysis;
            StderrProgress progress;
            // One rank at a time: only one trace model is alive at once, and
            // what stays of each rank is its summary.
            // An Nsight Systems export of several GPU processes: one rank each.
            const TraceInputs inputs = expandTraceInputs(opts->files);
            const std::vector<std::string> &files = inputs.paths;
            const size_t n = files.size();
            JobRanks ranks = loadJobRanks(files, options, n >= 2 || !whatIf.empty(),
                                          [&](size_t i, double f, const char *msg) {
                                              progress(0.95 * (double(i) + f) / double(n), msg);
                                          });
            const std::string what = n == 1 ? "'" + files.front() + "'" : std::to_string(n) + " ranks";
            Doing analysing("analysing the job of " + what);
            WhatIf chosen;
            if (!whatIf.empty())
                chosen = analyzeWhatIf(ranks.inputs, whatIf);
            ProgressFn jobProgress = [&](double f, const char *) {
                progress(0.95 + 0.05 * f, "analysing the job");
            };
            JobAnalysis job = ranks.assemble(jobProgress, size_t(opts->threads));
            job.hasWhatIf = !whatIf.empty();
            job.whatIf = std::move(chosen);
            if (!opts->cats.empty())
                job.topCategories = opts->cats;
            Doing reporting("writing the report on " + what);
            // Streamed: a large job's document is never whole in memory.
            const auto json = [&] {
                OutputFile out(opts->json);
                writeAnalysisJson(job, static_cast<size_t>(top), job.topCategories,
                                  [&out](std::string_view piece) { out.write(piece); });
                out.commit();
            };
            if (opts->json == "-") {
                json();
                return 0;
            }
            printSummary(job, static_cast<size_t>(top));
            if (!opts->json.empty())
                json();
            return 0;
        });
    });
}

} // namespace syncscope::cli
