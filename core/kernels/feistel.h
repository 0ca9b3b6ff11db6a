#pragma once
// A keyed pseudo-random permutation of [0, n), n < 2^32: a balanced Feistel
// network over the smallest even bit width that covers n, restricted to [0, n)
// by cycle walking (Black and Rogaway), as in the GPU "bijective shuffle"
// literature. It lets every thread of a CUDA kernel answer "where does item r
// go" independently: the fused CUDA sampler takes a uniformly random subset of
// the ranks [0, P) as the ranks that land below num_pos, and a uniformly
// random output order as a second permutation, with no sequential draw and no
// sort. Host and device share this code, so the host tests check it.
#include "kernels/hostdevice.h"

#include <cstdint>

namespace syncscope::kernels {

SYNCSCOPE_HOST_DEVICE inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// The key of one (seed, row, stream) triple; streams keep positives,
// negatives and the output order independent.
SYNCSCOPE_HOST_DEVICE inline uint64_t permutationKey(uint64_t seed, uint64_t row, uint64_t stream)
{
    return mix64(mix64(seed + 0x9E3779B97F4A7C15ull) ^ (row * 4 + stream + 1) * 0xD1B54A32D192ED03ull);
}

class FeistelPermutation {
public:
    // Small domains mix slowly (measured on the host: at 6 rounds the 120
    // orders of 5 items were visibly uneven), so they get more rounds.
    static constexpr int kMaxRounds = 12;

    SYNCSCOPE_HOST_DEVICE FeistelPermutation(uint32_t n, uint64_t key) : m_n(n)
    {
        int bits = 0;
        while (bits < 32 && (uint64_t(1) << bits) < n)
            ++bits;
        bits += bits & 1;
        if (bits < 2)
            bits = 2;
        m_half = bits / 2;
        m_mask = (uint32_t(1) << m_half) - 1;
        m_rounds = m_half <= 4 ? kMaxRounds : 8;
        // Feistel rounds compose to even permutations only; a keyed rotation
        // of the whole domain (an odd permutation half of the time) removes
        // that parity bias, which cycle walking would carry into [0, n).
        m_offset = static_cast<uint32_t>(mix64(key ^ 0x5851F42D4C957F2Dull));
        uint64_t k = key;
        for (int r = 0; r < m_rounds; ++r) {
            k += 0x9E3779B97F4A7C15ull;
            m_keys[r] = static_cast<uint32_t>(mix64(k) >> 32);
        }
    }

    SYNCSCOPE_HOST_DEVICE uint32_t size() const { return m_n; }

    // The image of x in [0, n). Cycle walking terminates because the network is
    // a permutation of [0, 2^bits): the walk from x returns to [0, n) at the
    // latest when its cycle comes back to x.
    SYNCSCOPE_HOST_DEVICE uint32_t operator()(uint32_t x) const
    {
        do {
            x = network(x);
        } while (x >= m_n);
        return x;
    }

private:
    SYNCSCOPE_HOST_DEVICE static uint32_t round(uint32_t r, uint32_t key)
    {
        uint32_t x = r ^ key;
        x *= 0x9E3779B1u;
        x ^= x >> 16;
        x *= 0x85EBCA6Bu;
        x ^= x >> 13;
        x *= 0xC2B2AE35u;
        x ^= x >> 16;
        return x;
    }

    SYNCSCOPE_HOST_DEVICE uint32_t network(uint32_t x) const
    {
        uint32_t left = x >> m_half, right = x & m_mask;
        for (int r = 0; r < m_rounds; ++r) {
            const uint32_t next = left ^ (round(right, m_keys[r]) & m_mask);
            left = right;
            right = next;
        }
        const uint32_t full = (m_mask << m_half) | m_mask;
        return (((left << m_half) | right) + m_offset) & full;
    }

    uint32_t m_n;
    int m_half = 1;
    int m_rounds = kMaxRounds;
    uint32_t m_mask = 1;
    uint32_t m_offset = 0;
    uint32_t m_keys[kMaxRounds] = {};
};

} // namespace syncscope::kernels
