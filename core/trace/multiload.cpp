#include "trace/traceloader.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

namespace syncscope {

// Ranks of one job load in parallel: each file is an independent single pass.
std::vector<TraceModelPtr> loadTraces(const std::vector<std::string> &paths,
                                      const ProgressFn &progress, const CancelToken *cancel)
{
    std::vector<TraceModelPtr> out(paths.size());
    const size_t workers =
        std::max<size_t>(1, std::min<size_t>(paths.size(), std::thread::hardware_concurrency()));
    std::vector<double> fraction(paths.size(), 0.0);
    std::mutex mutex;
    auto report = [&](size_t i, double f, const char *msg) {
        if (!progress)
            return;
        std::lock_guard<std::mutex> lock(mutex);
        fraction[i] = f;
        double sum = 0;
        for (double x : fraction)
            sum += x;
        progress(sum / double(paths.size()), msg);
    };
    std::atomic<size_t> next{0};
    std::vector<std::exception_ptr> errors(paths.size());
    auto work = [&] {
        for (size_t i = next++; i < paths.size(); i = next++) {
            try {
                out[i] = loadTrace(
                    paths[i], [&, i](double f, const char *msg) { report(i, f, msg); }, cancel);
            } catch (...) {
                errors[i] = std::current_exception();
            }
        }
    };
    std::vector<std::thread> threads;
    for (size_t w = 1; w < workers; ++w)
        threads.emplace_back(work);
    work();
    for (auto &t : threads)
        t.join();
    for (auto &e : errors)
        if (e)
            std::rethrow_exception(e);
    std::stable_sort(out.begin(), out.end(), [](const TraceModelPtr &a, const TraceModelPtr &b) {
        const bool ha = a->info().rank != kNoValue, hb = b->info().rank != kNoValue;
        if (ha != hb)
            return ha;
        return ha && a->info().rank < b->info().rank;
    });
    return out;
}

} // namespace syncscope
