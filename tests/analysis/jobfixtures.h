#pragma once
// Hand-made ranks for the job analysis's tests: one device, one stream
// (device 0, stream 7), one host thread; kernels of an all-reduce group.
#include "analysis/jobscale.h"

#include <string>
#include <utility>
#include <vector>

namespace syncscope::jobfixtures {

inline const char *kAllReduce = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";

// A rank of no work, read from `file`.
inline RankInput bare(int64_t r, const char *file)
{
    RankInput in;
    in.rank = r;
    in.file = file;
    in.replay.deviceIds = {0};
    in.replay.streamIds = {{0, 7}};
    in.replay.threads = 1;
    in.localAvoidable = {0};
    return in;
}

// A rank whose kernels of group `group` run at the given [start, end), seq
// 0, 1, ..., each launched 10 before it starts by a call of correlation k + 1.
inline RankInput withCollectives(int64_t r, const char *file,
                                 const std::vector<std::pair<TimeNs, TimeNs>> &kernels,
                                 const std::string &group = "g")
{
    RankInput in = bare(r, file);
    for (size_t k = 0; k < kernels.size(); ++k) {
        const int64_t corr = int64_t(k) + 1;
        in.replay.activities.push_back({0, 0, kernels[k].first, kernels[k].second, corr});
        in.replay.launches.push_back({0, kernels[k].first - 10, kernels[k].first - 5, corr});
        in.replay.collectives.push_back({uint32_t(k), group, kAllReduce, uint32_t(k)});
    }
    return in;
}

// Rank r ("a.json" for 0, else "b.json"): its all-reduce kernel of group "g",
// seq 0, runs [start, 200) and is launched by a call [launch, launch + 5).
inline RankInput coupledRank(int64_t r, TimeNs launch, TimeNs start)
{
    RankInput in = withCollectives(r, r ? "b.json" : "a.json", {{start, 200}});
    in.replay.launches[0].start = launch;
    in.replay.launches[0].end = launch + 5;
    return in;
}

} // namespace syncscope::jobfixtures
