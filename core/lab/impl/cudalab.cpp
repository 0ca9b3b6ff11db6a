// The fused CUDA sampler on tensors, the device floors, and the static sampler
// replayed from a CUDA graph. Compiled only into CUDA builds.
#include "lab/impl/cudalab.h"

#include "lab/impl/cancelpoint.h"

#include "common/error.h"
#include "kernels/cuda/fusedsampler_cuda.h"
#include "lab/impl/torchcompat.h"

#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>

#include <list>
#include <mutex>
#include <vector>

namespace syncscope::lab {

namespace {
void *currentStream() { return at::cuda::getCurrentCUDAStream().stream(); }
} // namespace

SampleOutput sampleFusedCuda(const at::Tensor &features, const at::Tensor &labels, const SamplerConfig &cfg)
{
    const int64_t B = labels.size(0), N = labels.size(1), K = cfg.k, D = features.size(2);
    if (N > kernels::kFusedCudaMaxN)
        throw Error("fused on CUDA takes at most 2^31 - 1 labels per row (got N = " + std::to_string(N) + ")");
    const c10::cuda::CUDAGuard guard(labels.device());
    const FusedInputs in = fusedInputs(features, labels);
    const auto longOpts = labels.options().dtype(at::kLong);
    SampleOutput out;
    out.indices = at::empty({B, K}, longOpts);
    out.labels = at::empty({B, K}, longOpts);
    out.features = at::empty({B, K, D}, in.features.options());
    out.valid = at::empty({B}, longOpts);
    const kernels::FusedSamplerArgs a = fusedArgs(in, cfg, out);
    const size_t wsBytes = kernels::fusedSampleCudaWorkspaceBytes(a);
    at::Tensor workspace;
    if (wsBytes > 0)
        workspace = at::empty({static_cast<int64_t>(wsBytes)}, labels.options().dtype(at::kByte));
    kernels::fusedSampleCuda(a, wsBytes > 0 ? workspace.data_ptr() : nullptr, wsBytes, currentStream());
    return out;
}

void labelReadPassCudaAsync(const at::Tensor &labels, const at::Tensor &out)
{
    const c10::cuda::CUDAGuard guard(labels.device());
    const at::Tensor lab = labels.contiguous();
    const auto st = lab.scalar_type();
    if (st != at::kByte && st != at::kInt && st != at::kLong)
        throw Error("the label read pass takes uint8, int32 or int64 labels");
    kernels::labelReadPassCuda(lab.data_ptr(), kernelLabelType(st), lab.numel(), out.data_ptr<int64_t>(),
                               currentStream());
}

void gatherFloorCudaAsync(const kernels::GatherFloorArgs &args, const at::Tensor &count)
{
    const c10::cuda::CUDAGuard guard(count.device());
    kernels::gatherFloorCuda(args, count.data_ptr<int64_t>(), currentStream());
}

struct LaunchFloor::Impl {
    kernels::EmptyGraph graph;
};

LaunchFloor::LaunchFloor() : m_impl(std::make_unique<Impl>()) {}
LaunchFloor::~LaunchFloor() = default;
void LaunchFloor::replay() { m_impl->graph.replay(currentStream()); }

// ---- static-graph ---------------------------------------------------------

namespace {

struct GraphKey {
    const void *features, *labels;
    std::vector<int64_t> featureSizes, featureStrides, labelSizes, labelStrides;
    at::ScalarType featureType, labelType;
    c10::DeviceIndex device;
    int64_t k;
    double f;
    bool operator==(const GraphKey &o) const
    {
        return features == o.features && labels == o.labels && featureSizes == o.featureSizes &&
               featureStrides == o.featureStrides && labelSizes == o.labelSizes &&
               labelStrides == o.labelStrides && featureType == o.featureType && labelType == o.labelType &&
               device == o.device && k == o.k && f == o.f;
    }
};

struct GraphEntry {
    GraphKey key;
    at::Tensor features, labels; // held so the captured addresses stay valid
    at::Generator gen;
    std::unique_ptr<at::cuda::CUDAGraph> graph;
    SampleOutput out; // the graph's static outputs
};

// Each cached graph keeps its own memory pool, so the cache is small and LRU.
constexpr size_t kMaxGraphs = 8;

std::mutex &cacheMutex()
{
    static std::mutex m;
    return m;
}
std::list<std::unique_ptr<GraphEntry>> &cache()
{
    static std::list<std::unique_ptr<GraphEntry>> c;
    return c;
}
std::atomic<int64_t> g_captures{0};

GraphKey keyFor(const at::Tensor &features, const at::Tensor &labels, const SamplerConfig &cfg)
{
    return {features.data_ptr(),     labels.data_ptr(),
            features.sizes().vec(),  features.strides().vec(),
            labels.sizes().vec(),    labels.strides().vec(),
            features.scalar_type(),  labels.scalar_type(),
            labels.device().index(), cfg.k,
            cfg.targetPosFraction};
}

std::unique_ptr<GraphEntry> capture(const at::Tensor &features, const at::Tensor &labels, const SamplerConfig &cfg,
                                    GraphKey key)
{
#if !defined(SYNCSCOPE_GRAPH_GENERATORS)
    (void)features;
    (void)labels;
    (void)cfg;
    (void)key;
    throw Error("static-graph needs LibTorch 2.4 or later (graph-registered generators)");
#else
    auto e = std::make_unique<GraphEntry>();
    e->key = std::move(key);
    e->features = features;
    e->labels = labels;
    e->gen = compat::makeGenerator(labels.device(), cfg.seed);
    e->graph = compat::makeCudaGraph();

    // Capture on a side stream that first waits for the caller's stream, and
    // let the caller's stream wait for the side stream afterwards.
    const auto current = at::cuda::getCurrentCUDAStream();
    const auto side = at::cuda::getStreamFromPool(false, labels.device().index());
    at::cuda::CUDAEvent ready;
    ready.record(current);
    ready.block(side);
    {
        const c10::cuda::CUDAStreamGuard onSide(side);
        // One eager run on the side stream first: lazy initialisation (kernel
        // loading, workspace sizing) must not happen inside the capture.
        sampleStaticWith(features, labels, cfg, e->gen);
        compat::registerGenerator(*e->graph, e->gen);
        e->graph->capture_begin();
        try {
            // A capture is never cut short: the whole step is recorded or none.
            const CancelScope uninterrupted(nullptr);
            e->out = sampleStaticWith(features, labels, cfg, e->gen);
        } catch (...) {
            try {
                e->graph->capture_end();
            } catch (...) {
            }
            throw;
        }
        e->graph->capture_end();
    }
    at::cuda::CUDAEvent done;
    done.record(side);
    done.block(current);
    ++g_captures;
    return e;
#endif
}
} // namespace

SampleOutput runStaticGraph(const at::Tensor &features, const at::Tensor &labels, const SamplerConfig &cfg,
                            bool reseed)
{
    if (!labels.is_cuda())
        throw Error("static-graph runs on CUDA only");
    const c10::cuda::CUDAGuard guard(labels.device());
    std::lock_guard<std::mutex> lock(cacheMutex());
    GraphKey key = keyFor(features, labels, cfg);
    auto &c = cache();
    auto it = c.begin();
    for (; it != c.end(); ++it)
        if ((*it)->key == key)
            break;
    if (it != c.end()) {
        c.splice(c.begin(), c, it); // most recently used first
    } else {
        while (c.size() >= kMaxGraphs)
            c.pop_back();
        c.push_front(capture(features, labels, cfg, std::move(key)));
    }
    GraphEntry &e = *c.front();
    if (reseed) {
        std::lock_guard<std::mutex> genLock(e.gen.mutex());
        e.gen.set_current_seed(cfg.seed); // also restarts the Philox offset at 0
    }
    e.graph->replay();
    // The static outputs are overwritten by the next replay: hand out copies.
    return {e.out.indices.clone(), e.out.labels.clone(), e.out.features.clone(), e.out.valid.clone()};
}

SampleOutput sampleStaticGraph(const at::Tensor &features, const at::Tensor &labels, const SamplerConfig &cfg)
{
    return runStaticGraph(features, labels, cfg, true);
}

int64_t staticGraphCaptures() { return g_captures.load(); }

void releaseStaticGraphs()
{
    std::lock_guard<std::mutex> lock(cacheMutex());
    cache().clear();
}

} // namespace syncscope::lab
