// CUDA variants: the same contract and statistics as on the CPU, graph replay,
// capturability, out-of-memory errors and the harness's CUDA fields. Every
// test that needs a device skips with the reason where none is usable; the
// refusal of `cuda` on a build or machine without it runs everywhere.
// Statistical assertions use fixed seeds and the threshold 1e-4 (false-positive
// rate 1e-4 each, and with fixed seeds a pass stays a pass).
#include "lab/impl/torchlab.h"
#include "common/error.h"
#include "lab/api/bench.h"
#include "lab/impl/sampler.h"
#include "lab/api/samplerun.h"
#include "lab/api/variants.h"
#include "samplercheck.h"
#include "testutil.h"

#if defined(SYNCSCOPE_WITH_CUDA)
#include "lab/impl/cudalab.h"

#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#endif

#include <gtest/gtest.h>

using namespace syncscope;
using namespace syncscope::lab;
using namespace syncscope::lab::samplertest;

namespace {
constexpr double kAlpha = 1e-4;

#define SKIP_WITHOUT_CUDA()                                                                                       \
    do {                                                                                                          \
        std::string why_;                                                                                         \
        if (!torchLab().cudaAvailable(&why_))                                                                     \
            GTEST_SKIP() << "CUDA unavailable: " << why_;                                                         \
    } while (0)

std::vector<std::string> cudaVariantNames()
{
    // Listed whatever this machine has, so the tests exist (and skip) everywhere.
    std::vector<std::string> v;
    for (const auto &info : allVariants())
        if (!info.reference) // kept to show its defects, not held to the contract
            v.push_back(info.name);
    return v;
}

bool oneSentence(const std::string &s) { return !s.empty() && s.find('\n') == std::string::npos; }

at::Device cudaDevice() { return at::Device(at::kCUDA, 0); }

class CudaVariant : public ::testing::TestWithParam<std::string> {};
} // namespace

TEST(CudaRequest, RefusedWithOneSentenceWhereCudaIsMissing)
{
    std::string why;
    if (torchLab().cudaAvailable(&why))
        GTEST_SKIP() << "CUDA is available here; the refusal cannot be observed";
    try {
        torchLab().checkDevice(Device::Cuda);
        FAIL() << "cuda accepted without CUDA";
    } catch (const Error &e) {
        const std::string msg = e.what();
        EXPECT_TRUE(oneSentence(msg)) << msg;
        EXPECT_NE(msg.find("'cuda' was requested"), std::string::npos) << msg;
        EXPECT_NE(msg.find(why), std::string::npos) << msg;
    }
    SampleRequest r;
    r.input.device = Device::Cuda;
    EXPECT_THROW(torchLab().validateSample(r), Error);
    BenchRequest b;
    b.variants = {"fused"};
    b.points = {BenchPoint{}};
    b.device = Device::Cuda;
    EXPECT_THROW(torchLab().runBench(b, nullptr, nullptr), Error);
    for (const auto &v : allVariants()) {
        std::string reason;
        EXPECT_FALSE(torchLab().variantRunnable(v.name, Device::Cuda, &reason)) << v.name;
        EXPECT_TRUE(oneSentence(reason)) << v.name << ": " << reason;
    }
}

TEST(CudaRegistry, NaiveIsReportedAsNotCapturable)
{
    const VariantInfo *naive = findVariant("naive");
    ASSERT_NE(naive, nullptr);
    EXPECT_FALSE(naive->capturable);
    EXPECT_NE(naive->notCapturableReason.find("data-dependent"), std::string::npos);
    const VariantInfo *graph = findVariant("static-graph");
    ASSERT_NE(graph, nullptr);
    EXPECT_TRUE(graph->needsCuda);
    EXPECT_TRUE(graph->capturable);
    std::string why;
    EXPECT_FALSE(torchLab().variantRunnable("static-graph", Device::Cpu, &why));
    EXPECT_NE(why.find("CUDA"), std::string::npos) << why;
}

TEST_P(CudaVariant, CountRuleAndContractOnATable)
{
    SKIP_WITHOUT_CUDA();
    checkContractTable(GetParam(), cudaDevice());
}

TEST_P(CudaVariant, FullRowsOnRandomInputsSmallAndMultiTile)
{
    SKIP_WITHOUT_CUDA();
    // N = 500 takes the one-block path of fused; N = 70001 (9 tiles, a ragged
    // last word) the count/scan/select path.
    for (auto [b, n, k] : {std::tuple<int64_t, int64_t, int64_t>{3, 500, 64}, {2, 70001, 5000}}) {
        const auto in = generateInput(b, n, 16, 0.3, 0.2, 11, cudaDevice());
        const auto out = runVariant(GetParam(), in.features, in.labels, {k, 0.5, 5});
        EXPECT_TRUE(out.indices.is_cuda());
        checkOutput(in.features, in.labels, out, k, 0.5);
    }
}

TEST_P(CudaVariant, LabelDtypesUint8Int32Int64Int16)
{
    SKIP_WITHOUT_CUDA();
    const auto in = generateInput(2, 300, 2, 0.4, 0.0, 9, cudaDevice());
    for (auto dtype : {at::kByte, at::kInt, at::kLong, at::kShort}) {
        const auto out = runVariant(GetParam(), in.features, in.labels.to(dtype), {31, 0.5, 2});
        checkOutput(in.features, in.labels, out, 31, 0.5);
    }
}

TEST_P(CudaVariant, SameSeedSameOutputDifferentSeedDifferentOutput)
{
    SKIP_WITHOUT_CUDA();
    const auto in = generateInput(2, 40000, 4, 0.5, 0.1, 21, cudaDevice());
    const auto a = runVariant(GetParam(), in.features, in.labels, {100, 0.5, 42});
    const auto b = runVariant(GetParam(), in.features, in.labels, {100, 0.5, 42});
    const auto c = runVariant(GetParam(), in.features, in.labels, {100, 0.5, 43});
    EXPECT_TRUE(a.indices.equal(b.indices));
    EXPECT_TRUE(a.features.equal(b.features));
    EXPECT_FALSE(a.indices.equal(c.indices));
}

TEST_P(CudaVariant, EveryEligibleItemIsEquallyLikely)
{
    SKIP_WITHOUT_CUDA();
    syncscope::test::expectUniformSelection(GetParam(), Device::Cuda, 2000);
}

TEST_P(CudaVariant, PositivesAreUniformOverOutputPositionsAtStrongImbalance)
{
    SKIP_WITHOUT_CUDA();
    syncscope::test::expectUniformOrderAtImbalance(GetParam(), Device::Cuda);
}

TEST_P(CudaVariant, OutOfMemoryIsOneClearSentence)
{
    SKIP_WITHOUT_CUDA();
    const auto in = generateInput(1, 1000, 16, 0.5, 0.0, 1, cudaDevice());
    // K = 2^40 slots of 64-byte rows: 64 TiB, far beyond any card.
    try {
        runVariant(GetParam(), in.features, in.labels, {int64_t(1) << 40, 0.5, 0});
        FAIL() << "no error";
    } catch (const Error &e) {
        const std::string msg = e.what();
        EXPECT_TRUE(oneSentence(msg)) << msg;
        EXPECT_NE(msg.find("ran out of CUDA memory"), std::string::npos) << msg;
    }
    // and the device is still usable afterwards
    const auto out = runVariant(GetParam(), in.features, in.labels, {10, 0.5, 0});
    checkOutput(in.features, in.labels, out, 10, 0.5);
}

INSTANTIATE_TEST_SUITE_P(Cuda, CudaVariant, ::testing::ValuesIn(cudaVariantNames()), [](const auto &info) {
    std::string name = info.param;
    for (auto &c : name)
        if (c == '-')
            c = '_';
    return name;
});

TEST(CudaBench, FillsEventTimingSyncsPeakMemoryAndBothFloors)
{
    SKIP_WITHOUT_CUDA();
    BenchRequest req;
    req.variants = {"naive", "static", "static-graph", "fused"};
    BenchPoint p;
    p.n = 20000;
    p.k = 2000;
    p.batch = 2;
    req.points = {p};
    req.device = Device::Cuda;
    req.warmup = 3;
    req.iters = 5;
    const auto rep = torchLab().runBench(req, nullptr, nullptr);
    ASSERT_EQ(rep.results.size(), 4u);
    for (const auto &r : rep.results) {
        ASSERT_TRUE(r.error.empty()) << r.variant << ": " << r.error;
        EXPECT_EQ(r.timer, "cuda_events");
        EXPECT_GT(r.stats.medianMs, 0) << r.variant;
        EXPECT_GT(r.floorMs, 0);
        ASSERT_TRUE(r.launchFloorMs.has_value());
        EXPECT_GT(*r.launchFloorMs, 0);
        ASSERT_TRUE(r.gatherFloorMs.has_value());
        EXPECT_GT(*r.gatherFloorMs, 0);
        ASSERT_TRUE(r.syncsPerStep.has_value()) << r.variant;
        ASSERT_TRUE(r.peakBytes.has_value()) << r.variant;
        if (r.variant == "naive")
            EXPECT_GE(*r.syncsPerStep, 1.0); // nonzero's count must reach the host
        else
            EXPECT_EQ(*r.syncsPerStep, 0.0) << r.variant;
        // every variant allocates at least its outputs: B*K*(8 + 8 + 4*D) bytes
        EXPECT_GE(*r.peakBytes, 2 * 2000 * (16 + 64)) << r.variant;
    }
}

#if defined(SYNCSCOPE_WITH_CUDA)

// The device gather floor copies what the CPU one copies, and counts the positives.
TEST(CudaFloor, GatherFloorMatchesTheCpuFloor)
{
    SKIP_WITHOUT_CUDA();
    const auto in = generateInput(3, 5003, 16, 0.3, 0.1, 4, cudaDevice());
    const int64_t B = 3, N = 5003, K = 701, D = 16;
    at::Tensor indices = at::empty({B, K}, at::kLong);
    for (int64_t b = 0; b < B; ++b)
        kernels::sortedRandomSubset(N, K, 99, static_cast<uint64_t>(b), indices.data_ptr<int64_t>() + b * K);
    const at::Tensor dIdx = indices.to(in.labels.device());
    at::Tensor oIdx = at::empty({B, K}, in.labels.options().dtype(at::kLong));
    at::Tensor oLab = at::empty({B, K}, in.labels.options().dtype(at::kLong));
    at::Tensor oFeat = at::empty({B, K, D}, in.features.options());
    const at::Tensor count = at::empty({1}, in.labels.options().dtype(at::kLong));
    kernels::GatherFloorArgs a;
    a.labels = in.labels.data_ptr();
    a.labelType = kernels::LabelType::Int64;
    a.batch = B;
    a.n = N;
    a.features = static_cast<const uint8_t *>(in.features.data_ptr());
    a.featureRowBytes = D * 4;
    a.featureBatchStride = N * a.featureRowBytes;
    a.k = K;
    a.indices = dIdx.data_ptr<int64_t>();
    a.outIndices = oIdx.data_ptr<int64_t>();
    a.outLabels = oLab.data_ptr<int64_t>();
    a.outFeatures = static_cast<uint8_t *>(oFeat.data_ptr());
    gatherFloorCudaAsync(a, count);
    EXPECT_EQ(count.item<int64_t>(), (in.labels == 1).sum().item<int64_t>());
    EXPECT_TRUE(oIdx.cpu().equal(indices));
    EXPECT_TRUE(oLab.equal(in.labels.gather(1, dIdx)));
    EXPECT_TRUE(oFeat.equal(in.features.gather(1, dIdx.unsqueeze(-1).expand({B, K, D}))));
}

TEST(CudaFloor, LabelReadPassCountsThePositives)
{
    SKIP_WITHOUT_CUDA();
    const auto in = generateInput(3, 100003, 1, 0.3, 0.1, 4, cudaDevice());
    const int64_t want = (in.labels == 1).sum().item<int64_t>();
    EXPECT_EQ(labelReadPass(in.labels), want);
    EXPECT_EQ(labelReadPass(in.labels.to(at::kInt)), want);
    EXPECT_EQ(labelReadPass(in.labels.to(at::kByte)), want);
}

TEST(StaticGraph, ReplaysGiveFreshRandomnessAndReseedingRepeats)
{
    SKIP_WITHOUT_CUDA();
    releaseStaticGraphs();
    const auto in = generateInput(2, 5000, 8, 0.5, 0.0, 3, cudaDevice());
    const SamplerConfig cfg{200, 0.5, 9};
    const int64_t before = staticGraphCaptures();
    const auto a = runStaticGraph(in.features, in.labels, cfg, true);
    const auto b = runStaticGraph(in.features, in.labels, cfg, false);
    const auto c = runStaticGraph(in.features, in.labels, cfg, false);
    const auto again = runStaticGraph(in.features, in.labels, cfg, true);
    EXPECT_EQ(staticGraphCaptures(), before + 1) << "one capture, then replays only";
    EXPECT_FALSE(a.indices.equal(b.indices)) << "replay repeated the previous numbers";
    EXPECT_FALSE(b.indices.equal(c.indices)) << "replay repeated the previous numbers";
    EXPECT_TRUE(a.indices.equal(again.indices)) << "reseeding must repeat the output";
    for (const auto *out : {&a, &b, &c})
        checkOutput(in.features, in.labels, *out, 200, 0.5);
}

TEST(StaticGraph, NewDataWrittenIntoTheSameBuffersIsSampled)
{
    SKIP_WITHOUT_CUDA();
    releaseStaticGraphs();
    auto in = generateInput(1, 3000, 4, 0.5, 0.0, 5, cudaDevice());
    runStaticGraph(in.features, in.labels, {100, 0.5, 1}, true);
    const auto fresh = generateInput(1, 3000, 4, 0.1, 0.3, 6, cudaDevice());
    in.features.copy_(fresh.features);
    in.labels.copy_(fresh.labels);
    const int64_t captures = staticGraphCaptures();
    const auto out = runStaticGraph(in.features, in.labels, {100, 0.5, 1}, true);
    EXPECT_EQ(staticGraphCaptures(), captures);
    checkOutput(fresh.features, fresh.labels, out, 100, 0.5);
    releaseStaticGraphs();
}

TEST(FusedCuda, CapturesIntoAGraphAndReplaysTheEagerResult)
{
    SKIP_WITHOUT_CUDA();
    for (int64_t n : {700, 50000}) {
        const auto in = generateInput(3, n, 16, 0.4, 0.1, 8, cudaDevice());
        const SamplerConfig cfg{n / 10, 0.5, 17};
        const auto eager = sampleFused(in.features, in.labels, cfg);
        at::cuda::CUDAGraph graph;
        SampleOutput captured;
        const auto side = at::cuda::getStreamFromPool();
        c10::cuda::device_synchronize(); // the inputs were written on the default stream
        {
            const c10::cuda::CUDAStreamGuard guard(side);
            graph.capture_begin();
            captured = sampleFused(in.features, in.labels, cfg);
            graph.capture_end();
        }
        graph.replay();
        at::cuda::getCurrentCUDAStream().synchronize();
        EXPECT_TRUE(captured.indices.equal(eager.indices)) << "n=" << n;
        EXPECT_TRUE(captured.features.equal(eager.features)) << "n=" << n;
        EXPECT_TRUE(captured.valid.equal(eager.valid)) << "n=" << n;
    }
}

TEST(FusedCuda, BatchedRowsMatchTheCountRulePerRow)
{
    SKIP_WITHOUT_CUDA();
    // Rows with very different balances in one multi-tile batch.
    std::vector<at::Tensor> rows;
    const int64_t n = 40000;
    rows.push_back(makeRow(n, 10, 30000, 1));
    rows.push_back(makeRow(n, 30000, 10, 2));
    rows.push_back(makeRow(n, 0, 0, 3));
    rows.push_back(makeRow(n, n, 0, 4));
    const at::Tensor labels = at::stack(rows).to(cudaDevice());
    const at::Tensor features = at::randn({4, n, 3}).to(cudaDevice());
    const auto out = runVariant("fused", features, labels, {999, 0.25, 3});
    checkOutput(features, labels, out, 999, 0.25);
}

#endif
