#pragma once
// What a trace capture asks and returns (LabInterface::captureTrace): a
// Chrome trace of sampler steps with the LibTorch profiler, Kineto (CPU + CUDA
// activities) where the lab's LibTorch has it, else the legacy CPU-only
// profiler. Each step is a user-scope record-function range "ProfilerStep#N"
// (N from 0), as torch.profiler's schedule marks steps.
#include "common/progress.h"
#include "lab/api/bench.h"

#include <string>

namespace syncscope::lab {

struct CaptureRequest {
    std::string variant = "naive";
    BenchPoint point;
    Device device = Device::Cpu;
    int steps = 5;
    int warmup = 2; // untraced steps first, so one-time set-up stays out of the trace
    uint64_t seed = 0;
    int threads = 0;
    std::string outPath; // .json or .json.gz
};

struct CaptureResult {
    std::string path;
    std::string profiler; // "kineto" or "legacy"
    std::string note;     // e.g. why the trace is CPU-only
    int steps = 0;
};

} // namespace syncscope::lab
