#pragma once
// Length-prefixed text, as the string pool and the args store keep it: a
// LEB128 length (7 bits a byte, the high bit set on every byte but the last),
// then the bytes.
#include <cstddef>
#include <string_view>

namespace syncscope {

constexpr size_t kMaxLengthPrefix = 10; // enough for any 64-bit length

// Writes the prefix of a length-n text into out; returns its byte count.
inline size_t writeLengthPrefix(size_t n, unsigned char *out)
{
    size_t k = 0;
    for (;; n >>= 7) {
        out[k++] = static_cast<unsigned char>((n & 0x7f) | (n >= 0x80 ? 0x80 : 0));
        if (n < 0x80)
            return k;
    }
}

// The text stored at p (its prefix first).
inline std::string_view readLengthPrefixed(const char *p)
{
    const auto *u = reinterpret_cast<const unsigned char *>(p);
    size_t n = 0;
    for (unsigned shift = 0;; shift += 7) {
        const unsigned char c = *u++;
        n |= static_cast<size_t>(c & 0x7f) << shift;
        if (!(c & 0x80))
            break;
    }
    return {reinterpret_cast<const char *>(u), n};
}

} // namespace syncscope
