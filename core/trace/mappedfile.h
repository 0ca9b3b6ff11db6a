#pragma once
// A plain file mapped read-only, for the loader to scan in place: read() would
// copy every byte from the page cache first, and on a big trace that copy costs
// more than the scan. The mapping is followed by at least one zero byte, the
// sentinel the JSON scanner stops at.
//
// A file that shrinks while it is mapped (a profiler rewriting it) would kill
// the process with SIGBUS at the first byte past its new end. A SIGBUS handler
// turns such a fault inside a live mapping into zeros from that page on and
// records it: the scan then meets a '\0' where the data went, and shrank() says
// why. Faults anywhere else go to the handler that was there before.
#include <cstdint>
#include <memory>

namespace syncscope {

class MappedFile {
public:
    // Maps the `size` bytes of the open file `fd` (which the caller may close
    // afterwards). Null when the file cannot be mapped (size 0, a pipe, too
    // many mappings live at once); the caller reads it instead.
    static std::unique_ptr<MappedFile> map(int fd, uint64_t size);
    ~MappedFile();
    MappedFile(const MappedFile &) = delete;
    MappedFile &operator=(const MappedFile &) = delete;

    // The file's bytes; data()[size()] is '\0'.
    const char *data() const { return m_data; }
    uint64_t size() const { return m_size; }

    // The bytes before `offset` are done with: their pages leave the process's
    // resident memory (they stay in the page cache). Cheap to call often; it
    // acts once a few megabytes have gathered. Reading them again is not allowed.
    void releaseBefore(uint64_t offset);

    // True once a read met the end of a file that had shrunk since it was
    // mapped: the bytes from that page on read as zeros.
    bool shrank() const;

private:
    MappedFile(char *base, uint64_t size, uint64_t mapped, int slot);

    char *m_data;
    uint64_t m_size;
    uint64_t m_mapped;       // bytes of the mapping, the sentinel's page included
    uint64_t m_released = 0; // pages before this offset were released
    int m_slot;              // in the fault handler's table
};

} // namespace syncscope
