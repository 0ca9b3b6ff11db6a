#pragma once
// Writes a file so that readers see either the old one or the whole new one: a
// temporary file in the same directory, renamed over the target on commit().
#include <cstdio>
#include <string>
#include <string_view>

namespace syncscope {

class AtomicFile {
public:
    // Throws Error (one sentence) when the directory is not writable.
    explicit AtomicFile(std::string path);
    ~AtomicFile(); // removes the temporary file unless committed
    AtomicFile(const AtomicFile &) = delete;
    AtomicFile &operator=(const AtomicFile &) = delete;

    void write(std::string_view data);
    void commit();
    const std::string &path() const { return m_path; }

private:
    std::string m_path, m_temp;
    std::FILE *m_file = nullptr;
    bool m_committed = false;
};

// The whole of data to path, atomically.
void writeFileAtomically(const std::string &path, std::string_view data);

} // namespace syncscope
