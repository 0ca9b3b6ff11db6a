#include "lab/impl/hostalloc.h"

#include "common/error.h"

#include <cstdlib>
#include <mutex>
#include <sys/mman.h>
#include <vector>

namespace syncscope::lab {

namespace {
constexpr size_t kHuge = size_t(2) << 20;

// Freed output blocks kept for the next call of the same size: a fresh block
// costs the kernel zeroing every page on first touch (perf: a sixth of a
// fused call at N = 1e6), a kept one is already mapped. Bounded, so a sweep
// over many sizes does not hold memory.
class BlockCache {
public:
    static BlockCache &instance()
    {
        static BlockCache *cache = new BlockCache; // never destroyed: outputs may outlive statics
        return *cache;
    }
    void *take(size_t bytes)
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        for (size_t i = 0; i < m_blocks.size(); ++i)
            if (m_blocks[i].bytes == bytes) {
                void *p = m_blocks[i].ptr;
                m_total -= bytes;
                m_blocks.erase(m_blocks.begin() + static_cast<std::ptrdiff_t>(i));
                return p;
            }
        return nullptr;
    }
    void give(void *p, size_t bytes)
    {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            if (bytes <= kMaxTotal) {
                while (!m_blocks.empty() && (m_blocks.size() >= kMaxBlocks || m_total + bytes > kMaxTotal)) {
                    std::free(m_blocks.front().ptr);
                    m_total -= m_blocks.front().bytes;
                    m_blocks.erase(m_blocks.begin());
                }
                m_blocks.push_back({p, bytes});
                m_total += bytes;
                return;
            }
        }
        std::free(p);
    }

private:
    static constexpr size_t kMaxBlocks = 8;
    static constexpr size_t kMaxTotal = size_t(512) << 20;
    struct Block {
        void *ptr;
        size_t bytes;
    };
    std::mutex m_mutex;
    std::vector<Block> m_blocks;
    size_t m_total = 0;
};
} // namespace

at::Tensor emptyHostOutput(at::IntArrayRef sizes, at::ScalarType dtype)
{
    int64_t numel = 1;
    for (auto s : sizes)
        numel *= s;
    const size_t bytes = static_cast<size_t>(numel) * at::elementSize(dtype);
    if (bytes < 2 * kHuge)
        return at::empty(sizes, at::TensorOptions().dtype(dtype));
    const size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
    void *p = BlockCache::instance().take(rounded);
    if (!p) {
        if (posix_memalign(&p, kHuge, rounded) != 0 || !p)
            throw Error("out of memory allocating a " + std::to_string(bytes >> 20) + " MiB sampler output");
#ifdef MADV_HUGEPAGE
        madvise(p, rounded, MADV_HUGEPAGE); // advice only: without THP it is plain memory
#endif
    }
    return at::from_blob(
        p, sizes, [rounded](void *q) { BlockCache::instance().give(q, rounded); },
        at::TensorOptions().dtype(dtype));
}

} // namespace syncscope::lab
