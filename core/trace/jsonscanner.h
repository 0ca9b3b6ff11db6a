#pragma once
// A small pull scanner over a buffer that ends in a '\0' sentinel. It is the hot
// loop of the loader: no allocation unless a string has escapes, and it throws
// NeedMore when a token runs into the end of the buffer so the caller can refill
// and retry the whole step (a trace event is small).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace syncscope {
namespace json {

struct NeedMore {};
struct SyntaxError {
    const char *at;
    const char *what; // a phrase: "expected ':' after a key"
};

constexpr int kMaxDepth = 512;

class Scanner {
public:
    Scanner(const char *begin, const char *end) : p(begin), m_end(end) {}

    const char *p;

    bool atEnd() const { return p >= m_end; }

    // Skips whitespace; throws NeedMore at the end of the buffer.
    char peek()
    {
        while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
            ++p;
        if (p >= m_end)
            throw NeedMore{};
        return *p;
    }

    void expect(char c, const char *what)
    {
        if (peek() != c)
            throw SyntaxError{p, what};
        ++p;
    }

    // At '"'. The view points into the buffer, or into scratch when it had escapes.
    std::string_view string(std::string &scratch)
    {
        const char *q = stop(++p);
        if (*q == '"') {
            std::string_view v(p, static_cast<size_t>(q - p));
            p = q + 1;
            return v;
        }
        if (q >= m_end)
            throw NeedMore{};
        if (*q != '\\')
            throw SyntaxError{q, "control character inside a string"};
        scratch.assign(p, static_cast<size_t>(q - p));
        p = q;
        decodeRest(scratch);
        return scratch;
    }

    void skipString()
    {
        const char *q = p + 1;
        for (;;) {
            q = stop(q);
            if (*q == '"') {
                p = q + 1;
                return;
            }
            if (q >= m_end)
                throw NeedMore{};
            if (*q != '\\')
                throw SyntaxError{q, "control character inside a string"};
            if (q + 1 >= m_end)
                throw NeedMore{};
            q += 2;
        }
    }

    // A number token, validated against the JSON grammar.
    std::string_view number()
    {
        const char *s = p;
        const char *q = p;
        if (*q == '-')
            ++q;
        if (!isDigit(*q)) {
            if (q >= m_end)
                throw NeedMore{};
            throw SyntaxError{q, "invalid number"};
        }
        if (*q == '0')
            ++q;
        else
            while (isDigit(*q))
                ++q;
        if (*q == '.') {
            ++q;
            if (!isDigit(*q)) {
                if (q >= m_end)
                    throw NeedMore{};
                throw SyntaxError{q, "invalid number"};
            }
            while (isDigit(*q))
                ++q;
        }
        if (*q == 'e' || *q == 'E') {
            ++q;
            if (*q == '+' || *q == '-')
                ++q;
            if (!isDigit(*q)) {
                if (q >= m_end)
                    throw NeedMore{};
                throw SyntaxError{q, "invalid number"};
            }
            while (isDigit(*q))
                ++q;
        }
        // The number may continue in the next chunk.
        if (q >= m_end)
            throw NeedMore{};
        p = q;
        return {s, static_cast<size_t>(q - s)};
    }

    // At a number: reads it when it has the form profilers write for times,
    // [-]digits[.digits] with 1 to 16 digits before the point (no leading zero
    // but a lone one) and 1 to 3 after it, ending within the buffer, whose
    // value in ns fits in int64; ns is then that value, as
    // parseMicros(number()) gives it. Otherwise false, and nothing is read:
    // number() reads it.
    bool plainMicros(int64_t &ns)
    {
        const char *q = p;
        const bool neg = *q == '-';
        q += neg;
        const char *digits = q;
        uint64_t v = 0;
        while (isDigit(*q))
            v = v * 10 + static_cast<uint64_t>(*q++ - '0');
        const std::ptrdiff_t n = q - digits;
        if (n < 1 || n > 16 || (*digits == '0' && n > 1))
            return false;
        v *= 1000;
        if (*q == '.') {
            const char *frac = ++q;
            for (uint64_t scale = 100; isDigit(*q) && q - frac < 3; scale /= 10)
                v += scale * static_cast<uint64_t>(*q++ - '0');
            if (q == frac || isDigit(*q))
                return false;
        }
        // Below 1e19: no uint64 wrapped.
        if (*q == 'e' || *q == 'E' || q >= m_end || v > static_cast<uint64_t>(INT64_MAX))
            return false;
        p = q;
        ns = neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
        return true;
    }

    void literal(const char *word, size_t n)
    {
        for (size_t i = 0; i < n; ++i) {
            if (p + i >= m_end)
                throw NeedMore{};
            if (p[i] != word[i])
                throw SyntaxError{p, "invalid literal"};
        }
        p += n;
    }

    // Skips any value; at its first character (after peek()).
    void skipValue(int depth = 0)
    {
        switch (*p) {
        case '"': skipString(); return;
        case '{': {
            if (depth >= kMaxDepth)
                throw SyntaxError{p, "nesting is too deep"};
            ++p;
            if (peek() == '}') {
                ++p;
                return;
            }
            for (;;) {
                if (peek() != '"')
                    throw SyntaxError{p, "expected a string key"};
                skipString();
                expect(':', "expected ':' after a key");
                peek();
                skipValue(depth + 1);
                const char c = peek();
                ++p;
                if (c == '}')
                    return;
                if (c != ',')
                    throw SyntaxError{p - 1, "expected ',' or '}' in an object"};
            }
        }
        case '[': {
            if (depth >= kMaxDepth)
                throw SyntaxError{p, "nesting is too deep"};
            ++p;
            if (peek() == ']') {
                ++p;
                return;
            }
            for (;;) {
                peek();
                skipValue(depth + 1);
                const char c = peek();
                ++p;
                if (c == ']')
                    return;
                if (c != ',')
                    throw SyntaxError{p - 1, "expected ',' or ']' in an array"};
            }
        }
        case 't': literal("true", 4); return;
        case 'f': literal("false", 5); return;
        case 'n': literal("null", 4); return;
        default:
            if (*p == '-' || isDigit(*p)) {
                number();
                return;
            }
            if (p >= m_end)
                throw NeedMore{};
            throw SyntaxError{p, "unexpected character"};
        }
    }

    static bool isDigit(char c) { return c >= '0' && c <= '9'; }

private:
    // The first byte at or after q that ends a string's plain run: '"', '\\' or
    // a control character (the '\0' sentinel among them). Eight bytes at a
    // time while they lie within the buffer (on a little-endian machine), then
    // byte by byte.
    const char *stop(const char *q) const
    {
        constexpr uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
        while (kLittleEndian && m_end - q >= 8) {
            uint64_t w;
            std::memcpy(&w, q, 8);
            // Per byte, the high bit set where it is a quote, a backslash or
            // below 0x20. A borrow can only mark bytes above a byte that is
            // marked rightly, so the lowest mark is the first such byte.
            const uint64_t quote = w ^ (ones * '"'), slash = w ^ (ones * '\\');
            const uint64_t hits = (((quote - ones) & ~quote) | ((slash - ones) & ~slash) |
                                   ((w - ones * 0x20) & ~w)) &
                                  highs;
            if (hits)
                return q + __builtin_ctzll(hits) / 8;
            q += 8;
        }
        while (!kStop[static_cast<unsigned char>(*q)])
            ++q;
        return q;
    }
    static constexpr bool kLittleEndian = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;

    void decodeRest(std::string &out);
    static const bool kStop[256];
    const char *m_end;
};

// Timestamps and durations: decimal microseconds (maybe fractional, with an
// exponent, maybe in a string) to integer nanoseconds with integer arithmetic
// only: digits beyond the nanosecond are rounded half-to-even. OutOfRange when
// the result does not fit in int64 (INT64_MIN excluded).
enum class NumberStatus { Ok, NotNumber, OutOfRange };
NumberStatus parseMicros(std::string_view text, int64_t &ns);
// parseMicros() == Ok.
bool parseMicrosToNs(std::string_view text, int64_t &ns);
// An integer (or a number with an integral value, or a numeric string's content).
bool parseInt64(std::string_view text, int64_t &out);
bool parseDouble(std::string_view text, double &out);

} // namespace json
} // namespace syncscope
