#include "analysis/jsonwriter.h"

#include <cstdio>

namespace syncscope {

std::string formatMicros(TimeNs ns)
{
    // |INT64_MIN| does not fit in int64; the model never holds it (kNoValue).
    const bool neg = ns < 0;
    const uint64_t mag = neg ? uint64_t(0) - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%s%llu.%03llu", neg ? "-" : "", static_cast<unsigned long long>(mag / 1000),
                  static_cast<unsigned long long>(mag % 1000));
    return buf;
}

void JsonWriter::newline()
{
    if (m_indent < 0)
        return;
    m_out += '\n';
    m_out.append(m_first.size() * static_cast<size_t>(m_indent), ' ');
}

void JsonWriter::beforeValue()
{
    if (m_afterKey) {
        m_afterKey = false;
        return;
    }
    if (!m_first.empty()) {
        if (!m_first.back())
            m_out += ',';
        m_first.back() = false;
        newline();
    }
}

JsonWriter &JsonWriter::beginObject()
{
    beforeValue();
    m_out += '{';
    m_first.push_back(true);
    return *this;
}

JsonWriter &JsonWriter::close(char bracket)
{
    const bool empty = m_first.back();
    m_first.pop_back();
    if (!empty)
        newline();
    m_out += bracket;
    if (m_sink && m_out.size() >= (size_t(1) << 20)) {
        m_sink(m_out);
        m_out.clear();
    }
    return *this;
}

JsonWriter &JsonWriter::endObject() { return close('}'); }

JsonWriter &JsonWriter::beginArray()
{
    beforeValue();
    m_out += '[';
    m_first.push_back(true);
    return *this;
}

JsonWriter &JsonWriter::endArray() { return close(']'); }

JsonWriter &JsonWriter::key(std::string_view k)
{
    value(k);
    m_out += m_indent >= 0 ? ": " : ":";
    m_afterKey = true;
    return *this;
}

JsonWriter &JsonWriter::value(std::string_view s)
{
    beforeValue();
    m_out += '"';
    const auto *p = reinterpret_cast<const unsigned char *>(s.data());
    const auto *end = p + s.size();
    while (p < end) {
        const unsigned char c = *p;
        if (c < 0x80) {
            switch (c) {
            case '"': m_out += "\\\""; break;
            case '\\': m_out += "\\\\"; break;
            case '\n': m_out += "\\n"; break;
            case '\r': m_out += "\\r"; break;
            case '\t': m_out += "\\t"; break;
            case '\b': m_out += "\\b"; break;
            case '\f': m_out += "\\f"; break;
            default:
                if (c < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    m_out += buf;
                } else {
                    m_out += static_cast<char>(c);
                }
            }
            ++p;
            continue;
        }
        // A well-formed UTF-8 sequence is copied; anything else becomes U+FFFD.
        int len = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c <= 0xDF ? 2 : 0;
        bool ok = len > 0 && end - p >= len;
        for (int k = 1; ok && k < len; ++k)
            ok = (p[k] & 0xC0) == 0x80;
        if (ok && len == 3) // no overlong forms, no surrogates
            ok = !(c == 0xE0 && p[1] < 0xA0) && !(c == 0xED && p[1] >= 0xA0);
        if (ok && len == 4)
            ok = !(c == 0xF0 && p[1] < 0x90) && !(c == 0xF4 && p[1] >= 0x90);
        if (ok) {
            m_out.append(reinterpret_cast<const char *>(p), static_cast<size_t>(len));
            p += len;
        } else {
            m_out += "\xEF\xBF\xBD";
            ++p;
        }
    }
    m_out += '"';
    return *this;
}

JsonWriter &JsonWriter::value(int64_t v) { return raw(std::to_string(v)); }
JsonWriter &JsonWriter::value(uint64_t v) { return raw(std::to_string(v)); }
JsonWriter &JsonWriter::value(bool v) { return raw(v ? "true" : "false"); }
JsonWriter &JsonWriter::null() { return raw("null"); }
JsonWriter &JsonWriter::micros(TimeNs ns) { return raw(formatMicros(ns)); }

JsonWriter &JsonWriter::raw(std::string_view json)
{
    beforeValue();
    m_out.append(json);
    return *this;
}

std::string JsonWriter::take()
{
    m_out += '\n';
    return std::move(m_out);
}

void JsonWriter::finish()
{
    m_out += '\n';
    if (m_sink)
        m_sink(m_out);
    m_out.clear();
}

} // namespace syncscope
