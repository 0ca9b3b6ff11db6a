#include "trace/mappedfile.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <mutex>
#include <sys/mman.h>
#include <unistd.h>

namespace syncscope {

namespace {

// The live mappings, for the fault handler: it may not lock or allocate, so
// they are slots of atomics, claimed and given back with a compare-and-swap.
struct Slot {
    std::atomic<int> state{0}; // 0 free, 1 claimed
    std::atomic<uintptr_t> begin{0}, end{0};
    std::atomic<bool> faulted{false};
};
constexpr int kSlots = 64;
Slot g_slots[kSlots];
uintptr_t g_pageSize = 4096;
struct sigaction g_previous;
std::once_flag g_installOnce;

void onBusError(int sig, siginfo_t *info, void *context)
{
    const uintptr_t at = reinterpret_cast<uintptr_t>(info->si_addr);
    for (Slot &s : g_slots) {
        const uintptr_t begin = s.begin.load(std::memory_order_acquire);
        const uintptr_t end = s.end.load(std::memory_order_acquire);
        if (begin == 0 || at < begin || at >= end)
            continue;
        // The file ends before this page now: the rest of the mapping becomes
        // zero pages and the read that faulted runs again on them.
        const int savedErrno = errno;
        const uintptr_t page = at & ~(g_pageSize - 1);
        void *zeros = ::mmap(reinterpret_cast<void *>(page), end - page, PROT_READ,
                             MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        errno = savedErrno;
        if (zeros != MAP_FAILED) {
            s.faulted.store(true, std::memory_order_release);
            return;
        }
        break;
    }
    // Not a mapping of ours: whoever handled SIGBUS before does, or the
    // default action ends the process when the access runs again.
    if ((g_previous.sa_flags & SA_SIGINFO) && g_previous.sa_sigaction) {
        g_previous.sa_sigaction(sig, info, context);
    } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
        g_previous.sa_handler(sig);
    } else {
        ::signal(sig, SIG_DFL);
    }
}

void installHandler()
{
    g_pageSize = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
    struct sigaction sa {};
    sa.sa_sigaction = onBusError;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGBUS, &sa, &g_previous);
}

int claimSlot()
{
    for (int i = 0; i < kSlots; ++i) {
        int expected = 0;
        if (g_slots[i].state.compare_exchange_strong(expected, 1, std::memory_order_acq_rel))
            return i;
    }
    return -1;
}

} // namespace

std::unique_ptr<MappedFile> MappedFile::map(int fd, uint64_t size)
{
    if (size == 0)
        return nullptr;
    std::call_once(g_installOnce, installHandler);
    const uint64_t page = g_pageSize;
    const uint64_t fileSpan = (size + page - 1) / page * page;
    // The file's pages, then one anonymous zero page for the sentinel (the end
    // of the last file page past the data reads as zeros too).
    const uint64_t total = fileSpan + page;
    const int slot = claimSlot();
    if (slot < 0)
        return nullptr;
    void *base = ::mmap(nullptr, total, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) {
        g_slots[slot].state.store(0, std::memory_order_release);
        return nullptr;
    }
    if (::mmap(base, size, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED) {
        ::munmap(base, total);
        g_slots[slot].state.store(0, std::memory_order_release);
        return nullptr;
    }
    ::madvise(base, size, MADV_SEQUENTIAL);
    Slot &s = g_slots[slot];
    s.faulted.store(false, std::memory_order_relaxed);
    s.end.store(reinterpret_cast<uintptr_t>(base) + fileSpan, std::memory_order_release);
    s.begin.store(reinterpret_cast<uintptr_t>(base), std::memory_order_release);
    return std::unique_ptr<MappedFile>(new MappedFile(static_cast<char *>(base), size, total, slot));
}

MappedFile::MappedFile(char *base, uint64_t size, uint64_t mapped, int slot)
    : m_data(base), m_size(size), m_mapped(mapped), m_slot(slot)
{
}

MappedFile::~MappedFile()
{
    Slot &s = g_slots[m_slot];
    s.begin.store(0, std::memory_order_release);
    s.end.store(0, std::memory_order_release);
    ::munmap(m_data, m_mapped);
    s.state.store(0, std::memory_order_release);
}

void MappedFile::releaseBefore(uint64_t offset)
{
    constexpr uint64_t kStep = uint64_t(1) << 20;
    const uint64_t upto = offset / g_pageSize * g_pageSize;
    if (upto < m_released + kStep)
        return;
    ::madvise(m_data + m_released, upto - m_released, MADV_DONTNEED);
    m_released = upto;
}

bool MappedFile::shrank() const { return g_slots[m_slot].faulted.load(std::memory_order_acquire); }

} // namespace syncscope
