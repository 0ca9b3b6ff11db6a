#pragma once
// The seam between the viewer and the lab, and the one declaration of each lab
// operation. The lab (samplers, bench harness, capture: everything that needs
// LibTorch) is a shared library loaded at run time on first use
// (labloader.h); the app and the CLI see it only through this abstract class,
// which one extern "C" factory returns, and call its operations on the
// instance they are given. Its one implementation is lab::TorchLab
// (impl/torchlab.h); tests give pages a fake. Only the value types of
// lab/api/ and common/ cross it (no torch types), so this header is torch-free.
//
// Bump kLabInterfaceVersion whenever this class or a type it passes changes:
// a lab built for another version is refused with a sentence, not called.
#include "common/progress.h"
#include "lab/api/bench.h"
#include "lab/api/capture.h"
#include "lab/api/device.h"
#include "lab/api/samplerun.h"

#include <string>

namespace syncscope::lab {

inline constexpr int kLabInterfaceVersion = 2;

class LabInterface {
public:
    virtual ~LabInterface() = default;

    // Facts about the lab's LibTorch and the machine.
    virtual std::string torchVersion() = 0;
    // Whether CUDA is usable; if not, why (one sentence).
    virtual bool cudaAvailable(std::string *why) = 0;
    virtual std::string deviceDescription(Device device) = 0;
    // Throws syncscope::Error with one sentence unless `device` is usable here
    // (the CPU always is; CUDA where this LibTorch has it and a device is visible).
    virtual void checkDevice(Device device) = 0;
    // Whether `variant` (variants.h) can run on `device` here; if not, why.
    virtual bool variantRunnable(const std::string &variant, Device device, std::string *why) = 0;

    // The work itself. Each throws syncscope::Error (one sentence) for a bad
    // request or a failure, and syncscope::Cancelled once `cancel` is set.
    // validate*: everything a run would refuse, checked without running.
    virtual void validateBench(const BenchRequest &request) = 0;
    virtual BenchReport runBench(const BenchRequest &request, const ProgressFn &progress,
                                 const CancelToken *cancel) = 0;
    virtual void validateSample(const SampleRequest &request) = 0;
    virtual SampleRun runSample(const SampleRequest &request, bool keepInputFeatures) = 0;
    virtual DistributionStats runDistribution(const SampleRequest &request, int64_t runs,
                                              const ProgressFn &progress, const CancelToken *cancel) = 0;
    // The trace file is written atomically: it is complete or absent.
    virtual CaptureResult captureTrace(const CaptureRequest &request, const ProgressFn &progress,
                                       const CancelToken *cancel) = 0;
};

} // namespace syncscope::lab

// Exported by the lab library (the only symbols it exports).
// syncscope_lab_interface_version: the kLabInterfaceVersion it was built with.
// syncscope_lab_create: the process-wide instance, or null when `version`
// differs from its own; never freed (the library is never unloaded).
#define SYNCSCOPE_LAB_VERSION_SYMBOL "syncscope_lab_interface_version"
#define SYNCSCOPE_LAB_CREATE_SYMBOL "syncscope_lab_create"
extern "C" {
typedef int (*SyncscopeLabVersionFn)();
typedef syncscope::lab::LabInterface *(*SyncscopeLabCreateFn)(int version);
}
