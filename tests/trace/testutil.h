#pragma once
// Helpers shared by the trace tests.
#include "trace/tracemodel.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include <zlib.h>

namespace syncscope::test {

inline std::string dataPath(const std::string &name) { return std::string(SYNCSCOPE_TEST_DATA_DIR) + "/" + name; }

// A new, empty folder under the test's temporary folder: mkdtemp never reuses
// one, so a folder left by an earlier run whose pid was the same cannot leak
// its files into a test.
inline std::string freshDir(const std::string &prefix)
{
    std::string templ = ::testing::TempDir() + prefix + "_XXXXXX";
    if (!::mkdtemp(templ.data()))
        ADD_FAILURE() << "mkdtemp failed for " << templ;
    return templ;
}

inline std::string sharedTrace(const std::string &name)
{
    return std::string(SYNCSCOPE_SHARED_DIR) + "/traces/" + name;
}

// The bytes of `plain` as one gzip member (for loader tests).
inline std::string gzipBytes(const std::string &plain)
{
    z_stream zs{};
    deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    std::string out(deflateBound(&zs, static_cast<uLong>(plain.size())) + 64, '\0');
    zs.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(plain.data()));
    zs.avail_in = static_cast<uInt>(plain.size());
    zs.next_out = reinterpret_cast<Bytef *>(out.data());
    zs.avail_out = static_cast<uInt>(out.size());
    deflate(&zs, Z_FINISH);
    out.resize(zs.total_out);
    deflateEnd(&zs);
    return out;
}

// Under CI the shared traces must be there: a missing one fails, elsewhere it skips.
#define SYNCSCOPE_REQUIRE_SHARED(path)                                                                            \
    do {                                                                                                          \
        if (!std::filesystem::exists(path)) {                                                                     \
            if (std::getenv("CI"))                                                                                \
                FAIL() << "shared trace missing under CI: " << (path);                                            \
            GTEST_SKIP() << "shared trace not present: " << (path);                                               \
        }                                                                                                         \
    } while (0)

// Index of the first event named `name` on any track, as (track, index).
inline bool findEvent(const TraceModel &m, std::string_view name, size_t &track, size_t &index)
{
    for (size_t t = 0; t < m.tracks().size(); ++t)
        for (size_t i = 0; i < m.tracks()[t].size(); ++i)
            if (m.str(m.tracks()[t].name[i]) == name) {
                track = t;
                index = i;
                return true;
            }
    return false;
}

} // namespace syncscope::test
