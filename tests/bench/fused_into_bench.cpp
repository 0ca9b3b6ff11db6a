// fused at small N, timed both ways in one run: allocating its outputs per
// call (runVariant("fused")) and sampling into outputs the caller keeps
// (sampleFusedInto). Prints min, p5, median and p95 per call in microseconds.
//   build/deb/tests/lab/fused_into_bench [N] [K] [D] [calls] [threads]
#include "lab/impl/sampler.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace syncscope::lab;

namespace {
double quantile(std::vector<double> v, double q)
{
    std::sort(v.begin(), v.end());
    const double pos = q * static_cast<double>(v.size() - 1);
    const auto lo = static_cast<size_t>(pos);
    const size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

template <typename Step> std::vector<double> timeCalls(int calls, Step step)
{
    using Clock = std::chrono::steady_clock;
    for (int i = 0; i < calls / 10 + 10; ++i)
        step(i);
    std::vector<double> us;
    us.reserve(static_cast<size_t>(calls));
    for (int i = 0; i < calls; ++i) {
        const auto t0 = Clock::now();
        step(i);
        us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    }
    return us;
}

void print(const char *name, const std::vector<double> &us)
{
    std::printf("%-28s min %7.2f  p5 %7.2f  median %7.2f  p95 %7.2f us/call\n", name, quantile(us, 0),
                quantile(us, 0.05), quantile(us, 0.5), quantile(us, 0.95));
}
} // namespace

int main(int argc, char **argv)
{
    const int64_t n = argc > 1 ? std::atoll(argv[1]) : 1000;
    const int64_t k = argc > 2 ? std::atoll(argv[2]) : n / 10;
    const int64_t d = argc > 3 ? std::atoll(argv[3]) : 16;
    const int calls = argc > 4 ? std::atoi(argv[4]) : 20000;
    const int threads = argc > 5 ? std::atoi(argv[5]) : 0;
    useThreads(threads);
    const auto in = generateInput(1, n, d, 0.5, 0.0, 1, at::Device(at::kCPU));
    const at::Tensor features = in.features[0], labels = in.labels[0];
    SampleOutput out{at::empty({1, k}, at::kLong), at::empty({1, k}, at::kLong), at::empty({1, k, d}),
                     at::empty({1}, at::kLong)};
    std::printf("fused, N=%lld K=%lld D=%lld, %d calls each, interleaved in blocks of 1000\n",
                static_cast<long long>(n), static_cast<long long>(k), static_cast<long long>(d), calls);
    std::vector<double> alloc, into;
    for (int block = 0; block < calls / 1000; ++block) {
        auto a = timeCalls(1000, [&](int i) {
            SampleOutput o = runVariant("fused", features, labels, {k, 0.5, static_cast<uint64_t>(i)});
            (void)o;
        });
        auto b = timeCalls(1000, [&](int i) {
            sampleFusedInto(features, labels, {k, 0.5, static_cast<uint64_t>(i)}, out);
        });
        alloc.insert(alloc.end(), a.begin(), a.end());
        into.insert(into.end(), b.begin(), b.end());
    }
    print("allocating outputs", alloc);
    print("into caller outputs", into);
    return 0;
}
