#pragma once
// Small helpers shared by the CLI subcommands.
#include "analysis/syncanalysis.h"
#include "common/error.h"
#include "common/numbers.h"
#include "lab/api/bench.h"

#include <CLI/CLI.hpp>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <time.h>
#include <unistd.h>

namespace syncscope::cli {

// --lib-prefix and --step-regex: how analyze and diff read Python frames and steps.
inline void addAnalysisOptions(CLI::App *cmd, AnalysisOptions &options)
{
    cmd->add_option("--lib-prefix", options.libPrefixes,
                    "Python frames starting with this are library code too (repeatable)");
    cmd->add_option("--step-regex", options.stepRegex,
                    "Events whose name matches this regex are steps too (besides ProfilerStep#N)");
    cmd->add_option_function<double>(
        "--long-call-ms",
        [&options](double ms) {
            if (!(ms > 0) || ms > 3.6e6)
                throw CLI::ValidationError("--long-call-ms", "takes a duration in ms above 0 and up to an hour");
            options.longCallThreshold = static_cast<TimeNs>(std::llround(ms * 1e6));
        },
        "Runtime calls at least this long that are not syncs are listed as long host calls (default 1)");
}

// A whole number in the grammar of common/numbers.h (1000, 1e6, 1_000_000,
// 2M); names the flag in the error.
inline int64_t parseCount(const std::string &text, const char *flag)
{
    const std::optional<int64_t> v = syncscope::parseCount(text);
    if (!v)
        throw Error(std::string(flag) + " takes whole numbers (got '" + text + "')");
    return *v;
}

inline std::vector<std::string> splitList(const std::string &text)
{
    std::vector<std::string> out;
    std::string cur;
    for (char c : text) {
        if (c == ',') {
            if (!cur.empty())
                out.push_back(cur);
            cur.clear();
        } else if (c != ' ') {
            cur += c;
        }
    }
    if (!cur.empty())
        out.push_back(cur);
    return out;
}

// --seed: a whole number from 0 to 2^64 - 1; "-1" would otherwise wrap around.
inline CLI::Validator seedValidator()
{
    return CLI::Validator(
        [](std::string &text) -> std::string {
            errno = 0;
            char *end = nullptr;
            const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
            if (digits)
                std::strtoull(text.c_str(), &end, 10);
            if (!digits || errno == ERANGE)
                return "the seed must be a whole number from 0 to 18446744073709551615 (got '" + text + "')";
            return "";
        },
        "SEED");
}

// The most CPU threads --threads accepts: far above any machine, far below what
// would exhaust memory or the process limit before one step runs.
constexpr int kMaxThreads = 1024;

inline CLI::Validator threadsValidator()
{
    return CLI::Validator(
        [](std::string &text) -> std::string {
            const std::string why = "the thread count must be a whole number from 0 (all cores) to " +
                                    std::to_string(kMaxThreads) + " (got '" + text + "')";
            if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos)
                return why;
            return std::stol(text) > kMaxThreads ? why : "";
        },
        "THREADS");
}

// The sampler parameters `bench` and `profile` share (everything but N).
struct PointOptions {
    std::string k, batch = "1", dim = "16", device = "cpu";
    double kRatio = 0.1, posFrac = 0.5, ignoreFrac = 0.0, targetPos = 0.5;
    int threads = 0;
    uint64_t seed = 0;
    CLI::Option *kOption = nullptr;

    void addTo(CLI::App *cmd)
    {
        kOption = cmd->add_option("--k", k, "Fixed K for every N");
        cmd->add_option("--k-ratio", kRatio, "K = round(N * ratio) when --k is not given (default 0.1)")
            ->excludes(kOption);
        cmd->add_option("--batch", batch, "Rows, B (default 1)");
        cmd->add_option("--dim", dim, "Feature dimension, D (default 16)");
        cmd->add_option("--pos-frac", posFrac, "P(label = 1) in the inputs (default 0.5)");
        cmd->add_option("--ignore-frac", ignoreFrac, "P(label = -1) in the inputs (default 0)");
        cmd->add_option("--target-pos-fraction", targetPos, "Target positive fraction f (default 0.5)");
        cmd->add_option("--device", device, "cpu or cuda (default cpu)");
        cmd->add_option("--seed", seed, "Seed (default 0)")->check(seedValidator());
        cmd->add_option("--threads", threads,
                        "CPU threads, 0 = all cores (default 0, at most " + std::to_string(kMaxThreads) + ")")
            ->check(threadsValidator());
    }

    lab::BenchPoint point(int64_t n) const
    {
        if (!(kRatio > 0 && kRatio <= 1000)) {
            char got[32];
            std::snprintf(got, sizeof got, "%g", kRatio);
            throw Error(std::string("--k-ratio must be greater than 0 and at most 1000 (got ") + got + ")");
        }
        lab::BenchPoint p;
        p.n = n;
        p.k = kOption && kOption->count() ? parseCount(k, "--k")
                                          : std::max<int64_t>(1, std::llround(static_cast<double>(n) * kRatio));
        p.batch = parseCount(batch, "--batch");
        p.dim = parseCount(dim, "--dim");
        p.posFrac = posFrac;
        p.ignoreFrac = ignoreFrac;
        p.targetPosFraction = targetPos;
        return p;
    }
};

// Progress on stderr: a rewritten line on a terminal, a line every 2 s otherwise.
class StderrProgress {
public:
    StderrProgress() : m_tty(::isatty(2) != 0) {}
    void operator()(double fraction, const char *what)
    {
        const double now = seconds();
        if (m_tty) {
            std::fprintf(stderr, "\r[%3d%%] %-40s", static_cast<int>(fraction * 100 + 0.5), what);
            if (fraction >= 1.0)
                std::fputc('\n', stderr);
        } else if (fraction >= 1.0 || now - m_last >= 2.0) {
            m_last = now;
            std::fprintf(stderr, "[%3d%%] %s\n", static_cast<int>(fraction * 100 + 0.5), what);
        }
        std::fflush(stderr);
    }

private:
    static double seconds()
    {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
    }
    bool m_tty;
    double m_last = -1e9;
};

} // namespace syncscope::cli
