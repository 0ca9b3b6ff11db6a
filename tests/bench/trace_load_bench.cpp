// Loads one trace with our loader and prints what it took, for trace_load_bench.py
// (which measures wall time and peak RSS of this whole process from outside).
#include "common/error.h"
#include "trace/traceloader.h"

#include <chrono>
#include <cstdio>

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s TRACE\n", argv[0]);
        return 2;
    }
    try {
        const auto t0 = std::chrono::steady_clock::now();
        auto model = syncscope::loadTrace(argv[1]);
        const double s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::printf("{\"seconds\": %.6f, \"json_bytes\": %llu, \"events\": %llu, \"warnings\": %llu, "
                    "\"args_bytes\": %llu}\n",
                    s, static_cast<unsigned long long>(model->info().jsonBytes),
                    static_cast<unsigned long long>(model->counts().durationEvents),
                    static_cast<unsigned long long>(model->warnings().count),
                    static_cast<unsigned long long>(model->argsBytes()));
    } catch (const syncscope::Error &e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    return 0;
}
