#pragma once
// The one grammar of the numbers the CLI and the app accept for sizes, counts,
// seeds and fractions: 1000, 1e6, 0.25, 1_000_000, 1,000,000, 10k or 2M (k is
// 1e3, M is 1e6); underscores, commas and spaces are ignored (the CLI splits
// its lists at commas before a value gets here). Header-only, std only.
#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace syncscope {

inline std::optional<double> parseNumber(std::string_view text)
{
    std::string t;
    for (char c : text)
        if (c != '_' && c != ',' && c != ' ' && c != '\t')
            t += c;
    if (!t.empty() && t.front() == '+')
        t.erase(0, 1);
    if (t.empty())
        return std::nullopt;
    double scale = 1;
    if (t.back() == 'k' || t.back() == 'K')
        scale = 1e3;
    else if (t.back() == 'M')
        scale = 1e6;
    if (scale != 1)
        t.pop_back();
    double v = 0;
    const char *end = t.data() + t.size();
    const auto r = std::from_chars(t.data(), end, v, std::chars_format::general);
    if (t.empty() || r.ec != std::errc() || r.ptr != end || !std::isfinite(v * scale))
        return std::nullopt;
    return v * scale;
}

// A whole number in that grammar (1e6 and 2M are; 1.5 is not), |value| <= 9e18.
inline std::optional<int64_t> parseCount(std::string_view text)
{
    const auto v = parseNumber(text);
    if (!v || std::abs(*v - std::round(*v)) > 1e-9 || std::abs(*v) > 9e18)
        return std::nullopt;
    return static_cast<int64_t>(std::llround(*v));
}

} // namespace syncscope
