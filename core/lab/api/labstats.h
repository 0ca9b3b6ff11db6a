#pragma once
// The statistics of the lab's measurements: pure arithmetic, no LibTorch, so
// the app and the tests use them without the lab loaded.
#include <cstdint>
#include <vector>

namespace syncscope::lab {

struct StepStats {
    double medianMs = 0, meanMs = 0, minMs = 0, p5Ms = 0, p95Ms = 0, stdevMs = 0;
};

// Median, p5 and p95 (linear interpolation between closest ranks, numpy's
// default), min, mean and sample standard deviation of step times.
StepStats summarize(std::vector<double> samplesMs);

// R repeated uniform m-subsets of c items give per-item counts X; adds
// sum (X_i - R m/c)^2 (c - 1) / (R p (1 - p) c), which is chi-square with c - 1
// degrees of freedom, to chi2 and c - 1 to dof (nothing when m is 0 or c).
void addSubsetChi2(const int64_t *counts, int64_t c, int64_t m, int64_t runs, double &chi2, double &dof);

// Upper tail of the chi-square distribution: P(X >= x) for `dof` degrees of freedom.
double chiSquareSurvival(double x, double dof);

} // namespace syncscope::lab
