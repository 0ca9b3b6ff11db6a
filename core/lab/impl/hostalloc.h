#pragma once
// Output buffers for the fused CPU sampler. Its rows land at random slots of
// the output, so with 4 KiB pages nearly every store misses the TLB; large
// outputs are therefore backed by transparent huge pages where the kernel
// offers them (madvise mode), which is what makes the random scatter cheap.
#include <ATen/ATen.h>

namespace syncscope::lab {

// Like at::empty on the CPU; buffers of 4 MiB and more are 2 MiB aligned and
// advised MADV_HUGEPAGE, and freed ones are kept (up to 8 blocks, 512 MiB)
// for the next output of the same size. Throws syncscope::Error when memory
// runs out.
at::Tensor emptyHostOutput(at::IntArrayRef sizes, at::ScalarType dtype);

} // namespace syncscope::lab
