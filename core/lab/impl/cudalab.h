#pragma once
// The lab's CUDA pieces (compiled only where SYNCSCOPE_WITH_CUDA is defined):
// the fused CUDA sampler on tensors, the static sampler replayed from a CUDA
// graph, and the two device floors the harness measures.
#include "kernels/cpu/fusedsampler.h"
#include "lab/impl/sampler.h"

#include <memory>

namespace syncscope::lab {

// Fused on CUDA: our kernels, launched on the current stream; the workspace
// comes from the caching allocator, so the call can be captured into a graph.
SampleOutput sampleFusedCuda(const at::Tensor &features, const at::Tensor &labels, const SamplerConfig &cfg);

// The static sampler captured into a CUDA graph once per (input buffers,
// shapes, dtypes, K, f) on a side stream, and replayed on the current stream.
// The graph reads the caller's features and labels where they live: a caller
// feeds new data by writing it into those same tensors (copy_) and calling
// again. reseed: restart the graph's Philox stream at cfg.seed (same seed,
// same output); otherwise every replay continues the stream (fresh numbers).
// Returns copies of the graph's static outputs.
SampleOutput runStaticGraph(const at::Tensor &features, const at::Tensor &labels, const SamplerConfig &cfg,
                            bool reseed);
SampleOutput sampleStaticGraph(const at::Tensor &features, const at::Tensor &labels, const SamplerConfig &cfg);
int64_t staticGraphCaptures(); // graphs captured in this process
void releaseStaticGraphs();    // drops every cached graph and its memory pool

// Enqueues one read pass over the labels (counting positives into `out`, a
// one-element int64 CUDA tensor) on the current stream; no host wait.
void labelReadPassCudaAsync(const at::Tensor &labels, const at::Tensor &out);

// Enqueues the gather floor (kernels::gatherFloorCuda) for device pointers in
// `args` on the current stream, counting positives into `count` (a one-element
// int64 CUDA tensor); no host wait.
void gatherFloorCudaAsync(const kernels::GatherFloorArgs &args, const at::Tensor &count);

// The launch floor: replays a graph of one empty kernel on the current stream.
class LaunchFloor {
public:
    LaunchFloor();
    ~LaunchFloor();
    void replay();

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace syncscope::lab
