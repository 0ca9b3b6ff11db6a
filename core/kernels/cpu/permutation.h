#pragma once
// Uniformly random permutations for the fused sampler's output order.
#include <cstdint>
#include <vector>

namespace syncscope::kernels {

// Fills out[0, n) with a uniformly random permutation of 0..n-1, determined by
// (seed, stream) alone. Small n: Fisher-Yates. Large n: Rao-Sandelius, i.e.
// scatter into 256 buckets by 8 random bits, then Fisher-Yates inside each
// bucket; exact, cache-resident, and parallel over chunks and buckets on the
// shared pool when `parallel` (results do not depend on the thread count).
void randomPermutation(int64_t *out, int64_t n, uint64_t seed, uint64_t stream, bool parallel);

} // namespace syncscope::kernels
