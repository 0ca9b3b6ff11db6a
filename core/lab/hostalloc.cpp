#include "lab/hostalloc.h"

#include "common/error.h"

#include <cstdlib>
#include <sys/mman.h>

namespace syncscope::lab {

at::Tensor emptyHostOutput(at::IntArrayRef sizes, at::ScalarType dtype)
{
    constexpr size_t kHuge = size_t(2) << 20;
    int64_t numel = 1;
    for (auto s : sizes)
        numel *= s;
    const size_t bytes = static_cast<size_t>(numel) * at::elementSize(dtype);
    if (bytes < 2 * kHuge)
        return at::empty(sizes, at::TensorOptions().dtype(dtype));
    const size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
    void *p = nullptr;
    if (posix_memalign(&p, kHuge, rounded) != 0 || !p)
        throw Error("out of memory allocating a " + std::to_string(bytes >> 20) + " MiB sampler output");
#ifdef MADV_HUGEPAGE
    madvise(p, rounded, MADV_HUGEPAGE); // advice only: without THP it is plain memory
#endif
    return at::from_blob(p, sizes, [](void *q) { std::free(q); }, at::TensorOptions().dtype(dtype));
}

} // namespace syncscope::lab
