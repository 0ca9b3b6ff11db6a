#pragma once
// Writes a model as Trace Event Format JSON (object form) that chrome://tracing,
// Perfetto and our own loader read. Used for traces that `profile` captures.
#include "common/progress.h"
#include "trace/tracemodel.h"

#include <string>

namespace syncscope {

enum class TraceCompression { ByName, None, Gzip };

// ByName: gzip when path ends in ".gz". Written atomically (temp file + rename).
// Throws Error with one sentence when the file cannot be written; Cancelled.
void writeTrace(const TraceModel &model, const std::string &path,
                TraceCompression compression = TraceCompression::ByName, const ProgressFn &progress = {},
                const CancelToken *cancel = nullptr);

// The JSON text itself (small traces, tests).
std::string traceToJson(const TraceModel &model);

} // namespace syncscope
