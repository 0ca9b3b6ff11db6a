// The one number grammar of the CLI's flags and the app's fields.
#include "common/numbers.h"

#include <gtest/gtest.h>

using namespace syncscope;

TEST(Numbers, CountsInEveryAcceptedSpelling)
{
    EXPECT_EQ(parseCount("1000"), 1000);
    EXPECT_EQ(parseCount("1e6"), 1'000'000);
    EXPECT_EQ(parseCount("1_000_000"), 1'000'000);
    EXPECT_EQ(parseCount("1,000,000"), 1'000'000);
    EXPECT_EQ(parseCount(" 10k "), 10'000);
    EXPECT_EQ(parseCount("2M"), 2'000'000);
    EXPECT_EQ(parseCount("2.5k"), 2'500);
    EXPECT_EQ(parseCount("+7"), 7);
    EXPECT_EQ(parseCount("-3"), -3);
    EXPECT_EQ(parseCount("9e18"), int64_t(9e18));
}

TEST(Numbers, WhatIsNotACount)
{
    for (const char *t : {"", " ", "1.5", "abc", "1e6x", "0x10", "inf", "nan", "1e19", "k", "2MM", "1..2"})
        EXPECT_FALSE(parseCount(t).has_value()) << "'" << t << "'";
}

TEST(Numbers, FractionsAndScale)
{
    EXPECT_DOUBLE_EQ(*parseNumber("0.25"), 0.25);
    EXPECT_DOUBLE_EQ(*parseNumber("1.5k"), 1500.0);
    EXPECT_DOUBLE_EQ(*parseNumber("-0.5"), -0.5);
    EXPECT_FALSE(parseNumber("1e400").has_value());
}
