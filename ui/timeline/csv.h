#pragma once
// CSV rows for the timeline's table exports (RFC 4180): a field with a comma,
// quote or line break is quoted, quotes doubled. Numbers go in as text made from
// integers by the caller (formatMicros), so nothing passes through a double.
#include <string>
#include <string_view>

namespace syncscope::ui::csv {

class Row {
public:
    explicit Row(std::string &out) : m_out(out) {}
    void raw(std::string_view s)
    {
        sep();
        m_out += s;
    }
    void text(std::string_view s)
    {
        sep();
        if (s.find_first_of(",\"\r\n") == std::string_view::npos) {
            m_out += s;
            return;
        }
        m_out += '"';
        for (char c : s) {
            if (c == '"')
                m_out += '"';
            m_out += c;
        }
        m_out += '"';
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

} // namespace syncscope::ui::csv
