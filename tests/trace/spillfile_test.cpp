// A spill file gives back every blob byte for byte, leaves nothing in its
// folder, and keeps a blob in memory where the file cannot take it.
#include "common/error.h"
#include "trace/spillfile.h"
#include "testutil.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <dirent.h>
#include <random>
#include <string>
#include <sys/resource.h>
#include <vector>

namespace {

using syncscope::SpillFile;

std::string freshDir() { return syncscope::test::freshDir("syncscope_spill"); }

size_t entriesIn(const std::string &dir)
{
    size_t n = 0;
    if (DIR *d = ::opendir(dir.c_str())) {
        while (const dirent *e = ::readdir(d))
            n += std::string(e->d_name) != "." && std::string(e->d_name) != "..";
        ::closedir(d);
    }
    return n;
}

// TMPDIR set for one scope.
struct TmpDir {
    explicit TmpDir(const std::string &dir)
    {
        if (const char *old = std::getenv("TMPDIR")) {
            m_had = true;
            m_old = old;
        }
        ::setenv("TMPDIR", dir.c_str(), 1);
    }
    ~TmpDir()
    {
        if (m_had)
            ::setenv("TMPDIR", m_old.c_str(), 1);
        else
            ::unsetenv("TMPDIR");
    }
    bool m_had = false;
    std::string m_old;
};

std::vector<std::string> blobs()
{
    std::mt19937 rng(7);
    std::vector<std::string> out;
    for (size_t size : {size_t(0), size_t(1), size_t(4096), size_t(100000), size_t(3)}) {
        std::string b(size, '\0');
        for (char &c : b)
            c = static_cast<char>(rng()); // every byte value, NULs included
        out.push_back(std::move(b));
    }
    return out;
}

TEST(SpillFile, GivesBackEveryBlobInAnyOrderAndLeavesNothingInItsFolder)
{
    const std::string dir = freshDir();
    TmpDir tmp(dir);
    const std::vector<std::string> in = blobs();
    SpillFile spill;
    for (size_t i = 0; i < in.size(); ++i)
        EXPECT_EQ(spill.add(in[i]), i);
    EXPECT_EQ(spill.size(), in.size());
    EXPECT_EQ(spill.spilled(), in.size()); // all in the file, none in memory
    EXPECT_EQ(entriesIn(dir), 0u);         // unlinked as soon as it was made
    for (size_t i : {3, 0, 4, 1, 2})
        EXPECT_EQ(spill.take(i), in[i]) << "blob " << i;
    EXPECT_EQ(spill.spilled(), 0u);
    EXPECT_THROW(spill.take(2), syncscope::Error); // once each
    EXPECT_THROW(spill.take(5), syncscope::Error);

    SpillFile moved = std::move(spill); // the file goes with it
    EXPECT_EQ(moved.size(), in.size());
    const size_t again = moved.add("after the move");
    EXPECT_EQ(moved.take(again), "after the move");
}

TEST(SpillFile, KeepsTheBlobsInMemoryWhereNoTemporaryFileCanBeMade)
{
    TmpDir tmp(freshDir() + "/no such folder");
    const std::vector<std::string> in = blobs();
    SpillFile spill;
    for (const std::string &b : in)
        spill.add(b);
    EXPECT_EQ(spill.spilled(), 0u);
    for (size_t i = in.size(); i-- > 0;)
        EXPECT_EQ(spill.take(i), in[i]);
}

TEST(SpillFile, ABlobTheFileCannotTakeWholeStaysInMemory)
{
    // A file-size limit (ulimit -f) stands in for a full disk: the blob that
    // would pass it must stay in memory, and the next one, which fits again,
    // goes to the file after the first. SIGXFSZ keeps its default action, so
    // a write past the limit would end this test.
    const std::string dir = freshDir();
    TmpDir tmp(dir);
    rlimit old{};
    ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
    rlimit small = old;
    small.rlim_cur = 10000;
    ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
    SpillFile spill;
    const std::string a(6000, 'a'), b(6000, 'b'), c(3000, 'c');
    spill.add(a);
    spill.add(b); // 12,000 bytes would pass the limit
    spill.add(c);
    ::setrlimit(RLIMIT_FSIZE, &old);
    EXPECT_EQ(spill.spilled(), 2u);
    EXPECT_EQ(spill.take(1), b);
    EXPECT_EQ(spill.take(2), c);
    EXPECT_EQ(spill.take(0), a);
}

} // namespace
