#include "trace/argfield.h"

#include <cstdlib>

namespace syncscope {

namespace {

struct Cursor {
    std::string_view s;
    size_t i = 0;
    bool ok = true;
    void ws()
    {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t'))
            ++i;
    }
    bool at(char c)
    {
        ws();
        return i < s.size() && s[i] == c;
    }
    // At '"': past the closing quote.
    void skipString()
    {
        for (++i; i < s.size(); ++i) {
            if (s[i] == '\\')
                ++i;
            else if (s[i] == '"') {
                ++i;
                return;
            }
        }
        ok = false;
    }
    void skipValue()
    {
        ws();
        if (i >= s.size()) {
            ok = false;
            return;
        }
        const char c = s[i];
        if (c == '"') {
            skipString();
            return;
        }
        if (c == '{' || c == '[') {
            int depth = 0;
            while (i < s.size()) {
                const char d = s[i];
                if (d == '"') {
                    skipString();
                    if (!ok)
                        return;
                    continue;
                }
                if (d == '{' || d == '[')
                    ++depth;
                else if (d == '}' || d == ']') {
                    if (--depth == 0) {
                        ++i;
                        return;
                    }
                }
                ++i;
            }
            ok = false;
            return;
        }
        while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ']')
            ++i;
    }
};

std::string unescape(std::string_view q)
{
    std::string out;
    out.reserve(q.size());
    for (size_t i = 0; i < q.size(); ++i) {
        if (q[i] != '\\' || i + 1 >= q.size()) {
            out += q[i];
            continue;
        }
        const char e = q[++i];
        switch (e) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u': {
            if (i + 4 >= q.size()) {
                out += '?';
                break;
            }
            const unsigned cp = static_cast<unsigned>(std::strtoul(std::string(q.substr(i + 1, 4)).c_str(),
                                                                   nullptr, 16));
            i += 4;
            if (cp < 0x80) {
                out += static_cast<char>(cp);
            } else if (cp < 0x800) {
                out += static_cast<char>(0xC0 | (cp >> 6));
                out += static_cast<char>(0x80 | (cp & 0x3F));
            } else {
                out += static_cast<char>(0xE0 | (cp >> 12));
                out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
                out += static_cast<char>(0x80 | (cp & 0x3F));
            }
            break;
        }
        default: out += e; break;
        }
    }
    return out;
}

} // namespace

std::optional<std::string_view> argRaw(std::string_view args, std::string_view key)
{
    Cursor c{args};
    if (!c.at('{'))
        return std::nullopt;
    ++c.i;
    for (;;) {
        if (!c.at('"'))
            return std::nullopt;
        const size_t k0 = c.i + 1;
        c.skipString();
        if (!c.ok)
            return std::nullopt;
        const std::string_view k = args.substr(k0, c.i - 1 - k0);
        if (!c.at(':'))
            return std::nullopt;
        ++c.i;
        c.ws();
        const size_t v0 = c.i;
        c.skipValue();
        if (!c.ok)
            return std::nullopt;
        if (k == key) // keys with escapes never match: the args the analysis reads have none
            return args.substr(v0, c.i - v0);
        if (!c.at(','))
            return std::nullopt;
        ++c.i;
    }
}

std::optional<int64_t> argInt(std::string_view args, std::string_view key)
{
    auto raw = argRaw(args, key);
    if (!raw || raw->empty())
        return std::nullopt;
    std::string_view v = *raw;
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"')
        v = v.substr(1, v.size() - 2);
    return argIntText(v);
}

std::optional<int64_t> argIntText(std::string_view v)
{
    if (v.empty())
        return std::nullopt;
    size_t i = 0;
    const bool neg = v[0] == '-';
    if (neg)
        i = 1;
    if (i >= v.size() || v.size() - i > 18)
        return std::nullopt;
    int64_t out = 0;
    for (; i < v.size(); ++i) {
        if (v[i] < '0' || v[i] > '9')
            return std::nullopt;
        out = out * 10 + (v[i] - '0');
    }
    return neg ? -out : out;
}

std::optional<std::string> argString(std::string_view args, std::string_view key)
{
    auto raw = argRaw(args, key);
    if (!raw || raw->empty())
        return std::nullopt;
    const std::string_view v = *raw;
    if (v.front() == '"')
        return v.size() >= 2 ? unescape(v.substr(1, v.size() - 2)) : std::string();
    if (v.front() == '{' || v.front() == '[' || v == "null" || v == "true" || v == "false")
        return std::nullopt;
    return std::string(v);
}

} // namespace syncscope
