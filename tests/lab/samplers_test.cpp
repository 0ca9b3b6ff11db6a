// Correctness of every CPU variant: the count rule, exact outputs, padding,
// determinism and bad input.
#include "lab/impl/torchlab.h"
#include "common/error.h"
#include "kernels/countrule.h"
#include "lab/impl/sampler.h"
#include "lab/api/samplerun.h"
#include "lab/api/variants.h"
#include "testutil.h"
#include "samplercheck.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

using namespace syncscope;
using namespace syncscope::lab;
using namespace syncscope::lab::samplertest;

namespace {

using syncscope::test::cpuVariants;

class Variant : public ::testing::TestWithParam<std::string> {};

} // namespace

TEST_P(Variant, CountRuleAndContractOnATable) { checkContractTable(GetParam(), at::Device(at::kCPU)); }

TEST_P(Variant, ReturnsFullFeatureRowsForRandomInputs)
{
    const auto in = generateInput(3, 500, 16, 0.3, 0.2, 11, at::Device(at::kCPU));
    const auto out = runVariant(GetParam(), in.features, in.labels, {64, 0.5, 5});
    checkOutput(in.features, in.labels, out, 64, 0.5);
}

TEST_P(Variant, UnbatchedInputGivesOneRow)
{
    const auto in = generateInput(1, 200, 4, 0.5, 0.0, 3, at::Device(at::kCPU));
    const auto out = runVariant(GetParam(), in.features[0], in.labels[0], {21, 0.5, 1});
    checkOutput(in.features, in.labels, out, 21, 0.5);
}

TEST_P(Variant, LabelDtypesUint8Int32Int64)
{
    const auto in = generateInput(2, 300, 2, 0.4, 0.0, 9, at::Device(at::kCPU));
    for (auto dtype : {at::kByte, at::kInt, at::kLong, at::kShort}) {
        const at::Tensor labels = in.labels.to(dtype);
        const auto out = runVariant(GetParam(), in.features, labels, {31, 0.5, 2});
        checkOutput(in.features, in.labels, out, 31, 0.5);
    }
}

TEST_P(Variant, SameSeedSameOutputDifferentSeedDifferentOutput)
{
    const auto in = generateInput(2, 1000, 4, 0.5, 0.1, 21, at::Device(at::kCPU));
    const auto a = runVariant(GetParam(), in.features, in.labels, {100, 0.5, 42});
    const auto b = runVariant(GetParam(), in.features, in.labels, {100, 0.5, 42});
    const auto c = runVariant(GetParam(), in.features, in.labels, {100, 0.5, 43});
    EXPECT_TRUE(a.indices.equal(b.indices));
    EXPECT_TRUE(a.features.equal(b.features));
    EXPECT_FALSE(a.indices.equal(c.indices));
}

TEST_P(Variant, BadInputNamesTheParameter)
{
    const at::Tensor f = at::randn({10, 3});
    const at::Tensor l = at::zeros({10}, at::kLong);
    auto expectError = [&](const at::Tensor &ff, const at::Tensor &ll, SamplerConfig cfg, const char *needle) {
        try {
            runVariant(GetParam(), ff, ll, cfg);
            ADD_FAILURE() << "no error for " << needle;
        } catch (const Error &e) {
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
        }
    };
    expectError(f, l, {0, 0.5, 0}, "K must be at least 1");
    expectError(f, l, {5, 1.5, 0}, "target positive fraction");
    expectError(f, l, {5, -0.1, 0}, "target positive fraction");
    expectError(at::randn({0, 3}), at::zeros({0}, at::kLong), {5, 0.5, 0}, "N must be at least 1");
    expectError(at::randn({10, 0}), l, {5, 0.5, 0}, "D must be at least 1");
    expectError(at::randn({0, 10, 3}), at::zeros({0, 10}, at::kLong), {5, 0.5, 0}, "B must be at least 1");
    expectError(f, at::zeros({9}, at::kLong), {5, 0.5, 0}, "do not match");
    expectError(f, at::zeros({2, 10}, at::kLong), {5, 0.5, 0}, "labels must have shape");
    expectError(f, at::zeros({10}, at::kFloat), {5, 0.5, 0}, "labels must be an integer tensor");
    expectError(f, at::zeros({10}, at::kBool), {5, 0.5, 0}, "labels must be an integer tensor");
    expectError(at::zeros({10, 3}, at::kLong), l, {5, 0.5, 0}, "features must be a floating-point");
}

INSTANTIATE_TEST_SUITE_P(Cpu, Variant, ::testing::ValuesIn(cpuVariants()),
                         [](const auto &info) { return info.param; });

TEST(Registry, UnknownVariantAndUnavailableDevice)
{
    EXPECT_THROW(runVariant("nope", at::randn({4, 2}), at::zeros({4}, at::kLong), {2, 0.5, 0}), Error);
    SampleRequest r;
    r.variant = "nope";
    EXPECT_THROW(torchLab().validateSample(r), Error);
    std::string why;
    if (!torchLab().cudaAvailable(&why)) {
        r.variant = "static";
        r.input.device = Device::Cuda;
        try {
            torchLab().validateSample(r);
            ADD_FAILURE() << "cuda accepted without CUDA";
        } catch (const Error &e) {
            EXPECT_NE(std::string(e.what()).find("cuda"), std::string::npos);
        }
    }
    EXPECT_THROW(parseDevice("tpu"), Error);
    for (const auto &v : allVariants())
        EXPECT_FALSE(v.description.empty()) << v.name;
}

TEST(Registry, SampleRunCopiesEverything)
{
    SampleRequest r;
    r.variant = "fused";
    r.input.n = 50;
    r.input.batch = 2;
    r.input.dim = 3;
    r.k = 7;
    const SampleRun run = torchLab().runSample(r, true);
    EXPECT_EQ(run.inputLabels.size(), 100u);
    EXPECT_EQ(run.inputFeatures.size(), 300u);
    EXPECT_EQ(run.indices.size(), 14u);
    EXPECT_EQ(run.features.size(), 42u);
    ASSERT_EQ(run.valid.size(), 2u);
    for (int64_t b = 0; b < 2; ++b)
        for (int64_t j = 0; j < run.valid[b]; ++j) {
            const int64_t idx = run.indices[b * 7 + j];
            EXPECT_EQ(run.labels[b * 7 + j], run.inputLabels[b * 50 + idx]);
            for (int d = 0; d < 3; ++d)
                EXPECT_EQ(run.features[(b * 7 + j) * 3 + d], run.inputFeatures[(b * 50 + idx) * 3 + d]);
        }
}

#include "kernels/cpu/intraoppool.h"

TEST(Fused, OutputDoesNotDependOnTheThreadCount)
{
    // Large enough for the chunked mask pass and the bucketed permutation.
    const auto in = generateInput(1, 300000, 4, 0.4, 0.1, 8, at::Device(at::kCPU));
    auto &pool = kernels::IntraOpPool::instance();
    const int before = pool.threads();
    pool.setThreads(1);
    const auto one = runVariant("fused", in.features, in.labels, {100000, 0.5, 3});
    pool.setThreads(4);
    const auto four = runVariant("fused", in.features, in.labels, {100000, 0.5, 3});
    pool.setThreads(before);
    EXPECT_TRUE(one.indices.equal(four.indices));
    EXPECT_TRUE(one.features.equal(four.features));
    checkOutput(in.features, in.labels, four, 100000, 0.5);
}

// Sampling into caller outputs: the same results as fused, no allocation of
// its own, and outputs that do not fit are named in one sentence.
TEST(FusedInto, SameAsFusedAndReusesTheCallersOutputs)
{
    const auto in = generateInput(3, 2000, 16, 0.4, 0.1, 5, at::Device(at::kCPU));
    SampleOutput out;
    out.indices = at::full({3, 150}, 99, at::kLong);
    out.labels = at::full({3, 150}, 99, at::kLong);
    out.features = at::full({3, 150, 16}, 99.0f);
    out.valid = at::full({3}, 99, at::kLong);
    const void *featuresBefore = out.features.data_ptr();
    for (uint64_t seed : {1u, 2u}) {
        sampleFusedInto(in.features, in.labels, {150, 0.5, seed}, out);
        const auto ref = runVariant("fused", in.features, in.labels, {150, 0.5, seed});
        EXPECT_TRUE(out.indices.equal(ref.indices));
        EXPECT_TRUE(out.labels.equal(ref.labels));
        EXPECT_TRUE(out.features.equal(ref.features));
        EXPECT_TRUE(out.valid.equal(ref.valid));
        checkOutput(in.features, in.labels, out, 150, 0.5);
    }
    EXPECT_EQ(out.features.data_ptr(), featuresBefore);

    // unbatched input, [1, K] outputs
    SampleOutput one{at::empty({1, 10}, at::kLong), at::empty({1, 10}, at::kLong), at::empty({1, 10, 16}),
                     at::empty({1}, at::kLong)};
    sampleFusedInto(in.features[0], in.labels[0], {10, 0.5, 3}, one);
    checkOutput(in.features.slice(0, 0, 1), in.labels.slice(0, 0, 1), one, 10, 0.5);
}

TEST(FusedInto, OutputsThatDoNotFitAreNamed)
{
    const auto in = generateInput(2, 100, 4, 0.5, 0.0, 5, at::Device(at::kCPU));
    auto good = [] {
        return SampleOutput{at::empty({2, 10}, at::kLong), at::empty({2, 10}, at::kLong), at::empty({2, 10, 4}),
                            at::empty({2}, at::kLong)};
    };
    auto expectError = [&](SampleOutput out, const char *needle) {
        try {
            sampleFusedInto(in.features, in.labels, {10, 0.5, 1}, out);
            ADD_FAILURE() << "accepted: " << needle;
        } catch (const Error &e) {
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
            EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
        }
    };
    auto o = good();
    o.indices = at::empty({2, 9}, at::kLong);
    expectError(o, "output indices must be");
    o = good();
    o.labels = at::empty({2, 10}, at::kInt);
    expectError(o, "output labels must be");
    o = good();
    o.features = at::empty({2, 4, 10}).transpose(1, 2);
    expectError(o, "non-contiguous");
    o = good();
    o.valid = at::Tensor();
    expectError(o, "output valid is missing");
    try {
        auto g = good();
        sampleFusedInto(in.features, in.labels, {0, 0.5, 1}, g);
        ADD_FAILURE() << "K = 0 accepted";
    } catch (const Error &e) {
        EXPECT_NE(std::string(e.what()).find("K must be at least 1"), std::string::npos) << e.what();
    }
}

#include "lab/impl/hostalloc.h"

// Large outputs are reused across calls of the same size (no page zeroing per
// call), and a kept block is never handed out twice.
TEST(HostOutput, FreedBlocksAreReusedForTheSameSize)
{
    const void *first = nullptr;
    {
        at::Tensor a = emptyHostOutput({1, 1000000, 2}, at::kFloat); // 8 MB
        first = a.data_ptr();
        EXPECT_EQ(reinterpret_cast<uintptr_t>(first) % (2u << 20), 0u);
    }
    at::Tensor b = emptyHostOutput({1, 1000000, 2}, at::kFloat);
    EXPECT_EQ(b.data_ptr(), first);
    at::Tensor c = emptyHostOutput({1, 1000000, 2}, at::kFloat); // b still alive
    EXPECT_NE(c.data_ptr(), b.data_ptr());
    at::Tensor d = emptyHostOutput({3000000}, at::kLong); // another size
    EXPECT_NE(d.data_ptr(), first);
    b.fill_(1.0f);
    c.fill_(2.0f);
    EXPECT_EQ(b.sum().item<double>(), 2e6);
}
