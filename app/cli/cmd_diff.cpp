// `syncscope-cli diff BEFORE AFTER [--json F] [--csv F] [--top N]`: what a change
// did to step time, GPU busy time and the sync gaps, and which sources of syncs
// went away or appeared.
#include "analysis/jsonwriter.h"
#include "analysis/timetext.h"
#include "analysis/tracediff.h"
#include "cliutil.h"
#include "commands.h"
#include "trace/atomicfile.h"
#include "trace/traceloader.h"

#include <algorithm>
#include <cstdio>
#include <iostream>

namespace syncscope::cli {

namespace {

std::string ms(TimeNs ns, bool sign = false) { return formatMillis(ns, sign); }

std::string pct(TimeNs part, TimeNs whole) { return formatPercent(part, whole); }

std::string clip(const std::string &s, size_t n = 90) { return s.size() <= n ? s : s.substr(0, n - 3) + "..."; }

// "12.000 ms -> 8.000 ms (-4.000 ms, -33.3%)"
std::string change(TimeNs b, TimeNs a)
{
    std::string t = ms(b) + " -> " + ms(a) + " (" + ms(a - b, true);
    if (b > 0)
        t += ", " + std::string(a >= b ? "+" : "") + pct(a - b, b);
    return t + ")";
}

void printText(const TraceDiff &d, size_t top)
{
    std::cout << "syncscope diff\n  before: " << d.before.path << " (" << d.before.events << " events, span "
              << ms(d.before.span) << ")\n  after:  " << d.after.path << " (" << d.after.events << " events, span "
              << ms(d.after.span) << ")\n\n";
    const StepTime &sb = d.stepTimeBefore, &sa = d.stepTimeAfter;
    if (fewSteps(sb, sa)) {
        // A median of a few steps hides a change in one of them: every step.
        std::cout << "  step time (each step, " << sb.count << " -> " << sa.count << " steps):\n";
        for (const StepDiff &s : d.steps) {
            std::cout << "    #" << s.index << ": ";
            if (s.before && s.after)
                std::cout << change(s.before->dur, s.after->dur) << "\n";
            else
                std::cout << (s.before ? ms(s.before->dur) : std::string("-")) << " -> "
                          << (s.after ? ms(s.after->dur) : std::string("-")) << " (in one trace only)\n";
        }
    } else if (sb.count && sa.count)
        std::cout << "  step time (median):  " << change(sb.median, sa.median) << "; p5 " << ms(sb.p5) << " -> "
                  << ms(sa.p5) << ", p95 " << ms(sb.p95) << " -> " << ms(sa.p95) << "; " << sb.count << " -> "
                  << sa.count << " steps\n";
    else
        std::cout << "  step time:           no steps in "
                  << (sb.count   ? "after"
                      : sa.count ? "before"
                                 : "either")
                  << " (ProfilerStep#N annotations mark them)\n";
    const DiffTotals &tb = d.totalsBefore, &ta = d.totalsAfter;
    if (tb.devices || ta.devices) {
        std::cout << "  GPU busy:            " << pct(tb.busy, tb.span) << " -> " << pct(ta.busy, ta.span)
                  << " of the GPU span (" << ms(tb.busy) << " of " << ms(tb.span) << " -> " << ms(ta.busy)
                  << " of " << ms(ta.span) << ")\n";
        std::cout << "  sync-gap time:       " << change(tb.syncGap, ta.syncGap) << " in " << tb.syncGaps << " -> "
                  << ta.syncGaps << " gaps\n";
        std::cout << "  avoidable time:      " << change(tb.avoidable, ta.avoidable)
                  << " (how much earlier the GPUs would finish without any blocking call)\n";
    } else {
        std::cout << "  GPU:                 no GPU activity in either trace\n";
    }
    std::cout << "  sync calls:          " << tb.syncCalls << " -> " << ta.syncCalls << "\n";
    for (const SyncCallDiff &c : d.syncCalls)
        std::cout << "    " << c.name << ": " << c.before.value_or(0) << " -> " << c.after.value_or(0) << "\n";

    std::vector<const SourceDiff *> gone, added, changed;
    for (const SourceDiff &s : d.sources)
        (!s.after ? gone : !s.before ? added : changed).push_back(&s);
    auto list = [&](const char *title, const std::vector<const SourceDiff *> &v) {
        if (v.empty())
            return;
        std::cout << "\n" << title << "\n";
        for (size_t i = 0; i < v.size() && i < top; ++i) {
            const SourceDiff &s = *v[i];
            const SourceFigures zero;
            const SourceFigures &b = s.before ? *s.before : zero, &a = s.after ? *s.after : zero;
            std::cout << "  " << clip(sourceLabel(s)) << "\n    calls " << b.count << " -> " << a.count
                      << ", gap time " << ms(b.gapTime) << " -> " << ms(a.gapTime) << ", avoidable "
                      << ms(b.avoidable) << " -> " << ms(a.avoidable) << "\n";
        }
        if (v.size() > top)
            std::cout << "  (" << v.size() - top << " more)\n";
    };
    list("Sync sources that disappeared:", gone);
    list("Sync sources that appeared:", added);
    list("Sync sources in both:", changed);

    if (!d.ops.empty()) {
        std::cout << "\nTop op changes by self time (before -> after):\n";
        for (size_t i = 0; i < d.ops.size() && i < top; ++i) {
            const OpDiff &o = d.ops[i];
            const TimeNs b = o.before ? o.before->self : 0, a = o.after ? o.after->self : 0;
            std::cout << "  " << ms(a - b, true) << "  self " << (o.before ? ms(b) : "absent") << " -> "
                      << (o.after ? ms(a) : "absent") << ", x" << (o.before ? o.before->count : 0) << " -> x"
                      << (o.after ? o.after->count : 0) << "  [" << o.cat << "] " << clip(o.name) << "\n";
        }
    }
    if (!d.kernels.empty()) {
        std::cout << "\nTop kernel changes by total time (before -> after):\n";
        for (size_t i = 0; i < d.kernels.size() && i < top; ++i) {
            const KernelDiff &k = d.kernels[i];
            const TimeNs b = k.before ? k.before->total : 0, a = k.after ? k.after->total : 0;
            std::cout << "  " << ms(a - b, true) << "  " << (k.before ? ms(b) : "absent") << " -> "
                      << (k.after ? ms(a) : "absent") << ", x" << (k.before ? k.before->count : 0) << " -> x"
                      << (k.after ? k.after->count : 0) << "  " << clip(k.name) << "\n";
        }
    }
}

TraceModelPtr loadOne(const std::string &path, const char *which)
{
    try {
        return loadTrace(path);
    } catch (const Cancelled &) {
        throw;
    } catch (const std::exception &e) {
        // The loader's sentence names the file; say which side it was.
        throw Error(std::string("the ") + which + " trace did not load: " + e.what());
    }
}

} // namespace

void registerDiff(CLI::App &app, int &exitCode)
{
    auto *cmd = app.add_subcommand(
        "diff", "Compare two traces: what a change did to step time, GPU busy time, sync gaps and\n"
                "their sources, ops and kernels.\n"
                "Example: syncscope-cli diff naive.json.gz static.json.gz --json diff.json --csv diff.csv");
    struct Options {
        std::string before, after, json, csv;
        std::string top = "10";
        AnalysisOptions analysis;
    };
    auto opts = std::make_shared<Options>();
    cmd->add_option("before", opts->before, "The trace before the change (.json or .json.gz)")->required();
    cmd->add_option("after", opts->after, "The trace after the change")->required();
    cmd->add_option("--json", opts->json, "Also write the comparison as JSON to this file ('-' for stdout)");
    cmd->add_option("--csv", opts->csv, "Also write it as CSV, one row per (section, key, metric)");
    cmd->add_option("--top", opts->top, "How many sources, ops and kernels the text lists (default 10)");
    addAnalysisOptions(cmd, opts->analysis);
    cmd->callback([&exitCode, opts] {
        guarded(exitCode, [&] {
            const int64_t top = parseCount(opts->top, "--top");
            if (top < 0)
                throw Error("--top takes a count of 0 or more (got '" + opts->top + "')");
            const AnalysisOptions &options = opts->analysis;
            const AnalysedTrace before = [&] {
                Doing doing("loading and analysing '" + opts->before + "'");
                return analyseTrace(loadOne(opts->before, "before"), options);
            }();
            const AnalysedTrace after = [&] {
                Doing doing("loading and analysing '" + opts->after + "'");
                return analyseTrace(loadOne(opts->after, "after"), options);
            }();
            Doing comparing("comparing '" + opts->before + "' with '" + opts->after + "'");
            const TraceDiff diff = diffTraces(before, after);
            if (opts->json == "-") {
                std::cout << traceDiffToJson(diff);
            } else {
                printText(diff, static_cast<size_t>(top));
                if (!opts->json.empty())
                    writeFileAtomically(opts->json, traceDiffToJson(diff));
            }
            if (!opts->csv.empty())
                writeFileAtomically(opts->csv, traceDiffToCsv(diff));
            return 0;
        });
    });
}

} // namespace syncscope::cli
