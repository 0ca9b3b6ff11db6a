#pragma once
// Sampler variants on tensors. Inputs: features float [N, D] or [B, N, D],
// labels integer [N] or [B, N] (1 positive, 0 negative, anything else ignored).
// Outputs are always batched: indices/labels int64 [B, K], features [B, K, D]
// (full rows), valid int64 [B]; slots >= valid are padding (-1, -1, zeros).
#include "kernels/cpu/fusedsampler.h"

#include <ATen/ATen.h>

#include <cstdint>
#include <string>

namespace syncscope::lab {

struct SamplerConfig {
    int64_t k = 1;
    double targetPosFraction = 0.5;
    uint64_t seed = 0;
};

struct SampleOutput {
    at::Tensor indices;
    at::Tensor labels;
    at::Tensor features;
    at::Tensor valid;
};

// Checks shapes, dtypes, devices and parameters; throws syncscope::Error naming
// the parameter. Every entry point calls it.
void validateTensors(const at::Tensor &features, const at::Tensor &labels, const SamplerConfig &cfg);

// Runs the named variant. c10::Error (e.g. out of memory) becomes syncscope::Error.
SampleOutput runVariant(const std::string &name, const at::Tensor &features, const at::Tensor &labels,
                        const SamplerConfig &cfg);

// The variants themselves; inputs already validated and batched ([B,N,D], [B,N]).
SampleOutput sampleNaive(const at::Tensor &features, const at::Tensor &labels, const SamplerConfig &cfg);
SampleOutput sampleStatic(const at::Tensor &features, const at::Tensor &labels, const SamplerConfig &cfg);
// The static sampler drawing from `gen` (a CUDA graph capture registers it).
SampleOutput sampleStaticWith(const at::Tensor &features, const at::Tensor &labels, const SamplerConfig &cfg,
                              at::Generator gen);
SampleOutput sampleFused(const at::Tensor &features, const at::Tensor &labels, const SamplerConfig &cfg);
// fused into outputs the caller allocated and may reuse across calls, so a
// call allocates nothing: out.indices/labels int64 [B, K], out.features [B, K, D]
// of the features' dtype, out.valid int64 [B], all contiguous on the CPU.
// Inputs as for runVariant (N x D or B x N x D). Same results as fused for a
// seed. Throws syncscope::Error naming the output that does not fit.
void sampleFusedInto(const at::Tensor &features, const at::Tensor &labels, const SamplerConfig &cfg,
                     SampleOutput &out);
// The article's opt_sample_data exactly as published, defects included: features
// come back as [B, K, 1] (column 0), the order follows the selection keys, the
// target fraction is ignored (K//2) and every row claims K valid items.
SampleOutput sampleArticleStatic(const at::Tensor &features, const at::Tensor &labels, const SamplerConfig &cfg);

// The fused kernels (CPU and CUDA) share one host API on raw pointers. These
// prepare it: labels read in place when uint8/int32/int64 (other integer types
// are widened once), contiguous features, and the args pointing at `out`,
// whose tensors the caller allocated ([B,K], [B,K], [B,K,D], [B]).
kernels::LabelType kernelLabelType(at::ScalarType t);
struct FusedInputs {
    at::Tensor labels;
    at::Tensor features;
};
FusedInputs fusedInputs(const at::Tensor &features, const at::Tensor &labels);
kernels::FusedSamplerArgs fusedArgs(const FusedInputs &in, const SamplerConfig &cfg, SampleOutput &out);

// Generated inputs: labels int64 (1 w.p. posFrac, -1 w.p. ignoreFrac, else 0),
// standard-normal float features; batched shapes [B, N] and [B, N, D].
struct GeneratedInput {
    at::Tensor features;
    at::Tensor labels;
};
// With featuresInto (CPU only: B*N*D floats the caller owns), the features are
// drawn straight into that memory and the tensor views it; the values are the
// same either way.
GeneratedInput generateInput(int64_t batch, int64_t n, int64_t dim, double posFrac, double ignoreFrac,
                             uint64_t seed, const at::Device &device, float *featuresInto = nullptr);

// The CPU kernels run on LibTorch's intra-op pool (one pool per process);
// every lab entry point calls this first.
void useTorchIntraOpPool();
// Throws syncscope::Error (one sentence) unless 0 <= threads <= the kernels' cap.
void checkThreads(int threads);
// Validates, then gives the kernels and ATen's ops on this thread the same
// count (0 = all cores); returns it.
int useThreads(int threads);

// The floor: one read pass over the labels. Returns a value so it is not elided.
int64_t labelReadPass(const at::Tensor &labels);

} // namespace syncscope::lab
