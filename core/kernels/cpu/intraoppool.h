#pragma once
// How the CPU kernels run parallel work: on the process's one intra-op pool.
// The kernels must not depend on LibTorch, so the lab hands them LibTorch's
// pool (OpenMP in every LibTorch we build against) as a backend; a second pool
// of our own would fight LibTorch's spinning workers for the same cores.
// Without a backend, tasks run on the calling thread.
#include <atomic>
#include <cstdint>
#include <functional>

namespace syncscope::kernels {

class IntraOpPool {
public:
    // The most threads setThreads() accepts: far above any machine's cores and
    // far below what would exhaust memory or the thread limit.
    static constexpr int kMaxThreads = 256;

    // Runs body(begin, end) over a partition of [0, tasks) on up to `threads`
    // threads, the caller included, and returns when every part is done. The
    // body never throws (run() catches inside it).
    using ForRange = void (*)(int threads, int64_t tasks, const std::function<void(int64_t, int64_t)> &body);

    static IntraOpPool &instance();

    // Installs the pool to run on; nullptr runs tasks inline. Thread-safe.
    void setBackend(ForRange backend);
    bool hasBackend() const { return m_backend.load() != nullptr; }

    // Total threads used by run(), the caller included. 0 = hardware concurrency.
    // Throws std::invalid_argument (one sentence) below 0 or above kMaxThreads.
    // Thread-safe: a run() already started keeps the count it began with.
    void setThreads(int threads);
    int threads() const { return m_threads.load(std::memory_order_relaxed); }

    // Calls fn(task) for every task in [0, tasks) and returns when all have
    // finished. If tasks throw, the remaining ones are skipped, every worker
    // stops, and the first exception is rethrown here (never std::terminate).
    // Re-entrant: run() inside a task runs its tasks inline.
    void run(int tasks, const std::function<void(int)> &fn);

    IntraOpPool(const IntraOpPool &) = delete;
    IntraOpPool &operator=(const IntraOpPool &) = delete;

private:
    IntraOpPool();
    std::atomic<int> m_threads{1};
    std::atomic<ForRange> m_backend{nullptr};
};

} // namespace syncscope::kernels
