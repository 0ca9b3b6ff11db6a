// JsonWriter with a sink: the same document as take(), in pieces of about
// 1 MiB, so a long document is never whole in memory.
#include "analysis/jsonwriter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

using namespace syncscope;

namespace {
// 50,000 rows of a few keys each: about 5 MB with indent 1.
void document(JsonWriter &w)
{
    w.beginObject();
    w.key("rows").beginArray();
    for (int64_t i = 0; i < 50000; ++i) {
        w.beginObject();
        w.key("rank").value(i % 64);
        w.key("step").value("ProfilerStep#" + std::to_string(i));
        w.key("dur_us").micros(i * 1001);
        w.key("cause").null();
        w.endObject();
    }
    w.endArray();
    w.key("done").value(true);
    w.endObject();
}
} // namespace

TEST(JsonWriter, ASinkGetsTheDocumentInPiecesOfAboutOneMebibyte)
{
    JsonWriter whole(1);
    document(whole);
    const std::string want = whole.take();
    ASSERT_GT(want.size(), size_t(4) << 20);

    std::vector<std::string> pieces;
    JsonWriter streamed(1, [&](std::string_view p) { pieces.emplace_back(p); });
    document(streamed);
    EXPECT_GE(pieces.size(), 4u) << "streamed before finish()";
    streamed.finish();
    std::string got;
    size_t largest = 0;
    for (const std::string &p : pieces) {
        got += p;
        largest = std::max(largest, p.size());
    }
    EXPECT_EQ(got, want);
    EXPECT_LT(largest, (size_t(1) << 20) + 4096) << "a piece is about 1 MiB";
}
