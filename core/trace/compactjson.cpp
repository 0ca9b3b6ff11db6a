#include "trace/compactjson.h"

#include <cstdint>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SYNCSCOPE_COMPACT_SSSE3 1
#endif

namespace syncscope {

namespace {

bool isLayout(unsigned char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// Where a string or an escape left off, carried from one stretch to the next.
struct CompactState {
    bool inString = false;
    bool escaped = false; // the byte before was a backslash inside a string
};

size_t compactBytes(const char *in, size_t len, char *out, size_t n, CompactState &st)
{
    for (size_t i = 0; i < len; ++i) {
        const unsigned char c = static_cast<unsigned char>(in[i]);
        out[n] = static_cast<char>(c);
        if (st.inString) {
            ++n;
            if (st.escaped)
                st.escaped = false;
            else if (c == '\\')
                st.escaped = true;
            else if (c == '"')
                st.inString = false;
        } else if (!isLayout(c)) {
            ++n;
            st.inString = c == '"';
        }
    }
    return n;
}

#ifdef SYNCSCOPE_COMPACT_SSSE3

// For each byte mask of 8 bytes to keep: the shuffle that packs them to the
// front, and how many there are.
struct PackTable {
    alignas(16) uint8_t shuffle[256][8];
    uint8_t count[256];
    PackTable()
    {
        for (int m = 0; m < 256; ++m) {
            int k = 0;
            for (int b = 0; b < 8; ++b)
                if ((m >> b) & 1)
                    shuffle[m][k++] = static_cast<uint8_t>(b);
            count[m] = static_cast<uint8_t>(k);
            for (; k < 8; ++k)
                shuffle[m][k] = 0x80; // a zero byte, written past the kept ones and overwritten next
        }
    }
};
const PackTable kPack;

// Sixteen bytes at a time: the quotes' running parity says which bytes lie in
// a string, the layout outside strings is dropped and the rest packed with a
// shuffle per half. A stretch with a backslash (or right after one) goes a byte
// at a time, which knows escapes.
__attribute__((target("ssse3"))) size_t compactSsse3(std::string_view json, char *out)
{
    const char *in = json.data();
    const size_t len = json.size();
    size_t n = 0, i = 0;
    CompactState st;
    const __m128i quote = _mm_set1_epi8('"'), slash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(' '),
                  nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'), tab = _mm_set1_epi8('\t');
    for (; i + 16 <= len; i += 16) {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i *>(in + i));
        if (st.escaped || _mm_movemask_epi8(_mm_cmpeq_epi8(x, slash))) {
            n = compactBytes(in + i, 16, out, n, st);
            continue;
        }
        const unsigned quotes = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, quote)));
        const unsigned layout = static_cast<unsigned>(
            _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, space), _mm_cmpeq_epi8(x, nl)),
                                           _mm_or_si128(_mm_cmpeq_epi8(x, cr), _mm_cmpeq_epi8(x, tab)))));
        // Bit k: an odd number of quotes up to byte k, the string carried in
        // included. Layout bytes are never quotes, so for them that says
        // whether they lie in a string.
        unsigned inside = quotes;
        inside ^= inside << 1;
        inside ^= inside << 2;
        inside ^= inside << 4;
        inside ^= inside << 8;
        inside = (inside ^ (st.inString ? 0xFFFFu : 0u)) & 0xFFFFu;
        st.inString = (inside >> 15) & 1;
        const unsigned keep = ~(layout & ~inside) & 0xFFFFu;
        if (keep == 0xFFFFu) {
            _mm_storeu_si128(reinterpret_cast<__m128i *>(out + n), x);
            n += 16;
            continue;
        }
        // Each store writes 8 bytes; the next one starts where the kept ones
        // end, and n + 8 <= i + 16 <= len keeps them within out.
        const unsigned lo = keep & 0xFFu, hi = keep >> 8;
        const __m128i a = _mm_shuffle_epi8(x,
                                           _mm_loadl_epi64(reinterpret_cast<const __m128i *>(kPack.shuffle[lo])));
        _mm_storel_epi64(reinterpret_cast<__m128i *>(out + n), a);
        n += kPack.count[lo];
        const __m128i b = _mm_shuffle_epi8(_mm_srli_si128(x, 8),
                                           _mm_loadl_epi64(reinterpret_cast<const __m128i *>(kPack.shuffle[hi])));
        _mm_storel_epi64(reinterpret_cast<__m128i *>(out + n), b);
        n += kPack.count[hi];
    }
    return compactBytes(in + i, len - i, out, n, st);
}

#endif

} // namespace

size_t compactJsonBytewise(std::string_view json, char *out)
{
    CompactState st;
    return compactBytes(json.data(), json.size(), out, 0, st);
}

size_t compactJson(std::string_view json, char *out)
{
#ifdef SYNCSCOPE_COMPACT_SSSE3
    static const bool ssse3 = __builtin_cpu_supports("ssse3");
    if (ssse3)
        return compactSsse3(json, out);
#endif
    return compactJsonBytewise(json, out);
}

} // namespace syncscope
