#pragma once
// The sample-count rule every variant follows (Detectron2's positive_fraction,
// without the article's K//2 rounding loss for odd K).
#include <algorithm>
#include <cmath>
#include <cstdint>

// The rule runs on the host and inside the CUDA kernels from this one source.
#include "kernels/hostdevice.h"

namespace syncscope::kernels {

struct SampleCounts {
    int64_t numPos = 0;
    int64_t numNeg = 0;
    SYNCSCOPE_HOST_DEVICE int64_t valid() const { return numPos + numNeg; }
};

inline int64_t targetPositives(int64_t k, double targetPosFraction)
{
    // floor(K*f), computed so that e.g. K=10, f=0.3 gives 3 and not 2.
    const double exact = static_cast<double>(k) * targetPosFraction;
    auto t = static_cast<int64_t>(std::floor(exact + 1e-9 * std::max(1.0, exact)));
    return std::clamp<int64_t>(t, 0, k);
}

// positives P, negatives Q in one row; k slots; targetPos from targetPositives().
SYNCSCOPE_HOST_DEVICE inline SampleCounts sampleCountsForTarget(int64_t positives, int64_t negatives, int64_t k,
                                                                int64_t targetPos)
{
    auto lesser = [](int64_t a, int64_t b) { return a < b ? a : b; };
    SampleCounts c;
    c.numPos = lesser(positives, targetPos);
    c.numNeg = lesser(negatives, k - c.numPos);
    if (c.numNeg < k - c.numPos)
        c.numPos = lesser(positives, k - c.numNeg);
    return c;
}

// positives P, negatives Q in one row; k slots.
inline SampleCounts sampleCounts(int64_t positives, int64_t negatives, int64_t k, double targetPosFraction)
{
    return sampleCountsForTarget(positives, negatives, k, targetPositives(k, targetPosFraction));
}

} // namespace syncscope::kernels
