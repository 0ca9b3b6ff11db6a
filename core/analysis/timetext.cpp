#include "analysis/timetext.h"

#include <cstdio>

namespace syncscope {

std::string formatMillis(TimeNs ns, bool sign)
{
    const bool neg = ns < 0;
    const uint64_t mag = neg ? uint64_t(0) - uint64_t(ns) : uint64_t(ns);
    const uint64_t us = (mag + 500) / 1000; // to the nearest microsecond
    char buf[48];
    std::snprintf(buf, sizeof buf, "%s%llu.%03llu ms", neg ? "-" : (sign && ns > 0 ? "+" : ""),
                  static_cast<unsigned long long>(us / 1000), static_cast<unsigned long long>(us % 1000));
    return buf;
}

std::string formatPercent(TimeNs part, TimeNs whole)
{
    if (whole <= 0)
        return "-";
    const bool neg = part < 0;
    const __int128 mag = neg ? -__int128(part) : __int128(part);
    const __int128 permille = (mag * 2000 + whole) / (2 * __int128(whole)); // half away from zero
    char buf[32];
    std::snprintf(buf, sizeof buf, "%s%lld.%lld%%", neg && permille ? "-" : "",
                  static_cast<long long>(permille / 10), static_cast<long long>(permille % 10));
    return buf;
}

} // namespace syncscope
