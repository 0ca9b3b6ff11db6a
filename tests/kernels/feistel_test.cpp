// The keyed permutation behind the fused CUDA sampler, checked on the host
// (the same header runs in the kernels). Statistical assertions use fixed keys
// and the threshold 1e-4: a correct permutation family fails one with
// probability 1e-4, and with fixed keys a pass stays a pass.
#include "kernels/feistel.h"
#include "lab/api/labstats.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <vector>

using syncscope::kernels::FeistelPermutation;
using syncscope::kernels::permutationKey;
using syncscope::lab::addSubsetChi2;
using syncscope::lab::chiSquareSurvival;

namespace {
constexpr double kAlpha = 1e-4;
}

TEST(Feistel, IsABijectionOfEverySize)
{
    for (uint32_t n = 1; n <= 700; ++n) {
        const FeistelPermutation perm(n, permutationKey(n, 3, 1));
        std::vector<char> hit(n, 0);
        for (uint32_t x = 0; x < n; ++x) {
            const uint32_t y = perm(x);
            ASSERT_LT(y, n) << "n=" << n;
            ASSERT_FALSE(hit[y]) << "n=" << n << " collides at " << y;
            hit[y] = 1;
        }
    }
    for (uint32_t n : {4096u, 4097u, 65535u, 1000003u}) {
        const FeistelPermutation perm(n, 99);
        std::vector<char> hit(n, 0);
        for (uint32_t x = 0; x < n; ++x)
            hit[perm(x)] = 1;
        EXPECT_EQ(std::count(hit.begin(), hit.end(), 1), static_cast<long>(n)) << "n=" << n;
    }
}

TEST(Feistel, LargestDomainStaysInRange)
{
    const uint32_t n = 0x7FFFFFFFu;
    const FeistelPermutation perm(n, 5);
    for (uint32_t x : {0u, 1u, 12345u, n - 1})
        EXPECT_LT(perm(x), n);
}

TEST(Feistel, KeysDifferPerSeedRowAndStream)
{
    EXPECT_NE(permutationKey(1, 0, 0), permutationKey(2, 0, 0));
    EXPECT_NE(permutationKey(1, 0, 0), permutationKey(1, 1, 0));
    EXPECT_NE(permutationKey(1, 0, 0), permutationKey(1, 0, 1));
}

// The sampler keeps the ranks r with perm(r) < m: over keys, every item must be
// kept with the same probability m / c.
TEST(Feistel, KeptRanksAreAUniformSubset)
{
    for (auto [c, m] : {std::pair<uint32_t, uint32_t>{30, 7}, {64, 32}, {100, 3}, {5, 4}}) {
        const int64_t runs = 6000;
        std::vector<int64_t> counts(c, 0);
        for (int64_t r = 0; r < runs; ++r) {
            const FeistelPermutation perm(c, permutationKey(static_cast<uint64_t>(r), 7, 0));
            for (uint32_t x = 0; x < c; ++x)
                counts[x] += perm(x) < m;
        }
        double chi2 = 0, dof = 0;
        addSubsetChi2(counts.data(), c, m, runs, chi2, dof);
        EXPECT_GT(chiSquareSurvival(chi2, dof), kAlpha) << "c=" << c << " m=" << m << " chi2 " << chi2;
    }
}

// The output order is a permutation of the kept items: for a small domain all
// n! orders must be equally likely.
TEST(Feistel, SmallDomainsGiveEveryOrderEquallyOften)
{
    for (uint32_t n : {2u, 3u, 5u}) {
        std::map<std::vector<uint32_t>, int64_t> seen;
        const int64_t runs = 40000;
        for (int64_t r = 0; r < runs; ++r) {
            const FeistelPermutation perm(n, permutationKey(static_cast<uint64_t>(r), 0, 2));
            std::vector<uint32_t> order(n);
            for (uint32_t x = 0; x < n; ++x)
                order[x] = perm(x);
            ++seen[order];
        }
        int64_t orders = 1;
        for (uint32_t i = 2; i <= n; ++i)
            orders *= i;
        ASSERT_EQ(static_cast<int64_t>(seen.size()), orders) << "n=" << n;
        const double expected = static_cast<double>(runs) / static_cast<double>(orders);
        double chi2 = 0;
        for (const auto &[order, count] : seen)
            chi2 += (count - expected) * (count - expected) / expected;
        EXPECT_GT(chiSquareSurvival(chi2, static_cast<double>(orders - 1)), kAlpha)
            << "n=" << n << " chi2 " << chi2;
    }
}

// Power: the same statistic rejects a permutation family that is not uniform
// (a keyed rotation: only n of the n! orders), so the test above can fail.
TEST(Feistel, RotationsAreRejected)
{
    const uint32_t n = 5;
    std::map<std::vector<uint32_t>, int64_t> seen;
    const int64_t runs = 40000;
    for (int64_t r = 0; r < runs; ++r) {
        std::vector<uint32_t> order(n);
        for (uint32_t x = 0; x < n; ++x)
            order[x] = static_cast<uint32_t>((x + r) % n);
        ++seen[order];
    }
    const double expected = runs / 120.0;
    double chi2 = 0;
    for (const auto &[order, count] : seen)
        chi2 += (count - expected) * (count - expected) / expected;
    chi2 += (120 - static_cast<double>(seen.size())) * expected; // the orders never seen
    EXPECT_LT(chiSquareSurvival(chi2, 119), 1e-6);
}
