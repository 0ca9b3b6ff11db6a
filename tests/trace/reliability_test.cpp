// Inputs that used to be accepted silently: each now leaves a warning.
#include "trace/traceloader.h"

#include "testutil.h"

#include <gtest/gtest.h>

#include "common/error.h"

#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>
#include <zlib.h>

namespace {

bool hasWarning(const syncscope::TraceModel &m, const std::string &needle)
{
    for (const std::string &w : m.warnings().first)
        if (w.find(needle) != std::string::npos)
            return true;
    return false;
}

const std::string kTrace = R"({"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":5}]})";

} // namespace

TEST(LoaderReliability, GarbageAfterTheGzipStreamIsAWarning)
{
    const std::string bytes = syncscope::test::gzipBytes(kTrace) + "garbage!";
    const auto m = syncscope::loadTraceFromMemory(bytes, "t.json.gz");
    EXPECT_EQ(m->counts().durationEvents, 1u);
    EXPECT_TRUE(hasWarning(*m, "8 byte(s) of data after the end of the gzip stream"))
        << (m->warnings().first.empty() ? "no warning" : m->warnings().first[0]);
    // A clean file and concatenated gzip members stay silent.
    EXPECT_EQ(syncscope::loadTraceFromMemory(syncscope::test::gzipBytes(kTrace), "t.json.gz")->warnings().count,
              0u);
    const std::string half = kTrace.substr(0, 20);
    const auto two = syncscope::loadTraceFromMemory(syncscope::test::gzipBytes(half) +
                                                        syncscope::test::gzipBytes(kTrace.substr(20)),
                                                    "t.json.gz");
    EXPECT_EQ(two->warnings().count, 0u);
    EXPECT_EQ(two->counts().durationEvents, 1u);
}

TEST(LoaderReliability, ASecondTraceEventsKeyIsAWarning)
{
    const std::string text = R"({"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":5}],)"
                             R"("traceEvents":[{"ph":"X","name":"b","pid":1,"tid":1,"ts":9,"dur":5}]})";
    const auto m = syncscope::loadTraceFromMemory(text, "t.json");
    EXPECT_EQ(m->counts().durationEvents, 1u);
    EXPECT_TRUE(hasWarning(*m, "a second \"traceEvents\" key"));
    EXPECT_EQ(m->warnings().count, 1u);
}

TEST(LoaderReliability, AFatalErrorInOneRankStopsTheOthers)
{
    // A large valid rank beside a rank that fails at once: the large one must be
    // stopped mid-read, never reach its final sort.
    const std::string big = ::testing::TempDir() + "syncscope_multiload_big.json";
    {
        std::FILE *f = std::fopen(big.c_str(), "wb");
        ASSERT_TRUE(f);
        std::fputs(R"({"traceEvents":[)", f);
        for (int i = 0; i < 400000; ++i)
            std::fprintf(f, R"(%s{"ph":"X","name":"op%d","pid":1,"tid":%d,"ts":%d,"dur":3})", i ? "," : "", i % 97,
                         i % 7, i * 4);
        std::fputs("]}", f);
        std::fclose(f);
    }
    std::vector<std::vector<std::string>> orders = {{"/nonexistent/rank1.json", big}};
    // The large rank first only stops early when the two load side by side.
    if (std::thread::hardware_concurrency() >= 2)
        orders.push_back({big, "/nonexistent/rank1.json"});
    for (const auto &paths : orders) {
        std::atomic<bool> sorted{false};
        try {
            syncscope::loadTraces(paths, [&](double, const char *what) {
                if (std::string(what) != "reading events")
                    sorted = true;
            });
            FAIL() << "a missing rank was not an error";
        } catch (const syncscope::Cancelled &) {
            FAIL() << "the real error was hidden behind a cancel";
        } catch (const syncscope::Error &e) {
            EXPECT_NE(std::string(e.what()).find("rank1.json"), std::string::npos) << e.what();
        }
        EXPECT_FALSE(sorted) << "the other rank loaded to the end after the first one failed";
    }
    std::remove(big.c_str());
}

TEST(LoaderReliability, CancellingAMultiRankLoadIsCancelled)
{
    syncscope::CancelToken cancel;
    cancel.cancel();
    const std::string text = kTrace;
    const std::string path = ::testing::TempDir() + "syncscope_multiload_small.json";
    std::FILE *f = std::fopen(path.c_str(), "wb");
    std::fputs(text.c_str(), f);
    std::fclose(f);
    EXPECT_THROW(syncscope::loadTraces({path, path}, {}, &cancel), syncscope::Cancelled);
    std::remove(path.c_str());
}

TEST(ArgStoreLimits, ArgsOver4GiBAreAnErrorNotATruncation)
{
    // Sizes are 32-bit: 5 GiB used to be cut to 1 GiB silently.
    syncscope::ArgStore store;
    syncscope::ArgsRef ref;
    EXPECT_THROW(store.allocate(size_t(5) << 30, ref), syncscope::Error);
    char *p = store.allocate(3, ref);
    std::memcpy(p, "{ }", 3);
    EXPECT_EQ(store.get(ref), "{ }");
}
