// BlockRangeMax against a plain scan of the same values.
#include "analysis/rangemax.h"

#include <gtest/gtest.h>

#include <random>

using namespace syncscope;

TEST(BlockRangeMax, EveryRangeHasThePlainMaximum)
{
    std::mt19937_64 rng(7);
    for (size_t n : {size_t(0), size_t(1), size_t(63), size_t(64), size_t(65), size_t(1000), size_t(5000)}) {
        std::vector<TimeNs> v(n);
        for (TimeNs &x : v) // some positions hold nothing, as blocking calls do
            x = rng() % 5 == 0 ? BlockRangeMax::kNone : TimeNs(rng() % 1000000);
        auto at = [&](size_t i) { return v[i]; };
        BlockRangeMax m;
        m.build(n, at);
        auto plain = [&](size_t from, size_t to) {
            TimeNs best = BlockRangeMax::kNone;
            for (size_t i = from; i < std::min(to, n); ++i)
                best = std::max(best, v[i]);
            return best;
        };
        for (int q = 0; q < 3000; ++q) {
            const size_t a = n ? rng() % (n + 1) : 0, b = n ? rng() % (n + 1) : 0;
            const size_t from = std::min(a, b), to = std::max(a, b);
            ASSERT_EQ(m.max(from, to, at), plain(from, to)) << "n " << n << " [" << from << ", " << to << ")";
        }
        // Whole blocks only, and past the end.
        for (size_t from = 0; from + 64 <= n; from += 64)
            ASSERT_EQ(m.max(from, n + 10, at), plain(from, n)) << "n " << n << " from " << from;
        EXPECT_EQ(m.max(0, n, at), plain(0, n));
    }
}

TEST(BlockRangeMax, AMaximumInTheLastBlocksOfALongRangeIsFound)
{
    // 2^k whole blocks and one more: the two table entries overlap; the maximum
    // sits where only the second one sees it.
    const size_t n = 64 * 9;
    std::vector<TimeNs> v(n, 1);
    v[64 * 8 + 5] = 99;
    auto at = [&](size_t i) { return v[i]; };
    BlockRangeMax m;
    m.build(n, at);
    EXPECT_EQ(m.max(0, n, at), 99);
    EXPECT_EQ(m.max(64, n, at), 99);
    EXPECT_EQ(m.max(0, 64 * 8, at), 1);
}
