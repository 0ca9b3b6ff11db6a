// LeadColumn: every time reads back exactly, near or far from its reference,
// and a cleared range holds none, with nothing left beside it.
#include "analysis/leadcolumn.h"

#include <gtest/gtest.h>

using namespace syncscope;

TEST(LeadColumn, TimesNearAndFarFromTheirReferenceReadBackAndClear)
{
    LeadColumn c;
    c.assign(6);
    const TimeNs ref = 10'000'000'000;
    const TimeNs times[] = {ref, ref - 1, ref - 4'294'967'293, ref - 4'294'967'294, ref - 9'000'000'000, ref + 5};
    for (size_t i = 0; i < 6; ++i) {
        EXPECT_FALSE(c.has(i));
        c.set(i, ref, times[i]);
    }
    for (size_t i = 0; i < 6; ++i) {
        ASSERT_TRUE(c.has(i));
        EXPECT_EQ(c.get(i, ref), times[i]) << "position " << i;
    }
    // A lead of 2^32 - 2 or more, and a time after its reference, are kept beside.
    EXPECT_EQ(c.farCount(), 3u);
    c.clear(2, 5);
    EXPECT_TRUE(c.has(0) && c.has(1) && c.has(5));
    EXPECT_FALSE(c.has(2) || c.has(3) || c.has(4));
    EXPECT_EQ(c.farCount(), 1u);
    EXPECT_EQ(c.get(5, ref), ref + 5);
    c.set(3, ref, ref - 7);
    EXPECT_EQ(c.get(3, ref), ref - 7);
    EXPECT_EQ(c.farCount(), 1u);
}
