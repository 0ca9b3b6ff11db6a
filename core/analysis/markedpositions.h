#pragma once
// Which positions of a long sequence are marked, and each marked one's rank
// among them (how many marked positions come before it), in about 0.19 bytes
// per position: a bit per position and a count before every 64 positions. A
// value that only a few positions have lives in a list by rank beside it,
// instead of a column with a slot for every position.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace syncscope {

class MarkedPositions {
public:
    // n positions, none marked.
    void assign(size_t n)
    {
        m_bits.assign(n / 64 + 1, 0);
        m_before.clear();
    }
    // Before finish() only.
    void mark(size_t i) { m_bits[i / 64] |= uint64_t(1) << (i % 64); }
    // After the last mark: ranks can be read from here on.
    void finish()
    {
        m_before.resize(m_bits.size() + 1);
        uint32_t count = 0;
        for (size_t w = 0; w < m_bits.size(); ++w) {
            m_before[w] = count;
            count += static_cast<uint32_t>(__builtin_popcountll(m_bits[w]));
        }
        m_before.back() = count;
    }
    bool marked(size_t i) const { return (m_bits[i / 64] >> (i % 64)) & 1; }
    // The number of marked positions before i.
    size_t rank(size_t i) const
    {
        const uint64_t below = m_bits[i / 64] & ((uint64_t(1) << (i % 64)) - 1);
        return m_before[i / 64] + static_cast<size_t>(__builtin_popcountll(below));
    }
    size_t count() const { return m_before.empty() ? 0 : m_before.back(); }

private:
    std::vector<uint64_t> m_bits;
    std::vector<uint32_t> m_before; // per word: the marked positions before it; then the total
};

} // namespace syncscope
