// The CPU kernels and their thread pool on real threads, without LibTorch, so
// ThreadSanitizer sees every access (LibTorch's OpenMP runtime is not
// instrumented). The backend here is a plain std::thread fork-join: each call
// splits [0, tasks) into `threads` ranges and runs all but the first on new
// threads. Results must not depend on the thread count, exceptions must reach
// the caller, and the count may change while runs are in flight.
#include "kernels/cpu/fusedsampler.h"
#include "kernels/cpu/permutation.h"
#include "kernels/cpu/intraoppool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using syncscope::kernels::IntraOpPool;
namespace k = syncscope::kernels;

namespace {

void threadForRange(int threads, int64_t tasks, const std::function<void(int64_t, int64_t)> &body)
{
    const int64_t parts = std::max<int64_t>(1, std::min<int64_t>(threads, tasks));
    std::vector<std::thread> workers;
    for (int64_t p = 1; p < parts; ++p)
        workers.emplace_back([&, p] { body(tasks * p / parts, tasks * (p + 1) / parts); });
    body(0, tasks / parts);
    for (auto &w : workers)
        w.join();
}

class KernelThreads : public ::testing::Test {
protected:
    void SetUp() override
    {
        IntraOpPool::instance().setBackend(&threadForRange);
        m_before = IntraOpPool::instance().threads();
    }
    void TearDown() override
    {
        IntraOpPool::instance().setThreads(m_before);
        IntraOpPool::instance().setBackend(nullptr);
    }
    int m_before = 1;
};

struct Sampled {
    std::vector<int64_t> indices, labels, valid;
    std::vector<uint8_t> features;
    bool operator==(const Sampled &o) const
    {
        return indices == o.indices && labels == o.labels && valid == o.valid && features == o.features;
    }
};

// A batch of label rows with a few positives each, and 8-byte feature rows
// that encode (batch, row) so a wrong gather is visible.
Sampled sampleWithThreads(int threads)
{
    constexpr int64_t batch = 6, n = 20000, k = 64, rowBytes = 8;
    std::vector<int64_t> labels(static_cast<size_t>(batch * n));
    std::vector<uint8_t> features(static_cast<size_t>(batch * n * rowBytes));
    for (int64_t b = 0; b < batch; ++b)
        for (int64_t i = 0; i < n; ++i) {
            labels[static_cast<size_t>(b * n + i)] = ((i * 7 + b) % 97) < 3 ? 1 : 0;
            for (int64_t c = 0; c < rowBytes; ++c)
                features[static_cast<size_t>((b * n + i) * rowBytes + c)] =
                    static_cast<uint8_t>((i >> (c % 3 * 8)) + b * 31 + c);
        }
    IntraOpPool::instance().setThreads(threads);
    Sampled out;
    out.indices.resize(batch * k);
    out.labels.resize(batch * k);
    out.valid.resize(batch);
    out.features.resize(static_cast<size_t>(batch * k * rowBytes));
    k::FusedSamplerArgs a;
    a.labels = labels.data();
    a.labelType = k::LabelType::Int64;
    a.batch = batch;
    a.n = n;
    a.labelRowStride = n;
    a.features = features.data();
    a.featureRowBytes = rowBytes;
    a.featureBatchStride = n * rowBytes;
    a.k = k;
    a.targetPosFraction = 0.5;
    a.seed = 1234;
    a.outIndices = out.indices.data();
    a.outLabels = out.labels.data();
    a.outFeatures = out.features.data();
    a.outValid = out.valid.data();
    k::fusedSampleCpu(a);
    return out;
}

} // namespace

// The pool really runs tasks on more than one thread with this backend (else
// the rest of this file would prove nothing about races).
TEST_F(KernelThreads, TasksRunOnSeveralThreads)
{
    IntraOpPool::instance().setThreads(4);
    std::vector<std::thread::id> ids(8);
    IntraOpPool::instance().run(8, [&](int t) { ids[static_cast<size_t>(t)] = std::this_thread::get_id(); });
    std::sort(ids.begin(), ids.end());
    EXPECT_GE(std::unique(ids.begin(), ids.end()) - ids.begin(), 2);
}

TEST_F(KernelThreads, FusedSamplerGivesTheSameAnswerOnAnyThreadCount)
{
    const Sampled one = sampleWithThreads(1);
    // Sanity of the reference itself: k distinct, in-range indices per row.
    for (int64_t b = 0; b < 6; ++b) {
        std::vector<int64_t> row(one.indices.begin() + b * 64, one.indices.begin() + (b + 1) * 64);
        std::sort(row.begin(), row.end());
        EXPECT_EQ(std::unique(row.begin(), row.end()), row.end());
        EXPECT_GE(row.front(), 0);
        EXPECT_LT(row.back(), 20000);
    }
    EXPECT_EQ(sampleWithThreads(2), one);
    EXPECT_EQ(sampleWithThreads(4), one);
}

TEST_F(KernelThreads, PermutationIsTheSameParallelOrNot)
{
    constexpr int64_t n = 300000; // above the bucketed (parallel) threshold
    std::vector<int64_t> serial(n), parallel(n);
    IntraOpPool::instance().setThreads(1);
    k::randomPermutation(serial.data(), n, 99, 3, false);
    IntraOpPool::instance().setThreads(4);
    k::randomPermutation(parallel.data(), n, 99, 3, true);
    EXPECT_EQ(parallel, serial);
    std::vector<int64_t> sorted = parallel;
    std::sort(sorted.begin(), sorted.end());
    for (int64_t i = 0; i < n; ++i)
        ASSERT_EQ(sorted[static_cast<size_t>(i)], i);
}

TEST_F(KernelThreads, LabelReadPassCountsEveryPositiveOnce)
{
    std::vector<int32_t> labels(1 << 20);
    for (size_t i = 0; i < labels.size(); ++i)
        labels[i] = (i % 5 == 0) ? 1 : 0;
    IntraOpPool::instance().setThreads(4);
    EXPECT_EQ(k::labelReadPassCpu(labels.data(), k::LabelType::Int32, static_cast<int64_t>(labels.size())),
              static_cast<int64_t>((labels.size() + 4) / 5));
}

// The first exception comes back after every worker has stopped; the pool
// keeps working afterwards.
TEST_F(KernelThreads, ThrowingTasksReachTheCaller)
{
    IntraOpPool::instance().setThreads(4);
    std::atomic<int> running{0};
    int runningAtCatch = -1;
    try {
        IntraOpPool::instance().run(32, [&](int t) {
            ++running;
            std::this_thread::yield();
            --running;
            if (t % 3 == 1)
                throw std::runtime_error("task " + std::to_string(t));
        });
        ADD_FAILURE() << "no exception";
    } catch (const std::runtime_error &e) {
        runningAtCatch = running.load();
        EXPECT_EQ(std::string(e.what()).rfind("task ", 0), 0u);
    }
    EXPECT_EQ(runningAtCatch, 0);
    std::atomic<int> sum{0};
    IntraOpPool::instance().run(8, [&](int t) { sum += t; });
    EXPECT_EQ(sum.load(), 28);
}

// setThreads()/threads() on one thread while kernels run on others.
TEST_F(KernelThreads, CountChangesWhileKernelsRun)
{
    std::atomic<bool> stop{false};
    std::atomic<int> bad{0};
    std::thread setter([&] {
        for (int i = 0; !stop.load(); ++i) {
            IntraOpPool::instance().setThreads(1 + i % 4);
            const int t = IntraOpPool::instance().threads();
            if (t < 1 || t > 4)
                ++bad;
            std::this_thread::yield();
        }
    });
    std::vector<int32_t> labels(1 << 16, 1);
    for (int r = 0; r < 40; ++r) {
        if (k::labelReadPassCpu(labels.data(), k::LabelType::Int32, static_cast<int64_t>(labels.size())) !=
            static_cast<int64_t>(labels.size()))
            ++bad;
        std::vector<std::atomic<int>> hits(16);
        IntraOpPool::instance().run(16, [&](int t) { ++hits[static_cast<size_t>(t)]; });
        for (auto &h : hits)
            if (h.load() != 1)
                ++bad;
    }
    stop = true;
    setter.join();
    EXPECT_EQ(bad.load(), 0);
}
