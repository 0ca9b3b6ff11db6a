#pragma once
// Writes a file so that readers see either the old one or the whole new one: a
// temporary file in the same directory, renamed over the target on commit().
//
// What the user had is kept:
// - a file being replaced keeps its permission bits (640 stays 640); a new file
//   gets 0666 minus the umask the process started with;
// - a symlinked output is written through to its target, the link stays;
// - an output that exists and is not a regular file (/dev/null, /dev/stdout, a
//   FIFO) is written to directly, since it cannot be replaced;
// - the temporary file is registered so that SIGINT and SIGTERM remove it
//   (installTempFileCleanup()).
// Every write, flush and close is checked: a full disk is an Error, never a
// silently short file.
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
    [[noreturn]] void fail(int err);

    std::string m_path;   // as the user gave it, for messages
    std::string m_target; // m_path with symlinks followed: what is replaced
    std::string m_temp;
    std::FILE *m_file = nullptr;
    int m_slot = -1; // in the temp-file registry
    bool m_direct = false;
    bool m_committed = false;
};

// The whole of data to path, atomically.
void writeFileAtomically(const std::string &path, std::string_view data);

// path with every symlink followed (up to 40 links), also when the last target
// does not exist yet; path itself when it is not a symlink.
std::string followSymlinks(const std::string &path);

// The permission bits a new file gets: 0666 minus the umask read once, when the
// process started. Never changes the process umask.
unsigned newFileMode();

// Temporary files that must not outlive the process. register returns a slot
// (-1 when the registry is full: the file is then only removed by its owner).
// Both are safe to call from any thread.
int registerTempFile(const std::string &path);
void unregisterTempFile(int slot);

// Installs SIGINT, SIGTERM and SIGHUP handlers that remove every registered
// temporary file, then die of the same signal. A signal the process ignores
// (nohup) stays ignored. Call once from main().
void installTempFileCleanup();

// A file removed when this goes out of scope (or on SIGINT/SIGTERM) unless
// release() was called: for intermediate files such as a capture's raw trace.
class ScopedTempFile {
public:
    explicit ScopedTempFile(std::string path);
    ~ScopedTempFile();
    ScopedTempFile(const ScopedTempFile &) = delete;
    ScopedTempFile &operator=(const ScopedTempFile &) = delete;
    const std::string &path() const { return m_path; }
    void release(); // keep the file

private:
    std::string m_path;
    int m_slot = -1;
};

} // namespace syncscope
