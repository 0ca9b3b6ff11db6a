// `syncscope-cli summarize RANK_FILE -o RANK.summary`: the map step of a job's
// analysis. Loads and analyses one rank's trace and writes what `analyze`
// needs of it (ranksummary.h), so the ranks can be summarized on many machines
// and merged on one (docs/cli.md "Map and reduce: summaries, Slurm, Dask").
#include "analysis/ranksummary.h"
#include "cliutil.h"
#include "commands.h"
#include "outputs.h"
#include "trace/nsysloader.h"

namespace syncscope::cli {

void registerSummarize(CLI::App &app, int &exitCode)
{
    auto *cmd = app.add_subcommand(
        "summarize", "Write the summary of one rank's trace, which analyze accepts in place of the trace.\n"
                     "Example: syncscope-cli summarize rank3.json.gz -o rank3.summary");
    struct Options {
        std::string file, out;
        AnalysisOptions analysis;
    };
    auto opts = std::make_shared<Options>();
    cmd->add_option("file", opts->file,
                    "A Chrome trace file (.json or .json.gz) of one rank, or one process of an Nsight "
                    "Systems export (REPORT.sqlite#PID)")
        ->required();
    cmd->add_option("-o,--out", opts->out, "The summary to write")->required();
    addAnalysisOptions(cmd, opts->analysis);
    cmd->callback([&exitCode, opts] {
        guarded(exitCode, [&] {
            if (opts->out == "-")
                throw Error("a summary is a binary file: give -o a file name, not '-'");
            checkOutputs({opts->file}, {{"--out", opts->out}});
            if (isRankSummaryFile(opts->file))
                throw Error("'" + opts->file + "' is a rank summary already; summarize takes a trace");
            // An Nsight Systems export of several GPU processes holds several ranks.
            const TraceInputs ranks = expandTraceInputs({opts->file});
            if (ranks.paths.size() > 1) {
                std::string each;
                for (size_t i = 0; i < ranks.paths.size(); ++i)
                    each += (i == 0 ? "" : i + 1 == ranks.paths.size() ? " or " : ", ") + ranks.paths[i];
                throw Error("'" + opts->file + "' holds " + std::to_string(ranks.paths.size()) +
                            " ranks (GPU processes): summarize one at a time, " + each);
            }
            StderrProgress progress;
            RankSummary summary;
            {
                Doing doing("summarizing '" + opts->file + "'");
                summary = loadRank(opts->file, opts->analysis, true,
                                   [&](double f, const char *msg) { progress(f, msg); });
            }
            Doing writing("writing the summary of '" + opts->file + "'");
            writeRankSummary(opts->out, summary);
            return 0;
        });
    });
}

} // namespace syncscope::cli
