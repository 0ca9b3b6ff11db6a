#pragma once
// The event categories the analysis and the views give a meaning to, spelled
// once. The loader writes Kineto's lower-case names (tracebuilder.cpp maps the
// legacy capitalised ones onto them), so everything past loading compares
// against these.
//  - GPU activity: work a device stream runs (kernels, copies, sets). The
//    replay moves it, the busy time counts it, a launch call owns it.
//  - GPU track events: GPU activity and the GPU-side annotations that Kineto
//    writes on the device's rows. A track that holds any is drawn as a GPU row;
//    the annotations are not activity (they span activity, they do not run).
//  - Runtime calls: the host calls into the CUDA or HIP runtime and driver,
//    which carry the correlation of what they launch.
#include "trace/tracemodel.h"

#include <string_view>

namespace syncscope::category {

inline constexpr std::string_view kCpuOp = "cpu_op";
inline constexpr std::string_view kUserAnnotation = "user_annotation";
inline constexpr std::string_view kPythonFunction = "python_function";
inline constexpr std::string_view kRuntime = "cuda_runtime";
inline constexpr std::string_view kDriver = "cuda_driver";
inline constexpr std::string_view kCudaSync = "cuda_sync";
inline constexpr std::string_view kKernel = "kernel";
inline constexpr std::string_view kMemcpy = "gpu_memcpy";
inline constexpr std::string_view kMemset = "gpu_memset";
inline constexpr std::string_view kGpuAnnotation = "gpu_user_annotation";
// OS runtime calls of an Nsight Systems export (read, ioctl, ...): drawn on
// their thread, given no meaning by the analysis.
inline constexpr std::string_view kOsRuntime = "os_runtime";
// Kineto's instant events on a CPU thread ("ph": "i").
inline constexpr std::string_view kCpuInstant = "cpu_instant_event";

inline bool isGpuActivity(std::string_view cat) { return cat == kKernel || cat == kMemcpy || cat == kMemset; }

inline bool isGpuTrackEvent(std::string_view cat) { return isGpuActivity(cat) || cat == kGpuAnnotation; }

inline bool isRuntimeCall(std::string_view cat) { return cat == kRuntime || cat == kDriver; }

// The same, as ids of one model's string pool: a category the model never
// stored is kNoStr, which no event's category equals.
struct Ids {
    StrId cpuOp, userAnnotation, pythonFunction, runtime, driver, cudaSync, kernel, memcpy, memset, gpuAnnotation;

    explicit Ids(const TraceModel &m)
        : cpuOp(m.findString(kCpuOp)), userAnnotation(m.findString(kUserAnnotation)),
          pythonFunction(m.findString(kPythonFunction)), runtime(m.findString(kRuntime)),
          driver(m.findString(kDriver)), cudaSync(m.findString(kCudaSync)), kernel(m.findString(kKernel)),
          memcpy(m.findString(kMemcpy)), memset(m.findString(kMemset)), gpuAnnotation(m.findString(kGpuAnnotation))
    {
    }

    bool gpuActivity(StrId c) const { return c != kNoStr && (c == kernel || c == memcpy || c == memset); }
    bool gpuTrackEvent(StrId c) const { return gpuActivity(c) || (c != kNoStr && c == gpuAnnotation); }
    bool runtimeCall(StrId c) const { return c != kNoStr && (c == runtime || c == driver); }
};

} // namespace syncscope::category
