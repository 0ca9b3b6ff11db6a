#pragma once
// One registration function per `syncscope-cli` subcommand. Each adds its
// subcommand to `app`; its callback runs the command and sets exitCode
// (0 on success; non-zero with one sentence on stderr otherwise).
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

// Peak virtual memory of this process in MiB (VmPeak), 0 when unknown.
inline long peakMemoryMiB()
{
    long kib = 0;
    if (std::FILE *f = std::fopen("/proc/self/status", "r")) {
        char line[256];
        while (std::fgets(line, sizeof line, f))
            if (std::sscanf(line, "VmPeak: %ld kB", &kib) == 1)
                break;
        std::fclose(f);
    }
    return kib / 1024;
}

// Runs fn, turning any exception into one sentence on stderr and exit code 1.
template <typename Fn> void guarded(int &exitCode, Fn &&fn)
{
    try {
        exitCode = fn();
    } catch (const std::bad_alloc &) {
        std::fprintf(stderr,
                     "syncscope-cli: ran out of memory (the process had reserved %ld MiB at its peak); free "
                     "memory, raise the limit (ulimit -v) or give a smaller input.\n",
                     peakMemoryMiB());
        exitCode = 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "syncscope-cli: %s\n", e.what());
        exitCode = 1;
    }
}

} // namespace syncscope::cli
