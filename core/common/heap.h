#pragma once
// How this process's heap hands memory back to the system. glibc's only:
// elsewhere, and under a sanitizer (whose heap is not glibc's, and where
// trimming from two threads at once crashes), these do nothing.
#if defined(__GLIBC__)
#include <malloc.h>
#include <mutex>
#endif

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SYNCSCOPE_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define SYNCSCOPE_SANITIZED 1
#endif
#endif

namespace syncscope {

// Hands memory freed in the middle of the heap back to the system, so that it
// is not counted against the next phase. One trim at a time.
inline void releaseFreed()
{
#if defined(__GLIBC__) && !defined(SYNCSCOPE_SANITIZED)
    static std::mutex trimming;
    std::lock_guard<std::mutex> lock(trimming);
    malloc_trim(0);
#endif
}

// From here on, every block of 128 KiB or more comes from the system on its
// own and goes back to it when freed. By default glibc raises that size to the
// largest such block freed so far (up to 32 MiB), after which blocks freed
// while others are still held stay in the heap: for a long phase that frees
// one large buffer after another (the job analysis letting each rank's launch
// calls go), the process keeps all of them.
inline void returnLargeBlocks()
{
#if defined(__GLIBC__) && !defined(SYNCSCOPE_SANITIZED)
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
}

} // namespace syncscope
