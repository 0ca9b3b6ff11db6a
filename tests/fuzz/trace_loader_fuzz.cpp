// libFuzzer target: the loader (plain and gzip paths) and the analysis must never
// crash on any input; they either load or throw syncscope::Error.
#include "analysis/jobanalysis.h"
#include "common/error.h"
#include "trace/traceloader.h"
#include "trace/tracewriter.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    try {
        auto model = syncscope::loadTraceFromMemory(
            std::string_view(reinterpret_cast<const char *>(data), size), "fuzz.json");
        const auto job = syncscope::analyzeJob({model});
        (void)syncscope::analysisToJson(job, 5);
        // What we write must load again.
        (void)syncscope::loadTraceFromMemory(syncscope::traceToJson(*model), "written.json");
    } catch (const syncscope::Error &) {
    }
    return 0;
}
