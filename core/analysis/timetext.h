#pragma once
// Durations and shares as text, from integers only: what the CLI's text, the
// reports and the tables print (the JSON writes exact microseconds instead,
// jsonwriter.h formatMicros).
#include "common/percent.h" // formatPercent, with the times it is printed beside
#include "trace/tracemodel.h"

#include <string>

namespace syncscope {

// "12.345 ms": ms with 3 decimals, rounded half away from zero to the
// microsecond; a negative value keeps its '-', and with `sign` a positive one
// gets a '+'.
std::string formatMillis(TimeNs ns, bool sign = false);


} // namespace syncscope
