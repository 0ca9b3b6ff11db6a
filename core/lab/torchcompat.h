#pragma once
// Every LibTorch 1.13 vs 2.x difference the lab relies on lives here.
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <ATen/record_function.h>

#include <cstdint>
#include <string>

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

// Opens a named user-scope range (the argument types of before() changed in 2.x).
inline void beginRange(at::RecordFunction &range, const std::string &name)
{
    range.before(name, -1);
}

// Waits for the device so a step's work lands inside its range.
inline void synchronize(const at::Device &device)
{
#if defined(SYNCSCOPE_WITH_CUDA)
    if (device.is_cuda())
        c10::cuda::device_synchronize();
#else
    (void)device;
#endif
}

} // namespace syncscope::lab::compat
