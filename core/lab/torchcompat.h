#pragma once
// Every LibTorch 1.13 vs 2.x difference the lab relies on lives here.
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <cstdint>

#if defined(SYNCSCOPE_WITH_CUDA)
#include <ATen/cuda/CUDAGeneratorImpl.h>
#endif

namespace syncscope::lab::compat {

inline at::Generator makeGenerator(const at::Device &device, uint64_t seed)
{
#if defined(SYNCSCOPE_WITH_CUDA)
    if (device.is_cuda()) {
        auto gen = at::make_generator<at::CUDAGeneratorImpl>(device.index() < 0 ? 0 : device.index());
        gen.set_current_seed(seed);
        return gen;
    }
#else
    (void)device;
#endif
    return at::make_generator<at::CPUGeneratorImpl>(seed);
}

// count_nonzero(t, -1) is ambiguous in 1.13's C++ API: pass the optional dim.
inline at::Tensor countNonzeroLastDim(const at::Tensor &t)
{
    return at::count_nonzero(t, c10::optional<int64_t>(t.dim() - 1));
}

} // namespace syncscope::lab::compat
