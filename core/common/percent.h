#pragma once
// The one percentage the CLI, the reports and the app print: part / whole
// with one decimal, from the integers, rounded half away from zero ("12.3%",
// "-0.2%" for -0.15 %); "<0.1%" (">-0.1%") for a part that is not zero but
// rounds to it; "-" when whole <= 0 (no whole, no share).
// Header-only, std only.
#include <cstdint>
#include <cstdio>
#include <string>

namespace syncscope {

inline std::string formatPercent(int64_t part, int64_t whole)
{
    if (whole <= 0)
        return "-";
    const bool neg = part < 0;
    const __int128 mag = neg ? -__int128(part) : __int128(part);
    const __int128 permille = (mag * 2000 + whole) / (2 * __int128(whole)); // half away from zero
    // A share that is not zero never reads as zero: "<0.1%" beside 300 us of
    // a long span, ">-0.1%" for a tiny loss.
    if (permille == 0 && mag != 0)
        return neg ? ">-0.1%" : "<0.1%";
    char buf[48];
    std::snprintf(buf, sizeof buf, "%s%lld.%lld%%", neg && permille ? "-" : "",
                  static_cast<long long>(permille / 10), static_cast<long long>(permille % 10));
    return buf;
}

} // namespace syncscope
