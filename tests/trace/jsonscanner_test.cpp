// The lexer alone (trace/jsonscanner.h): strings and their escapes, numbers,
// literals, nesting, the errors it reports and where, and NeedMore wherever a
// token runs into the end of the buffer.
#include "trace/jsonscanner.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

using namespace syncscope::json;

namespace {

// A scanner over a std::string, whose '\0' after the last byte is the sentinel
// the scanner needs.
struct Scan {
    explicit Scan(std::string text) : buf(std::move(text)), s(buf.data(), buf.data() + buf.size()) {}
    size_t at() const { return static_cast<size_t>(s.p - buf.data()); }
    std::string buf;
    Scanner s;
};

std::string decoded(const std::string &json)
{
    Scan x(json);
    std::string scratch;
    return std::string(x.s.string(scratch));
}

// Where a SyntaxError points (its offset into the text) and what it says.
struct Failure {
    size_t at = std::string::npos;
    std::string what;
};

template <typename Fn> Failure failure(Scan &x, Fn &&fn)
{
    try {
        fn(x.s);
    } catch (const SyntaxError &e) {
        return {static_cast<size_t>(e.at - x.buf.data()), e.what};
    }
    return {};
}

Failure skipFailure(const std::string &json)
{
    Scan x(json);
    return failure(x, [](Scanner &s) {
        s.peek();
        s.skipValue();
    });
}

bool needsMore(const std::string &json)
{
    Scan x(json);
    try {
        x.s.peek();
        x.s.skipValue();
    } catch (const NeedMore &) {
        return true;
    }
    return false;
}

} // namespace

TEST(JsonScanner, PlainStringIsAViewIntoTheBuffer)
{
    Scan x("\"hello world\", 1");
    std::string scratch = "untouched";
    const std::string_view v = x.s.string(scratch);
    EXPECT_EQ(v, "hello world");
    EXPECT_EQ(v.data(), x.buf.data() + 1);
    EXPECT_EQ(scratch, "untouched");
    EXPECT_EQ(x.at(), 13u); // after the closing quote
    EXPECT_EQ(decoded("\"\""), "");
}

// A string's plain run is searched for its end several bytes at a time: every
// byte that ends it, at every offset from the opening quote, and plain bytes on
// either side of them ('!' and '#' beside '"', '[' and ']' beside '\\', ' ',
// DEL, bytes with the high bit) never end it.
TEST(JsonScanner, EveryStopByteAtEveryOffset)
{
    const std::string plain = "a!#[] \x7f\x80\xff\xc3\xa9~0";
    for (size_t len = 0; len <= 40; ++len) {
        std::string body;
        for (size_t i = 0; i < len; ++i)
            body += plain[(i * 7 + len) % plain.size()];
        std::string scratch;
        {
            Scan x("\"" + body + "\"" + plain);
            const std::string_view v = x.s.string(scratch);
            EXPECT_EQ(v, body) << len;
            EXPECT_EQ(v.data(), x.buf.data() + 1);
            EXPECT_EQ(x.at(), len + 2);
        }
        {
            Scan x("\"" + body + "\"" + plain);
            x.s.skipString();
            EXPECT_EQ(x.at(), len + 2) << len;
        }
        EXPECT_EQ(decoded("\"" + body + "\\n" + body + "\""), body + "\n" + body) << len;
        for (const char control : {'\x01', '\x1f', '\t'}) {
            Scan x("\"" + body + control + plain + "\"");
            const Failure f = failure(x, [](Scanner &s) {
                std::string scratch;
                s.string(scratch);
            });
            EXPECT_EQ(f.at, len + 1) << len;
            EXPECT_EQ(f.what, "control character inside a string");
        }
        // The buffer ends inside the string, at any length.
        Scan x("\"" + body);
        EXPECT_THROW(x.s.string(scratch), NeedMore) << len;
        Scan y("\"" + body);
        EXPECT_THROW(y.s.skipString(), NeedMore) << len;
    }
}

TEST(JsonScanner, EscapedStringIsDecodedIntoScratch)
{
    Scan x("\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\te\"]");
    std::string scratch;
    const std::string_view v = x.s.string(scratch);
    EXPECT_EQ(v, "a\"b\\c/d\b\f\n\r\te");
    EXPECT_EQ(v.data(), scratch.data());
    EXPECT_EQ(x.buf[x.at()], ']');
    // The scratch string is reused: an earlier value does not leak into the next.
    Scan y("\"x\\ny\"");
    EXPECT_EQ(y.s.string(scratch), "x\ny");
}

TEST(JsonScanner, UnicodeEscapesBecomeUtf8)
{
    EXPECT_EQ(decoded("\"\\u0041\""), "A");
    EXPECT_EQ(decoded("\"\\u00e9\\u00E9\""), "\xC3\xA9\xC3\xA9");
    EXPECT_EQ(decoded("\"\\u20ac\""), "\xE2\x82\xAC");
    EXPECT_EQ(decoded("\"\\ud83d\\ude00\""), "\xF0\x9F\x98\x80"); // a surrogate pair
    EXPECT_EQ(decoded("\"caf\\u00e9 ok\""), "caf\xC3\xA9 ok");
    // Raw UTF-8 passes through untouched.
    EXPECT_EQ(decoded("\"\xE2\x82\xAC\\n\""), "\xE2\x82\xAC\n");
}

TEST(JsonScanner, LoneSurrogatesBecomeTheReplacementCharacter)
{
    const std::string fffd = "\xEF\xBF\xBD";
    EXPECT_EQ(decoded("\"\\ud800x\""), fffd + "x");
    EXPECT_EQ(decoded("\"\\udc00\""), fffd);
    EXPECT_EQ(decoded("\"\\ud800\\u0041\""), fffd + "A"); // not a low half: kept as itself
    EXPECT_EQ(decoded("\"\\ud800\\n\""), fffd + "\n");
}

TEST(JsonScanner, StringErrorsPointAtTheBadByte)
{
    {
        Scan x("\"ab\ncd\"");
        std::string scratch;
        const Failure f = failure(x, [&](Scanner &s) { s.string(scratch); });
        EXPECT_EQ(f.at, 3u);
        EXPECT_EQ(f.what, "control character inside a string");
    }
    {
        Scan x("\"a\\qb\"");
        std::string scratch;
        const Failure f = failure(x, [&](Scanner &s) { s.string(scratch); });
        EXPECT_EQ(f.at, 3u); // the letter after the backslash
        EXPECT_EQ(f.what, "invalid escape in a string");
    }
    {
        Scan x("\"\\u00g0\"");
        std::string scratch;
        const Failure f = failure(x, [&](Scanner &s) { s.string(scratch); });
        EXPECT_EQ(f.at, 5u);
        EXPECT_EQ(f.what, "invalid \\u escape");
    }
    {
        Scan x("\"a\\n\tb\""); // a control character after an escape
        std::string scratch;
        const Failure f = failure(x, [&](Scanner &s) { s.string(scratch); });
        EXPECT_EQ(f.at, 4u);
        EXPECT_EQ(f.what, "control character inside a string");
    }
    const Failure skipped = skipFailure("\"a\x01\"");
    EXPECT_EQ(skipped.at, 2u);
    EXPECT_EQ(skipped.what, "control character inside a string");
}

TEST(JsonScanner, SkipStringHonoursEscapedQuotes)
{
    Scan x("\"a\\\"b\\\\\" , 2");
    x.s.skipString();
    EXPECT_EQ(x.at(), 8u);
    EXPECT_EQ(x.s.peek(), ',');
}

TEST(JsonScanner, NumbersFollowTheJsonGrammar)
{
    for (const char *text :
         {"0", "-0", "7", "12345678901234567890", "-3.25", "1e5", "1E+5", "2.5e-3", "0.0", "-0.5E10"}) {
        Scan x(std::string(text) + ",");
        EXPECT_EQ(x.s.number(), text);
        EXPECT_EQ(x.buf[x.at()], ',') << text;
    }
    // A leading zero ends the number: what follows is the caller's to refuse.
    Scan zero("01]");
    EXPECT_EQ(zero.s.number(), "0");
    EXPECT_EQ(zero.at(), 1u);
    const std::pair<const char *, size_t> bad[] = {{"-x", 1},  {"1.,", 2},  {"1.e5,", 2},
                                                   {"1e,", 2}, {"1e+}", 3}, {"-.5,", 1}};
    for (const auto &[text, at] : bad) {
        Scan x(text);
        const Failure f = failure(x, [](Scanner &s) { s.number(); });
        EXPECT_EQ(f.at, at) << text;
        EXPECT_EQ(f.what, "invalid number") << text;
    }
    EXPECT_EQ(skipFailure(".5").what, "unexpected character");
    EXPECT_EQ(skipFailure("+1").what, "unexpected character");
}

TEST(JsonScanner, LiteralsAndTheirErrors)
{
    for (const char *text : {"true", "false", "null"}) {
        Scan x(std::string(text) + "}");
        x.s.peek();
        x.s.skipValue();
        EXPECT_EQ(x.buf[x.at()], '}') << text;
    }
    const Failure f = skipFailure("trux");
    EXPECT_EQ(f.at, 0u);
    EXPECT_EQ(f.what, "invalid literal");
    EXPECT_EQ(skipFailure("nul}").what, "invalid literal");
}

TEST(JsonScanner, PeekSkipsWhitespaceAndExpectChecks)
{
    Scan x(" \t\r\n :x");
    EXPECT_EQ(x.s.peek(), ':');
    EXPECT_EQ(x.at(), 5u);
    x.s.expect(':', "expected ':'");
    const Failure f = failure(x, [](Scanner &s) { s.expect(',', "expected ','"); });
    EXPECT_EQ(f.at, 6u);
    EXPECT_EQ(f.what, "expected ','");
    Scan blank(" \n\t");
    EXPECT_THROW(blank.s.peek(), NeedMore);
    EXPECT_TRUE(blank.s.atEnd());
}

TEST(JsonScanner, SkipValueWalksNestedValues)
{
    const std::string doc = "{\"a\": [1, -2.5e3, {\"b\": null, \"c\": \"\\\"}\"}], \"d\": {}, \"e\": [],"
                            " \"f\": [[[true]]], \"g\": \"\\u005d\"}";
    Scan x(doc + " ,");
    x.s.peek();
    x.s.skipValue();
    EXPECT_EQ(x.at(), doc.size());
    EXPECT_EQ(x.s.peek(), ',');
}

TEST(JsonScanner, NestingErrorsPointAtTheBadByte)
{
    struct Case {
        const char *json;
        size_t at;
        const char *what;
    };
    const Case cases[] = {
        {"{\"a\" 1}", 5, "expected ':' after a key"},
        {"{1: 2}", 1, "expected a string key"},
        {"{\"a\": 1 \"b\": 2}", 8, "expected ',' or '}' in an object"},
        {"[1 2]", 3, "expected ',' or ']' in an array"},
        {"[1,]", 3, "unexpected character"},
        {"{\"a\": }", 6, "unexpected character"},
        {"[1, @]", 4, "unexpected character"},
    };
    for (const Case &c : cases) {
        const Failure f = skipFailure(c.json);
        EXPECT_EQ(f.at, c.at) << c.json;
        EXPECT_EQ(f.what, c.what) << c.json;
    }
}

TEST(JsonScanner, NestingDeeperThanTheLimitIsAnError)
{
    const auto nested = [](int depth) {
        return std::string(static_cast<size_t>(depth), '[') + std::string(static_cast<size_t>(depth), ']');
    };
    Scan ok(nested(kMaxDepth));
    ok.s.peek();
    ok.s.skipValue();
    EXPECT_EQ(ok.at(), ok.buf.size());
    const Failure f = skipFailure(nested(kMaxDepth + 1));
    EXPECT_EQ(f.at, static_cast<size_t>(kMaxDepth));
    EXPECT_EQ(f.what, "nesting is too deep");
    EXPECT_EQ(skipFailure(std::string(kMaxDepth, '[') + "{\"a\": 1}" + std::string(kMaxDepth, ']')).what,
              "nesting is too deep");
}

// The refill contract: a value cut anywhere short of its end asks for more and
// never reports an error, and the same value whole is read to its end.
TEST(JsonScanner, EveryCutOfAValidValueNeedsMore)
{
    const std::string doc =
        "{\"name\": \"a\\\"b\\\\c\\u00e9\\ud83d\\ude00 \\n\", \"n\": [0, -12, 3.25, 6.02e+23, 1E-3, -0.0],"
        " \"t\": true, \"f\": false, \"z\": null, \"o\": {\"deep\": [[{}], [], {\"k\": \"v\"}]},"
        " \"s\" : \"\\/\\b\\f\\r\\t\" }";
    for (size_t n = 0; n < doc.size(); ++n)
        EXPECT_TRUE(needsMore(doc.substr(0, n))) << "cut after " << n << " bytes: " << doc.substr(0, n);
    EXPECT_FALSE(needsMore(doc));
    // Strings and numbers alone, cut anywhere (a number at the end of the buffer
    // may go on in the next chunk, so it needs more even when whole).
    const std::string str = "\"x\\u00e9\\ud83d\\ude00\\\\y\"";
    for (size_t n = 1; n < str.size(); ++n) { // string() starts at the opening quote
        Scan x(str.substr(0, n));
        std::string scratch;
        EXPECT_THROW(x.s.string(scratch), NeedMore) << n;
    }
    for (const char *num : {"-", "12", "1.", "1.5", "1e", "1e+", "1e+7"}) {
        Scan x(num);
        EXPECT_THROW(x.s.number(), NeedMore) << num;
    }
    for (const char *lit : {"t", "tr", "tru", "f", "fals", "n", "nul"})
        EXPECT_TRUE(needsMore(lit)) << lit;
}

// A time in the form profilers write is read in one pass (plainMicros); any
// other number is left to number() and parseMicros. Whichever reads it, the
// value, the position after it and the errors are those of number() and
// parseMicros.
TEST(JsonScanner, PlainMicrosReadsWhatNumberAndParseMicrosRead)
{
    std::vector<std::string> texts = {"0",
                                      "-0",
                                      "0.5",
                                      "01",
                                      "-01",
                                      "00.5",
                                      "1.",
                                      "1.5",
                                      "1.25",
                                      "1.125",
                                      "1.1250",
                                      "1e3",
                                      "1.5E3",
                                      "1.5e",
                                      "-",
                                      "-.5",
                                      "12.5.3",
                                      "9223372036854775.807",
                                      "9223372036854775.808",
                                      "-9223372036854775.808",
                                      "9999999999999999.999",
                                      "10000000000000000",
                                      "1712195495519689.047",
                                      "1623142623460111"};
    uint64_t seed = 5;
    for (int round = 0; round < 5000; ++round) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        const uint64_t r = seed >> 11;
        std::string t = r % 5 == 0 ? "-" : "";
        const int digits = 1 + static_cast<int>((r >> 3) % 18);
        for (int d = 0; d < digits; ++d)
            t += static_cast<char>('0' + (r >> (8 + d)) % 10);
        const int frac = static_cast<int>((r >> 40) % 6) - 1;
        if (frac >= 0)
            t += '.';
        for (int d = 0; d < frac; ++d)
            t += static_cast<char>('0' + (r >> (44 + d)) % 10);
        texts.push_back(t);
    }
    // number() and parseMicros, as the reader read every time before.
    auto general = [](Scan &x) -> std::string {
        try {
            const std::string_view n = x.s.number();
            int64_t v = 0;
            const NumberStatus st = parseMicros(n, v);
            return std::to_string(static_cast<int>(st)) + ":" + (st == NumberStatus::Ok ? std::to_string(v) : "") +
                   "@" + std::to_string(x.at());
        } catch (const NeedMore &) {
            return "more";
        } catch (const SyntaxError &e) {
            return std::string("error ") + e.what;
        }
    };
    size_t plain = 0;
    for (const std::string &t : texts) {
        for (const char *after : {",", "}", " ", ""}) {
            const std::string text = t + after;
            Scan ref(text);
            const std::string expected = general(ref);
            Scan x(text);
            int64_t v = 0;
            std::string outcome;
            if (x.s.plainMicros(v)) {
                outcome = "0:" + std::to_string(v) + "@" + std::to_string(x.at());
                ++plain;
            } else {
                EXPECT_EQ(x.at(), 0u) << text; // nothing read
                outcome = general(x);
            }
            EXPECT_EQ(outcome, expected) << "'" << text << "'";
        }
    }
    EXPECT_GT(plain, texts.size()); // the short path is taken, not only the general one
    int64_t v = 0;
    Scan kineto("1712195495519689.047,");
    EXPECT_TRUE(kineto.s.plainMicros(v));
    EXPECT_EQ(v, 1712195495519689047);
    Scan longer("1.0000,");
    EXPECT_FALSE(longer.s.plainMicros(v)); // 4 decimals: parseMicros rounds them
}

TEST(JsonScanner, NumberHelpers)
{
    int64_t i = 0;
    EXPECT_TRUE(parseInt64("42", i));
    EXPECT_EQ(i, 42);
    EXPECT_TRUE(parseInt64("+5", i));
    EXPECT_EQ(i, 5);
    EXPECT_TRUE(parseInt64("-9223372036854775808", i));
    EXPECT_EQ(i, INT64_MIN);
    EXPECT_TRUE(parseInt64("1e3", i)); // an integral value in another spelling
    EXPECT_EQ(i, 1000);
    EXPECT_TRUE(parseInt64("7.0", i));
    EXPECT_EQ(i, 7);
    EXPECT_FALSE(parseInt64("1.5", i));
    EXPECT_FALSE(parseInt64("1e19", i));
    EXPECT_FALSE(parseInt64("", i));
    EXPECT_FALSE(parseInt64("12x", i));
    double d = 0;
    EXPECT_TRUE(parseDouble("1.25e3", d));
    EXPECT_EQ(d, 1250.0);
    EXPECT_TRUE(parseDouble("+0.5", d));
    EXPECT_EQ(d, 0.5);
    EXPECT_FALSE(parseDouble("1e999", d)); // not finite
    EXPECT_FALSE(parseDouble("inf", d));
    EXPECT_FALSE(parseDouble("nan", d));
    EXPECT_FALSE(parseDouble("", d));
    EXPECT_FALSE(parseDouble("+", d));
    EXPECT_FALSE(parseDouble("2 ", d));
}
