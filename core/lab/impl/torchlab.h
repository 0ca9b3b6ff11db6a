#pragma once
// The lab on LibTorch: the one implementation of LabInterface
// (api/labinterface.h), which libsyncscope_lab.so hands out. Each operation is
// defined where its work is, in a file named torchlab_<work>.cpp: the facts in
// torchlab.cpp, the benchmark in torchlab_bench.cpp, sampling in
// torchlab_sample.cpp and capture in torchlab_capture.cpp. It holds no state.
#include "lab/api/labinterface.h"

namespace syncscope::lab {

class TorchLab final : public LabInterface {
public:
    std::string torchVersion() override;
    bool cudaAvailable(std::string *why) override;
    std::string deviceDescription(Device device) override;
    void checkDevice(Device device) override;
    bool variantRunnable(const std::string &variant, Device device, std::string *why) override;

    void validateBench(const BenchRequest &request) override;
    BenchReport runBench(const BenchRequest &request, const ProgressFn &progress,
                         const CancelToken *cancel) override;
    void validateSample(const SampleRequest &request) override;
    SampleRun runSample(const SampleRequest &request, bool keepInputFeatures) override;
    DistributionStats runDistribution(const SampleRequest &request, int64_t runs, const ProgressFn &progress,
                                      const CancelToken *cancel) override;
    CaptureResult captureTrace(const CaptureRequest &request, const ProgressFn &progress,
                               const CancelToken *cancel) override;
};

// The process-wide instance: what the library exports, what the lab's own code
// asks for facts, and what the tests that link the lab directly call.
TorchLab &torchLab();

} // namespace syncscope::lab
