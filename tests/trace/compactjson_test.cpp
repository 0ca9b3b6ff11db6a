// compactJson against a reference that reads the text as tokens: strings
// copied whole to their closing quote, layout between them dropped. On random
// text of quotes, backslashes, layout and other bytes, every length, and
// escapes and strings across the fast path's 16-byte stretches.
#include "trace/compactjson.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

using namespace syncscope;

namespace {

std::string reference(const std::string &in)
{
    std::string out;
    size_t i = 0;
    while (i < in.size()) {
        if (in[i] == '"') {
            // The string to its closing quote; a backslash takes the next byte with it.
            size_t j = i + 1;
            while (j < in.size() && in[j] != '"')
                j += in[j] == '\\' ? 2 : 1;
            j = std::min(j + 1, in.size());
            out.append(in, i, j - i);
            i = j;
        } else {
            if (in[i] != ' ' && in[i] != '\n' && in[i] != '\r' && in[i] != '\t')
                out += in[i];
            ++i;
        }
    }
    return out;
}

std::string compacted(const std::string &in, size_t (*fn)(std::string_view, char *))
{
    std::vector<char> out(in.size() + 1, '\x7f');
    const size_t n = fn(in, out.data());
    EXPECT_LE(n, in.size());
    return std::string(out.data(), n);
}

void expectBothMatch(const std::string &in)
{
    const std::string want = reference(in);
    EXPECT_EQ(compacted(in, compactJson), want) << in;
    EXPECT_EQ(compacted(in, compactJsonBytewise), want) << in;
}

} // namespace

TEST(CompactJson, ProfilerArgsLoseTheirLayoutAndKeepTheirStrings)
{
    const std::string args = "{\n  \"External id\": 1, \"Input Dims\": [[64, 1024], [1024]],\n"
                             "  \"name\": \"a b\\\" c\\\\\", \"Input type\": [\"float\", \"c10::Half\"]\t}";
    EXPECT_EQ(compacted(args, compactJson),
              "{\"External id\":1,\"Input Dims\":[[64,1024],[1024]],\"name\":\"a b\\\" c\\\\\","
              "\"Input type\":[\"float\",\"c10::Half\"]}");
    expectBothMatch(args);
    expectBothMatch("");
    expectBothMatch(" ");
    expectBothMatch("\"");
    expectBothMatch("\"\\");
}

TEST(CompactJson, RandomTextMatchesTheReferenceAtEveryLength)
{
    std::mt19937_64 rng(11);
    const std::string alphabet = " \"\\\na:,{}[]\t\rx0";
    for (int k = 0; k < 60000; ++k) {
        std::string s(rng() % 90, ' ');
        for (char &c : s)
            c = alphabet[rng() % alphabet.size()];
        expectBothMatch(s);
    }
    // Long strings with an escape or a quote at every place across two stretches.
    for (size_t at = 0; at < 48; ++at)
        for (const char *piece : {"\\\"", "\\\\", "\"", " \" ", "\\"}) {
            std::string s = "{\"k\": \"" + std::string(40, 'a') + "\", \"v\": [1, 2]}";
            s.insert(at, piece);
            expectBothMatch(s);
        }
}
