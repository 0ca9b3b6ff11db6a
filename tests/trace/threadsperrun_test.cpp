// ThreadsPerRun: every task once, on a worker of its own thread, the same results
// on any number of threads, and an error or a cancel stops every thread.
#include "common/cores.h"
#include "common/progress.h"
#include "common/threadsperrun.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <string>
#include <thread>

#if defined(__linux__)
#include <sched.h>
#endif

using namespace syncscope;

namespace {
struct Worker {
    std::thread::id thread;
    size_t tasks = 0;
};

// n workers and their pool.
struct Pool {
    explicit Pool(size_t n) : workers(n), pool(pointers(workers)) {}
    static std::vector<Worker *> pointers(std::vector<Worker> &w)
    {
        std::vector<Worker *> out;
        for (Worker &x : w)
            out.push_back(&x);
        return out;
    }
    std::vector<Worker> workers;
    ThreadsPerRun<Worker> pool;
};
} // namespace

TEST(ThreadsPerRun, RunsEveryTaskOnceAndTicksOncePerTask)
{
    for (size_t n : {1, 2, 3, 8}) {
        Pool p(n);
        std::vector<Worker> &workers = p.workers;
        ThreadsPerRun<Worker> &pool = p.pool;
        const size_t count = 2000;
        std::vector<std::atomic<int>> runs(count);
        std::vector<uint64_t> result(count, 0);
        size_t ticks = 0;
        const std::thread::id caller = std::this_thread::get_id();
        bool tickedElsewhere = false;
        pool.run(
            count,
            [&](Worker &w, size_t i) {
                // A worker never changes thread: its scratch is its thread's alone.
                if (w.tasks++ == 0)
                    w.thread = std::this_thread::get_id();
                EXPECT_EQ(w.thread, std::this_thread::get_id());
                ++runs[i];
                result[i] = uint64_t(i) * i;
            },
            [&] {
                tickedElsewhere = tickedElsewhere || std::this_thread::get_id() != caller;
                ++ticks;
            });
        EXPECT_EQ(ticks, count) << n;
        EXPECT_FALSE(tickedElsewhere) << n;
        size_t total = 0;
        for (size_t i = 0; i < count; ++i) {
            EXPECT_EQ(runs[i].load(), 1) << i;
            EXPECT_EQ(result[i], uint64_t(i) * i);
        }
        for (const Worker &w : workers)
            total += w.tasks;
        EXPECT_EQ(total, count);
        if (workers[0].tasks > 0) // the others may have taken every task first
            EXPECT_EQ(workers[0].thread, caller) << "the first worker is the caller's";
    }
}

TEST(ThreadsPerRun, TheLowestFailingTasksErrorIsRethrown)
{
    for (size_t n : {1, 2, 4}) {
        Pool p(n);
        ThreadsPerRun<Worker> &pool = p.pool;
        try {
            pool.run(
                100,
                [&](Worker &, size_t i) {
                    if (i == 30 || i == 70)
                        throw Error("task " + std::to_string(i));
                },
                [] {});
            ADD_FAILURE() << "no error";
        } catch (const Error &e) {
            // Task 30 is taken before 70, so it always runs and its error wins.
            EXPECT_STREQ(e.what(), "task 30") << n;
        }
    }
}

TEST(ThreadsPerRun, ACancelStopsEveryThreadAtItsNextTask)
{
    for (size_t n : {1, 2, 4}) {
        Pool p(n);
        ThreadsPerRun<Worker> &pool = p.pool;
        CancelToken cancel;
        std::atomic<size_t> startedAfter{0};
        const size_t count = 100000;
        EXPECT_THROW(pool.run(
                         count,
                         [&](Worker &, size_t i) {
                             if (i == 0) // the first task taken: a cancel as the UI sends it
                                 cancel.cancel();
                             else if (cancel.cancelled())
                                 ++startedAfter;
                             checkCancel(&cancel);
                         },
                         [] {}),
                     Cancelled)
            << n;
        // Each thread takes at most one task after the cancel, then stops.
        EXPECT_LE(startedAfter.load(), n) << n;
    }
}

// "Every core" is the cores this thread may run on: one, on a thread bound to
// one core (as a Slurm task given one CPU is), whatever the machine has.
TEST(UsableCores, FollowsTheThreadsAffinity)
{
    EXPECT_GE(usableCores(), 1u);
#if defined(__linux__)
    unsigned bound = 0, first = 0;
    std::thread t([&] {
        cpu_set_t all;
        CPU_ZERO(&all);
        ASSERT_EQ(sched_getaffinity(0, sizeof all, &all), 0);
        while (first < CPU_SETSIZE && !CPU_ISSET(first, &all))
            ++first;
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(first, &one);
        ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
        bound = usableCores();
    });
    t.join();
    EXPECT_EQ(bound, 1u) << "bound to core " << first;
#endif
}
