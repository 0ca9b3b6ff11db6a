#pragma once
// Streaming Chrome-trace loader: one pass over plain or gzipped JSON, object form
// {"traceEvents": [...]} or a bare array, memory bounded by the model it builds.
#include "common/progress.h"
#include "trace/tracemodel.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace syncscope {

struct LoadOptions {
    // Bytes of JSON read at a time (0 counts as 1); the buffer grows past it for
    // an element longer than half of it. The model does not depend on it, except
    // that reading stops where data after the end of the JSON is found: how much
    // of it was read (TraceInfo::jsonBytes) and whether a gzip problem beyond it
    // was met then depend on the chunk. Tests and fuzzing use small chunks to
    // cross refills everywhere.
    size_t chunkBytes = size_t(4) << 20;
    // Read and scan the JSON on a thread of its own while the events read are
    // committed to the model, for a file of more than one chunk. The model is
    // the same either way; loadTraces turns it off when it loads files side
    // by side.
    bool scanThread = true;
    // Scan a plain file in place through a memory map (trace/mappedfile.h)
    // instead of reading it in chunks. The model is the same either way; off,
    // the benchmarks compare the two and tests cross the chunks' refills.
    bool mapFile = true;
};

// Loads one trace file (an Nsight Systems export or report too: nsysloader.h).
// Fatal problems (unreadable file, not JSON, invalid JSON in
// the middle) throw Error with one sentence naming the file and the byte offset;
// a truncated file keeps its complete events and records a warning. Throws
// Cancelled when the token fires. Progress runs from 0 to 1.
TraceModelPtr loadTrace(const std::string &path, const ProgressFn &progress = {},
                        const CancelToken *cancel = nullptr, const LoadOptions &options = {});

// The same on bytes in memory (tests, fuzzing); name is used in messages.
TraceModelPtr loadTraceFromMemory(std::string_view bytes, const std::string &name, const ProgressFn &progress = {},
                                  const CancelToken *cancel = nullptr, const LoadOptions &options = {});

// The ranks of one job: loads every file (in parallel when cores allow; an
// Nsight Systems export of several GPU processes gives one rank per process) and
// returns them ordered by distributedInfo.rank, files without a rank last in the
// given order. The first fatal error is thrown.
std::vector<TraceModelPtr> loadTraces(const std::vector<std::string> &paths, const ProgressFn &progress = {},
                                      const CancelToken *cancel = nullptr);

} // namespace syncscope
