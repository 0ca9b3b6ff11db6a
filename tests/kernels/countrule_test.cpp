#include "kernels/countrule.h"

#include <gtest/gtest.h>

using syncscope::kernels::sampleCounts;
using syncscope::kernels::targetPositives;

struct CountCase {
    int64_t P, Q, K;
    double f;
    int64_t numPos, numNeg;
};

class CountRule : public ::testing::TestWithParam<CountCase> {};

TEST_P(CountRule, MatchesTheSpecifiedRule)
{
    const auto c = GetParam();
    const auto got = sampleCounts(c.P, c.Q, c.K, c.f);
    EXPECT_EQ(got.numPos, c.numPos);
    EXPECT_EQ(got.numNeg, c.numNeg);
    EXPECT_LE(got.valid(), c.K);
}

// P positives, Q negatives, K slots, f target fraction -> expected counts.
INSTANTIATE_TEST_SUITE_P(Table, CountRule,
                         ::testing::Values(CountCase{10, 10, 5, 0.5, 2, 3}, // odd K loses nothing
                                           CountCase{10, 10, 4, 0.5, 2, 2},
                                           CountCase{0, 10, 4, 0.5, 0, 4}, // P = 0
                                           CountCase{10, 0, 4, 0.5, 4, 0}, // Q = 0
                                           CountCase{0, 0, 4, 0.5, 0, 0},
                                           CountCase{2, 1, 10, 0.5, 2, 1},   // P + Q < K
                                           CountCase{5, 5, 4, 0.0, 0, 4},    // f = 0
                                           CountCase{5, 2, 4, 0.0, 2, 2},    // f = 0, few negatives
                                           CountCase{5, 5, 4, 1.0, 4, 0},    // f = 1
                                           CountCase{1, 5, 4, 1.0, 1, 3},    // f = 1, few positives
                                           CountCase{10, 10, 10, 0.3, 3, 7}, // floor(K f) exact
                                           CountCase{100, 9900, 1000, 0.5, 100, 900},
                                           CountCase{3, 100, 7, 0.5, 3, 4}, CountCase{100, 3, 7, 0.5, 4, 3}));

TEST(CountRule, TargetIsFloorOfKTimesF)
{
    EXPECT_EQ(targetPositives(7, 0.5), 3);
    EXPECT_EQ(targetPositives(10, 0.3), 3);
    EXPECT_EQ(targetPositives(10, 0.29), 2);
    EXPECT_EQ(targetPositives(1, 1.0), 1);
    EXPECT_EQ(targetPositives(1000, 0.001), 1);
}

// The permutation behind the fused sampler's output order. Above 2^16 items it
// switches to the bucketed (Rao-Sandelius) form; both must be exact.
#include "kernels/cpu/permutation.h"
#include "kernels/cpu/intraoppool.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace {
// Chi-square upper tail by the Wilson-Hilferty normal approximation (plenty
// for dof ~ 100 at the 1e-4 level used here).
double chi2Survival(double x, double dof)
{
    const double z = (std::cbrt(x / dof) - (1 - 2 / (9 * dof))) / std::sqrt(2 / (9 * dof));
    return 0.5 * std::erfc(z / std::sqrt(2.0));
}
} // namespace

TEST(RandomPermutation, IsAPermutationForEverySize)
{
    for (int64_t n : {0, 1, 2, 17, 65536, 65537, 300001}) {
        std::vector<int64_t> p(static_cast<size_t>(n));
        syncscope::kernels::randomPermutation(p.data(), n, 5, 9, true);
        std::vector<int64_t> sorted = p;
        std::sort(sorted.begin(), sorted.end());
        for (int64_t i = 0; i < n; ++i)
            ASSERT_EQ(sorted[i], i) << "n=" << n;
    }
}

TEST(RandomPermutation, SameForAnyThreadCount)
{
    auto &pool = syncscope::kernels::IntraOpPool::instance();
    const int before = pool.threads();
    std::vector<int64_t> a(200000), b(200000), c(200000);
    pool.setThreads(1);
    syncscope::kernels::randomPermutation(a.data(), 200000, 3, 4, true);
    pool.setThreads(3);
    syncscope::kernels::randomPermutation(b.data(), 200000, 3, 4, true);
    syncscope::kernels::randomPermutation(c.data(), 200000, 3, 5, true);
    pool.setThreads(before);
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
}

// Where item 0..99 land, over 60 permutations of 100000 items, in 100 bins:
// uniform (dof 99). Threshold 1e-4: a correct permutation fails with
// probability ~1e-4; positions within one permutation are slightly negatively
// correlated, which only makes the test conservative.
TEST(RandomPermutation, BucketedFormIsUniform)
{
    const int64_t n = 100000, runs = 60, items = 100, bins = 100;
    std::vector<double> hist(bins, 0.0);
    std::vector<int64_t> p(n);
    for (int64_t r = 0; r < runs; ++r) {
        syncscope::kernels::randomPermutation(p.data(), n, 1000 + static_cast<uint64_t>(r), 1, true);
        for (int64_t i = 0; i < items; ++i)
            hist[static_cast<size_t>(p[i] * bins / n)] += 1;
    }
    const double expected = static_cast<double>(runs * items) / bins;
    double chi2 = 0;
    for (double h : hist)
        chi2 += (h - expected) * (h - expected) / expected;
    EXPECT_GT(chi2Survival(chi2, bins - 1), 1e-4) << "chi2 " << chi2;

    // Power: the identity-like bias of an unshuffled bucket scatter is caught.
    std::vector<double> biased(bins, 0.0);
    for (int64_t i = 0; i < runs * items; ++i)
        biased[static_cast<size_t>((i % items) * bins / (items * 20))] += 1;
    double chi2b = 0;
    for (double h : biased)
        chi2b += (h - expected) * (h - expected) / expected;
    EXPECT_LT(chi2Survival(chi2b, bins - 1), 1e-6);
}

// The gather floor: checked against a plain loop over the same arrays.
#include "kernels/cpu/fusedsampler.h"

#include <cstdlib>
#include <cstring>
#include <set>

namespace {
template <typename T> void checkGatherFloor(int64_t dim, bool alignedOut)
{
    const int64_t B = 3, N = 1000, K = 77;
    std::vector<T> labels(static_cast<size_t>(B * N));
    std::vector<float> features(static_cast<size_t>(B * N * dim));
    int64_t ones = 0;
    for (size_t i = 0; i < labels.size(); ++i) {
        labels[i] = static_cast<T>((i * 7919) % 3 == 0 ? 1 : ((i * 31) % 5 == 0 ? 2 : 0));
        ones += labels[i] == T(1);
    }
    for (size_t i = 0; i < features.size(); ++i)
        features[i] = static_cast<float>(i) * 0.5f;
    std::vector<int64_t> indices(static_cast<size_t>(B * K));
    for (int64_t b = 0; b < B; ++b)
        syncscope::kernels::sortedRandomSubset(N, K, 42, static_cast<uint64_t>(b), indices.data() + b * K);
    std::vector<int64_t> outIdx(static_cast<size_t>(B * K), -7), outLab(static_cast<size_t>(B * K), -7);
    const size_t featBytes = static_cast<size_t>(B * K * dim) * sizeof(float);
    auto *outFeat = static_cast<float *>(std::aligned_alloc(64, (featBytes + 63) / 64 * 64 + 64));
    float *out = alignedOut ? outFeat : outFeat + 1; // the unaligned path too
    syncscope::kernels::GatherFloorArgs a;
    a.labels = labels.data();
    a.labelType = sizeof(T) == 1 ? syncscope::kernels::LabelType::UInt8
                                 : (sizeof(T) == 4 ? syncscope::kernels::LabelType::Int32
                                                   : syncscope::kernels::LabelType::Int64);
    a.batch = B;
    a.n = N;
    a.features = reinterpret_cast<const uint8_t *>(features.data());
    a.featureRowBytes = dim * static_cast<int64_t>(sizeof(float));
    a.featureBatchStride = N * a.featureRowBytes;
    a.k = K;
    a.indices = indices.data();
    a.outIndices = outIdx.data();
    a.outLabels = outLab.data();
    a.outFeatures = reinterpret_cast<uint8_t *>(out);
    EXPECT_EQ(syncscope::kernels::gatherFloorCpu(a), ones);
    for (int64_t b = 0; b < B; ++b)
        for (int64_t j = 0; j < K; ++j) {
            const int64_t idx = indices[static_cast<size_t>(b * K + j)];
            ASSERT_EQ(outIdx[static_cast<size_t>(b * K + j)], idx);
            ASSERT_EQ(outLab[static_cast<size_t>(b * K + j)],
                      static_cast<int64_t>(labels[static_cast<size_t>(b * N + idx)]));
            for (int64_t d = 0; d < dim; ++d)
                ASSERT_EQ(out[(b * K + j) * dim + d], features[static_cast<size_t>((b * N + idx) * dim + d)])
                    << "b " << b << " j " << j << " d " << d;
        }
    std::free(outFeat);
}
} // namespace

TEST(GatherFloor, CopiesRowsLabelsAndIndicesAndCountsTheOnes)
{
    checkGatherFloor<int64_t>(16, true); // 64-byte rows, streaming stores
    checkGatherFloor<int64_t>(16, false);
    checkGatherFloor<uint8_t>(3, true);
    checkGatherFloor<int32_t>(8, true);
    checkGatherFloor<int32_t>(32, true);
}

// Sorted, distinct, in range, clamped to n, and uniform: over 4000 draws of 10
// of 50, every index is picked ~800 times (chi-square, dof 49; a correct draw
// fails with probability ~1e-4).
TEST(SortedRandomSubset, SortedDistinctAndUniform)
{
    std::vector<int64_t> out(60, -1);
    syncscope::kernels::sortedRandomSubset(50, 60, 1, 1, out.data());
    for (int64_t i = 0; i < 50; ++i)
        EXPECT_EQ(out[static_cast<size_t>(i)], i);
    EXPECT_EQ(out[50], -1);
    std::vector<double> counts(50, 0.0);
    const int runs = 4000;
    for (int r = 0; r < runs; ++r) {
        std::vector<int64_t> s(10);
        syncscope::kernels::sortedRandomSubset(50, 10, 9, static_cast<uint64_t>(r), s.data());
        for (size_t j = 0; j < s.size(); ++j) {
            ASSERT_GE(s[j], 0);
            ASSERT_LT(s[j], 50);
            if (j > 0)
                ASSERT_LT(s[j - 1], s[j]);
            counts[static_cast<size_t>(s[j])] += 1;
        }
    }
    const double p = 10.0 / 50, expected = runs * p;
    double chi2 = 0;
    for (double c : counts)
        chi2 += (c - expected) * (c - expected);
    chi2 *= 49.0 / (runs * p * (1 - p) * 50);
    EXPECT_GT(chi2Survival(chi2, 49), 1e-4) << chi2;
}
