#include "kernels/cpu/threadpool.h"

#include <algorithm>

namespace syncscope::kernels {

ThreadPool &ThreadPool::instance()
{
    static ThreadPool pool;
    return pool;
}

ThreadPool::ThreadPool() { setThreads(0); }

ThreadPool::~ThreadPool() { stopWorkers(); }

void ThreadPool::setThreads(int threads)
{
    std::lock_guard<std::mutex> runLock(m_runMutex);
    if (threads <= 0)
        threads = std::max(1u, std::thread::hardware_concurrency());
    if (threads == m_threads && static_cast<int>(m_workers.size()) == threads - 1)
        return;
    stopWorkers();
    m_threads = threads;
    startWorkers(threads - 1);
}

void ThreadPool::startWorkers(int count)
{
    m_stop = false;
    for (int i = 0; i < count; ++i)
        m_workers.emplace_back([this] { workerLoop(); });
}

void ThreadPool::stopWorkers()
{
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    for (auto &t : m_workers)
        t.join();
    m_workers.clear();
}

// Takes tasks until none are left. The lock is held on entry and on return,
// and released while a task runs.
void ThreadPool::drain(std::unique_lock<std::mutex> &lock)
{
    while (m_next < m_tasks) {
        const int task = m_next++;
        const auto *fn = m_fn;
        lock.unlock();
        (*fn)(task);
        lock.lock();
        if (++m_finished == m_tasks)
            m_done.notify_all();
    }
}

void ThreadPool::workerLoop()
{
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(m_mutex);
    for (;;) {
        m_wake.wait(lock, [&] { return m_stop || m_generation != seen; });
        if (m_stop)
            return;
        seen = m_generation;
        drain(lock);
    }
}

void ThreadPool::run(int tasks, const std::function<void(int)> &fn)
{
    if (tasks <= 0)
        return;
    std::lock_guard<std::mutex> runLock(m_runMutex);
    if (tasks == 1 || m_workers.empty()) {
        for (int t = 0; t < tasks; ++t)
            fn(t);
        return;
    }
    std::unique_lock<std::mutex> lock(m_mutex);
    m_fn = &fn;
    m_tasks = tasks;
    m_next = 0;
    m_finished = 0;
    ++m_generation;
    m_wake.notify_all();
    drain(lock);
    m_done.wait(lock, [&] { return m_finished == m_tasks; });
    m_fn = nullptr;
    m_tasks = 0;
}

} // namespace syncscope::kernels
