#pragma once
// The GPU runtimes syncscope knows (CUDA and HIP/ROCm): which host calls block,
// which launch a graph, which runtime a trace used, and the devices' names.
// Definitions (docs/analysis.md "Trace analysis" and docs/trace-support.md):
//  - runtime of a call (category cuda_runtime or cuda_driver): HIP when its name
//    starts with "hip"; CUDA when it starts with "cuda", or with "cu" and a
//    capital letter (the driver API: cuStreamSynchronize); else none.
//  - runtime of a trace: the one that names more of its runtime/driver calls
//    (CUDA on a tie); none when no call names either.
//  - device name: the "name" of the deviceProperties entry whose "id" is the
//    device number; unknown when absent or empty.
#include "trace/tracemodel.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace syncscope {

enum class Runtime : uint8_t { None = 0, Cuda = 1, Hip = 2 };

// "cuda", "hip", or nullptr for None (JSON null).
const char *runtimeKey(Runtime r);
// "CUDA", "HIP (ROCm)", or "" for None.
const char *runtimeLabel(Runtime r);
Runtime runtimeOfCall(std::string_view name);

struct RuntimeUse {
    Runtime runtime = Runtime::None;
    uint64_t cudaCalls = 0, hipCalls = 0, otherCalls = 0; // runtime/driver events by runtime
    // With Runtime::None: up to kMaxSeen distinct names of the runtime/driver
    // calls, the most frequent first (empty when the file has none).
    static constexpr size_t kMaxSeen = 5;
    std::vector<std::string> namesSeen;
    uint64_t distinctNames = 0; // distinct runtime/driver call names in the file
};

RuntimeUse detectRuntime(const TraceModel &model);

// "no runtime calls syncscope knows (names seen: INVALID): sync analysis unavailable"
std::string runtimeUnavailableSentence(const RuntimeUse &use);

// Runtime/driver calls that always block the host until the GPU catches up:
//  CUDA: cudaStreamSynchronize, cudaDeviceSynchronize, cudaEventSynchronize,
//        cudaMemcpy, cuStreamSynchronize, cuCtxSynchronize, cuEventSynchronize,
//        cuMemcpyDtoH, cuMemcpyDtoH_v2;
//  HIP:  hipStreamSynchronize, hipDeviceSynchronize, hipEventSynchronize,
//        hipCtxSynchronize, and every hipMemcpy* whose name has no "Async"
//        (hipMemcpy, hipMemcpyWithStream, hipMemcpyDtoH, hipMemcpyHtoD,
//        hipMemcpyDtoD, hipMemcpy2D, ...).
bool isBlockingSyncCall(std::string_view name);
// An asynchronous copy call that blocks like a sync when its GPU copy (same
// correlation) goes device-to-host into pageable memory: cudaMemcpyAsync,
// hipMemcpyAsync. (ROCm names its copies "Memcpy DtoH (Device -> Host)",
// without a pageable mark, so a hipMemcpyAsync is never found pageable.)
bool isAsyncCopyCall(std::string_view name);
// A GPU copy event name that goes device-to-host into pageable memory.
bool isPageableDeviceToHost(std::string_view memcpyName);
// A GPU copy event name that goes from pageable host memory to the device: CUDA
// synchronizes the stream before such a copy, so its cudaMemcpyAsync blocks.
bool isPageableHostToDevice(std::string_view memcpyName);
// A graph launch: every GPU activity with its correlation is its graph's work.
bool isGraphLaunch(std::string_view name);

// The GPU activities (kernel, gpu_memcpy, gpu_memset) that carry a correlation:
// for a graph launch, its graph's work. time: their summed durations.
struct GpuWork {
    uint64_t count = 0;
    TimeNs time = 0;
};
GpuWork gpuWorkOfCorrelation(const TraceModel &model, int64_t correlation);

// Device number -> name, from TraceInfo::devicePropertiesJson; entries without
// an integer id or with an empty name are left out, and so is everything when
// the text is not a JSON array of objects.
std::map<int64_t, std::string> deviceNames(const std::string &devicePropertiesJson);

} // namespace syncscope
