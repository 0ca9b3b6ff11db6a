// syncscope-cli: the headless face of syncscope. Links core only, never
// LibTorch: the lab commands load libsyncscope_lab.so when they run.
#include "commands.h"
#include "outputs.h"
#include "trace/atomicfile.h"

#include <cctype>
#include <csignal>
#include <string>
#include <unistd.h>
#include <cstdio>

int main(int argc, char **argv)
{
    using namespace syncscope::cli;
    // A closed pipe, or a write past the file-size limit (ulimit -f), is a
    // write error with a sentence, not a silent death; SIGINT and SIGTERM
    // remove the temporary files of unfinished writes.
    std::signal(SIGPIPE, SIG_IGN);
    std::signal(SIGXFSZ, SIG_IGN);
    syncscope::installTempFileCleanup();
    CLI::App app{"syncscope-cli: measure host-device syncs and sampler variants, analyse "
                 "PyTorch profiler traces.\n\n"
                 "Examples:\n"
                 "  syncscope-cli variants\n"
                 "  syncscope-cli sample --variant fused --n 1000 --k 100 --json out.json\n"
                 "  syncscope-cli bench --variants naive,static,fused --n 1000,100000 --json bench.json\n"
                 "  syncscope-cli analyze trace.pt.trace.json.gz --top 20\n"
                 "  syncscope-cli profile --variant naive --n 100000 --steps 5 --out naive.json.gz\n"
                 "  syncscope-cli diff naive.json.gz static.json.gz --csv diff.csv\n"
                 "  syncscope-cli summarize rank0.json.gz -o rank0.summary\n",
                 "syncscope-cli"};
    // No LibTorch version here: that would load the lab (`variants` shows it).
    app.set_version_flag("--version", std::string("syncscope-cli " SYNCSCOPE_VERSION));
    app.require_subcommand(1);
    int exitCode = 0;
    registerVariants(app, exitCode);
    registerSample(app, exitCode);
    registerBench(app, exitCode);
    registerAnalyze(app, exitCode);
    registerProfile(app, exitCode);
    registerDiff(app, exitCode);
    registerSummarize(app, exitCode);
    registerReport(app, exitCode);
    try {
        app.parse(argc, argv);
    } catch (const CLI::Success &e) {
        return finishStdout(app.exit(e));
    } catch (const CLI::ParseError &e) {
        // One sentence for bad arguments; --help is one flag away.
        bool known = false;
        for (const auto *sub : app.get_subcommands({}))
            known = known || (argc > 1 && sub->get_name() == argv[1]);
        if (argc > 1 && argv[1][0] != '-' && !known) {
            std::fprintf(stderr, "syncscope-cli: unknown subcommand '%s' (see --help)\n", argv[1]);
            return 2;
        }
        // A file name that starts with '-' is read as an option: say which.
        if (known) {
            const CLI::App *sub = app.get_subcommand(argv[1]);
            for (int i = 2; i < argc; ++i) {
                const std::string arg = argv[i];
                if (arg == "--")
                    break;
                if (arg.size() < 2 || arg[0] != '-' || std::isdigit(static_cast<unsigned char>(arg[1])) ||
                    arg[1] == '.')
                    continue;
                const bool isLong = arg.compare(0, 2, "--") == 0;
                const std::string name = isLong ? arg.substr(0, arg.find('=')) : arg.substr(0, 2);
                if (sub->get_option_no_throw(name) || name == "-h" || name == "--help")
                    continue;
                const bool fileLike = arg.find_first_of("./") != std::string::npos || ::access(argv[i], F_OK) == 0;
                if (!fileLike) {
                    std::fprintf(stderr, "syncscope-cli: %s has no option %s (see %s --help)\n", argv[1],
                                 name.c_str(), argv[1]);
                    return 2;
                }
                std::fprintf(stderr,
                             "syncscope-cli: '%s' was taken for the option %s, which %s does not have; to "
                             "give a file whose name starts with '-', put -- before it (syncscope-cli %s -- "
                             "%s)\n",
                             arg.c_str(), name.c_str(), argv[1], argv[1], arg.c_str());
                return 2;
            }
        }
        std::fprintf(stderr, "syncscope-cli: %s (see --help)\n", e.what());
        return e.get_exit_code() == 0 ? 2 : e.get_exit_code();
    }
    return finishStdout(exitCode);
}
