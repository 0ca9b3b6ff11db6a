#include "kernels/cpu/permutation.h"

#include "kernels/cpu/rng.h"
#include "kernels/cpu/intraoppool.h"

#include <algorithm>
#include <array>
#include <functional>
#include <utility>

namespace syncscope::kernels {
namespace {

constexpr int64_t kSmall = int64_t(1) << 16;
constexpr int kBuckets = 256;
constexpr int64_t kChunk = int64_t(1) << 16; // fixed, so the result ignores the thread count

uint64_t substream(uint64_t stream, uint64_t part, uint64_t index)
{
    uint64_t x = stream ^ (part << 56) ^ (index * 0x9E3779B97F4A7C15ull);
    return splitmix64(x);
}

void fisherYates(int64_t *a, int64_t n, Xoshiro256 &rng)
{
    for (int64_t i = n - 1; i > 0; --i) {
        const auto j = static_cast<int64_t>(rng.below(static_cast<uint64_t>(i) + 1));
        std::swap(a[i], a[j]);
    }
}

void runTasks(bool parallel, int tasks, const std::function<void(int)> &fn)
{
    if (parallel && tasks > 1)
        IntraOpPool::instance().run(tasks, fn);
    else
        for (int t = 0; t < tasks; ++t)
            fn(t);
}

} // namespace

void randomPermutation(int64_t *out, int64_t n, uint64_t seed, uint64_t stream, bool parallel)
{
    if (n <= kSmall) {
        for (int64_t i = 0; i < n; ++i)
            out[i] = i;
        Xoshiro256 rng(seed, stream);
        fisherYates(out, n, rng);
        return;
    }
    const int chunks = static_cast<int>((n + kChunk - 1) / kChunk);
    std::vector<uint8_t> bucket(static_cast<size_t>(n));
    std::vector<std::array<int64_t, kBuckets>> count(static_cast<size_t>(chunks));

    // 1. a uniform bucket per item, 8 items per 64-bit draw
    runTasks(parallel, chunks, [&](int c) {
        Xoshiro256 rng(seed, substream(stream, 1, static_cast<uint64_t>(c)));
        const int64_t j0 = c * kChunk, j1 = std::min(n, j0 + kChunk);
        auto &cnt = count[static_cast<size_t>(c)];
        cnt.fill(0);
        for (int64_t j = j0; j < j1; j += 8) {
            uint64_t bits = rng.next();
            for (int64_t q = j; q < std::min(j1, j + 8); ++q, bits >>= 8) {
                bucket[static_cast<size_t>(q)] = static_cast<uint8_t>(bits);
                ++cnt[bits & 0xff];
            }
        }
    });
    // 2. bucket-major offsets, chunk order inside a bucket
    std::array<int64_t, kBuckets + 1> start{};
    for (int b = 0; b < kBuckets; ++b) {
        int64_t total = 0;
        for (int c = 0; c < chunks; ++c) {
            const int64_t k = count[static_cast<size_t>(c)][static_cast<size_t>(b)];
            count[static_cast<size_t>(c)][static_cast<size_t>(b)] = start[static_cast<size_t>(b)] + total;
            total += k;
        }
        start[static_cast<size_t>(b) + 1] = start[static_cast<size_t>(b)] + total;
    }
    // 3. scatter (stable), each chunk into its own sub-ranges
    runTasks(parallel, chunks, [&](int c) {
        auto cursor = count[static_cast<size_t>(c)];
        const int64_t j0 = c * kChunk, j1 = std::min(n, j0 + kChunk);
        for (int64_t j = j0; j < j1; ++j)
            out[cursor[bucket[static_cast<size_t>(j)]]++] = j;
    });
    // 4. shuffle inside each bucket
    runTasks(parallel, kBuckets, [&](int b) {
        Xoshiro256 rng(seed, substream(stream, 2, static_cast<uint64_t>(b)));
        fisherYates(out + start[static_cast<size_t>(b)],
                    start[static_cast<size_t>(b) + 1] - start[static_cast<size_t>(b)], rng);
    });
}

} // namespace syncscope::kernels
