#pragma once
// Helpers shared by the trace tests.
#include "trace/tracemodel.h"

#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

namespace syncscope::test {

inline std::string dataPath(const std::string &name)
{
    return std::string(SYNCSCOPE_TEST_DATA_DIR) + "/" + name;
}

inline std::string sharedTrace(const std::string &name)
{
    return std::string(SYNCSCOPE_SHARED_DIR) + "/traces/" + name;
}

// Under CI the shared traces must be there: a missing one fails, elsewhere it skips.
#define SYNCSCOPE_REQUIRE_SHARED(path)                                                       \
    do {                                                                                     \
        if (!std::filesystem::exists(path)) {                                                \
            if (std::getenv("CI"))                                                           \
                FAIL() << "shared trace missing under CI: " << (path);                       \
            GTEST_SKIP() << "shared trace not present: " << (path);                          \
        }                                                                                    \
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
