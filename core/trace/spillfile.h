#pragma once
// Blobs of bytes held in a temporary file instead of memory, each read back
// once by the number add() gave it: for what a long computation must keep but
// not touch until it is done (the ranks' packed reports while the job's
// replays run).
//
// The file is unlinked as soon as it is made, so it goes with the process
// however that ends. Where no temporary file can be made or written (no
// writable $TMPDIR or /tmp, a full disk), a blob stays in memory instead: what
// comes back is the same, only where it waited differs.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace syncscope {

class SpillFile {
public:
    SpillFile();
    ~SpillFile();
    SpillFile(const SpillFile &) = delete;
    SpillFile &operator=(const SpillFile &) = delete;
    SpillFile(SpillFile &&other) noexcept;
    SpillFile &operator=(SpillFile &&other) noexcept;

    // Keeps `blob`; returns its number (0, 1, ...).
    size_t add(std::string blob);
    // Blob i, once: it is then let go. An Error (one sentence) when the
    // temporary file cannot be read back.
    std::string take(size_t i);

    size_t size() const { return m_entries.size(); }
    size_t spilled() const; // how many blobs not yet taken wait in the file

private:
    struct Entry {
        uint64_t offset = 0, size = 0; // in the file, when inFile
        bool inFile = false, taken = false;
        std::string memory; // otherwise
    };
    int m_fd = -1;
    bool m_tried = false; // made (or failed to make) the file
    uint64_t m_end = 0;
    std::vector<Entry> m_entries;

    bool open();
    void close();
};

} // namespace syncscope
