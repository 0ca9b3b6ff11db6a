// `syncscope-cli report TRACE... --html F [--md F] [--compare BEFORE AFTER]`:
// a report to share (report.h): the headline, the per-step chart, the sync
// sources with what to change, the top gaps and, with --compare, the deltas.
#include "analysis/jobanalysis.h"
#include "analysis/ranksummary.h"
#include "analysis/report.h"
#include "analysis/tracediff.h"
#include "cliutil.h"
#include "commands.h"
#include "jobranks.h"
#include "outputs.h"
#include "trace/atomicfile.h"
#include "trace/nsysloader.h"
#include "trace/traceloader.h"

namespace syncscope::cli {

void registerReport(CLI::App &app, int &exitCode)
{
    auto *cmd = app.add_subcommand(
        "report",
        "Write a report to share: one self-contained HTML page (no script, no external asset) and/or Markdown "
        "for a pull request. TRACEs are the ranks of one job (traces or rank summaries); with --compare BEFORE "
        "AFTER and no TRACE, the report is on AFTER with the deltas from BEFORE.\n"
        "Example: syncscope-cli report trace.json.gz --html report.html --md report.md");
    struct Options {
        std::vector<std::string> files, compare;
        std::string html, md;
        AnalysisOptions analysis;
        size_t top = 20;
    };
    auto opts = std::make_shared<Options>();
    cmd->add_option("files", opts->files,
                    "Trace files (.json or .json.gz), Nsight Systems exports (.sqlite, .nsys-rep) or rank "
                    "summaries of one job");
    cmd->add_option("--html", opts->html, "Write the report as one HTML file");
    cmd->add_option("--md", opts->md, "Write the report as Markdown");
    cmd->add_option("--compare", opts->compare, "BEFORE AFTER: add the deltas between two traces")->expected(2);
    cmd->add_option("--top", opts->top, "How many sync sources to list (default 20)");
    addAnalysisOptions(cmd, opts->analysis);
    cmd->callback([&exitCode, opts] {
        guarded(exitCode, [&] {
            if (opts->html.empty() && opts->md.empty())
                throw Error("give --html FILE, --md FILE or both: where to write the report");
            if (opts->html == "-" || opts->md == "-")
                throw Error("a report is written to a file: give --html and --md a file name, not '-'");
            std::vector<std::string> files = opts->files;
            if (files.empty() && opts->compare.size() == 2)
                files.push_back(opts->compare[1]);
            if (files.empty())
                throw Error("give the traces to report on, or --compare BEFORE AFTER");
            std::vector<std::string> inputs = files;
            inputs.insert(inputs.end(), opts->compare.begin(), opts->compare.end());
            std::vector<std::pair<std::string, std::string>> outputs;
            if (!opts->html.empty())
                outputs.push_back({"--html", opts->html});
            if (!opts->md.empty())
                outputs.push_back({"--md", opts->md});
            checkOutputs(inputs, outputs);

            StderrProgress progress;
            // An Nsight Systems export of several GPU processes: one rank each.
            const TraceInputs expanded = expandTraceInputs(files);
            files = expanded.paths;
            const size_t n = files.size();
            JobRanks ranks = loadJobRanks(files, opts->analysis, n >= 2, [&](size_t i, double f, const char *msg) {
                progress(0.8 * (double(i) + f) / double(n), msg);
            });
            JobAnalysis job;
            {
                Doing analysing("analysing the job of " + std::to_string(n) + " file(s)");
                job = ranks.assemble();
            }
            std::optional<TraceDiff> diff;
            if (opts->compare.size() == 2) {
                Doing comparing("comparing '" + opts->compare[0] + "' with '" + opts->compare[1] + "'");
                const AnalysedTrace before = analyseTrace(loadTrace(opts->compare[0]), opts->analysis);
                const AnalysedTrace after = analyseTrace(loadTrace(opts->compare[1]), opts->analysis);
                diff = diffTraces(before, after);
            }
            ReportInput in;
            in.job = &job;
            in.compare = diff ? &*diff : nullptr;
            in.generator = "syncscope-cli " SYNCSCOPE_VERSION;
            in.topSources = opts->top;
            Doing writing("writing the report");
            if (!opts->html.empty())
                writeFileAtomically(opts->html, reportHtml(in));
            if (!opts->md.empty())
                writeFileAtomically(opts->md, reportMarkdown(in));
            progress(1.0, "done");
            return 0;
        });
    });
}

} // namespace syncscope::cli
