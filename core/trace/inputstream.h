#pragma once
// Bytes of a trace file, gunzipped on the fly when the file starts with the gzip
// magic bytes (the name does not matter: "trace.json" may well be gzip).
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

namespace syncscope {

class MappedFile;

class InputStream {
public:
    // Throws Error with one sentence when the file cannot be opened.
    static std::unique_ptr<InputStream> openFile(const std::string &path);
    // The bytes must outlive the stream.
    static std::unique_ptr<InputStream> fromMemory(std::string_view bytes);
    ~InputStream();

    // Up to n bytes of JSON; 0 at the end of the data or after a gzip error.
    size_t read(char *dst, size_t n);

    // The whole file mapped to be scanned in place (mappedfile.h) when it is a
    // plain regular file that can be; null for gzip data, bytes in memory or a
    // pipe, which are read. Call it before the first read().
    std::unique_ptr<MappedFile> mapWhole();

    bool isGzip() const { return m_gzip; }
    uint64_t sourceBytes() const { return m_sourceSize; }
    // How far into the file (compressed bytes) we are, for progress.
    uint64_t sourcePos() const { return m_sourcePos; }
    // Non-empty when gzip data was corrupt or ended early.
    const std::string &gzipProblem() const { return m_gzipProblem; }

private:
    InputStream() = default;
    size_t readRaw(char *dst, size_t n);
    size_t inflateSome(char *dst, size_t n);

    std::string m_path;
    std::FILE *m_file = nullptr;
    std::string_view m_memory;
    uint64_t m_sourceSize = 0;
    uint64_t m_sourcePos = 0;
    bool m_gzip = false;
    bool m_done = false;
    std::string m_gzipProblem;
    // Peeked magic bytes handed out before the rest of the file.
    char m_peek[2] = {0, 0};
    size_t m_peekLen = 0;
    struct Zlib;
    std::unique_ptr<Zlib> m_z;
};

} // namespace syncscope
