// Bench result or trace: decided by the top-level keys, wherever they are.
#include "trace/filekind.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <zlib.h>

using syncscope::JsonFileKind;
using syncscope::jsonKind;

TEST(JsonFileKind, TraceWhoseEventsStartAfterManyBytesIsATrace)
{
    // Metadata that mentions "results" fills the first 4 KB before traceEvents.
    const std::string trace = R"({"deviceProperties":[{"name":"results", "pad":")" + std::string(8000, 'x') +
                              R"("}],"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":1}]})";
    EXPECT_EQ(jsonKind(trace), JsonFileKind::Trace);
    const std::string path = ::testing::TempDir() + "syncscope_kind_trace.json.gz";
    gzFile gz = gzopen(path.c_str(), "wb");
    ASSERT_TRUE(gz);
    gzwrite(gz, trace.data(), static_cast<unsigned>(trace.size()));
    gzclose(gz);
    EXPECT_EQ(syncscope::jsonFileKind(path), JsonFileKind::Trace);
    std::remove(path.c_str());
}

TEST(JsonFileKind, BenchResultIsDecidedByItsTopLevelKeys)
{
    EXPECT_EQ(jsonKind(R"({"device":"cpu","results":[{"variant":"naive","traceEvents":1}],"threads":4})"),
              JsonFileKind::BenchResult);
    EXPECT_EQ(jsonKind(R"( {"results" : [] , "n": -1.5e3, "ok": true})"), JsonFileKind::BenchResult);
    EXPECT_EQ(jsonKind(R"({"results":[],"traceEvents":[]})"), JsonFileKind::Trace);
    EXPECT_EQ(jsonKind(R"([{"ph":"X"}])"), JsonFileKind::Trace);
}

TEST(JsonFileKind, AnythingElseIsOther)
{
    EXPECT_EQ(jsonKind(""), JsonFileKind::Other);
    EXPECT_EQ(jsonKind("not json"), JsonFileKind::Other);
    EXPECT_EQ(jsonKind(R"({"a":1})"), JsonFileKind::Other);
    EXPECT_EQ(jsonKind(R"({"results":[1,2)"), JsonFileKind::Other); // cut short
    EXPECT_EQ(jsonKind(R"({"x":"a\"b","results":{}})"), JsonFileKind::BenchResult);
    EXPECT_EQ(syncscope::jsonFileKind("/nonexistent/x.json"), JsonFileKind::Other);
}
