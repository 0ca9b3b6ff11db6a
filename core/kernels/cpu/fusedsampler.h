#pragma once
// The fused sampler on raw pointers: one read pass over the labels, exact
// uniform subsets, a uniform output order, full feature rows. No LibTorch here,
// so a CUDA twin can share this host API.
#include <cstdint>

namespace syncscope::kernels {

enum class LabelType { UInt8, Int32, Int64 };

struct FusedSamplerArgs {
    // Inputs: labels[b * labelRowStride + i], i < n, for b < batch.
    const void *labels = nullptr;
    LabelType labelType = LabelType::Int64;
    int64_t batch = 1;
    int64_t n = 0;
    int64_t labelRowStride = 0; // in elements
    // Feature row i of batch b starts at features + b * featureBatchStride + i * featureRowBytes.
    const uint8_t *features = nullptr;
    int64_t featureRowBytes = 0;
    int64_t featureBatchStride = 0; // in bytes

    int64_t k = 1;
    double targetPosFraction = 0.5;
    uint64_t seed = 0;

    // Outputs, contiguous: indices/labels [batch, k], features [batch, k, row], valid [batch].
    int64_t *outIndices = nullptr;
    int64_t *outLabels = nullptr;
    uint8_t *outFeatures = nullptr;
    int64_t *outValid = nullptr;
};

// Runs on the shared ThreadPool. Deterministic for a seed, whatever the thread count.
void fusedSampleCpu(const FusedSamplerArgs &args);

// The floor a sampler is compared with: one read pass over the same labels
// (a parallel count of positives), returned so the compiler cannot drop it.
int64_t labelReadPassCpu(const void *labels, LabelType type, int64_t count);

} // namespace syncscope::kernels
