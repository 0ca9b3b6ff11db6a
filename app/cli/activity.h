#pragma once
// What a syncscope-cli command is doing right now, so that running out of
// memory is one sentence that names it: "ran out of memory while analysing
// 'rank0.json' (…)". Commands mark each phase with a Doing on the main thread.
#include <cstdio>
#include <string>
#include <utility>

namespace syncscope::cli {

inline std::string &currentActivity()
{
    static std::string what;
    return what;
}

// Marks a phase for its scope; the enclosing phase comes back afterwards.
class Doing {
public:
    explicit Doing(std::string what) : m_previous(std::move(currentActivity()))
    {
        currentActivity() = std::move(what);
    }
    ~Doing() { currentActivity() = std::move(m_previous); }
    Doing(const Doing &) = delete;
    Doing &operator=(const Doing &) = delete;

private:
    std::string m_previous;
};

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

// The out-of-memory sentence: what was being done (when a phase was marked)
// and how much the process had reserved at its peak.
inline std::string outOfMemorySentence()
{
    std::string s = "syncscope-cli: ran out of memory";
    if (!currentActivity().empty())
        s += " while " + currentActivity();
    const long peak = peakMemoryMiB();
    if (peak > 0)
        s += " (the process had reserved " + std::to_string(peak) + " MiB at its peak)";
    s += "; free memory, raise the limit (ulimit -v) or give a smaller input.";
    return s;
}

} // namespace syncscope::cli
