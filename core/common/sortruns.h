#pragma once
// Sorting what arrives as a few sorted runs (activities stream by stream, calls
// thread by thread, copies one after another): the runs are found and merged
// pairwise, about n·log2(runs) comparisons, where a sort from scratch takes
// n·log2(n) and a quicksort's pivots can degrade on such input.
#include <algorithm>
#include <cstddef>
#include <vector>

namespace syncscope {

// Sorts v by `less`, a strict total order, so the result is the one order
// std::sort gives. Past one run per 16 elements, std::sort.
template <class T, class Less> void sortRuns(std::vector<T> &v, const Less &less)
{
    const size_t n = v.size();
    std::vector<size_t> bounds{0};
    for (size_t i = 1; i < n; ++i) {
        if (!less(v[i], v[i - 1]))
            continue;
        bounds.push_back(i);
        if (bounds.size() > n / 16 + 1) {
            std::sort(v.begin(), v.end(), less);
            return;
        }
    }
    if (bounds.size() == 1)
        return;
    bounds.push_back(n);
    std::vector<T> buffer(n);
    T *src = v.data(), *dst = buffer.data();
    while (bounds.size() > 2) {
        std::vector<size_t> merged{0};
        size_t r = 0;
        for (; r + 2 < bounds.size(); r += 2) {
            std::merge(src + bounds[r], src + bounds[r + 1], src + bounds[r + 1], src + bounds[r + 2],
                       dst + bounds[r], less);
            merged.push_back(bounds[r + 2]);
        }
        if (r + 1 < bounds.size()) { // a run left without a partner this pass
            std::copy(src + bounds[r], src + bounds[r + 1], dst + bounds[r]);
            merged.push_back(bounds[r + 1]);
        }
        bounds.swap(merged);
        std::swap(src, dst);
    }
    if (src != v.data())
        std::copy(src, src + n, v.data());
}

} // namespace syncscope
