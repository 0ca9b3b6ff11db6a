// The kernels' thread pool: one pool per process (LibTorch's), exceptions
// reach the caller, and the thread count may change at any time.
#include "lab/impl/torchlab.h"
#include "common/error.h"
#include "kernels/cpu/intraoppool.h"
#include "lab/api/bench.h"
#include "lab/impl/sampler.h"

#include <ATen/Parallel.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using syncscope::kernels::IntraOpPool;

namespace {

// Runs fn on another thread; a hang (a deadlock) ends the process with a
// message instead of blocking the test run until its time limit.
void withDeadline(const char *what, const std::function<void()> &fn, int seconds = 30)
{
    std::packaged_task<void()> task(fn);
    auto done = task.get_future();
    std::thread t(std::move(task));
    if (done.wait_for(std::chrono::seconds(seconds)) != std::future_status::ready) {
        std::fprintf(stderr, "%s: still running after %d s (deadlock)\n", what, seconds);
        std::_Exit(1);
    }
    t.join();
    done.get(); // rethrows a gtest-unrelated exception, if any
}

struct ThreadsRestorer {
    int before = IntraOpPool::instance().threads();
    ~ThreadsRestorer() { IntraOpPool::instance().setThreads(before); }
};

} // namespace

// The kernels' tasks run on LibTorch's intra-op pool, not on threads of their
// own that would compete with it for the cores.
TEST(IntraOpPool, TasksRunOnLibTorchsPool)
{
    ThreadsRestorer restore;
    at::set_num_threads(2);
    if (at::get_num_threads() < 2)
        GTEST_SKIP() << "this LibTorch runs single-threaded: " << at::get_parallel_info();
    auto &pool = IntraOpPool::instance();
    pool.setThreads(2);
    std::mutex m;
    std::set<int> atenThreadIds;
    std::atomic<int> inRegion{0};
    withDeadline("run", [&] {
        pool.run(2, [&](int) {
            inRegion += at::in_parallel_region() ? 1 : 0;
            std::lock_guard<std::mutex> lock(m);
            atenThreadIds.insert(at::get_thread_num());
        });
    });
    EXPECT_EQ(inRegion.load(), 2) << at::get_parallel_info();
    EXPECT_EQ(atenThreadIds, (std::set<int>{0, 1})) << at::get_parallel_info();
}

// A throwing task must not reach std::terminate: the first exception comes
// back to the caller after every worker has stopped.
TEST(IntraOpPool, ThrowingTasksReachTheCallerAfterAllWorkersStop)
{
    ThreadsRestorer restore;
    auto &pool = IntraOpPool::instance();
    pool.setThreads(2);
    std::atomic<int> running{0}, started{0};
    int runningAtCatch = -1;
    std::string caught;
    withDeadline("throwing run", [&] {
        try {
            pool.run(16, [&](int task) {
                ++running;
                ++started;
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
                --running;
                throw std::runtime_error("task " + std::to_string(task) + " failed");
            });
        } catch (const std::runtime_error &e) {
            runningAtCatch = running.load();
            caught = e.what();
        }
    });
    EXPECT_EQ(caught.rfind("task ", 0), 0u) << caught;
    EXPECT_EQ(runningAtCatch, 0);
    EXPECT_GE(started.load(), 1);
    // The pool still works afterwards.
    std::atomic<int> sum{0};
    withDeadline("run after a throw", [&] { pool.run(8, [&](int t) { sum += t; }); });
    EXPECT_EQ(sum.load(), 28);
}

// Changing the count from inside a task, or running from inside a task, must
// neither deadlock nor lose tasks; a run keeps the count it started with.
TEST(IntraOpPool, SetThreadsAndRunInsideATask)
{
    ThreadsRestorer restore;
    auto &pool = IntraOpPool::instance();
    pool.setThreads(2);
    std::vector<std::atomic<int>> seen(8);
    std::atomic<int> inner{0};
    withDeadline("re-entrant run", [&] {
        pool.run(8, [&](int t) {
            if (t == 0)
                pool.setThreads(3);
            if (t == 1)
                pool.run(4, [&](int) { ++inner; });
            ++seen[static_cast<size_t>(t)];
        });
    });
    for (auto &s : seen)
        EXPECT_EQ(s.load(), 1);
    EXPECT_EQ(inner.load(), 4);
    EXPECT_EQ(pool.threads(), 3);
}

// threads()/setThreads() from one thread while another runs: every run does
// each task exactly once, and every count read is one that was set.
TEST(IntraOpPool, ConcurrentSetThreadsAndRun)
{
    ThreadsRestorer restore;
    auto &pool = IntraOpPool::instance();
    std::atomic<bool> stop{false};
    std::atomic<int> badCount{0};
    withDeadline("concurrent set and run", [&] {
        std::thread setter([&] {
            for (int i = 0; !stop.load(); ++i) {
                pool.setThreads(1 + i % 4);
                const int t = pool.threads();
                if (t < 1 || t > 4)
                    ++badCount;
            }
        });
        for (int r = 0; r < 300; ++r) {
            std::vector<std::atomic<int>> hits(16);
            pool.run(16, [&](int t) { ++hits[static_cast<size_t>(t)]; });
            for (auto &h : hits)
                if (h.load() != 1)
                    ++badCount;
        }
        stop = true;
        setter.join();
    });
    EXPECT_EQ(badCount.load(), 0);
}

// An absurd count is refused at once with one sentence, before any thread or
// memory is spent on it.
TEST(IntraOpPool, AbsurdThreadCountIsRefused)
{
    ThreadsRestorer restore;
    auto &pool = IntraOpPool::instance();
    const int before = pool.threads();
    withDeadline(
        "setThreads(1e9)",
        [&] {
            try {
                pool.setThreads(1000000000);
                ADD_FAILURE() << "1e9 threads accepted";
            } catch (const std::invalid_argument &e) {
                const std::string msg = e.what();
                EXPECT_NE(msg.find("1000000000"), std::string::npos) << msg;
                EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
            }
        },
        10);
    EXPECT_EQ(pool.threads(), before);
    EXPECT_THROW(pool.setThreads(-1), std::invalid_argument);

    syncscope::lab::BenchRequest req;
    req.variants = {"fused"};
    req.points = {syncscope::lab::BenchPoint{}};
    req.threads = 1000000000;
    try {
        syncscope::lab::torchLab().validateBench(req);
        ADD_FAILURE() << "bench accepted 1e9 threads";
    } catch (const syncscope::Error &e) {
        EXPECT_NE(std::string(e.what()).find("threads must be between 1 and"), std::string::npos) << e.what();
    }
}
