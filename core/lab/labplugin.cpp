// The lab library's side of the seam (labinterface.h): the interface over the
// lab's own functions, and the two exported extern "C" entry points. Built
// into libsyncscope_lab.so with every other symbol hidden.
#include "lab/labinterface.h"
#include "lab/variants.h"

#define SYNCSCOPE_LAB_EXPORT extern "C" __attribute__((visibility("default")))

namespace syncscope::lab {
namespace {

class Lab final : public LabInterface {
public:
    std::string torchVersion() override { return lab::torchVersion(); }
    bool cudaAvailable(std::string *why) override { return lab::cudaAvailable(why); }
    std::string deviceDescription(const std::string &device) override { return lab::deviceDescription(device); }
    void checkDevice(const std::string &device) override { lab::checkDevice(device); }
    bool variantRunnable(const std::string &variant, const std::string &device, std::string *why) override
    {
        return lab::variantRunnable(variant, device, why);
    }
    void validateBench(const BenchRequest &request) override { lab::validate(request); }
    BenchReport runBench(const BenchRequest &request, const ProgressFn &progress,
                         const CancelToken *cancel) override
    {
        return lab::runBench(request, progress, cancel);
    }
    void validateSample(const SampleRequest &request) override { lab::validate(request); }
    SampleRun runSample(const SampleRequest &request, bool keepInputFeatures) override
    {
        return lab::runSample(request, keepInputFeatures);
    }
    DistributionStats runDistribution(const SampleRequest &request, int64_t runs, const ProgressFn &progress,
                                      const CancelToken *cancel) override
    {
        return lab::runDistribution(request, runs, progress, cancel);
    }
    CaptureResult captureTrace(const CaptureRequest &request, const ProgressFn &progress,
                               const CancelToken *cancel) override
    {
        return lab::captureTrace(request, progress, cancel);
    }
};

} // namespace
} // namespace syncscope::lab

SYNCSCOPE_LAB_EXPORT int syncscope_lab_interface_version() { return syncscope::lab::kLabInterfaceVersion; }

SYNCSCOPE_LAB_EXPORT syncscope::lab::LabInterface *syncscope_lab_create(int version)
{
    if (version != syncscope::lab::kLabInterfaceVersion)
        return nullptr;
    static syncscope::lab::Lab lab;
    return &lab;
}
