#pragma once
// One registration function per `syncscope-cli` subcommand. Each adds its
// subcommand to `app`; its callback runs the command and sets exitCode
// (0 on success; non-zero with one sentence on stderr otherwise).
#include "activity.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <new>

namespace syncscope::cli {

void registerVariants(CLI::App &app, int &exitCode);
void registerSample(CLI::App &app, int &exitCode);
void registerBench(CLI::App &app, int &exitCode);
void registerAnalyze(CLI::App &app, int &exitCode);
void registerProfile(CLI::App &app, int &exitCode);
void registerDiff(CLI::App &app, int &exitCode);
void registerSummarize(CLI::App &app, int &exitCode);
void registerReport(CLI::App &app, int &exitCode);

// Runs fn, turning any exception into one sentence on stderr and exit code 1.
template <typename Fn> void guarded(int &exitCode, Fn &&fn)
{
    try {
        exitCode = fn();
    } catch (const std::bad_alloc &) {
        std::fprintf(stderr, "%s\n", outOfMemorySentence().c_str());
        exitCode = 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "syncscope-cli: %s\n", e.what());
        exitCode = 1;
    }
}

} // namespace syncscope::cli
