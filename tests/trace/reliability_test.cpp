// Inputs that used to be accepted silently: each now leaves a warning.
#include "trace/traceloader.h"

#include <gtest/gtest.h>

#include <string>
#include <zlib.h>

namespace {

std::string gzip(const std::string &data)
{
    z_stream zs{};
    deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    std::string out(deflateBound(&zs, static_cast<uLong>(data.size())), '\0');
    zs.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(data.data()));
    zs.avail_in = static_cast<uInt>(data.size());
    zs.next_out = reinterpret_cast<Bytef *>(out.data());
    zs.avail_out = static_cast<uInt>(out.size());
    deflate(&zs, Z_FINISH);
    out.resize(zs.total_out);
    deflateEnd(&zs);
    return out;
}

bool hasWarning(const syncscope::TraceModel &m, const std::string &needle)
{
    for (const std::string &w : m.warnings().first)
        if (w.find(needle) != std::string::npos)
            return true;
    return false;
}

const std::string kTrace =
    R"({"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":5}]})";

} // namespace

TEST(LoaderReliability, GarbageAfterTheGzipStreamIsAWarning)
{
    const std::string bytes = gzip(kTrace) + "garbage!";
    const auto m = syncscope::loadTraceFromMemory(bytes, "t.json.gz");
    EXPECT_EQ(m->counts().durationEvents, 1u);
    EXPECT_TRUE(hasWarning(*m, "8 byte(s) of data after the end of the gzip stream"))
        << (m->warnings().first.empty() ? "no warning" : m->warnings().first[0]);
    // A clean file and concatenated gzip members stay silent.
    EXPECT_EQ(syncscope::loadTraceFromMemory(gzip(kTrace), "t.json.gz")->warnings().count, 0u);
    const std::string half = kTrace.substr(0, 20);
    const auto two = syncscope::loadTraceFromMemory(gzip(half) + gzip(kTrace.substr(20)), "t.json.gz");
    EXPECT_EQ(two->warnings().count, 0u);
    EXPECT_EQ(two->counts().durationEvents, 1u);
}

TEST(LoaderReliability, ASecondTraceEventsKeyIsAWarning)
{
    const std::string text =
        R"({"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":5}],)"
        R"("traceEvents":[{"ph":"X","name":"b","pid":1,"tid":1,"ts":9,"dur":5}]})";
    const auto m = syncscope::loadTraceFromMemory(text, "t.json");
    EXPECT_EQ(m->counts().durationEvents, 1u);
    EXPECT_TRUE(hasWarning(*m, "a second \"traceEvents\" key"));
    EXPECT_EQ(m->warnings().count, 1u);
}
