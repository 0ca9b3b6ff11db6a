// sortRuns against std::sort: input made of 1 to 300 sorted runs (merged
// pairwise), input too disordered for that (std::sort), ties of the key broken
// by an id so the order is total, and the empty and one-element cases.
#include "common/sortruns.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

using namespace syncscope;

namespace {

struct Row {
    int key;
    int id;
    bool operator==(const Row &o) const { return key == o.key && id == o.id; }
};

const auto byKeyThenId = [](const Row &a, const Row &b) { return a.key != b.key ? a.key < b.key : a.id < b.id; };

} // namespace

TEST(SortRuns, GivesStdSortsOrderForAnyNumberOfRuns)
{
    std::mt19937 rng(9);
    for (size_t runs : {size_t(1), size_t(2), size_t(3), size_t(7), size_t(16), size_t(122), size_t(300)}) {
        for (size_t n : {size_t(0), size_t(1), size_t(5), size_t(1000), size_t(20000)}) {
            std::vector<Row> v;
            int id = 0;
            for (size_t r = 0; r < runs; ++r) {
                int key = int(rng() % 50);
                for (size_t k = 0; k < n / runs; ++k) {
                    key += int(rng() % 3); // ties within and across runs
                    v.push_back({key, id++});
                }
            }
            std::shuffle(v.begin(), v.end(), rng); // ids no longer in order: ties order by id
            for (size_t r = 0, per = (v.size() + runs - 1) / std::max<size_t>(runs, 1); r < runs; ++r) {
                const size_t lo = std::min(v.size(), r * per), hi = std::min(v.size(), lo + per);
                std::sort(v.begin() + long(lo), v.begin() + long(hi), byKeyThenId);
            }
            std::vector<Row> want = v;
            std::sort(want.begin(), want.end(), byKeyThenId);
            sortRuns(v, byKeyThenId);
            EXPECT_TRUE(v == want) << runs << " runs of " << n;
        }
    }
    // Shuffled: past one run per 16 rows.
    std::vector<Row> v;
    for (int i = 0; i < 5000; ++i)
        v.push_back({int(rng() % 100), i});
    std::shuffle(v.begin(), v.end(), rng);
    std::vector<Row> want = v;
    std::sort(want.begin(), want.end(), byKeyThenId);
    sortRuns(v, byKeyThenId);
    EXPECT_TRUE(v == want);
}
