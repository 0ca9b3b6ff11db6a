#include "spillfile.h"

#include "common/error.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>
#include <utility>

namespace syncscope {

SpillFile::SpillFile() = default;

SpillFile::~SpillFile() { close(); }

SpillFile::SpillFile(SpillFile &&other) noexcept
    : m_fd(std::exchange(other.m_fd, -1)), m_tried(std::exchange(other.m_tried, false)),
      m_end(std::exchange(other.m_end, 0)), m_entries(std::move(other.m_entries))
{
    other.m_entries.clear();
}

SpillFile &SpillFile::operator=(SpillFile &&other) noexcept
{
    if (this != &other) {
        close();
        m_fd = std::exchange(other.m_fd, -1);
        m_tried = std::exchange(other.m_tried, false);
        m_end = std::exchange(other.m_end, 0);
        m_entries = std::move(other.m_entries);
        other.m_entries.clear();
    }
    return *this;
}

void SpillFile::close()
{
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = -1;
}

bool SpillFile::open()
{
    if (m_tried)
        return m_fd >= 0;
    m_tried = true;
    const char *dir = std::getenv("TMPDIR");
    std::string path = dir && *dir ? dir : "/tmp";
    path += "/syncscope-spill-XXXXXX";
    m_fd = ::mkostemp(path.data(), O_CLOEXEC);
    if (m_fd < 0)
        return false;
    ::unlink(path.c_str()); // nothing to clean up, however the process ends
    return true;
}

namespace {

// Whether a file of `size` bytes stays within the process's file-size limit
// (ulimit -f): a write past it raises SIGXFSZ, which ends the process unless
// it is ignored, so such a blob is kept in memory instead.
bool fitsFileSizeLimit(uint64_t size)
{
    rlimit lim{};
    return ::getrlimit(RLIMIT_FSIZE, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY || size <= lim.rlim_cur;
}

} // namespace

size_t SpillFile::add(std::string blob)
{
    Entry e;
    e.size = blob.size();
    if (open() && fitsFileSizeLimit(m_end + blob.size())) {
        // Written whole at the end, or not at all: a short write leaves the
        // blob in memory and the file's end where it was.
        size_t done = 0;
        while (done < blob.size()) {
            const ssize_t w = ::pwrite(m_fd, blob.data() + done, blob.size() - done,
                                       static_cast<off_t>(m_end + done));
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                break;
            done += static_cast<size_t>(w);
        }
        if (done == blob.size()) {
            e.offset = m_end;
            e.inFile = true;
            m_end += blob.size();
        }
    }
    if (!e.inFile)
        e.memory = std::move(blob);
    m_entries.push_back(std::move(e));
    return m_entries.size() - 1;
}

std::string SpillFile::take(size_t i)
{
    if (i >= m_entries.size() || m_entries[i].taken)
        throw Error("internal: spilled blob " + std::to_string(i) + " is not there");
    Entry &e = m_entries[i];
    e.taken = true;
    if (!e.inFile)
        return std::move(e.memory);
    std::string out(e.size, '\0');
    size_t done = 0;
    while (done < out.size()) {
        const ssize_t r = ::pread(m_fd, out.data() + done, out.size() - done, static_cast<off_t>(e.offset + done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            throw Error(std::string("could not read back a temporary file of syncscope's: ") +
                        (r < 0 ? std::strerror(errno) : "it is shorter than what was written"));
        done += static_cast<size_t>(r);
    }
    return out;
}

size_t SpillFile::spilled() const
{
    size_t n = 0;
    for (const Entry &e : m_entries)
        n += e.inFile && !e.taken;
    return n;
}

} // namespace syncscope
