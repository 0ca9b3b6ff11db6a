#pragma once
// One sampling run with generated inputs, copied back to host vectors
// (LabInterface::runSample), and many of them (runDistribution): what the
// CLI's `sample` command and the desktop app's Distribution page consume.
#include "common/progress.h"
#include "lab/api/device.h"

#include <cstdint>
#include <string>
#include <vector>

namespace syncscope::lab {

struct InputSpec {
    int64_t n = 1000;
    int64_t batch = 1;
    int64_t dim = 16;
    double posFrac = 0.5;    // P(label == 1)
    double ignoreFrac = 0.0; // P(label == -1); the rest are 0
    uint64_t seed = 0;
    Device device = Device::Cpu;
};

struct SampleRequest {
    std::string variant = "fused";
    InputSpec input;
    int64_t k = 100;
    double targetPosFraction = 0.5;
    uint64_t seed = 0; // the sampler's seed (inputs use input.seed)
};

// Row-major host copies. Arrays are always batched: B = 1 gives one row.
struct SampleRun {
    int64_t batch = 0, n = 0, k = 0, dim = 0;
    int64_t outDim = 0;               // columns per output row: dim, except for article-static (1)
    std::vector<int64_t> inputLabels; // B*N
    std::vector<float> inputFeatures; // B*N*D (empty unless asked for)
    std::vector<int64_t> indices;     // B*K, -1 = padding
    std::vector<int64_t> labels;      // B*K, -1 = padding
    std::vector<float> features;      // B*K*outDim, 0 = padding
    std::vector<int64_t> valid;       // B
};

// Repeated runs with seeds seed, seed+1, ... on one fixed input
// (LabInterface::runDistribution): how often each input position is selected
// and where positives land in the output.
struct DistributionStats {
    int64_t runs = 0;
    int64_t batch = 0, n = 0, k = 0;
    std::vector<int64_t> inputLabels;                       // B*N, the fixed input
    std::vector<int64_t> selectedCount;                     // B*N: times each position was selected
    std::vector<int64_t> positiveSlotCount;                 // K: times a positive sat in output slot j
    std::vector<int64_t> negativeSlotCount;                 // K
    std::vector<int64_t> requestedPos, requestedNeg;        // B, from the count rule
    std::vector<int64_t> obtainedPos, obtainedNeg, padding; // B, from the last run
    // Chi-square goodness of fit and its p-value.
    double selectionChi2 = 0, selectionDof = 0, selectionP = 1; // eligible items equally likely
    double orderChi2 = 0, orderDof = 0, orderP = 1;             // positive output slots uniform over [0, valid)
};

} // namespace syncscope::lab
