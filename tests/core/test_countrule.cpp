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
                         ::testing::Values(CountCase{10, 10, 5, 0.5, 2, 3},  // odd K loses nothing
                                           CountCase{10, 10, 4, 0.5, 2, 2},
                                           CountCase{0, 10, 4, 0.5, 0, 4},   // P = 0
                                           CountCase{10, 0, 4, 0.5, 4, 0},   // Q = 0
                                           CountCase{0, 0, 4, 0.5, 0, 0},
                                           CountCase{2, 1, 10, 0.5, 2, 1},   // P + Q < K
                                           CountCase{5, 5, 4, 0.0, 0, 4},    // f = 0
                                           CountCase{5, 2, 4, 0.0, 2, 2},    // f = 0, few negatives
                                           CountCase{5, 5, 4, 1.0, 4, 0},    // f = 1
                                           CountCase{1, 5, 4, 1.0, 1, 3},    // f = 1, few positives
                                           CountCase{10, 10, 10, 0.3, 3, 7}, // floor(K f) exact
                                           CountCase{100, 9900, 1000, 0.5, 100, 900},
                                           CountCase{3, 100, 7, 0.5, 3, 4},
                                           CountCase{100, 3, 7, 0.5, 4, 3}));

TEST(CountRule, TargetIsFloorOfKTimesF)
{
    EXPECT_EQ(targetPositives(7, 0.5), 3);
    EXPECT_EQ(targetPositives(10, 0.3), 3);
    EXPECT_EQ(targetPositives(10, 0.29), 2);
    EXPECT_EQ(targetPositives(1, 1.0), 1);
    EXPECT_EQ(targetPositives(1000, 0.001), 1);
}
