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

std::string ms(TimeNs ns)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f ms", double(ns) / 1e6);
    return buf;
}

std::string pct(TimeNs part, TimeNs whole)
{
    char buf[16];
    std::snprintf(buf, sizeof buf, "%.1f%%", whole > 0 ? 100.0 * double(part) / double(whole) : 0.0);
    return buf;
}

std::string nameOf(const TraceModel &m, const EventRef &r)
{
    return r.valid() ? std::string(m.str(m.tracks()[r.track].name[r.index])) : "-";
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
        std::cout << "\n    " << c.durationEvents << " events, " << c.flows << " flows, "
                  << c.instants << " instants, " << c.counters << " counters, span "
                  << ms(m.maxTime() - m.minTime()) << "\n";
        if (m.warnings().count) {
            std::cout << "    " << m.warnings().count << " warning(s)";
            for (size_t i = 0; i < m.warnings().first.size() && i < 3; ++i)
                std::cout << (i ? "; " : ": ") << m.warnings().first[i];
            std::cout << "\n";
        }
        const SyncAnalysis &a = job.sync[f];
        for (const DeviceActivity &d : a.devices)
            std::cout << "    GPU " << d.device << ": busy " << ms(d.busy) << " of "
                      << ms(d.span()) << " (" << pct(d.busy, d.span()) << "), idle "
                      << ms(d.idle()) << ", of which sync gaps " << ms(d.syncGap) << " ("
                      << pct(d.syncGap, d.idle()) << ")\n";
        if (a.devices.empty())
            std::cout << "    no GPU activity (kernels, memcpys, memsets) in this trace\n";
        std::cout << "    " << a.syncCalls.size() << " blocking sync call(s), "
                  << a.cudaSyncEvents.size() << " cuda_sync event(s), " << a.syncGaps.size()
                  << " sync gap(s)\n";
        std::vector<const SyncGap *> gaps;
        for (const SyncGap &g : a.syncGaps)
            gaps.push_back(&g);
        std::stable_sort(gaps.begin(), gaps.end(), [](const SyncGap *x, const SyncGap *y) {
            return x->interval.length() > y->interval.length();
        });
        for (size_t i = 0; i < gaps.size() && i < top; ++i) {
            const SyncGap &g = *gaps[i];
            const SyncCall &s = a.syncCalls[g.syncCall];
            std::cout << "      GPU " << g.device << " idle " << ms(g.interval.length())
                      << " at " << ms(g.interval.start - m.minTime()) << ": "
                      << nameOf(m, s.event) << " in " << nameOf(m, s.op) << " (root "
                      << nameOf(m, s.rootOp) << ")\n";
        }
    }
    std::cout << "\nTop ops by total time:\n";
    for (size_t i = 0; i < job.ops.size() && i < top; ++i) {
        const NamedOpStat &o = job.ops[i];
        std::cout << "  " << ms(o.total) << "  self " << ms(o.self) << "  x" << o.count << "  ["
                  << o.cat << "] " << o.name.substr(0, 100) << "\n";
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
    };
    auto opts = std::make_shared<Options>();
    cmd->add_option("files", opts->files, "Chrome trace files (.json or .json.gz)")->required();
    cmd->add_option("--json", opts->json, "Also write the analysis as JSON to this file ('-' for stdout)");
    cmd->add_option("--top", opts->top, "How many top ops and sync gaps to list (default 10)");
    cmd->callback([&exitCode, opts] {
        guarded(exitCode, [&] {
            const int64_t top = parseCount(opts->top, "--top");
            if (top < 0)
                throw Error("--top takes a count of 0 or more (got '" + opts->top + "')");
            checkOutputs(opts->files, {{"--json", opts->json}});
            StderrProgress progress;
            ProgressFn loadProgress = [&](double f, const char *) { progress(0.8 * f, "loading"); };
            auto files = loadTraces(opts->files, loadProgress);
            ProgressFn analyzeProgress = [&](double f, const char *) {
                progress(0.8 + 0.2 * f, "analysing");
            };
            const JobAnalysis job = analyzeJob(std::move(files), {}, analyzeProgress);
            if (opts->json == "-") {
                std::cout << analysisToJson(job, static_cast<size_t>(top));
                return 0;
            }
            printSummary(job, static_cast<size_t>(top));
            if (!opts->json.empty())
                writeFileAtomically(opts->json, analysisToJson(job, static_cast<size_t>(top)));
            return 0;
        });
    });
}

} // namespace syncscope::cli
