#pragma once
// CSV rows for the timeline's table exports (RFC 4180): a field with a comma,
// quote or line break is quoted, quotes doubled. Numbers go in as text made from
// integers by the caller (formatMicros), so nothing passes through a double.
#include "analysis/csv.h"

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

} // namespace syncscope::ui::csv
