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

} // namespace syncscope
