// The benchmark harness. CPU steps are timed with a steady clock around a call
// whose outputs are complete when it returns; CUDA steps with event pairs, and
// on CUDA also syncs per step (sync debug mode), peak memory per step (the
// caching allocator's stats) and the launch floor (an empty graph replay).
#include "lab/api/bench.h"

#include "common/error.h"
#include "kernels/cpu/intraoppool.h"
#include "kernels/cpu/fusedsampler.h"
#include "lab/impl/cancelpoint.h"
#include "lab/impl/hostalloc.h"
#include "lab/impl/sampler.h"
#include "lab/impl/torchcompat.h"

#include "lab/api/variants.h"
#include "lab/impl/torchlab.h"

#include <ATen/Parallel.h>
#if defined(SYNCSCOPE_WITH_CUDA)
#include "lab/impl/cudalab.h"

#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAFunctions.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <numeric>

namespace syncscope::lab {

static_assert(kMaxThreads == kernels::IntraOpPool::kMaxThreads, "the lab's thread cap is the pool's");

void TorchLab::validateBench(const BenchRequest &r)
{
    if (r.variants.empty())
        throw Error("choose at least one variant");
    for (const auto &v : r.variants)
        if (!findVariant(v))
            throw Error("unknown variant '" + v + "' (see `syncscope-cli variants`)");
    if (r.points.empty())
        throw Error("give at least one N");
    if (r.warmup < 0)
        throw Error("warm-up iterations must be 0 or more (got " + std::to_string(r.warmup) + ")");
    if (r.iters < 1)
        throw Error("iterations must be at least 1 (got " + std::to_string(r.iters) + ")");
    checkThreads(r.threads);
    for (const auto &p : r.points) {
        if (p.n < 1)
            throw Error("N must be at least 1 (got " + std::to_string(p.n) + ")");
        if (p.k < 1)
            throw Error("K must be at least 1 (got " + std::to_string(p.k) + ")");
        if (p.batch < 1)
            throw Error("B must be at least 1 (got " + std::to_string(p.batch) + ")");
        if (p.dim < 1)
            throw Error("D must be at least 1 (got " + std::to_string(p.dim) + ")");
        if (!(p.posFrac >= 0 && p.posFrac <= 1))
            throw Error("positive fraction must be in [0, 1] (got " + std::to_string(p.posFrac) + ")");
        if (!(p.ignoreFrac >= 0 && p.ignoreFrac <= 1) || p.posFrac + p.ignoreFrac > 1 + 1e-12)
            throw Error("ignored fraction must be in [0, 1 - positive fraction] (got " +
                        std::to_string(p.ignoreFrac) + ")");
        if (!(p.targetPosFraction >= 0 && p.targetPosFraction <= 1))
            throw Error("target positive fraction must be in [0, 1] (got " + std::to_string(p.targetPosFraction) +
                        ")");
    }
    checkDevice(r.device);
}

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Reports at most every 50 ms (and always the end), and polls the cancel token.
class Ticker {
public:
    Ticker(const ProgressFn &fn, const CancelToken *cancel, int64_t total)
        : m_fn(fn), m_cancel(cancel), m_total(std::max<int64_t>(1, total))
    {
    }
    void step(const char *what)
    {
        ++m_done;
        if (m_cancel && m_cancel->cancelled())
            throw Cancelled();
        if (m_fn && (m_done == m_total || msSince(m_last) >= 50.0)) {
            m_last = Clock::now();
            m_fn(static_cast<double>(m_done) / static_cast<double>(m_total), what);
        }
    }

private:
    const ProgressFn &m_fn;
    const CancelToken *m_cancel;
    int64_t m_total;
    int64_t m_done = 0;
    Clock::time_point m_last = Clock::now() - std::chrono::seconds(1);
};

int inputSetsFor(const BenchRequest &r, const BenchPoint &p)
{
    if (r.inputSets > 0)
        return r.inputSets;
    const double bytes = static_cast<double>(p.batch) * static_cast<double>(p.n) *
                         (static_cast<double>(p.dim) * 4.0 + 8.0);
    const double budget = 2.0 * 1024 * 1024 * 1024;
    return static_cast<int>(std::clamp(std::floor(budget / std::max(1.0, bytes)), 1.0, 4.0));
}

// Times `perCell` calls of step(it), keeping those after the warm-up. CPU: a
// steady clock around calls whose outputs are complete on return. CUDA: an
// event pair per step on the current stream, read once after the last step,
// so no step waits for the device unless the variant itself syncs.
// afterWarmup() runs once between the warm-up and the first timed step.
template <typename Step, typename Hook>
std::vector<double> timeSteps(bool cuda, int warmup, int iters, Ticker &ticker, const char *what, Step &&step,
                              Hook &&afterWarmup)
{
    std::vector<double> t;
    t.reserve(static_cast<size_t>(iters));
    const int64_t perCell = int64_t(warmup) + iters;
#if defined(SYNCSCOPE_WITH_CUDA)
    if (cuda) {
        std::vector<at::cuda::CUDAEvent> start, end;
        start.reserve(static_cast<size_t>(iters));
        end.reserve(static_cast<size_t>(iters));
        for (int64_t it = 0; it < perCell; ++it) {
            if (it == warmup)
                afterWarmup();
            if (it >= warmup) {
                start.emplace_back(cudaEventDefault);
                start.back().record();
            }
            step(it);
            if (it >= warmup) {
                end.emplace_back(cudaEventDefault);
                end.back().record();
            }
            ticker.step(what);
        }
        if (warmup >= perCell)
            afterWarmup();
        if (!end.empty())
            end.back().synchronize();
        for (size_t i = 0; i < start.size(); ++i)
            t.push_back(static_cast<double>(start[i].elapsed_time(end[i])));
        return t;
    }
#else
    (void)cuda;
#endif
    for (int64_t it = 0; it < perCell; ++it) {
        if (it == warmup)
            afterWarmup();
        const auto t0 = Clock::now();
        step(it);
        const double ms = msSince(t0);
        if (it >= warmup)
            t.push_back(ms);
        ticker.step(what);
    }
    return t;
}

std::string oneLine(const char *what)
{
    std::string s(what);
    const auto pos = s.find('\n');
    return pos == std::string::npos ? s : s.substr(0, pos);
}

// The gather floor's inputs and outputs for one input set: K' = min(K, N)
// sorted distinct uniform indices per row, drawn before timing, and outputs
// allocated once like the fused sampler's (hostalloc.h).
struct GatherFloorSet {
    at::Tensor indices, outIndices, outLabels, outFeatures;
    kernels::GatherFloorArgs args;
};

// On the inputs' device: the indices are drawn on the host (and copied for CUDA).
GatherFloorSet makeGatherFloorSet(const GeneratedInput &in, int64_t k, uint64_t seed)
{
    const at::Tensor labels = in.labels.contiguous(), features = in.features.contiguous();
    const int64_t B = labels.size(0), N = labels.size(1), D = features.size(2), kk = std::min(k, N);
    GatherFloorSet g;
    at::Tensor indices = at::empty({B, kk}, at::kLong);
    for (int64_t b = 0; b < B; ++b)
        kernels::sortedRandomSubset(N, kk, seed, static_cast<uint64_t>(b), indices.data_ptr<int64_t>() + b * kk);
    if (labels.is_cuda()) {
        g.indices = indices.to(labels.device());
        g.outIndices = at::empty({B, kk}, labels.options().dtype(at::kLong));
        g.outLabels = at::empty({B, kk}, labels.options().dtype(at::kLong));
        g.outFeatures = at::empty({B, kk, D}, features.options());
    } else {
        g.indices = indices;
        g.outIndices = emptyHostOutput({B, kk}, at::kLong);
        g.outLabels = emptyHostOutput({B, kk}, at::kLong);
        g.outFeatures = emptyHostOutput({B, kk, D}, features.scalar_type());
    }
    auto &a = g.args;
    a.labels = labels.data_ptr();
    a.labelType = kernelLabelType(labels.scalar_type());
    a.batch = B;
    a.n = N;
    a.features = static_cast<const uint8_t *>(features.data_ptr());
    a.featureRowBytes = D * static_cast<int64_t>(features.element_size());
    a.featureBatchStride = N * a.featureRowBytes;
    a.k = kk;
    a.indices = g.indices.data_ptr<int64_t>();
    a.outIndices = g.outIndices.data_ptr<int64_t>();
    a.outLabels = g.outLabels.data_ptr<int64_t>();
    a.outFeatures = static_cast<uint8_t *>(g.outFeatures.data_ptr());
    return g;
}


// Steps run with the sync debug mode on, after the timed ones: a warning costs
// host time, so counting stays out of the timing.
constexpr int kSyncCountSteps = 5;

} // namespace

BenchReport TorchLab::runBench(const BenchRequest &request, const ProgressFn &progress, const CancelToken *cancel)
{
    validateBench(request);
    // The samplers poll the token between their ATen calls (cancelpoint.h), so
    // the worker stops within one ATen call of Cancel, not one step.
    const CancelScope cancelScope(cancel);
    BenchReport report;
    report.device = deviceName(request.device);
    report.torchVersion = torchVersion();
    // Our kernels and ATen's intra-op pool get the same thread count, so the
    // comparison is fair.
    report.threads = useThreads(request.threads);
    report.warmup = request.warmup;
    report.seed = request.seed;
    const bool cuda = request.device == Device::Cuda;
    const at::Device device(cuda ? at::kCUDA : at::kCPU);
    const char *timer = cuda ? "cuda_events" : "steady_clock";

    const int64_t perCell = request.warmup + request.iters;
    const int64_t syncSteps = cuda ? kSyncCountSteps : 0;
    Ticker ticker(progress, cancel,
                  static_cast<int64_t>(request.points.size()) *
                      (static_cast<int64_t>(request.variants.size() + 2) * perCell +
                       static_cast<int64_t>(request.variants.size()) * syncSteps));

#if defined(SYNCSCOPE_WITH_CUDA)
    std::unique_ptr<LaunchFloor> launchFloor;
    if (cuda)
        launchFloor = std::make_unique<LaunchFloor>();
#endif

    for (size_t pi = 0; pi < request.points.size(); ++pi) {
        const BenchPoint &p = request.points[pi];
        std::vector<GeneratedInput> sets;
        std::string inputError;
        try {
            const int count = inputSetsFor(request, p);
            for (int s = 0; s < count; ++s) {
                cancelPoint();
                sets.push_back(generateInput(p.batch, p.n, p.dim, p.posFrac, p.ignoreFrac,
                                             pointSeed(request.seed, pi) + static_cast<uint64_t>(s), device));
            }
            cancelPoint();
        } catch (const Cancelled &) {
            throw;
        } catch (const Error &e) {
            inputError = e.what();
        }
        auto noHook = [] {};

        // The floors, in the same run: one read pass over the same labels and,
        // on CUDA, one replay of a graph holding one empty kernel.
        double floorMs = 0;
        std::optional<double> launchFloorMs, gatherFloorMs;
        if (inputError.empty()) {
            try {
#if defined(SYNCSCOPE_WITH_CUDA)
                if (cuda) {
                    const at::Tensor count = at::empty({1}, sets.front().labels.options().dtype(at::kLong));
                    floorMs = summarize(timeSteps(
                                            true, request.warmup, request.iters, ticker, "floor",
                                            [&](int64_t it) {
                                                labelReadPassCudaAsync(
                                                    sets[static_cast<size_t>(it) % sets.size()].labels, count);
                                            },
                                            noHook))
                                  .medianMs;
                    launchFloorMs = summarize(timeSteps(
                                                  true, request.warmup, request.iters, ticker, "launch floor",
                                                  [&](int64_t) { launchFloor->replay(); }, noHook))
                                        .medianMs;
                    std::vector<GatherFloorSet> gather;
                    for (size_t s = 0; s < sets.size(); ++s)
                        gather.push_back(makeGatherFloorSet(sets[s], p.k, request.seed + 7919ull * (s + 1)));
                    gatherFloorMs = summarize(timeSteps(
                                                  true, request.warmup, request.iters, ticker, "gather floor",
                                                  [&](int64_t it) {
                                                      gatherFloorCudaAsync(
                                                          gather[static_cast<size_t>(it) % gather.size()].args,
                                                          count);
                                                  },
                                                  noHook))
                                        .medianMs;
                }
#endif
                if (!cuda)
                    floorMs = summarize(timeSteps(
                                            false, request.warmup, request.iters, ticker, "floor",
                                            [&](int64_t it) {
                                                volatile int64_t sink = labelReadPass(
                                                    sets[static_cast<size_t>(it) % sets.size()].labels);
                                                (void)sink;
                                            },
                                            noHook))
                                  .medianMs;
                if (!cuda) {
                    std::vector<GatherFloorSet> gather;
                    for (size_t s = 0; s < sets.size(); ++s)
                        gather.push_back(makeGatherFloorSet(sets[s], p.k, request.seed + 7919ull * (s + 1)));
                    gatherFloorMs = summarize(timeSteps(
                                                  false, request.warmup, request.iters, ticker, "gather floor",
                                                  [&](int64_t it) {
                                                      volatile int64_t sink = kernels::gatherFloorCpu(
                                                          gather[static_cast<size_t>(it) % gather.size()].args);
                                                      (void)sink;
                                                  },
                                                  noHook))
                                        .medianMs;
                }
            } catch (const c10::Error &e) {
                inputError = "the floor could not run: " + oneLine(e.what_without_backtrace());
            }
        }

        for (const auto &variant : request.variants) {
            BenchResult res;
            res.variant = variant;
            res.point = p;
            res.device = report.device;
            res.floorMs = floorMs;
            res.launchFloorMs = launchFloorMs;
            res.gatherFloorMs = gatherFloorMs;
            res.timer = timer;
            std::string why;
            if (!inputError.empty()) {
                res.error = inputError;
            } else if (!variantRunnable(variant, request.device, &why)) {
                res.error = why;
            }
            if (!res.error.empty()) {
                for (int64_t it = 0; it < perCell + syncSteps; ++it)
                    ticker.step(variant.c_str());
                report.results.push_back(res);
                continue;
            }
            SamplerConfig cfg{p.k, p.targetPosFraction, request.seed};
            auto step = [&](int64_t it) {
                const auto &set = sets[static_cast<size_t>(it) % sets.size()];
                cfg.seed = request.seed + static_cast<uint64_t>(it);
                SampleOutput out = runVariant(variant, set.features, set.labels, cfg);
                (void)out;
            };
            try {
#if defined(SYNCSCOPE_WITH_CUDA)
                if (cuda) {
                    // Peak memory of the timed steps above what was allocated
                    // when they began (inputs, and any captured graph's pool,
                    // excluded); reset per variant after its warm-up.
                    const c10::DeviceIndex dev = c10::cuda::current_device();
                    int64_t base = 0;
                    auto resetPeak = [&] {
                        c10::cuda::device_synchronize();
                        base = compat::cudaAllocatedBytes(dev);
                        compat::cudaResetPeak(dev);
                    };
                    res.samplesMs = timeSteps(true, request.warmup, request.iters, ticker, variant.c_str(), step,
                                              resetPeak);
                    res.stats = summarize(res.samplesMs);
                    res.peakBytes = std::max<int64_t>(0, compat::cudaPeakAllocatedBytes(dev) - base);
                    int64_t syncs = 0;
                    {
                        compat::SyncCounter counter;
                        for (int64_t s = 0; s < syncSteps; ++s) {
                            step(perCell + s);
                            ticker.step(variant.c_str());
                        }
                        syncs = counter.syncs();
                    }
                    c10::cuda::device_synchronize();
                    res.syncsPerStep = static_cast<double>(syncs) / static_cast<double>(syncSteps);
                    releaseStaticGraphs();
                }
#endif
                if (!cuda) {
                    res.samplesMs = timeSteps(false, request.warmup, request.iters, ticker, variant.c_str(), step,
                                              noHook);
                    res.stats = summarize(res.samplesMs);
                }
                res.iters = request.iters;
            } catch (const Cancelled &) {
                throw;
            } catch (const Error &e) {
                res.error = e.what();
            } catch (const c10::Error &e) {
                // e.g. out of memory in the harness's own events
                res.error = "variant '" + variant + "' failed: " + oneLine(e.what_without_backtrace());
            }
#if defined(SYNCSCOPE_WITH_CUDA)
            if (cuda && !res.error.empty())
                releaseStaticGraphs();
#endif
            report.results.push_back(res);
        }
    }
    return report;
}

} // namespace syncscope::lab
