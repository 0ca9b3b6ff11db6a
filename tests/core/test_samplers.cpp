// Correctness of every CPU variant: the count rule, exact outputs, padding,
// determinism and bad input.
#include "common/error.h"
#include "kernels/countrule.h"
#include "lab/sampler.h"
#include "lab/samplerun.h"
#include "lab/variants.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

using namespace syncscope;
using namespace syncscope::lab;

namespace {

std::vector<std::string> cpuVariants()
{
    std::vector<std::string> v;
    for (const auto &info : allVariants())
        if (variantRunnable(info.name, "cpu", nullptr))
            v.push_back(info.name);
    return v;
}

// A row with exactly P ones, Q zeros and the rest ignored (-1 or 2), shuffled.
at::Tensor makeRow(int64_t n, int64_t P, int64_t Q, uint32_t seed)
{
    std::vector<int64_t> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
        v[i] = i < P ? 1 : (i < P + Q ? 0 : (i % 2 ? -1 : 2));
    std::mt19937 g(seed);
    std::shuffle(v.begin(), v.end(), g);
    return at::tensor(v, at::kLong);
}

// Checks every rule of the output contract for one batched call.
void checkOutput(const at::Tensor &features, const at::Tensor &labels, const SampleOutput &out,
                 int64_t K, double f)
{
    const int64_t B = labels.size(0), D = features.size(2);
    ASSERT_EQ(out.indices.sizes(), (std::vector<int64_t>{B, K}));
    ASSERT_EQ(out.labels.sizes(), (std::vector<int64_t>{B, K}));
    ASSERT_EQ(out.features.sizes(), (std::vector<int64_t>{B, K, D}));
    ASSERT_EQ(out.valid.sizes(), (std::vector<int64_t>{B}));
    for (int64_t b = 0; b < B; ++b) {
        const auto row = labels[b];
        const int64_t P = (row == 1).sum().item<int64_t>(), Q = (row == 0).sum().item<int64_t>();
        const auto want = kernels::sampleCounts(P, Q, K, f);
        const int64_t valid = out.valid[b].item<int64_t>();
        ASSERT_EQ(valid, want.valid()) << "row " << b;
        std::set<int64_t> seen;
        int64_t pos = 0, neg = 0;
        for (int64_t j = 0; j < K; ++j) {
            const int64_t idx = out.indices[b][j].item<int64_t>();
            const int64_t lab = out.labels[b][j].item<int64_t>();
            if (j >= valid) {
                EXPECT_EQ(idx, -1);
                EXPECT_EQ(lab, -1);
                EXPECT_TRUE(out.features[b][j].eq(0).all().item<bool>()) << "padding row " << j;
                continue;
            }
            ASSERT_GE(idx, 0);
            ASSERT_LT(idx, labels.size(1));
            EXPECT_TRUE(seen.insert(idx).second) << "index " << idx << " repeated";
            EXPECT_EQ(lab, row[idx].item<int64_t>());
            EXPECT_TRUE(out.features[b][j].equal(features[b][idx])) << "feature row " << idx;
            pos += lab == 1;
            neg += lab == 0;
            EXPECT_TRUE(lab == 0 || lab == 1) << "an ignored label was sampled";
        }
        EXPECT_EQ(pos, want.numPos) << "row " << b;
        EXPECT_EQ(neg, want.numNeg) << "row " << b;
    }
}

class Variant : public ::testing::TestWithParam<std::string> {};

} // namespace

struct RowSpec {
    int64_t P, Q;
};

TEST_P(Variant, CountRuleAndContractOnATable)
{
    struct Case {
        int64_t n, K;
        double f;
        std::vector<RowSpec> rows;
    };
    const std::vector<Case> cases = {
        {30, 5, 0.5, {{10, 10}}},                     // odd K
        {30, 4, 0.5, {{0, 20}}},                      // P = 0
        {30, 4, 0.5, {{20, 0}}},                      // Q = 0
        {30, 10, 0.5, {{2, 1}}},                      // P + Q < K, ignored rest
        {30, 4, 0.0, {{5, 5}, {5, 2}}},               // f = 0
        {30, 4, 1.0, {{5, 5}, {1, 5}}},               // f = 1
        {40, 7, 0.5, {{3, 30}, {30, 3}, {0, 0}, {20, 20}}}, // B > 1, differing rows
        {8, 20, 0.5, {{4, 4}}},                       // K > N
        {1, 1, 0.5, {{1, 0}}},
    };
    int seed = 1;
    for (const auto &c : cases) {
        std::vector<at::Tensor> rows;
        for (const auto &r : c.rows)
            rows.push_back(makeRow(c.n, r.P, r.Q, static_cast<uint32_t>(seed++)));
        const at::Tensor labels = at::stack(rows);
        const at::Tensor features = at::randn({labels.size(0), c.n, 3});
        SCOPED_TRACE("n=" + std::to_string(c.n) + " K=" + std::to_string(c.K) + " f=" + std::to_string(c.f));
        const auto out = runVariant(GetParam(), features, labels, {c.K, c.f, 7});
        checkOutput(features, labels, out, c.K, c.f);
    }
}

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
    EXPECT_THROW(validate(r), Error);
    std::string why;
    if (!cudaAvailable(&why)) {
        r.variant = "static";
        r.input.device = "cuda";
        try {
            validate(r);
            ADD_FAILURE() << "cuda accepted without CUDA";
        } catch (const Error &e) {
            EXPECT_NE(std::string(e.what()).find("cuda"), std::string::npos);
        }
    }
    r.input.device = "tpu";
    EXPECT_THROW(validate(r), Error);
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
    const SampleRun run = runSample(r, true);
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
