// libFuzzer target: the loader (plain and gzip paths) and the analysis must never
// crash on any input; they either load or throw syncscope::Error. And what we
// write must load again as the same model (tests/fuzz/roundtrip.h).
#include "analysis/jobanalysis.h"
#include "common/error.h"
#include "roundtrip.h"
#include "trace/traceloader.h"
#include "trace/tracewriter.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    syncscope::TraceModelPtr model;
    try {
        model = syncscope::loadTraceFromMemory(
            std::string_view(reinterpret_cast<const char *>(data), size), "fuzz.json");
        const auto job = syncscope::analyzeJob({model});
        (void)syncscope::analysisToJson(job, 5);
    } catch (const syncscope::Error &) {
        return 0;
    }
    // Load, write, reload: the same events, tracks and args.
    const std::string written = syncscope::traceToJson(*model);
    syncscope::TraceModelPtr again;
    try {
        again = syncscope::loadTraceFromMemory(written, "written.json");
    } catch (const syncscope::Error &e) {
        std::fprintf(stderr, "round trip: the written trace does not load: %s\n", e.what());
        std::abort();
    }
    const std::string diff = syncscope::fuzz::roundTripDifference(*model, *again);
    if (!diff.empty()) {
        std::fprintf(stderr, "round trip: %s\n", diff.c_str());
        std::abort();
    }
    return 0;
}
