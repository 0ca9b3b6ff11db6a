#pragma once
// Independent tasks on several threads, each thread with a worker of its own
// (an object holding that thread's scratch state, such as a replay).
// run(count, task, tick) calls task(worker, i) for every i in [0, count): the
// calling thread with workers[0], every other worker on a thread of its own,
// started by that run and joined before it returns (no thread outlives a run).
// Each task writes its result to a slot of its own, so results do not depend
// on the threads. tick() runs on the calling thread once per task finished on
// any thread (all of them by the time run returns). An error stops every thread
// at its next task and is rethrown: the one of the lowest task, and a Cancelled
// only where nothing else failed. Where the system gives fewer threads than
// workers, the threads it gives take every task.
#include "common/error.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace syncscope {

template <class Worker> class ThreadsPerRun {
public:
    explicit ThreadsPerRun(std::vector<Worker *> workers) : m_workers(std::move(workers)) {}

    size_t threads() const { return m_workers.size(); }

    template <class Task, class Tick> void run(size_t count, const Task &task, const Tick &tick)
    {
        std::atomic<size_t> next{0}, finished{0};
        std::atomic<bool> stop{false};
        std::mutex mutex;
        std::exception_ptr error;
        size_t errorTask = SIZE_MAX;
        bool errorIsCancel = true;
        size_t reported = 0;
        auto work = [&](Worker &worker, bool caller) {
            for (size_t i = next++; i < count && !stop.load(); i = next++) {
                try {
                    task(worker, i);
                    ++finished;
                    if (caller)
                        for (const size_t now = finished.load(); reported < now; ++reported)
                            tick();
                } catch (...) {
                    bool cancelled = false;
                    try {
                        throw;
                    } catch (const Cancelled &) {
                        cancelled = true;
                    } catch (...) {
                    }
                    std::lock_guard<std::mutex> lock(mutex);
                    const bool better = !error || (errorIsCancel && !cancelled) ||
                                        (errorIsCancel == cancelled && i < errorTask);
                    if (better) {
                        error = std::current_exception();
                        errorTask = i;
                        errorIsCancel = cancelled;
                    }
                    stop = true;
                }
            }
        };
        if (m_workers.empty())
            throw Error("internal: a worker pool has no worker");
        const size_t others = std::min(m_workers.size(), std::max<size_t>(count, 1)) - 1;
        std::vector<std::thread> threads;
        for (size_t t = 1; t <= others; ++t) {
            try {
                threads.emplace_back([&, t] { work(*m_workers[t], false); });
            } catch (const std::system_error &) {
                break; // no more threads to be had: the ones running take every task
            }
        }
        work(*m_workers[0], true);
        for (std::thread &t : threads)
            t.join();
        if (error)
            std::rethrow_exception(error);
        for (; reported < count; ++reported)
            tick();
    }

private:
    std::vector<Worker *> m_workers;
};

} // namespace syncscope
