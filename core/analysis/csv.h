#pragma once
// One CSV field (RFC 4180): a field with a comma, quote or line break is quoted,
// its quotes doubled. Numbers go in as text made from integers by the caller
// (formatMicros), so nothing passes through a double.
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

} // namespace syncscope
