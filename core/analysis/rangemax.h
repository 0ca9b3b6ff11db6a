#pragma once
// The maximum of a long sequence over a range of positions, without a copy of
// the sequence: the maxima of blocks of kBlock positions, and of every run of
// 2^k blocks (a sparse table), so a query reads at most 2 (kBlock - 1)
// positions at the range's ends and two table entries. It holds about
// 8 log2(n / kBlock) / kBlock bytes per position.
#include "trace/tracemodel.h"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <vector>

namespace syncscope {

class BlockRangeMax {
public:
    static constexpr size_t kBlock = 64;
    static constexpr TimeNs kNone = std::numeric_limits<TimeNs>::min();

    // value(i) for i in [0, n): the value at position i (kNone: none).
    template <class Value> void build(size_t n, Value value)
    {
        m_n = n;
        m_levels.clear();
        const size_t blocks = n / kBlock + 1;
        std::vector<TimeNs> first(blocks, kNone);
        for (size_t i = 0; i < n; ++i)
            first[i / kBlock] = std::max(first[i / kBlock], value(i));
        m_levels.push_back(std::move(first));
        for (size_t span = 2; span <= blocks; span *= 2) {
            std::vector<TimeNs> level(blocks - span + 1);
            const std::vector<TimeNs> &below = m_levels.back();
            for (size_t b = 0; b < level.size(); ++b)
                level[b] = std::max(below[b], below[b + span / 2]);
            m_levels.push_back(std::move(level));
        }
    }

    // The max of value(i) over [from, to) (kNone when empty), with the value of build.
    template <class Value> TimeNs max(size_t from, size_t to, Value value) const
    {
        TimeNs best = kNone;
        to = std::min(to, m_n);
        const size_t firstBlock = (from + kBlock - 1) / kBlock, endBlock = to / kBlock;
        if (from >= to)
            return best;
        if (firstBlock >= endBlock) { // no whole block inside
            for (size_t i = from; i < to; ++i)
                best = std::max(best, value(i));
            return best;
        }
        for (size_t i = from; i < firstBlock * kBlock; ++i)
            best = std::max(best, value(i));
        for (size_t i = endBlock * kBlock; i < to; ++i)
            best = std::max(best, value(i));
        size_t k = 0;
        while ((size_t(2) << k) <= endBlock - firstBlock)
            ++k;
        return std::max({best, m_levels[k][firstBlock], m_levels[k][endBlock - (size_t(1) << k)]});
    }

private:
    size_t m_n = 0;
    std::vector<std::vector<TimeNs>> m_levels; // level k: the max of 2^k blocks from each block on
};

} // namespace syncscope
