#pragma once
// Small helpers shared by the CLI subcommands.
#include "common/error.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <time.h>
#include <unistd.h>

namespace syncscope::cli {

// Accepts 1000, 1e6 or 1_000_000; names the flag in the error.
inline int64_t parseCount(const std::string &text, const char *flag)
{
    std::string t;
    for (char c : text)
        if (c != '_')
            t += c;
    size_t used = 0;
    double v = 0;
    try {
        v = std::stod(t, &used);
    } catch (...) {
        used = 0;
    }
    if (used != t.size() || t.empty() || !std::isfinite(v) || v != std::floor(v) || std::fabs(v) > 9e18)
        throw Error(std::string(flag) + " takes whole numbers (got '" + text + "')");
    return static_cast<int64_t>(v);
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
