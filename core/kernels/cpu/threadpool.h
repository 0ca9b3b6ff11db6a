#pragma once
// A small persistent pool for the CPU kernels: they must not depend on LibTorch,
// and spawning threads per call would dominate at N = 1e3.
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace syncscope::kernels {

class ThreadPool {
public:
    static ThreadPool &instance();

    // Total threads used by run(), the caller included. 0 = hardware concurrency.
    void setThreads(int threads);
    int threads() const { return m_threads; }

    // Calls fn(task) for every task in [0, tasks) on up to threads() threads and
    // returns when all are done. Not re-entrant: a task must not call run().
    void run(int tasks, const std::function<void(int)> &fn);

    ~ThreadPool();
    ThreadPool(const ThreadPool &) = delete;
    ThreadPool &operator=(const ThreadPool &) = delete;

private:
    ThreadPool();
    void startWorkers(int count);
    void stopWorkers();
    void workerLoop();
    void drain(std::unique_lock<std::mutex> &lock);

    int m_threads = 1;
    std::vector<std::thread> m_workers;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_done;
    const std::function<void(int)> *m_fn = nullptr;
    int m_tasks = 0;
    int m_next = 0;
    int m_finished = 0;
    uint64_t m_generation = 0;
    bool m_stop = false;
    std::mutex m_runMutex;
};

} // namespace syncscope::kernels
