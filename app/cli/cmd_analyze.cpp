// `syncscope-cli analyze FILE... [--json OUT] [--top N]`: load the traces of one
// job (one per rank), find the sync gaps and what caused them.
#include "analysis/jobanalysis.h"
#include "cliutil.h"
#include "commands.h"
#include "outputs.h"
#include "trace/atomicfile.h"
#include "trace/traceloader.h"

#include <algorithm>
#include <cstdio>
#include <iostream>

namespace syncscope::cli {

namespace {

// Durations from integer ns, in ms with 3 decimals (exact to the microsecond).
std::string ms(TimeNs ns)
{
    const bool neg = ns < 0;
    const uint64_t mag = neg ? uint64_t(0) - uint64_t(ns) : uint64_t(ns);
    const uint64_t us = (mag + 500) / 1000; // to the nearest microsecond
    char buf[40];
    std::snprintf(buf, sizeof buf, "%s%llu.%03llu ms", neg ? "-" : "",
                  static_cast<unsigned long long>(us / 1000), static_cast<unsigned long long>(us % 1000));
    return buf;
}

std::string pct(TimeNs part, TimeNs whole)
{
    if (whole <= 0)
        return "0.0%";
    // Per mille, rounded half up, with integers only.
    const __int128 permille = (__int128(part) * 2000 + whole) / (2 * __int128(whole));
    char buf[32];
    std::snprintf(buf, sizeof buf, "%lld.%lld%%", static_cast<long long>(permille / 10),
                  static_cast<long long>(permille % 10));
    return buf;
}

std::string nameOf(const TraceModel &m, const EventRef &r)
{
    return r.valid() ? std::string(m.str(m.tracks()[r.track].name[r.index])) : "-";
}

std::string clip(std::string_view s, size_t n = 100)
{
    return s.size() <= n ? std::string(s) : std::string(s.substr(0, n - 3)) + "...";
}

// "cudaStreamSynchronize in aten::item at train.py(42): step"
std::string sourceText(const TraceModel &m, const SyncSource &s)
{
    std::string t = std::string(m.str(s.sync));
    if (s.op != kNoStr)
        t += " in " + clip(m.str(s.op), 60);
    if (s.userFrame != kNoStr)
        t += " at " + clip(m.str(s.userFrame), 80);
    return t;
}

void printSummary(const JobAnalysis &job, size_t top)
{
    std::cout << "syncscope analyze: " << job.files.size() << " file(s)\n";
    for (size_t f = 0; f < job.files.size(); ++f) {
        const TraceModel &m = *job.files[f];
        const TraceCounts &c = m.counts();
        std::cout << "\n[" << f << "] " << m.info().path;
        if (m.info().rank != kNoValue)
            std::cout << " (rank " << m.info().rank << ")";
        if (job.sync[f].runtime.runtime != Runtime::None)
            std::cout << ", runtime " << runtimeLabel(job.sync[f].runtime.runtime);
        std::cout << "\n    " << c.durationEvents << " events, " << c.flows << " flows, "
                  << c.instants << " instants, " << c.counters << " counters, span "
                  << ms(m.maxTime() - m.minTime()) << "\n";
        if (m.warnings().count) {
            std::cout << "    " << m.warnings().count << " warning(s), " << m.warnings().kinds.size()
                      << " kind(s):\n";
            for (const LoadWarnings::Kind &k : m.warnings().kinds)
                std::cout << "      " << k.count << " x " << clip(k.example, 200) << "\n";
        }
        const SyncAnalysis &a = job.sync[f];
        if (a.unplacedActivities)
            std::cout << "    " << a.unplacedActivities
                      << " GPU event(s) name no device (no args.device, no numeric pid, no \"GPU n\" "
                         "process name) and were left out\n";
        for (const DeviceActivity &d : a.devices) {
            std::cout << "    GPU " << d.device << (d.name.empty() ? "" : " (" + d.name + ")")
                      << ": would finish up to " << ms(d.avoidable)
                      << " earlier without host waits (" << pct(d.avoidable, d.span())
                      << " of its span; every blocking call removed)\n"
                      << "           busy " << ms(d.busy) << " of " << ms(d.span()) << " ("
                      << pct(d.busy, d.span()) << "), idle " << ms(d.idle()) << ", of which "
                      << ms(d.syncGap) << " (" << pct(d.syncGap, d.idle())
                      << ") in gaps that end in a blocking call\n";
            const SyncSource *best = nullptr;
            const size_t di = a.deviceIndex(d.device);
            for (const SyncSource &s : a.sources)
                if (!best || s.avoidableByDevice[di] > best->avoidableByDevice[di])
                    best = &s;
            if (best && best->avoidableByDevice[di] > 0)
                std::cout << "           largest single source: " << ms(best->avoidableByDevice[di])
                          << " earlier without the " << best->count << " call(s) of "
                          << sourceText(m, *best) << "\n";
        }
        if (a.devices.empty())
            std::cout << "    no GPU activity (kernels, memcpys, memsets) in this trace\n";
        size_t copies = 0;
        for (const SyncCall &s : a.syncCalls)
            copies += s.pageableCopy;
        if (a.runtime.runtime == Runtime::None)
            std::cout << "    " << runtimeUnavailableSentence(a.runtime);
        else
            std::cout << "    " << a.syncCalls.size() << " blocking call(s)";
        if (copies)
            std::cout << " (" << copies << " device-to-pageable copies)";
        std::cout << ", " << a.cudaSyncEvents.size() << " cuda_sync event(s), " << a.syncGaps.size()
                  << " sync gap(s), " << a.steps.size() << " step(s)\n";
        if (!a.sources.empty()) {
            std::cout << "    Sync sources, by what removing all their calls would save:\n";
            for (size_t i = 0; i < a.sources.size() && i < top; ++i) {
                const SyncSource &s = a.sources[i];
                std::cout << "      " << ms(s.avoidable) << " avoidable, " << ms(s.gapTime) << " in "
                          << s.gaps << " gap(s), " << s.count << " call(s): " << sourceText(m, s)
                          << "\n";
            }
        }
        std::vector<const SyncGap *> gaps;
        for (const SyncGap &g : a.syncGaps)
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
            const SyncCall &s = a.syncCalls[g.syncCall];
            std::cout << "      GPU " << g.device << " idle " << ms(g.interval.length()) << " at "
                      << ms(g.interval.start - m.minTime()) << ": avoidable " << ms(g.avoidable)
                      << ", host blocked " << ms(g.blocked) << " in " << nameOf(m, s.event) << " in "
                      << nameOf(m, s.op);
            if (s.userFrame.valid())
                std::cout << " at " << clip(nameOf(m, s.userFrame), 80);
            if (g.step >= 0)
                std::cout << " (" << m.str(a.steps[size_t(g.step)].name) << ")";
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
        std::cout << "  " << ms(o.total) << "  self " << ms(o.self) << "  x" << o.count << "  ["
                  << o.cat << "] " << clip(o.name) << "\n";
    }
}

} // namespace

void registerAnalyze(CLI::App &app, int &exitCode)
{
    auto *cmd = app.add_subcommand(
        "analyze", "Find GPU idle time caused by host-device syncs in PyTorch profiler traces.\n"
                   "Several files are the ranks of one job.\n"
                   "Example: syncscope-cli analyze rank0.json.gz rank1.json.gz --json out.json");
    struct Options {
        std::vector<std::string> files;
        std::string json;
        std::string top = "10";
        AnalysisOptions analysis;
        std::vector<std::string> cats;
    };
    auto opts = std::make_shared<Options>();
    cmd->add_option("files", opts->files, "Chrome trace files (.json or .json.gz)")->required();
    cmd->add_option("--json", opts->json, "Also write the analysis as JSON to this file ('-' for stdout)");
    cmd->add_option("--top", opts->top, "How many top ops, sync sources and sync gaps to list (default 10)");
    addAnalysisOptions(cmd, opts->analysis);
    cmd->add_option("--cat", opts->cats,
                    "Categories of the top-ops list (repeatable; default cpu_op, user_annotation, "
                    "kernel, gpu_memcpy, gpu_memset)");
    cmd->callback([&exitCode, opts] {
        guarded(exitCode, [&] {
            const int64_t top = parseCount(opts->top, "--top");
            if (top < 0)
                throw Error("--top takes a count of 0 or more (got '" + opts->top + "')");
            checkOutputs(opts->files, {{"--json", opts->json}});
            StderrProgress progress;
            ProgressFn loadProgress = [&](double f, const char *) { progress(0.8 * f, "loading"); };
            const std::string what = opts->files.size() == 1
                                         ? "'" + opts->files.front() + "'"
                                         : std::to_string(opts->files.size()) + " traces";
            Doing loading("loading " + what);
            auto files = loadTraces(opts->files, loadProgress);
            ProgressFn analyzeProgress = [&](double f, const char *) {
                progress(0.8 + 0.2 * f, "analysing");
            };
            const AnalysisOptions &options = opts->analysis;
            Doing analysing("analysing the syncs of " + what);
            JobAnalysis job = analyzeJob(std::move(files), options, analyzeProgress);
            if (!opts->cats.empty())
                job.topCategories = opts->cats;
            Doing reporting("writing the report on " + what);
            const auto json = [&] {
                return analysisToJson(job, static_cast<size_t>(top), job.topCategories);
            };
            if (opts->json == "-") {
                std::cout << json();
                return 0;
            }
            printSummary(job, static_cast<size_t>(top));
            if (!opts->json.empty())
                writeFileAtomically(opts->json, json());
            return 0;
        });
    });
}

} // namespace syncscope::cli
