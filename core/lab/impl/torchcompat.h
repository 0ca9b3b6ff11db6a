#pragma once
// Every LibTorch 1.13 vs 2.x difference the lab relies on lives here.
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <ATen/record_function.h>

#include <cstdint>
#include <string>

#if defined(SYNCSCOPE_WITH_CUDA)
#include <ATen/cuda/CUDAGeneratorImpl.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/util/Exception.h>

#include <atomic>
#include <memory>
#endif
#include <torch/version.h>

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
inline void beginRange(at::RecordFunction &range, const std::string &name) { range.before(name, -1); }

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

#if defined(SYNCSCOPE_WITH_CUDA)
// CUDAGraph: 2.x before 2.7 takes no arguments, later ones a keep_graph flag
// whose default (false) is what we want; a default construction fits both.
inline std::unique_ptr<at::cuda::CUDAGraph> makeCudaGraph() { return std::make_unique<at::cuda::CUDAGraph>(); }

// Registers a generator other than the default one with a capture, so every
// replay draws fresh Philox offsets from it (2.4 and later).
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
#define SYNCSCOPE_GRAPH_GENERATORS 1
inline void registerGenerator(at::cuda::CUDAGraph &graph, const at::Generator &gen)
{
    graph.register_generator_state(gen);
}
#endif

// The caching allocator's statistics; index 0 of each StatArray is
// StatType::AGGREGATE in every version (the enum moved between namespaces).
inline int64_t cudaAllocatedBytes(c10::DeviceIndex device)
{
    return c10::cuda::CUDACachingAllocator::getDeviceStats(device).allocated_bytes[0].current;
}
inline int64_t cudaPeakAllocatedBytes(c10::DeviceIndex device)
{
    return c10::cuda::CUDACachingAllocator::getDeviceStats(device).allocated_bytes[0].peak;
}
inline void cudaResetPeak(c10::DeviceIndex device) { c10::cuda::CUDACachingAllocator::resetPeakStats(device); }

// Counts host-device syncs: while alive, the sync debug mode warns on every
// synchronizing CUDA call and this handler counts those warnings (other
// warnings pass through to the previous handler).
class SyncCounter : public c10::WarningHandler {
public:
    SyncCounter()
        : m_previousHandler(c10::WarningUtils::get_warning_handler()),
          m_previousMode(c10::cuda::warning_state().get_sync_debug_mode())
    {
        c10::WarningUtils::set_warning_handler(this);
        c10::cuda::warning_state().set_sync_debug_mode(c10::cuda::SyncDebugMode::L_WARN);
    }
    ~SyncCounter() override
    {
        c10::cuda::warning_state().set_sync_debug_mode(m_previousMode);
        c10::WarningUtils::set_warning_handler(m_previousHandler);
    }
    SyncCounter(const SyncCounter &) = delete;
    SyncCounter &operator=(const SyncCounter &) = delete;

    void process(const c10::Warning &warning) override
    {
        if (warning.msg().find("synchroniz") != std::string::npos)
            ++m_syncs;
        else if (m_previousHandler)
            m_previousHandler->process(warning);
    }
    int64_t syncs() const { return m_syncs.load(); }

private:
    c10::WarningHandler *m_previousHandler;
    c10::cuda::SyncDebugMode m_previousMode;
    std::atomic<int64_t> m_syncs{0};
};
#endif

} // namespace syncscope::lab::compat
