#include "trace/jsonscanner.h"

#include <charconv>
#include <cmath>
#include <limits>

namespace syncscope {
namespace json {

namespace {
struct StopTable {
    bool t[256];
    constexpr StopTable() : t()
    {
        for (int i = 0; i < 0x20; ++i)
            t[i] = true;
        t[static_cast<unsigned char>('"')] = true;
        t[static_cast<unsigned char>('\\')] = true;
    }
};
constexpr StopTable kTable;

int hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

void appendUtf8(std::string &out, uint32_t cp)
{
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}
} // namespace

const bool Scanner::kStop[256] = {
#define S(i) kTable.t[i]
#define S8(i) S(i), S(i + 1), S(i + 2), S(i + 3), S(i + 4), S(i + 5), S(i + 6), S(i + 7)
#define S64(i) S8(i), S8(i + 8), S8(i + 16), S8(i + 24), S8(i + 32), S8(i + 40), S8(i + 48), S8(i + 56)
    S64(0), S64(64), S64(128), S64(192)
#undef S64
#undef S8
#undef S
};

void Scanner::decodeRest(std::string &out)
{
    // p is at a backslash inside a string whose opening quote is consumed.
    for (;;) {
        const char c = *p;
        if (c == '"') {
            ++p;
            return;
        }
        if (p >= m_end)
            throw NeedMore{};
        if (static_cast<unsigned char>(c) < 0x20)
            throw SyntaxError{p, "control character inside a string"};
        if (c != '\\') {
            out += c;
            ++p;
            continue;
        }
        if (p + 1 >= m_end)
            throw NeedMore{};
        const char e = p[1];
        p += 2;
        switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
            auto hex4 = [&](const char *at) -> int32_t {
                int32_t v = 0;
                for (int i = 0; i < 4; ++i) {
                    if (at + i >= m_end)
                        throw NeedMore{};
                    const int h = hexValue(at[i]);
                    if (h < 0)
                        throw SyntaxError{at + i, "invalid \\u escape"};
                    v = v * 16 + h;
                }
                return v;
            };
            uint32_t cp = static_cast<uint32_t>(hex4(p));
            p += 4;
            if (cp >= 0xD800 && cp < 0xDC00) {
                // A high surrogate needs its low half; a lone one becomes U+FFFD.
                if (p + 1 >= m_end)
                    throw NeedMore{};
                if (p[0] == '\\' && p[1] == 'u') {
                    const uint32_t lo = static_cast<uint32_t>(hex4(p + 2));
                    if (lo >= 0xDC00 && lo < 0xE000) {
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                        p += 6;
                    } else {
                        cp = 0xFFFD;
                    }
                } else {
                    cp = 0xFFFD;
                }
            } else if (cp >= 0xDC00 && cp < 0xE000) {
                cp = 0xFFFD;
            }
            appendUtf8(out, cp);
            break;
        }
        default: throw SyntaxError{p - 1, "invalid escape in a string"};
        }
    }
}

NumberStatus parseMicros(std::string_view t, int64_t &ns)
{
    // Exact decimal arithmetic: the digits are kept as text, shifted by the
    // exponent and by 3 places (us -> ns), and rounded half-to-even once.
    size_t i = 0;
    const size_t n = t.size();
    bool neg = false;
    if (i < n && (t[i] == '-' || t[i] == '+')) {
        neg = t[i] == '-';
        ++i;
    }
    // Significant digits (leading zeros dropped) and how many of them stand
    // before the decimal point ("intDigits" may be negative: 0.00123 -> -2).
    const size_t mantBegin = i;
    size_t sigBegin = std::string_view::npos, sigEnd = 0;
    int64_t intDigits = 0;
    bool seenPoint = false, anyDigit = false;
    for (; i < n; ++i) {
        const char c = t[i];
        if (c >= '0' && c <= '9') {
            anyDigit = true;
            if (sigBegin == std::string_view::npos) {
                if (c == '0') {
                    if (seenPoint)
                        --intDigits;
                    continue;
                }
                sigBegin = i;
            }
            sigEnd = i + 1;
            if (!seenPoint)
                ++intDigits;
        } else if (c == '.' && !seenPoint) {
            seenPoint = true;
        } else {
            break;
        }
    }
    if (!anyDigit || i == mantBegin)
        return NumberStatus::NotNumber;
    int64_t exponent = 0;
    if (i < n && (t[i] == 'e' || t[i] == 'E')) {
        ++i;
        bool eneg = false;
        if (i < n && (t[i] == '-' || t[i] == '+')) {
            eneg = t[i] == '-';
            ++i;
        }
        const size_t expBegin = i;
        for (; i < n && t[i] >= '0' && t[i] <= '9'; ++i)
            if (exponent < 100000) // beyond this the value is 0 or out of range anyway
                exponent = exponent * 10 + (t[i] - '0');
        if (i == expBegin)
            return NumberStatus::NotNumber;
        if (eneg)
            exponent = -exponent;
    }
    if (i != n)
        return NumberStatus::NotNumber;
    if (sigBegin == std::string_view::npos) { // all zeros
        ns = 0;
        return NumberStatus::Ok;
    }
    // Digits of the result's integer part: the first `keep` significant digits.
    const int64_t keep = intDigits + exponent + 3;
    if (keep > 19)
        return NumberStatus::OutOfRange;
    uint64_t whole = 0;
    int64_t taken = 0;
    int firstDropped = 0;     // the first digit after the integer part
    bool restNonZero = false; // any non-zero digit after that one
    for (size_t k = sigBegin; k < sigEnd; ++k) {
        if (t[k] == '.')
            continue;
        const int d = t[k] - '0';
        if (taken < keep) {
            whole = whole * 10 + static_cast<uint64_t>(d); // < 1e19 < 2^64
            ++taken;
        } else if (taken == keep) {
            firstDropped = d;
            ++taken;
        } else if (d != 0) {
            restNonZero = true;
        }
    }
    if (keep < 0) { // the first dropped digit is one of the implied zeros
        firstDropped = 0;
        restNonZero = true;
    }
    for (; taken < keep; ++taken)
        whole *= 10;
    if (firstDropped > 5 || (firstDropped == 5 && (restNonZero || (whole & 1))))
        ++whole;
    // INT64_MIN is not a time: it marks absent values in the model.
    if (whole > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        return NumberStatus::OutOfRange;
    ns = neg ? -static_cast<int64_t>(whole) : static_cast<int64_t>(whole);
    return NumberStatus::Ok;
}

bool parseMicrosToNs(std::string_view t, int64_t &ns) { return parseMicros(t, ns) == NumberStatus::Ok; }

bool parseInt64(std::string_view t, int64_t &out)
{
    const char *b = t.data();
    const char *e = b + t.size();
    if (b != e && *b == '+')
        ++b;
    auto r = std::from_chars(b, e, out);
    if (r.ec == std::errc() && r.ptr == e)
        return true;
    double d;
    if (!parseDouble(t, d) || std::trunc(d) != d || !(std::fabs(d) < 9.2e18))
        return false;
    out = static_cast<int64_t>(d);
    return true;
}

bool parseDouble(std::string_view t, double &out)
{
    const char *b = t.data();
    const char *e = b + t.size();
    if (b != e && *b == '+')
        ++b;
    auto r = std::from_chars(b, e, out);
    return r.ec == std::errc() && r.ptr == e && b != e && std::isfinite(out);
}

} // namespace json
} // namespace syncscope
