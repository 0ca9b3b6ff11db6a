#pragma once
// Bit counting without a library call: the build targets plain x86-64, where
// __builtin_popcountll is a call into libgcc unless the POPCNT instruction is
// enabled; this is a dozen inline instructions instead.
#include <cstdint>

namespace syncscope {

inline unsigned popcount64(uint64_t x)
{
#if defined(__POPCNT__)
    return static_cast<unsigned>(__builtin_popcountll(x));
#else
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return static_cast<unsigned>((x * 0x0101010101010101ull) >> 56);
#endif
}

} // namespace syncscope
