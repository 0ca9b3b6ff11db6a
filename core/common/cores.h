#pragma once
// How many CPU cores this thread may run on: its CPU affinity where the system
// gives one (a Slurm task, `taskset`, a container's cpuset), else every core.
// What "0 = every core" means for the replays' and loaders' threads, so that
// many ranks summarized side by side on one node do not each take the node.
#include <algorithm>
#include <cstddef>
#include <thread>

#if defined(__linux__)
#include <sched.h>
#endif

namespace syncscope {

inline unsigned usableCores()
{
#if defined(__linux__)
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        const int n = CPU_COUNT(&set);
        if (n > 0)
            return static_cast<unsigned>(n);
    }
#endif
    return std::max(1u, std::thread::hardware_concurrency());
}

// Threads for a run whose every thread past the first holds `bytesPerExtra`
// of state of its own: `requested` (0: usableCores()), no more extra threads
// than fit 1 GiB of that state, and at least one.
inline size_t threadsWithinBudget(size_t requested, size_t bytesPerExtra)
{
    const size_t threads = requested ? requested : usableCores();
    return std::max<size_t>(1, std::min(threads, 1 + (size_t(1) << 30) / std::max<size_t>(1, bytesPerExtra)));
}

} // namespace syncscope
