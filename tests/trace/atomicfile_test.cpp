// What an atomic write keeps of what the user had, and what it never leaves behind.
#include "common/error.h"
#include "trace/atomicfile.h"
#include "../common/files.h"
#include "testutil.h"

#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <cstdlib>
#include <string>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

// Counts calls to umask() made by the code under test: the writer must never
// change this process-wide setting (other threads create files meanwhile).
static std::atomic<int> g_umaskCalls{0};
extern "C" mode_t umask(mode_t mask) noexcept
{
    ++g_umaskCalls;
    return static_cast<mode_t>(::syscall(SYS_umask, mask));
}

namespace {

using syncscope::AtomicFile;
using syncscope::writeFileAtomically;

std::string freshDir() { return syncscope::test::freshDir("syncscope_atomic"); }

std::vector<std::string> entries(const std::string &dir)
{
    std::vector<std::string> out;
    if (DIR *d = ::opendir(dir.c_str())) {
        while (const dirent *e = ::readdir(d))
            if (std::string(e->d_name) != "." && std::string(e->d_name) != "..")
                out.push_back(e->d_name);
        ::closedir(d);
    }
    return out;
}

unsigned modeOf(const std::string &path)
{
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0;
}

} // namespace

TEST(AtomicFile, ReplacedFileKeepsItsMode)
{
    const std::string dir = freshDir(), path = dir + "/out.json";
    writeFileAtomically(path, "old");
    ASSERT_EQ(::chmod(path.c_str(), 0640), 0);
    writeFileAtomically(path, "new");
    EXPECT_EQ(syncscope::test::readFile(path), "new");
    EXPECT_EQ(modeOf(path), 0640u);
    ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
    writeFileAtomically(path, "newer");
    EXPECT_EQ(modeOf(path), 0600u);
}

TEST(AtomicFile, NewFileGetsTheUsualModeWithoutTouchingTheUmask)
{
    const std::string dir = freshDir(), path = dir + "/new.json";
    const int before = g_umaskCalls.load();
    writeFileAtomically(path, "x");
    EXPECT_EQ(g_umaskCalls.load(), before) << "the writer changed the process umask";
    EXPECT_EQ(modeOf(path), syncscope::newFileMode());
    // newFileMode is 0666 minus the umask this process started with.
    const mode_t now = static_cast<mode_t>(::syscall(SYS_umask, 022));
    ::syscall(SYS_umask, now);
    EXPECT_EQ(syncscope::newFileMode(), 0666u & ~static_cast<unsigned>(now));
}

TEST(AtomicFile, SymlinkedOutputIsWrittenThroughToItsTarget)
{
    const std::string dir = freshDir(), target = dir + "/real.json", link = dir + "/link.json";
    writeFileAtomically(target, "old");
    ASSERT_EQ(::symlink("real.json", link.c_str()), 0);
    writeFileAtomically(link, "new");
    struct stat st;
    ASSERT_EQ(::lstat(link.c_str(), &st), 0);
    EXPECT_TRUE(S_ISLNK(st.st_mode)) << "the symlink was replaced by a file";
    EXPECT_EQ(syncscope::test::readFile(target), "new");
    // A dangling link creates its target.
    const std::string dangling = dir + "/dangling.json";
    ASSERT_EQ(::symlink("made.json", dangling.c_str()), 0);
    writeFileAtomically(dangling, "made");
    EXPECT_EQ(syncscope::test::readFile(dir + "/made.json"), "made");
    ASSERT_EQ(::lstat(dangling.c_str(), &st), 0);
    EXPECT_TRUE(S_ISLNK(st.st_mode));
}

TEST(AtomicFile, DeviceIsWrittenToNotReplacedAndItsErrorsAreErrors)
{
    writeFileAtomically("/dev/null", "discarded");
    struct stat st;
    ASSERT_EQ(::stat("/dev/null", &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode));
    if (::access("/dev/full", W_OK) != 0)
        GTEST_SKIP() << "no /dev/full here";
    try {
        writeFileAtomically("/dev/full", std::string(1 << 16, 'x'));
        FAIL() << "a write to /dev/full succeeded";
    } catch (const syncscope::Error &e) {
        EXPECT_NE(std::string(e.what()).find("/dev/full"), std::string::npos) << e.what();
    }
    ASSERT_EQ(::stat("/dev/full", &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST(AtomicFile, FolderAsOutputIsOneSentence)
{
    const std::string dir = freshDir();
    EXPECT_THROW(writeFileAtomically(dir, "x"), syncscope::Error);
    EXPECT_TRUE(entries(dir).empty());
}

TEST(AtomicFile, UncommittedWriteLeavesNothing)
{
    const std::string dir = freshDir();
    {
        AtomicFile f(dir + "/out.json");
        f.write("partial");
    }
    EXPECT_TRUE(entries(dir).empty());
}

TEST(AtomicFile, SigtermAndSigintRemoveTheTemporaryFile)
{
    for (int sig : {SIGTERM, SIGINT}) {
        const std::string dir = freshDir();
        const pid_t child = ::fork();
        ASSERT_GE(child, 0);
        if (child == 0) {
            syncscope::installTempFileCleanup();
            AtomicFile f(dir + "/out.json");
            f.write(std::string(1 << 20, 'x'));
            syncscope::ScopedTempFile raw(dir + "/raw.json");
            std::ofstream(raw.path()) << "raw";
            ::raise(sig);
            ::_exit(0); // not reached: the handler re-raises the signal
        }
        int status = 0;
        ASSERT_EQ(::waitpid(child, &status, 0), child);
        EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << status;
        EXPECT_TRUE(entries(dir).empty()) << entries(dir).front();
    }
}

TEST(AtomicFile, ScopedTempFileIsRemovedUnlessReleased)
{
    const std::string dir = freshDir();
    {
        syncscope::ScopedTempFile t(dir + "/a.json");
        std::ofstream(t.path()) << "a";
    }
    EXPECT_TRUE(entries(dir).empty());
    {
        syncscope::ScopedTempFile t(dir + "/b.json");
        std::ofstream(t.path()) << "b";
        t.release();
    }
    EXPECT_EQ(entries(dir), std::vector<std::string>{"b.json"});
}
