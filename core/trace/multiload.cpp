#include "trace/traceloader.h"

#include "common/cores.h"
#include "common/error.h"
#include "trace/nsysloader.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

namespace syncscope {

// Ranks of one job load in parallel: each file is an independent single pass.
std::vector<TraceModelPtr> loadTraces(const std::vector<std::string> &files, const ProgressFn &progress,
                                      const CancelToken *cancel)
{
    // An Nsight Systems export of several GPU processes is one rank per process.
    const TraceInputs inputs = expandTraceInputs(files, cancel);
    const std::vector<std::string> &paths = inputs.paths;
    std::vector<TraceModelPtr> out(paths.size());
    const size_t workers = std::max<size_t>(1, std::min<size_t>(paths.size(), usableCores()));
    std::vector<double> fraction(paths.size(), 0.0);
    std::mutex mutex;
    bool firstErrorIsCancel = true;
    CancelToken stop; // see work below
    auto report = [&](size_t i, double f, const char *msg) {
        if (!progress)
            return;
        if (stop.cancelled())
            return;
        std::lock_guard<std::mutex> lock(mutex);
        fraction[i] = f;
        double sum = 0;
        for (double x : fraction)
            sum += x;
        progress(sum / double(paths.size()), msg);
    };
    // One fatal error stops every other rank at once: their loaders poll this
    // token, which also carries the caller's cancel (forwarded from the
    // progress callback, which the loader calls at least every 50 ms).
    std::atomic<size_t> next{0};
    std::exception_ptr firstError;
    auto fail = [&](std::exception_ptr e, bool cancelled) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!firstError || (!cancelled && firstErrorIsCancel))
            firstError = e;
        firstErrorIsCancel = firstErrorIsCancel && cancelled;
        stop.cancel();
    };
    LoadOptions options;
    options.scanThread = workers < 2; // the files already keep the cores busy
    auto work = [&] {
        for (size_t i = next++; i < paths.size() && !stop.cancelled(); i = next++) {
            try {
                out[i] = loadTrace(
                    paths[i],
                    [&, i](double f, const char *msg) {
                        if (cancel && cancel->cancelled())
                            stop.cancel();
                        report(i, f, msg);
                    },
                    &stop, options);
            } catch (const Cancelled &) {
                fail(std::current_exception(), true);
            } catch (...) {
                fail(std::current_exception(), false);
            }
        }
    };
    std::vector<std::thread> threads;
    for (size_t w = 1; w < workers; ++w)
        threads.emplace_back(work);
    work();
    for (auto &t : threads)
        t.join();
    if (firstError)
        std::rethrow_exception(firstError);
    checkCancel(cancel);
    std::stable_sort(out.begin(), out.end(), [](const TraceModelPtr &a, const TraceModelPtr &b) {
        const bool ha = a->info().rank != kNoValue, hb = b->info().rank != kNoValue;
        if (ha != hb)
            return ha;
        return ha && a->info().rank < b->info().rank;
    });
    return out;
}

} // namespace syncscope
