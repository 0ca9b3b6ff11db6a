#pragma once
// The fused sampler on CUDA, on raw device pointers (no LibTorch here). Same
// arguments and the same semantics as fusedSampleCpu: the count rule, uniformly
// random subsets, a uniformly random output order, full feature rows, padding
// (-1, -1, zeros), natively batched, deterministic for a seed.
//
// It never reads a device value on the host, allocates nothing and only
// launches kernels on `stream`, so it can be captured into a CUDA graph: the
// caller passes a device workspace of fusedSampleCudaWorkspaceBytes(args).
#include "kernels/cpu/fusedsampler.h"

#include <cstddef>
#include <cstdint>

namespace syncscope::kernels {

// Largest N the CUDA kernels take: per-row ranks are 32-bit.
constexpr int64_t kFusedCudaMaxN = (int64_t(1) << 31) - 1;

// Device bytes the sampler needs as scratch for these arguments (a function of
// batch and n only).
size_t fusedSampleCudaWorkspaceBytes(const FusedSamplerArgs &args);

// All pointers in `args` are device pointers; `stream` is a cudaStream_t.
// Throws syncscope::Error (one sentence) for bad arguments or a failed launch.
void fusedSampleCuda(const FusedSamplerArgs &args, void *workspace, size_t workspaceBytes, void *stream);

// The floor on the device: one read pass over `count` labels, counting the
// positives into *outCount (a device int64). Launches only, on `stream`.
void labelReadPassCuda(const void *labels, LabelType type, int64_t count, int64_t *outCount, void *stream);

// The gather floor on the device, as one kernel: one read pass over all labels
// (positives counted into *outCount, a device int64) and the K full rows at the
// sorted indices copied into [batch, k, row] with their indices and labels.
// All pointers in `args` are device pointers. Launches only, on `stream`.
void gatherFloorCuda(const GatherFloorArgs &args, int64_t *outCount, void *stream);

// The launch floor: one replay of a CUDA graph that holds one empty kernel.
// Owns the graph; create and destroy it outside any capture.
class EmptyGraph {
public:
    EmptyGraph();
    ~EmptyGraph();
    EmptyGraph(const EmptyGraph &) = delete;
    EmptyGraph &operator=(const EmptyGraph &) = delete;
    void replay(void *stream);

private:
    void *m_graph = nullptr; // cudaGraph_t
    void *m_exec = nullptr;  // cudaGraphExec_t
};

} // namespace syncscope::kernels
