#include "kernels/cpu/intraoppool.h"

#include <algorithm>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

namespace syncscope::kernels {

namespace {
thread_local bool t_inRun = false;

struct InRunGuard {
    bool previous;
    InRunGuard() : previous(t_inRun) { t_inRun = true; }
    ~InRunGuard() { t_inRun = previous; }
};
} // namespace

IntraOpPool &IntraOpPool::instance()
{
    static IntraOpPool pool;
    return pool;
}

IntraOpPool::IntraOpPool() { setThreads(0); }

void IntraOpPool::setBackend(ForRange backend) { m_backend.store(backend); }

void IntraOpPool::setThreads(int threads)
{
    if (threads < 0 || threads > kMaxThreads)
        throw std::invalid_argument("threads must be between 1 and " + std::to_string(kMaxThreads) +
                                    ", or 0 for all cores (got " + std::to_string(threads) + ")");
    if (threads == 0)
        threads = static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u,
                                              static_cast<unsigned>(kMaxThreads)));
    m_threads.store(threads, std::memory_order_relaxed);
}

void IntraOpPool::run(int tasks, const std::function<void(int)> &fn)
{
    if (tasks <= 0)
        return;
    const int threads = this->threads();
    const ForRange backend = m_backend.load();
    if (tasks == 1 || threads <= 1 || !backend || t_inRun) {
        for (int t = 0; t < tasks; ++t)
            fn(t);
        return;
    }
    std::mutex errorMutex;
    std::exception_ptr firstError;
    std::atomic<bool> failed{false};
    backend(threads, tasks, [&](int64_t begin, int64_t end) {
        InRunGuard guard;
        for (int64_t t = begin; t < end && !failed.load(std::memory_order_relaxed); ++t) {
            try {
                fn(static_cast<int>(t));
            } catch (...) {
                std::lock_guard<std::mutex> lock(errorMutex);
                if (!firstError)
                    firstError = std::current_exception();
                failed.store(true, std::memory_order_relaxed);
            }
        }
    });
    if (firstError)
        std::rethrow_exception(firstError);
}

} // namespace syncscope::kernels
