#pragma once
// Streaming Chrome-trace loader: one pass over plain or gzipped JSON, object form
// {"traceEvents": [...]} or a bare array, memory bounded by the model it builds.
#include "common/progress.h"
#include "trace/tracemodel.h"

#include <string>
#include <string_view>
#include <vector>

namespace syncscope {

// Loads one trace file. Fatal problems (unreadable file, not JSON, invalid JSON in
// the middle) throw Error with one sentence naming the file and the byte offset;
// a truncated file keeps its complete events and records a warning. Throws
// Cancelled when the token fires. Progress runs from 0 to 1.
TraceModelPtr loadTrace(const std::string &path, const ProgressFn &progress = {},
                        const CancelToken *cancel = nullptr);

// The same on bytes in memory (tests, fuzzing); name is used in messages.
TraceModelPtr loadTraceFromMemory(std::string_view bytes, const std::string &name,
                                  const ProgressFn &progress = {},
                                  const CancelToken *cancel = nullptr);

// The ranks of one job: loads every file (in parallel when cores allow) and
// returns them ordered by distributedInfo.rank, files without a rank last in the
// given order. The first fatal error is thrown.
std::vector<TraceModelPtr> loadTraces(const std::vector<std::string> &paths,
                                      const ProgressFn &progress = {},
                                      const CancelToken *cancel = nullptr);

} // namespace syncscope
