// libFuzzer target: the loader (plain and gzip paths) and the analysis must never
// crash on any input; they either load or throw syncscope::Error. The input read
// in small chunks (1 to 64 bytes, chosen by the input's bytes) gives the same
// model or the same error as read whole, so every input crosses refills. And what
// we write must load again as the same model (tests/fuzz/roundtrip.h).
#include "../trace/modelequal.h"
#include "analysis/jobanalysis.h"
#include "common/error.h"
#include "roundtrip.h"
#include "trace/traceloader.h"
#include "trace/tracewriter.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

// Most inputs start with '{', so the chunk comes from a hash of every byte:
// any change to the input moves the refills.
size_t chunkFor(const uint8_t *data, size_t size)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < size; ++i)
        h = (h ^ data[i]) * 16777619u;
    return 1 + h % 64;
}

// Read whole and in chunks, the same input loads to the same model or fails with
// the same sentence.
void checkChunkedLoad(std::string_view bytes, const syncscope::TraceModelPtr &whole, const std::string &wholeError,
                      size_t chunk)
{
    syncscope::LoadOptions options;
    options.chunkBytes = chunk;
    syncscope::TraceModelPtr chunked;
    std::string error;
    try {
        chunked = syncscope::loadTraceFromMemory(bytes, "fuzz.json", {}, nullptr, options);
    } catch (const syncscope::Error &e) {
        error = e.what();
    }
    if (!whole || !chunked) {
        if (whole || chunked || error != wholeError) {
            std::fprintf(stderr, "chunks of %zu bytes: read whole %s, in chunks %s\n", chunk,
                         whole ? "it loads" : wholeError.c_str(), chunked ? "it loads" : error.c_str());
            std::abort();
        }
        return;
    }
    // Data after the end of the JSON stops the reading where it is found.
    syncscope::test::ModelCompare how;
    for (const auto &kind : whole->warnings().kinds)
        if (kind.pattern.rfind("data after the end of the JSON", 0) == 0)
            how.sameReadExtent = false;
    const std::string diff = syncscope::test::modelDifference(*whole, *chunked, how);
    if (!diff.empty()) {
        std::fprintf(stderr, "chunks of %zu bytes: the model differs: %s\n", chunk, diff.c_str());
        std::abort();
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string_view bytes(reinterpret_cast<const char *>(data), size);
    syncscope::TraceModelPtr model;
    std::string loadError;
    try {
        model = syncscope::loadTraceFromMemory(bytes, "fuzz.json");
    } catch (const syncscope::Error &e) {
        loadError = e.what();
    }
    checkChunkedLoad(bytes, model, loadError, chunkFor(data, size));
    if (!model)
        return 0;
    try {
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
