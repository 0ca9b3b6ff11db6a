#include "trace/atomicfile.h"

#include "common/error.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

namespace syncscope {

AtomicFile::AtomicFile(std::string path) : m_path(std::move(path))
{
    m_temp = m_path + ".tmp.XXXXXX";
    const int fd = ::mkstemp(m_temp.data());
    if (fd < 0)
        throw Error("cannot write '" + m_path + "': " + std::strerror(errno) + ".");
    m_file = ::fdopen(fd, "wb");
    if (!m_file) {
        ::close(fd);
        ::unlink(m_temp.c_str());
        throw Error("cannot write '" + m_path + "': " + std::strerror(errno) + ".");
    }
}

AtomicFile::~AtomicFile()
{
    if (m_file)
        std::fclose(m_file);
    if (!m_committed)
        ::unlink(m_temp.c_str());
}

void AtomicFile::write(std::string_view data)
{
    if (!data.empty() && std::fwrite(data.data(), 1, data.size(), m_file) != data.size())
        throw Error("cannot write '" + m_path + "': " + std::strerror(errno) + ".");
}

void AtomicFile::commit()
{
    // mkstemp creates 0600; a result file should have the usual permissions.
    const mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(::fileno(m_file), 0666 & ~mask);
    const bool flushed = std::fflush(m_file) == 0 && ::fsync(::fileno(m_file)) == 0;
    const int closeRc = std::fclose(m_file);
    m_file = nullptr;
    if (!flushed || closeRc != 0)
        throw Error("cannot write '" + m_path + "': " + std::strerror(errno) + ".");
    if (std::rename(m_temp.c_str(), m_path.c_str()) != 0)
        throw Error("cannot write '" + m_path + "': " + std::strerror(errno) + ".");
    m_committed = true;
}

void writeFileAtomically(const std::string &path, std::string_view data)
{
    AtomicFile f(path);
    f.write(data);
    f.commit();
}

} // namespace syncscope
