// Statistical tests, fixed seeds. Each assertion on a p-value uses the
// threshold 1e-4: the chance that a correct sampler fails one of them is 1e-4
// (and, the seeds being fixed, a pass stays a pass). The power tests show the
// same statistics do reject the article's ordering.
#include "lab/impl/torchlab.h"
#include "lab/impl/sampler.h"
#include "lab/api/labstats.h"
#include "lab/api/samplerun.h"
#include "lab/api/variants.h"
#include "testutil.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace syncscope::lab;

namespace {
constexpr double kAlpha = 1e-4;

using syncscope::test::cpuVariants;

class VariantStats : public ::testing::TestWithParam<std::string> {};
} // namespace

TEST(ChiSquare, SurvivalMatchesTables)
{
    EXPECT_NEAR(chiSquareSurvival(3.841459, 1), 0.05, 1e-5);
    EXPECT_NEAR(chiSquareSurvival(18.307038, 10), 0.05, 1e-5);
    EXPECT_NEAR(chiSquareSurvival(124.342113, 100), 0.05, 1e-5);
    EXPECT_NEAR(chiSquareSurvival(1000, 1000), 0.4941, 1e-3);
    EXPECT_LT(chiSquareSurvival(2000, 1000), 1e-20);
    EXPECT_DOUBLE_EQ(chiSquareSurvival(0, 5), 1.0);
}

TEST_P(VariantStats, EveryEligibleItemIsEquallyLikely)
{
    syncscope::test::expectUniformSelection(GetParam(), Device::Cpu, 4000);
}

TEST_P(VariantStats, PositivesAreUniformOverOutputPositionsAtStrongImbalance)
{
    syncscope::test::expectUniformOrderAtImbalance(GetParam(), Device::Cpu);
}

TEST_P(VariantStats, BatchedRowsEqualPerRowRunsInLaw)
{
    const auto in = generateInput(4, 30, 2, 0.4, 0.1, 5, at::Device(at::kCPU));
    const int64_t K = 8, runs = 3000, row = 2;
    std::vector<int64_t> batched(30, 0), single(30, 0);
    const at::Tensor rowFeatures = in.features[row], rowLabels = in.labels[row];
    int64_t validBatched = -1, validSingle = -1;
    for (int64_t r = 0; r < runs; ++r) {
        const auto a = runVariant(GetParam(), in.features, in.labels, {K, 0.5, static_cast<uint64_t>(r)});
        const auto b = runVariant(GetParam(), rowFeatures, rowLabels, {K, 0.5, static_cast<uint64_t>(runs + r)});
        validBatched = a.valid[row].item<int64_t>();
        validSingle = b.valid[0].item<int64_t>();
        for (int64_t j = 0; j < validBatched; ++j)
            ++batched[a.indices[row][j].item<int64_t>()];
        for (int64_t j = 0; j < validSingle; ++j)
            ++single[b.indices[0][j].item<int64_t>()];
    }
    EXPECT_EQ(validBatched, validSingle);
    // Two independent sets of subset counts with the same law: their difference
    // has twice the one-sample covariance, so half the statistic is chi-square.
    for (int cls = 0; cls < 2; ++cls) {
        std::vector<int64_t> diff;
        int64_t c = 0, m = 0;
        for (int64_t i = 0; i < 30; ++i)
            if (rowLabels[i].item<int64_t>() == (cls == 0 ? 1 : 0)) {
                ++c;
                diff.push_back(batched[i] - single[i]);
            }
        for (int64_t i = 0; i < 30; ++i)
            if (rowLabels[i].item<int64_t>() == (cls == 0 ? 1 : 0))
                m += batched[i];
        m /= runs; // items of this class selected per run
        if (m == 0 || m == c)
            continue;
        const double p = static_cast<double>(m) / static_cast<double>(c);
        double ss = 0;
        for (auto d : diff)
            ss += static_cast<double>(d * d);
        const double chi2 = ss * static_cast<double>(c - 1) / (2.0 * runs * p * (1 - p) * static_cast<double>(c));
        EXPECT_GT(chiSquareSurvival(chi2, static_cast<double>(c - 1)), kAlpha) << "class " << cls;
    }
}

TEST_P(VariantStats, LargeOutputsKeepAUniformOrder)
{
    // valid = 1e5 slots: the fused sampler's bucketed permutation and its
    // parallel chunks are in play. Positives' output slots, 100 bins, dof 99.
    SampleRequest r;
    r.variant = GetParam();
    r.input = {200000, 1, 1, 0.01, 0.0, 3, Device::Cpu};
    r.k = 100000;
    r.seed = 500;
    const int64_t runs = 20, bins = 100;
    const auto st = torchLab().runDistribution(r, runs, nullptr, nullptr);
    std::vector<double> hist(bins, 0.0);
    double total = 0;
    for (int64_t j = 0; j < r.k; ++j) {
        hist[static_cast<size_t>(j * bins / r.k)] += static_cast<double>(st.positiveSlotCount[j]);
        total += static_cast<double>(st.positiveSlotCount[j]);
    }
    ASSERT_GT(total, 1000);
    double chi2 = 0;
    for (double h : hist)
        chi2 += (h - total / bins) * (h - total / bins) / (total / bins);
    // Within a run the slots form a uniform subset: hypergeometric bins, so the
    // multinomial chi-square is conservative.
    EXPECT_GT(chiSquareSurvival(chi2, bins - 1), kAlpha) << "chi2 " << chi2;
    EXPECT_GT(st.selectionP, kAlpha);
}

INSTANTIATE_TEST_SUITE_P(Cpu, VariantStats, ::testing::ValuesIn(cpuVariants()),
                         [](const auto &info) { return info.param; });

// The article's final step orders the winners by their selection keys. The
// order statistic above must reject it, or the test above could not fail.
TEST(Power, ArticleOrderingIsRejected)
{
    const auto in = generateInput(1, 10000, 1, 0.01, 0.0, 7, at::Device(at::kCPU));
    const int64_t K = 1000, runs = 50;
    const at::Tensor labels = in.labels;
    const at::Tensor posMask = labels == 1, negMask = labels == 0;
    const int64_t P = posMask.sum().item<int64_t>();
    const int64_t numPos = std::min<int64_t>(P, K / 2), numNeg = K - numPos;
    std::vector<int64_t> slots(K, 0);
    at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(99);
    double sum = 0, count = 0;
    for (int64_t r = 0; r < runs; ++r) {
        const at::Tensor keys = at::rand({1, 10000}, gen);
        auto pt = at::topk(keys.masked_fill(posMask.logical_not(), -1), K, -1);
        auto nt = at::topk(keys.masked_fill(negMask.logical_not(), -1), K, -1);
        const at::Tensor ar = at::arange(K).unsqueeze(0);
        const at::Tensor pv = std::get<0>(pt).masked_fill(ar >= numPos, -1);
        const at::Tensor nv = std::get<0>(nt).masked_fill(ar >= numNeg, -1);
        const at::Tensor order = std::get<1>(at::topk(at::cat({pv, nv}, 1), K, -1));
        for (int64_t j = 0; j < K; ++j)
            if (order[0][j].item<int64_t>() < K) { // came from the positive half
                ++slots[j];
                sum += static_cast<double>(j);
                count += 1;
            }
    }
    double chi2 = 0, dof = 0;
    addSubsetChi2(slots.data(), K, numPos, runs, chi2, dof);
    EXPECT_LT(chiSquareSurvival(chi2, dof), 1e-6);
    EXPECT_GT(sum / count, 800.0);
}

TEST(Power, BiasedSelectionIsRejected)
{
    // A sampler that prefers low indices: always the first m of the class.
    std::vector<int64_t> counts(50, 0);
    for (int i = 0; i < 10; ++i)
        counts[i] = 200;
    double chi2 = 0, dof = 0;
    addSubsetChi2(counts.data(), 50, 10, 200, chi2, dof);
    EXPECT_LT(chiSquareSurvival(chi2, dof), 1e-6);
}
