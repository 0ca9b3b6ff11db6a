#include "trace/atomicfile.h"

#include "common/error.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace syncscope {

namespace {

// The umask, read once before main() runs (static initialisation is single
// threaded). /proc/self/status shows it without changing it; only where that
// is missing is it read the old way, still before any thread exists.
mode_t startupUmask()
{
    if (std::FILE *f = std::fopen("/proc/self/status", "r")) {
        char line[256];
        unsigned mask = 0;
        bool found = false;
        while (std::fgets(line, sizeof line, f))
            if (std::sscanf(line, "Umask: %o", &mask) == 1) {
                found = true;
                break;
            }
        std::fclose(f);
        if (found)
            return static_cast<mode_t>(mask);
    }
    const mode_t mask = ::umask(022);
    ::umask(mask);
    return mask;
}

const mode_t g_umask = startupUmask();

// Signal-safe registry: fixed slots, the path written before the slot is
// published, read by the handler only when published.
constexpr int kSlots = 64;
constexpr size_t kPathMax = 4096;
struct Slot {
    std::atomic<int> state{0}; // 0 free, 1 being filled, 2 published
    char path[kPathMax];
};
Slot g_slots[kSlots];
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs lock-free atomics");

extern "C" void removeTempFilesAndDie(int sig)
{
    const int savedErrno = errno;
    for (Slot &s : g_slots)
        if (s.state.load(std::memory_order_acquire) == 2)
            ::unlink(s.path);
    errno = savedErrno;
    std::signal(sig, SIG_DFL);
    ::raise(sig);
}

// Six characters from [A-Za-z0-9], like mkstemp's, from the clock, the pid and a counter.
std::string randomSuffix()
{
    static std::atomic<uint64_t> counter{0};
    struct timespec ts {};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t x = static_cast<uint64_t>(ts.tv_nsec) ^ (static_cast<uint64_t>(ts.tv_sec) << 30) ^
                 (static_cast<uint64_t>(::getpid()) << 20) ^ (counter.fetch_add(1) * 0x9E3779B97F4A7C15ull);
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    static const char kChars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    std::string out(6, 'X');
    for (char &c : out) {
        c = kChars[x % 62];
        x /= 62;
    }
    return out;
}

std::string dirOf(const std::string &path)
{
    const size_t slash = path.rfind('/');
    if (slash == std::string::npos)
        return "";
    return path.substr(0, slash + 1);
}

} // namespace

unsigned newFileMode() { return 0666u & ~static_cast<unsigned>(g_umask); }

int registerTempFile(const std::string &path)
{
    if (path.size() >= kPathMax)
        return -1;
    for (int i = 0; i < kSlots; ++i) {
        int expected = 0;
        if (g_slots[i].state.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) {
            std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
            g_slots[i].state.store(2, std::memory_order_release);
            return i;
        }
    }
    return -1;
}

void unregisterTempFile(int slot)
{
    if (slot >= 0 && slot < kSlots)
        g_slots[slot].state.store(0, std::memory_order_release);
}

void installTempFileCleanup()
{
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
        struct sigaction old {};
        if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler == SIG_IGN)
            continue;
        struct sigaction sa {};
        sa.sa_handler = removeTempFilesAndDie;
        sigemptyset(&sa.sa_mask);
        ::sigaction(sig, &sa, nullptr);
    }
}

std::string followSymlinks(const std::string &path)
{
    std::string cur = path;
    for (int hops = 0; hops < 40; ++hops) {
        struct stat st;
        if (::lstat(cur.c_str(), &st) != 0 || !S_ISLNK(st.st_mode))
            return cur;
        std::string link(static_cast<size_t>(st.st_size > 0 ? st.st_size : 255) + 1, '\0');
        const ssize_t n = ::readlink(cur.c_str(), link.data(), link.size());
        if (n < 0 || static_cast<size_t>(n) >= link.size())
            return cur;
        link.resize(static_cast<size_t>(n));
        cur = (!link.empty() && link[0] == '/') ? link : dirOf(cur) + link;
    }
    return cur;
}

AtomicFile::AtomicFile(std::string path) : m_path(std::move(path))
{
    m_target = followSymlinks(m_path);
    struct stat st;
    const bool exists = ::stat(m_target.c_str(), &st) == 0;
    if (exists && S_ISDIR(st.st_mode))
        throw Error("cannot write '" + m_path + "': it is a folder.");
    if (exists && !S_ISREG(st.st_mode)) {
        // A device or FIFO cannot be replaced: write to it.
        m_direct = true;
        m_file = std::fopen(m_target.c_str(), "wb");
        if (!m_file)
            fail(errno);
        return;
    }
    // The name is registered before the file exists, so a signal at any moment
    // finds it: a random name, registered, then created exclusively.
    int fd = -1;
    for (int attempt = 0; fd < 0; ++attempt) {
        m_temp = m_target + ".tmp." + randomSuffix();
        m_slot = registerTempFile(m_temp);
        fd = ::open(m_temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd >= 0)
            break;
        const int err = errno;
        unregisterTempFile(m_slot);
        m_slot = -1;
        if (err != EEXIST || attempt >= 100) {
            m_temp.clear();
            fail(err);
        }
    }
    // mkstemp creates 0600: give the temporary file the mode the result must have.
    const mode_t mode = exists ? (st.st_mode & 07777) : static_cast<mode_t>(newFileMode());
    ::fchmod(fd, mode);
    if (exists)
        (void)!::fchown(fd, static_cast<uid_t>(-1), st.st_gid); // keep the group when allowed
    m_file = ::fdopen(fd, "wb");
    if (!m_file) {
        const int err = errno;
        ::close(fd);
        fail(err);
    }
}

AtomicFile::~AtomicFile()
{
    if (m_file)
        std::fclose(m_file);
    if (!m_committed && !m_direct)
        ::unlink(m_temp.c_str());
    unregisterTempFile(m_slot);
}

void AtomicFile::fail(int err)
{
    if (m_file) {
        std::fclose(m_file);
        m_file = nullptr;
    }
    if (!m_direct && !m_temp.empty())
        ::unlink(m_temp.c_str());
    unregisterTempFile(m_slot);
    m_slot = -1;
    m_committed = true; // nothing left for the destructor to remove
    throw Error("cannot write '" + m_path + "': " + std::strerror(err) + ".");
}

void AtomicFile::write(std::string_view data)
{
    if (!m_file)
        throw Error("cannot write '" + m_path + "': the file was already closed.");
    if (!data.empty() && std::fwrite(data.data(), 1, data.size(), m_file) != data.size())
        fail(errno ? errno : EIO);
}

void AtomicFile::commit()
{
    if (!m_file)
        throw Error("cannot write '" + m_path + "': the file was already closed.");
    errno = 0;
    bool ok = std::fflush(m_file) == 0 && !std::ferror(m_file);
    int err = errno;
    if (ok && !m_direct && ::fsync(::fileno(m_file)) != 0) {
        ok = false;
        err = errno;
    }
    const int closeRc = std::fclose(m_file);
    m_file = nullptr;
    if (ok && closeRc != 0) {
        ok = false;
        err = errno;
    }
    if (!ok)
        fail(err ? err : EIO);
    if (!m_direct && std::rename(m_temp.c_str(), m_target.c_str()) != 0)
        fail(errno);
    m_committed = true;
    unregisterTempFile(m_slot);
    m_slot = -1;
}

void writeFileAtomically(const std::string &path, std::string_view data)
{
    AtomicFile f(path);
    f.write(data);
    f.commit();
}

ScopedTempFile::ScopedTempFile(std::string path) : m_path(std::move(path)) { m_slot = registerTempFile(m_path); }

ScopedTempFile::~ScopedTempFile()
{
    if (m_slot != -2)
        ::unlink(m_path.c_str());
    unregisterTempFile(m_slot);
}

void ScopedTempFile::release()
{
    unregisterTempFile(m_slot);
    m_slot = -2;
}

} // namespace syncscope
