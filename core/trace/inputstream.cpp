#include "trace/inputstream.h"

#include "common/error.h"
#include "trace/mappedfile.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>
#include <sys/stat.h>
#include <zlib.h>

namespace syncscope {

struct InputStream::Zlib {
    z_stream zs{};
    std::vector<unsigned char> in = std::vector<unsigned char>(1 << 20);
    bool initialized = false;
    bool midStream = false;  // a member started and has not ended yet
    bool sourceDone = false; // the compressed input is all read
    ~Zlib()
    {
        if (initialized)
            inflateEnd(&zs);
    }
};

std::unique_ptr<InputStream> InputStream::openFile(const std::string &path)
{
    std::unique_ptr<InputStream> s(new InputStream);
    s->m_path = path;
    s->m_file = std::fopen(path.c_str(), "rb");
    if (!s->m_file)
        throw Error("cannot open '" + path + "': " + std::strerror(errno) + ".");
    struct stat st;
    if (fstat(fileno(s->m_file), &st) == 0 && S_ISDIR(st.st_mode))
        throw Error("cannot read '" + path + "': it is a directory.");
    std::setvbuf(s->m_file, nullptr, _IONBF, 0);
    if (std::fseek(s->m_file, 0, SEEK_END) == 0) {
        const long size = std::ftell(s->m_file);
        s->m_sourceSize = size > 0 ? static_cast<uint64_t>(size) : 0;
        std::fseek(s->m_file, 0, SEEK_SET);
    }
    if (std::ferror(s->m_file))
        throw Error("cannot read '" + path + "': " + std::strerror(errno) + ".");
    s->m_peekLen = s->readRaw(s->m_peek, 2);
    s->m_gzip = s->m_peekLen == 2 && static_cast<unsigned char>(s->m_peek[0]) == 0x1f &&
                static_cast<unsigned char>(s->m_peek[1]) == 0x8b;
    if (s->m_gzip)
        s->m_z.reset(new Zlib);
    return s;
}

std::unique_ptr<InputStream> InputStream::fromMemory(std::string_view bytes)
{
    std::unique_ptr<InputStream> s(new InputStream);
    s->m_memory = bytes;
    s->m_sourceSize = bytes.size();
    s->m_peekLen = s->readRaw(s->m_peek, 2);
    s->m_gzip = s->m_peekLen == 2 && static_cast<unsigned char>(s->m_peek[0]) == 0x1f &&
                static_cast<unsigned char>(s->m_peek[1]) == 0x8b;
    if (s->m_gzip)
        s->m_z.reset(new Zlib);
    return s;
}

std::unique_ptr<MappedFile> InputStream::mapWhole()
{
    struct stat st;
    if (!m_file || m_gzip || m_sourceSize == 0 || fstat(fileno(m_file), &st) != 0 || !S_ISREG(st.st_mode))
        return nullptr;
    return MappedFile::map(fileno(m_file), m_sourceSize);
}

InputStream::~InputStream()
{
    if (m_file)
        std::fclose(m_file);
}

size_t InputStream::readRaw(char *dst, size_t n)
{
    size_t got = 0;
    if (m_peekLen) {
        got = std::min(n, m_peekLen);
        std::memcpy(dst, m_peek, got);
        std::memmove(m_peek, m_peek + got, m_peekLen - got);
        m_peekLen -= got;
        if (got == n)
            return got;
    }
    if (m_file) {
        got += std::fread(dst + got, 1, n - got, m_file);
        if (got < n && std::ferror(m_file))
            throw Error("cannot read '" + m_path + "': " + std::strerror(errno) + ".");
    } else {
        const size_t left = m_memory.size() - m_sourcePos;
        const size_t take = std::min(n - got, left);
        std::memcpy(dst + got, m_memory.data() + m_sourcePos, take);
        m_sourcePos += take;
        return got + take;
    }
    m_sourcePos += got;
    return got;
}

size_t InputStream::read(char *dst, size_t n)
{
    if (m_done || n == 0)
        return 0;
    if (!m_gzip) {
        const size_t got = readRaw(dst, n);
        if (got == 0)
            m_done = true;
        return got;
    }
    return inflateSome(dst, n);
}

size_t InputStream::inflateSome(char *dst, size_t n)
{
    Zlib &z = *m_z;
    if (!z.initialized) {
        // 15 + 16: gzip wrapper only; the magic bytes told us it is gzip.
        if (inflateInit2(&z.zs, 15 + 16) != Z_OK)
            throw Error("cannot start the gzip decompressor.");
        z.initialized = true;
    }
    n = std::min<size_t>(n, size_t(1) << 30); // zlib counts in 32-bit uInt
    z.zs.next_out = reinterpret_cast<Bytef *>(dst);
    z.zs.avail_out = static_cast<uInt>(n);
    while (z.zs.avail_out > 0) {
        if (z.zs.avail_in == 0 && !z.sourceDone) {
            const size_t got = readRaw(reinterpret_cast<char *>(z.in.data()), z.in.size());
            if (got == 0) {
                z.sourceDone = true;
            } else {
                z.zs.next_in = z.in.data();
                z.zs.avail_in = static_cast<uInt>(got);
            }
        }
        if (z.zs.avail_in == 0 && z.sourceDone && !z.midStream) {
            m_done = true;
            break;
        }
        // With the input all read, inflate still runs: it may hold decoded
        // bytes that a full output buffer left behind. The data ends early
        // only once it gives nothing more.
        z.midStream = true;
        const uInt outBefore = z.zs.avail_out;
        const int rc = inflate(&z.zs, Z_NO_FLUSH);
        if (z.sourceDone && z.zs.avail_in == 0 && z.zs.avail_out == outBefore &&
            (rc == Z_OK || rc == Z_BUF_ERROR)) {
            m_gzipProblem = "the gzip data ends early";
            m_done = true;
            break;
        }
        if (rc == Z_STREAM_END) {
            z.midStream = false;
            // Concatenated members are legal gzip; anything else after the end is ignored.
            if (z.zs.avail_in == 0) {
                char probe[2];
                const size_t got = readRaw(probe, 2);
                if (got == 0) {
                    m_done = true;
                    break;
                }
                std::memcpy(z.in.data(), probe, got);
                z.zs.next_in = z.in.data();
                z.zs.avail_in = static_cast<uInt>(got);
            }
            if (z.zs.avail_in >= 1 && z.zs.next_in[0] != 0x1f) {
                const uint64_t after = z.zs.avail_in +
                                       (m_sourceSize > m_sourcePos ? m_sourceSize - m_sourcePos : 0);
                m_gzipProblem = "the file has " + std::to_string(after) +
                                " byte(s) of data after the end of the gzip stream";
                m_done = true;
                break;
            }
            inflateReset(&z.zs);
        } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            m_gzipProblem = std::string("the gzip data is corrupt (") + (z.zs.msg ? z.zs.msg : "inflate error") +
                            ")";
            m_done = true;
            break;
        }
    }
    return n - z.zs.avail_out;
}

} // namespace syncscope
