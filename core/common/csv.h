#pragma once
// CSV (RFC 4180), the one dialect every export writes: a field with a comma,
// quote or line break is quoted, its quotes doubled. Numbers go in as text made
// from integers by the caller (formatMicros), so nothing passes through a
// double. Header-only, std only.
#include <string>
#include <string_view>

namespace syncscope {

inline void appendCsvField(std::string &out, std::string_view s)
{
    if (s.find_first_of(",\"\r\n") == std::string_view::npos) {
        out += s;
        return;
    }
    out += '"';
    for (char c : s) {
        if (c == '"')
            out += '"';
        out += c;
    }
    out += '"';
}

inline std::string csvField(std::string_view s)
{
    std::string out;
    appendCsvField(out, s);
    return out;
}

namespace csv {

// One row: fields appended in order, separated by commas; end() ends the line.
class Row {
public:
    explicit Row(std::string &out) : m_out(out) {}
    // A field written as it is (a number the caller formatted).
    void raw(std::string_view s)
    {
        sep();
        m_out += s;
    }
    // A field quoted where it needs it.
    void text(std::string_view s)
    {
        sep();
        appendCsvField(m_out, s);
    }
    void end() { m_out += '\n'; }

private:
    void sep()
    {
        if (!m_first)
            m_out += ',';
        m_first = false;
    }
    std::string &m_out;
    bool m_first = true;
};

} // namespace csv
} // namespace syncscope
