// TorchLab's facts (LibTorch, CUDA, devices, what can run), and what every
// operation shares: registry, validation, input generation and the floor; the
// lab boundary, where c10::Error becomes syncscope::Error.
#include "common/error.h"
#include "kernels/cpu/fusedsampler.h"
#include "lab/impl/sampler.h"
#include "lab/impl/torchcompat.h"
#include "lab/api/variants.h"
#include "lab/impl/torchlab.h"
#if defined(SYNCSCOPE_WITH_CUDA)
#include "lab/impl/cudalab.h"
#endif

#include "kernels/cpu/intraoppool.h"

#include <ATen/Parallel.h>
#include <torch/version.h>

#include <functional>
#include <sstream>

namespace syncscope::lab {

namespace {
// The kernels' backend: LibTorch's intra-op pool, at the thread count the
// kernels were given (set on the calling thread, as ATen's own ops read it).
void torchForRange(int threads, int64_t tasks, const std::function<void(int64_t, int64_t)> &body)
{
    if (at::get_num_threads() != threads)
        at::set_num_threads(threads);
    at::parallel_for(0, tasks, 1, body);
}
} // namespace

void useTorchIntraOpPool()
{
    static const bool installed = [] {
        kernels::IntraOpPool::instance().setBackend(&torchForRange);
        return true;
    }();
    (void)installed;
}

namespace {
// Installed before main, so code that reaches the kernels' pool directly
// (tests, tools) gets the same one pool as the lab's entry points.
const bool g_torchPoolInstalled = (useTorchIntraOpPool(), true);
} // namespace

void checkThreads(int threads)
{
    if (threads < 0 || threads > kernels::IntraOpPool::kMaxThreads)
        throw Error("threads must be between 1 and " + std::to_string(kernels::IntraOpPool::kMaxThreads) +
                    ", or 0 for all cores (got " + std::to_string(threads) + ")");
}

int useThreads(int threads)
{
    checkThreads(threads);
    useTorchIntraOpPool();
    auto &pool = kernels::IntraOpPool::instance();
    pool.setThreads(threads);
    at::set_num_threads(pool.threads());
    return pool.threads();
}

TorchLab &torchLab()
{
    static TorchLab lab;
    return lab;
}

std::string TorchLab::torchVersion()
{
#ifdef TORCH_VERSION
    return TORCH_VERSION;
#else
    std::ostringstream os;
    os << TORCH_VERSION_MAJOR << '.' << TORCH_VERSION_MINOR << '.' << TORCH_VERSION_PATCH;
    return os.str();
#endif
}

bool TorchLab::cudaAvailable(std::string *why)
{
#ifdef SYNCSCOPE_TORCH_HAS_CUDA
    if (at::globalContext().hasCUDA())
        return true;
    if (why)
        *why = "no CUDA device is visible to this process";
    return false;
#else
    if (why)
        *why = "this LibTorch (" + torchVersion() + ") was built without CUDA";
    return false;
#endif
}

void TorchLab::checkDevice(Device device)
{
    if (device == Device::Cpu)
        return;
    std::string why;
    if (!cudaAvailable(&why))
        throw Error("device 'cuda' was requested, but " + why);
}

bool TorchLab::variantRunnable(const std::string &variant, Device device, std::string *why)
{
    const VariantInfo *info = findVariant(variant);
    if (!info) {
        if (why)
            *why = "unknown variant '" + variant + "'";
        return false;
    }
    if (device == Device::Cuda) {
        std::string reason;
        if (!cudaAvailable(&reason)) {
            if (why)
                *why = reason;
            return false;
        }
#if !defined(SYNCSCOPE_WITH_CUDA)
        if (variant == "fused" || variant == "static-graph") {
            if (why)
                *why = variant + " needs syncscope built with its CUDA kernels (nvcc and a CUDA LibTorch)";
            return false;
        }
#endif
    } else if (info->needsCuda) {
        if (why)
            *why = variant + " runs on CUDA only";
        return false;
    }
    return true;
}

std::string TorchLab::deviceDescription(Device device)
{
    if (device == Device::Cuda) {
        std::string why;
        if (!cudaAvailable(&why))
            return "CUDA unavailable: " + why;
    }
    return deviceName(device);
}

namespace {
std::string shapeOf(const at::Tensor &t)
{
    std::ostringstream os;
    os << t.sizes();
    return os.str();
}
} // namespace

void validateTensors(const at::Tensor &features, const at::Tensor &labels, const SamplerConfig &cfg)
{
    if (cfg.k < 1)
        throw Error("K must be at least 1 (got " + std::to_string(cfg.k) + ")");
    if (!(cfg.targetPosFraction >= 0.0 && cfg.targetPosFraction <= 1.0))
        throw Error("target positive fraction must be in [0, 1] (got " + std::to_string(cfg.targetPosFraction) +
                    ")");
    if (!features.defined() || !labels.defined())
        throw Error("features and labels must both be given");
    if (features.dim() != 2 && features.dim() != 3)
        throw Error("features must have shape N x D or B x N x D (got " + shapeOf(features) + ")");
    if (labels.dim() != features.dim() - 1)
        throw Error("labels must have shape N (for N x D features) or B x N (for B x N x D); got labels " +
                    shapeOf(labels) + " with features " + shapeOf(features));
    if (!at::isFloatingType(features.scalar_type()))
        throw Error("features must be a floating-point tensor");
    if (at::isFloatingType(labels.scalar_type()) || at::isComplexType(labels.scalar_type()) ||
        labels.scalar_type() == at::kBool)
        throw Error("labels must be an integer tensor (1 positive, 0 negative, other values ignored)");
    for (int64_t d = 0; d < labels.dim(); ++d)
        if (labels.size(d) != features.size(d))
            throw Error("labels " + shapeOf(labels) + " do not match features " + shapeOf(features));
    if (features.device() != labels.device())
        throw Error("features and labels are on different devices");
    const int64_t D = features.size(features.dim() - 1), N = labels.size(labels.dim() - 1);
    if (N < 1)
        throw Error("N must be at least 1 (got " + std::to_string(N) + ")");
    if (D < 1)
        throw Error("D must be at least 1 (got " + std::to_string(D) + ")");
    if (labels.dim() == 2 && labels.size(0) < 1)
        throw Error("B must be at least 1 (got " + std::to_string(labels.size(0)) + ")");
}

namespace {
using VariantFn = SampleOutput (*)(const at::Tensor &, const at::Tensor &, const SamplerConfig &);

VariantFn variantFunction(const std::string &name)
{
    if (name == "naive")
        return &sampleNaive;
    if (name == "static")
        return &sampleStatic;
    if (name == "fused")
        return &sampleFused;
    if (name == "article-static")
        return &sampleArticleStatic;
#if defined(SYNCSCOPE_WITH_CUDA)
    if (name == "static-graph")
        return &sampleStaticGraph;
#endif
    return nullptr;
}

// c10 messages carry a backtrace and several lines; keep the first sentence.
std::string firstLine(const std::string &text)
{
    const auto pos = text.find('\n');
    return pos == std::string::npos ? text : text.substr(0, pos);
}

// c10::OutOfMemoryError is missing from 1.13's headers; its message is stable.
bool isOutOfMemory(const std::string &what) { return what.find("out of memory") != std::string::npos; }
} // namespace

SampleOutput runVariant(const std::string &name, const at::Tensor &features, const at::Tensor &labels,
                        const SamplerConfig &cfg)
{
    validateTensors(features, labels, cfg);
    useTorchIntraOpPool();
    std::string why;
    if (!torchLab().variantRunnable(name, features.is_cuda() ? Device::Cuda : Device::Cpu, &why))
        throw Error("cannot run variant '" + name + "': " + why);
    const bool batched = labels.dim() == 2;
    try {
        return variantFunction(name)(batched ? features : features.unsqueeze(0),
                                     batched ? labels : labels.unsqueeze(0), cfg);
    } catch (const c10::Error &e) {
        const std::string what = firstLine(e.what_without_backtrace());
        if (isOutOfMemory(what))
            throw Error("variant '" + name + "' ran out of " + (labels.is_cuda() ? "CUDA" : "host") +
                        " memory for B=" + std::to_string(batched ? labels.size(0) : 1) +
                        ", N=" + std::to_string(labels.size(-1)) + ", D=" + std::to_string(features.size(-1)) +
                        ", K=" + std::to_string(cfg.k) + "");
        throw Error("variant '" + name + "' failed: " + what);
    }
}

GeneratedInput generateInput(int64_t batch, int64_t n, int64_t dim, double posFrac, double ignoreFrac,
                             uint64_t seed, const at::Device &device, float *featuresInto)
{
    if (batch < 1 || n < 1 || dim < 1)
        throw Error("B, N and D must be at least 1");
    if (!(posFrac >= 0 && posFrac <= 1) || !(ignoreFrac >= 0 && ignoreFrac <= 1) ||
        posFrac + ignoreFrac > 1.0 + 1e-12)
        throw Error("positive and ignored fractions must be in [0, 1] and sum to at most 1");
    try {
        // Drawn where they will live: the CPU generator is serial, and a
        // 32 x 1e7 x 16 grid cell would spend a minute in it. One seed gives the
        // same data on every CPU, and on every CUDA device, not across the two.
        auto gen = compat::makeGenerator(device, seed);
        const auto opts = at::TensorOptions().device(device);
        const at::Tensor u = at::rand({batch, n}, gen, opts.dtype(at::kFloat));
        at::Tensor labels = at::zeros({batch, n}, opts.dtype(at::kLong));
        labels.masked_fill_(u < posFrac, 1);
        labels.masked_fill_((u >= posFrac).logical_and(u < posFrac + ignoreFrac), -1);
        if (featuresInto && device.is_cpu()) {
            // randn is an empty tensor filled by normal_(0, 1): the same draws.
            at::Tensor features = at::from_blob(featuresInto, {batch, n, dim}, opts.dtype(at::kFloat));
            features.normal_(0, 1, gen);
            return {features, labels};
        }
        at::Tensor features = at::randn({batch, n, dim}, gen, opts.dtype(at::kFloat));
        return {features, labels};
    } catch (const c10::Error &e) {
        const std::string what = firstLine(e.what_without_backtrace());
        if (isOutOfMemory(what))
            throw Error(std::string("the inputs (B=") + std::to_string(batch) + ", N=" + std::to_string(n) +
                        ", D=" + std::to_string(dim) + ") do not fit in " + (device.is_cuda() ? "CUDA" : "host") +
                        " memory");
        throw Error("could not allocate the inputs (B=" + std::to_string(batch) + ", N=" + std::to_string(n) +
                    ", D=" + std::to_string(dim) + "): " + what);
    }
}

int64_t labelReadPass(const at::Tensor &labels)
{
    if (labels.is_cuda()) {
#if defined(SYNCSCOPE_WITH_CUDA)
        // A blocking read of the count: for callers outside the harness, which
        // times labelReadPassCudaAsync with events instead.
        const at::Tensor out = at::empty({1}, labels.options().dtype(at::kLong));
        labelReadPassCudaAsync(labels, out);
        return out.item<int64_t>();
#else
        throw Error("CUDA labels in a build without CUDA");
#endif
    }
    useTorchIntraOpPool();
    const at::Tensor lab = labels.contiguous();
    kernels::LabelType type = kernels::LabelType::Int64;
    if (lab.scalar_type() == at::kByte)
        type = kernels::LabelType::UInt8;
    else if (lab.scalar_type() == at::kInt)
        type = kernels::LabelType::Int32;
    else if (lab.scalar_type() != at::kLong)
        throw Error("the label read pass takes uint8, int32 or int64 labels");
    return kernels::labelReadPassCpu(lab.data_ptr(), type, lab.numel());
}

} // namespace syncscope::lab
