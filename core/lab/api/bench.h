#pragma once
// What a benchmark asks and returns (LabInterface::runBench): variants x
// parameter points, warm-up, timed steps on rotated inputs, per-step
// statistics and the floors. Torch-free.
#include "common/progress.h"
#include "lab/api/device.h"
#include "lab/api/labstats.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace syncscope::lab {

struct BenchPoint {
    int64_t n = 10000;
    int64_t k = 1000;
    int64_t batch = 1;
    int64_t dim = 16;
    double posFrac = 0.5;
    double ignoreFrac = 0.0;
    double targetPosFraction = 0.5;
};

// The most threads a request may ask for (BenchRequest::threads).
inline constexpr int kMaxThreads = 256;

struct BenchRequest {
    std::vector<std::string> variants;
    std::vector<BenchPoint> points;
    Device device = Device::Cpu;
    int warmup = 5;
    int iters = 50;
    uint64_t seed = 0;
    int threads = 0;   // 0 = all cores
    int inputSets = 0; // 0 = as many (up to 4) as fit in ~2 GiB
};

// The seed of point `point` of a request: its input sets use pointSeed + 0, 1,
// ...; a request of that one point with this seed measures the same inputs.
inline uint64_t pointSeed(uint64_t requestSeed, size_t point) { return requestSeed + 1000003ull * point; }


struct BenchResult {
    std::string variant;
    BenchPoint point;
    std::string device; // deviceName() of the request's; as read from a saved file
    StepStats stats;
    int iters = 0;
    double floorMs = 0;                  // one read pass over the same labels
    std::optional<double> launchFloorMs; // CUDA: one replay of a one-empty-kernel graph
    // CPU: the least memory work any correct sampler does on the same input
    // (all labels read, K full rows gathered at K sorted random indices drawn
    // before timing, K indices and labels written); null where not measured.
    std::optional<double> gatherFloorMs;
    std::vector<double> samplesMs;      // every timed step, in order
    std::string timer;                  // "steady_clock" or "cuda_events"
    std::optional<double> syncsPerStep; // null where the device cannot count them
    std::optional<int64_t> peakBytes;   // null where the device cannot measure it
    std::string error;                  // non-empty: this cell failed (e.g. out of memory)
};

struct BenchReport {
    std::string device; // deviceName() of the request's; as read from a saved file
    std::string torchVersion;
    int threads = 0;
    // The request's warm-up steps and seed (each result's `iters` is its timed
    // steps); null in results saved before they were recorded.
    std::optional<int> warmup;
    std::optional<uint64_t> seed;
    std::vector<BenchResult> results;
};

// The CLI's `bench --json` shape; the app reads and writes the same.
std::string benchReportToJson(const BenchReport &report);
BenchReport benchReportFromJson(const std::string &text); // throws syncscope::Error
std::string benchReportToCsv(const BenchReport &report);

} // namespace syncscope::lab
