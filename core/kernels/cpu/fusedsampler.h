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

// Runs on the shared IntraOpPool. Deterministic for a seed, whatever the thread count.
void fusedSampleCpu(const FusedSamplerArgs &args);

// Sampling into outputs the caller allocated is the same call: the args name
// the output pointers, so a caller that keeps them across calls pays no
// allocation (the lab's sampleFusedInto does exactly that).

// The gather floor: the least memory work any correct sampler must do, on the
// same inputs. One read pass over all labels (a count of positives, returned),
// then for each row b and j < k: outIndices[b*k+j] = indices[b*k+j],
// outLabels[...] = that label, and that full feature row copied into
// outFeatures. `indices` are the caller's (sorted, distinct, drawn before
// timing); labels must be contiguous (labelRowStride == n).
struct GatherFloorArgs {
    const void *labels = nullptr;
    LabelType labelType = LabelType::Int64;
    int64_t batch = 1;
    int64_t n = 0;
    const uint8_t *features = nullptr;
    int64_t featureRowBytes = 0;
    int64_t featureBatchStride = 0; // in bytes
    int64_t k = 0;
    const int64_t *indices = nullptr; // [batch, k]
    int64_t *outIndices = nullptr;    // [batch, k]
    int64_t *outLabels = nullptr;     // [batch, k]
    uint8_t *outFeatures = nullptr;   // [batch, k, row]
};
int64_t gatherFloorCpu(const GatherFloorArgs &args);

// k distinct indices drawn uniformly from [0, n), written in increasing order
// (Floyd's algorithm on a bitmap). k is clamped to n.
void sortedRandomSubset(int64_t n, int64_t k, uint64_t seed, uint64_t stream, int64_t *out);

// The floor a sampler is compared with: one read pass over the same labels
// (a parallel count of positives), returned so the compiler cannot drop it.
int64_t labelReadPassCpu(const void *labels, LabelType type, int64_t count);

} // namespace syncscope::kernels
