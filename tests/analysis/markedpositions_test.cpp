// MarkedPositions against a plain count of the marks before each position.
#include "analysis/markedpositions.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

using namespace syncscope;

TEST(MarkedPositions, EveryPositionHasThePlainRank)
{
    std::mt19937 rng(11);
    for (size_t n : {size_t(0), size_t(1), size_t(63), size_t(64), size_t(65), size_t(1000), size_t(4097)}) {
        for (int density : {0, 3, 50, 100}) {
            std::vector<char> plain(n, 0);
            MarkedPositions m;
            m.assign(n);
            for (size_t i = 0; i < n; ++i)
                if (int(rng() % 100) < density) {
                    plain[i] = 1;
                    m.mark(i);
                }
            m.finish();
            size_t before = 0;
            for (size_t i = 0; i < n; ++i) {
                ASSERT_EQ(m.marked(i), plain[i] != 0) << "n " << n << ", position " << i;
                ASSERT_EQ(m.rank(i), before) << "n " << n << ", position " << i;
                before += plain[i];
            }
            EXPECT_EQ(m.count(), before);
        }
    }
}
