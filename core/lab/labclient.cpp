// The lab's free functions as the viewer and the CLI see them: each loads the
// lab library (once) and calls into it. When it cannot load, the work fails
// with the loader's one sentence; the facts (CUDA available, runnable) say no,
// with that sentence as the reason.
#include "common/error.h"
#include "lab/bench.h"
#include "lab/capture.h"
#include "lab/labloader.h"
#include "lab/samplerun.h"
#include "lab/variants.h"

namespace syncscope::lab {

namespace {
LabInterface &lab()
{
    std::string error;
    LabInterface *l = loadLab(&error);
    if (!l)
        throw Error(error);
    return *l;
}
} // namespace

std::string torchVersion() { return lab().torchVersion(); }

bool cudaAvailable(std::string *why)
{
    std::string error;
    LabInterface *l = loadLab(&error);
    if (!l) {
        if (why)
            *why = error;
        return false;
    }
    return l->cudaAvailable(why);
}

std::string deviceDescription(const std::string &device) { return lab().deviceDescription(device); }

void checkDevice(const std::string &device) { lab().checkDevice(device); }

bool variantRunnable(const std::string &variant, const std::string &device, std::string *why)
{
    std::string error;
    LabInterface *l = loadLab(&error);
    if (!l) {
        if (why)
            *why = error;
        return false;
    }
    return l->variantRunnable(variant, device, why);
}

void validate(const BenchRequest &request) { lab().validateBench(request); }

BenchReport runBench(const BenchRequest &request, const ProgressFn &progress, const CancelToken *cancel)
{
    return lab().runBench(request, progress, cancel);
}

void validate(const SampleRequest &request) { lab().validateSample(request); }

SampleRun runSample(const SampleRequest &request, bool keepInputFeatures)
{
    return lab().runSample(request, keepInputFeatures);
}

DistributionStats runDistribution(const SampleRequest &request, int64_t runs, const ProgressFn &progress,
                                  const CancelToken *cancel)
{
    return lab().runDistribution(request, runs, progress, cancel);
}

CaptureResult captureTrace(const CaptureRequest &request, const ProgressFn &progress, const CancelToken *cancel)
{
    return lab().captureTrace(request, progress, cancel);
}

} // namespace syncscope::lab
