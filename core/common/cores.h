#pragma once
// How many CPU cores this thread may run on: its CPU affinity where the system
// gives one (a Slurm task, `taskset`, a container's cpuset), else every core.
// What "0 = every core" means for the replays' and loaders' threads, so that
// many ranks summarized side by side on one node do not each take the node.
#include <algorithm>
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

} // namespace syncscope
