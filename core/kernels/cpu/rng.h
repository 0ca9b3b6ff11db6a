#pragma once
// Small, fast, seedable generator for the fused kernels: xoshiro256** seeded by
// splitmix64, and Lemire's unbiased bounded draw.
#include <cstdint>

namespace syncscope::kernels {

inline uint64_t splitmix64(uint64_t &x)
{
    uint64_t z = (x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

class Xoshiro256 {
public:
    // Distinct (seed, stream) pairs give independent sequences.
    Xoshiro256(uint64_t seed, uint64_t stream)
    {
        uint64_t x = seed ^ (stream * 0xD1B54A32D192ED03ull);
        for (auto &w : m_s)
            w = splitmix64(x);
    }

    uint64_t next()
    {
        const uint64_t result = rotl(m_s[1] * 5, 7) * 9;
        const uint64_t t = m_s[1] << 17;
        m_s[2] ^= m_s[0];
        m_s[3] ^= m_s[1];
        m_s[1] ^= m_s[2];
        m_s[0] ^= m_s[3];
        m_s[2] ^= t;
        m_s[3] = rotl(m_s[3], 45);
        return result;
    }

    // Uniform in [0, bound), bound >= 1, without modulo bias.
    uint64_t below(uint64_t bound)
    {
        unsigned __int128 m = static_cast<unsigned __int128>(next()) * bound;
        auto low = static_cast<uint64_t>(m);
        if (low < bound) {
            const uint64_t threshold = (0 - bound) % bound;
            while (low < threshold) {
                m = static_cast<unsigned __int128>(next()) * bound;
                low = static_cast<uint64_t>(m);
            }
        }
        return static_cast<uint64_t>(m >> 64);
    }

private:
    static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    uint64_t m_s[4];
};

} // namespace syncscope::kernels
