// The fields of one event object (trace/rawevent.h), read by EventReader alone:
// which fields are taken and how, wrong types, the keys of args, the errors, and
// NeedMore wherever the object is cut.
#include "trace/rawevent.h"

#include "trace/argfield.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <optional>
#include <string>

using namespace syncscope;
using json::NeedMore;
using json::Scanner;
using json::SyntaxError;

namespace {

// Reads one event from text (a std::string, whose '\0' is the scanner's sentinel).
struct Read {
    explicit Read(std::string text) : buf(std::move(text)), s(buf.data(), buf.data() + buf.size())
    {
        s.peek();
        reader.read(s, ev);
    }
    bool inBuffer(std::string_view v) const
    {
        return v.data() >= buf.data() && v.data() + v.size() <= buf.data() + buf.size();
    }
    size_t at(const char *p) const { return static_cast<size_t>(p - buf.data()); }
    std::string buf;
    Scanner s;
    EventReader reader;
    RawEvent ev;
};

std::string syntaxError(const std::string &text)
{
    std::string buf = text;
    Scanner s(buf.data(), buf.data() + buf.size());
    EventReader reader;
    try {
        s.peek();
        RawEvent ev;
        reader.read(s, ev);
    } catch (const SyntaxError &e) {
        return std::to_string(e.at - buf.data()) + ": " + e.what;
    }
    return "";
}

} // namespace

TEST(TraceEventReader, ReadsEveryKnownField)
{
    Read r("{\"ph\": \"X\", \"ts\": 1.5, \"dur\": \"2\", \"name\": \"mm\", \"cat\": \"kernel\", \"pid\": 7,"
           " \"tid\": \"stream 3\", \"id\": 42, \"bp\": \"e\", \"s\": \"g\","
           " \"args\": {\"External id\": 5, \"correlation\": \"6\", \"device\": 1, \"stream\": 7,"
           " \"bytes\": 1024, \"cuda_sync_kind\": \"event\", \"other\": [1, {\"x\": 2}]}} ,");
    const RawEvent &e = r.ev;
    EXPECT_TRUE(e.hasPh);
    EXPECT_EQ(e.ph, 'X');
    EXPECT_TRUE(e.hasTs);
    EXPECT_EQ(e.ts, 1500);
    EXPECT_TRUE(e.hasDur);
    EXPECT_EQ(e.dur, 2000);
    EXPECT_EQ(e.name, "mm");
    EXPECT_EQ(e.cat, "kernel");
    EXPECT_TRUE(e.hasPid);
    EXPECT_EQ(e.pid, "7");
    EXPECT_TRUE(e.hasTid);
    EXPECT_EQ(e.tid, "stream 3");
    EXPECT_TRUE(e.hasId);
    EXPECT_TRUE(e.idIsNumber);
    EXPECT_EQ(e.id, "42");
    EXPECT_EQ(e.bp, "e");
    EXPECT_EQ(e.scope, "g");
    EXPECT_EQ(e.keys.externalId, 5);
    EXPECT_EQ(e.keys.correlation, 6);
    EXPECT_EQ(e.keys.device, 1);
    EXPECT_EQ(e.keys.stream, 7);
    EXPECT_EQ(e.keys.bytes, 1024);
    EXPECT_EQ(e.syncKind, "event");
    EXPECT_EQ(e.wrongType, nullptr);
    EXPECT_EQ(e.outOfRange, nullptr);
    // args is the raw text of the object; the scanner stops after the event's '}'.
    EXPECT_EQ(e.args.substr(0, 18), "{\"External id\": 5,");
    EXPECT_EQ(e.args.back(), '}');
    EXPECT_EQ(r.buf.substr(r.at(r.s.p)), " ,");
    // Plain strings are views into the buffer.
    EXPECT_TRUE(r.inBuffer(e.name));
    EXPECT_TRUE(r.inBuffer(e.args));
}

TEST(TraceEventReader, AnEmptyObjectHasNoFields)
{
    Read r("{ }");
    EXPECT_FALSE(r.ev.hasPh);
    EXPECT_FALSE(r.ev.hasTs);
    EXPECT_FALSE(r.ev.hasPid);
    EXPECT_TRUE(r.ev.name.empty());
    EXPECT_TRUE(r.ev.args.empty());
    EXPECT_EQ(r.ev.keys.externalId, kNoValue);
    EXPECT_EQ(r.at(r.s.p), 3u);
}

TEST(TraceEventReader, EscapedStringsAreDecodedIntoTheReader)
{
    Read r("{\"name\": \"a\\u00e9\\n\", \"cat\": \"c\\/d\", \"pid\": \"p\\\"1\", \"tid\": \"t\","
           " \"args\": {\"cuda_sync_kind\": \"ev\\tent\"}}");
    EXPECT_EQ(r.ev.name, "a\xC3\xA9\n");
    EXPECT_FALSE(r.inBuffer(r.ev.name));
    EXPECT_EQ(r.ev.cat, "c/d");
    EXPECT_EQ(r.ev.pid, "p\"1");
    EXPECT_EQ(r.ev.tid, "t");
    EXPECT_TRUE(r.inBuffer(r.ev.tid));
    EXPECT_EQ(r.ev.syncKind, "ev\tent");
    // Every field keeps its own scratch string: one decoded value does not
    // overwrite another.
    Read k("{\"name\": \"n\\u0031\", \"cat\": \"c\\u0032\", \"id\": \"i\\u0033\", \"bp\": \"\\u0065\","
           " \"s\": \"\\u0070\", \"ph\": \"\\u0058\", \"pid\": \"\\u0034\", \"tid\": \"\\u0035\"}");
    EXPECT_EQ(k.ev.name, "n1");
    EXPECT_EQ(k.ev.cat, "c2");
    EXPECT_EQ(k.ev.id, "i3");
    EXPECT_FALSE(k.ev.idIsNumber);
    EXPECT_EQ(k.ev.bp, "e");
    EXPECT_EQ(k.ev.scope, "p");
    EXPECT_EQ(k.ev.ph, 'X');
    EXPECT_EQ(k.ev.pid, "4");
    EXPECT_EQ(k.ev.tid, "5");
}

TEST(TraceEventReader, TimesAreMicrosecondsInNumbersOrStrings)
{
    Read r("{\"ts\": \"-2.0005\", \"dur\": 1e3}");
    EXPECT_EQ(r.ev.ts, -2000); // half-to-even at the nanosecond
    EXPECT_EQ(r.ev.dur, 1000000);
    Read big("{\"ts\": 1e300, \"dur\": -1e300}");
    EXPECT_FALSE(big.ev.hasTs);
    EXPECT_STREQ(big.ev.outOfRange, "ts"); // the first one
    Read dur("{\"ts\": 1, \"dur\": \"9.3e15\"}");
    EXPECT_TRUE(dur.ev.hasTs);
    EXPECT_FALSE(dur.ev.hasDur);
    EXPECT_STREQ(dur.ev.outOfRange, "dur");
}

TEST(TraceEventReader, WrongTypesPointAtTheFirstBadValue)
{
    Read r("{\"ph\": \"X\", \"name\": 5, \"ts\": true, \"pid\": [1], \"cat\": \"ok\"}");
    ASSERT_NE(r.ev.wrongType, nullptr);
    EXPECT_EQ(r.at(r.ev.wrongType), r.buf.find("5"));
    EXPECT_TRUE(r.ev.name.empty());
    EXPECT_FALSE(r.ev.hasTs);
    EXPECT_FALSE(r.ev.hasPid);
    EXPECT_EQ(r.ev.cat, "ok"); // later fields are still read
    for (const char *text : {"{\"ts\": \"soon\"}", "{\"dur\": null}", "{\"tid\": {}}", "{\"id\": false}",
                             "{\"ph\": 88}", "{\"bp\": 1}", "{\"s\": []}", "{\"cat\": 2}"}) {
        Read w(text);
        EXPECT_NE(w.ev.wrongType, nullptr) << text;
    }
    // Fields the loader does not read may hold anything; args may be any value.
    for (const char *text : {"{\"args\": 5}", "{\"args\": \"x\"}", "{\"extra\": {\"a\": [null]}}"}) {
        Read w(text);
        EXPECT_EQ(w.ev.wrongType, nullptr) << text;
    }
}

TEST(TraceEventReader, PhaseIsTheFirstLetterAndAnEmptyOneIsNone)
{
    Read r("{\"ph\": \"Xyz\"}");
    EXPECT_TRUE(r.ev.hasPh);
    EXPECT_EQ(r.ev.ph, 'X');
    Read e("{\"ph\": \"\"}");
    EXPECT_FALSE(e.ev.hasPh);
    EXPECT_EQ(e.ev.wrongType, nullptr);
}

TEST(TraceEventReader, ArgsKeepTheirTextAndGiveTheirKeys)
{
    Read arr("{\"args\": [1, 2]}");
    EXPECT_EQ(arr.ev.args, "[1, 2]");
    EXPECT_EQ(arr.ev.keys.correlation, kNoValue); // keys come from an object only
    Read num("{\"args\": 5}");
    EXPECT_TRUE(num.ev.args.empty());
    Read keys("{\"args\": {\"external id\": \"9\", \"stream\": \"x\", \"device\": 1.5, \"bytes\": null,"
              " \"correlation\": 2e1, \"cuda_sync_kind\": 3, \"External id\": 11}}");
    EXPECT_EQ(keys.ev.keys.externalId, 11); // the last of the two spellings wins
    EXPECT_EQ(keys.ev.keys.stream, kNoValue);
    EXPECT_EQ(keys.ev.keys.device, kNoValue);
    EXPECT_EQ(keys.ev.keys.bytes, kNoValue);
    EXPECT_EQ(keys.ev.keys.correlation, 20);
    EXPECT_TRUE(keys.ev.syncKind.empty());
    EXPECT_EQ(keys.ev.wrongType, nullptr); // args values of any type are fine
    Read empty("{\"args\": {}}");
    EXPECT_EQ(empty.ev.args, "{}");
}

TEST(TraceEventReader, UnknownFieldsAreSkippedAndALaterDuplicateWins)
{
    Read r("{\"nam\": 1, \"names\": [\"x\"], \"name\": \"a\", \"NAME\": {}, \"name\": \"b\", \"p\": null,"
           " \"pidx\": 3}");
    EXPECT_EQ(r.ev.name, "b");
    EXPECT_FALSE(r.ev.hasPid);
}

// "Sequence number" is read on the way, as argInt reads it of the args kept:
// the first one of the last args object, digits only (in a number or a
// string without escapes), 18 of them at most, a key with escapes not it.
TEST(TraceEventReader, TheSequenceNumberIsWhatArgIntReadsOfTheArgsKept)
{
    const char *cases[] = {
        R"({"args": {"Sequence number": 12}})",
        R"({"args": {"Sequence number": "12"}})",
        R"({"args": {"Sequence number": -3}})",
        R"({"args": {"Sequence number": -0}})",
        R"({"args": {"Sequence number": 1.5}})",
        R"({"args": {"Sequence number": 1e3}})",
        "{\"args\": {\"Sequence number\": \"1\\u0032\"}}", // escapes: not in raw strings
        "{\"args\": {\"Sequence\\u0020number\": 5}}",
        R"({"args": {"Sequence number": 1, "Sequence number": 2}})",
        R"({"args": {"Sequence number": "x", "Sequence number": 2}})",
        R"({"args": {"a": {"Sequence number": 4}}})",
        R"({"args": {"Sequence number": null}})",
        R"({"args": {"Sequence number": [1]}})",
        R"({"args": {"Sequence number": 123456789012345678}})",
        R"({"args": {"Sequence number": 1234567890123456789}})",
        R"({"args": {"Sequence number": ""}})",
        R"({"args": {"Sequence number": "-"}})",
        R"({"args": {"Sequence number": " 7"}})",
        R"({"args": {}})",
        R"({"args": {"x": 1, "Sequence number" :9 }})",
        R"({"args": {"Sequence number": 1}, "args": {"b": 2}})",
        R"({"args": {"b": 2}, "args": {"Sequence number": 3}})",
        R"({"args": [1, 2]})",
    };
    size_t found = 0;
    for (const char *text : cases) {
        Read r(text);
        // argInt of the args as the model stores them (compacted).
        TraceBuilder b;
        const ArgsRef ref = b.storeArgs(r.ev.args);
        b.addComplete(b.track(b.id("1"), b.id("1")), 0, 1, b.intern("e"), b.intern(""), ref);
        const TraceModelPtr m = b.finish();
        const std::optional<int64_t> expected = argInt(m->args(m->tracks()[0].args[0]), "Sequence number");
        EXPECT_EQ(r.ev.keys.sequence, expected.value_or(kNoValue)) << text;
        found += expected.has_value();
    }
    EXPECT_EQ(found, 8u);
}

// A key whose quotes and ':' touch is matched from one 8-byte word; any other
// spelling of it (space before the ':', an escape, too near the end of the
// buffer for the word) is read as a string. Both give the same event, and keys
// that only start like a known one are skipped.
TEST(TraceEventReader, AKeyReadsTheSameHoweverItIsSpelled)
{
    const char *keys[] = {"ph", "ts", "id", "bp", "s", "pid", "tid", "cat", "dur", "name", "args"};
    const char *values[] = {
        "\"X\"", "3", "4", "\"e\"", "\"g\"", "5", "6", "\"kernel\"", "2", "\"mm\"", "{\"correlation\": 9}"};
    auto event = [&](auto spell) {
        std::string text = "{";
        for (size_t i = 0; i < std::size(keys); ++i)
            text += (i ? ", " : "") + spell(std::string(keys[i])) + values[i];
        return text + "}";
    };
    auto fields = [](const RawEvent &e) {
        return std::string(1, e.ph) + "|" + std::to_string(e.ts) + "|" + std::to_string(e.dur) + "|" +
               std::string(e.id) + "|" + std::string(e.bp) + "|" + std::string(e.scope) + "|" +
               std::string(e.pid) + "|" + std::string(e.tid) + "|" + std::string(e.cat) + "|" +
               std::string(e.name) + "|" + std::string(e.args) + "|" + std::to_string(e.keys.correlation);
    };
    const Read plain(event([](const std::string &k) { return "\"" + k + "\": "; }));
    EXPECT_EQ(fields(plain.ev), "X|3000|2000|4|e|g|5|6|kernel|mm|{\"correlation\": 9}|9");
    const Read spaced(event([](const std::string &k) { return "\"" + k + "\" : "; }));
    EXPECT_EQ(fields(spaced.ev), fields(plain.ev));
    // The first letter as a \u escape: "\u0070h" is "ph".
    const Read escaped(event([](const std::string &k) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "\\u%04x", static_cast<unsigned>(k[0]));
        return "\"" + std::string(hex) + k.substr(1) + "\":";
    }));
    EXPECT_EQ(fields(escaped.ev), fields(plain.ev));
    // Each key last in a buffer that ends right after its value: no word to read.
    for (size_t i = 0; i < std::size(keys); ++i) {
        const Read last("{\"" + std::string(keys[i]) + "\":" + values[i] + "}");
        const Read spacedLast("{\"" + std::string(keys[i]) + "\" :" + values[i] + "}");
        EXPECT_EQ(fields(last.ev), fields(spacedLast.ev)) << keys[i];
    }
    // Look-alikes are other keys.
    const Read others("{\"phx\": \"X\", \"pids\": 1, \"s2\": \"g\", \"names\": \"n\", \"arg\": {}, \"d\": 1, "
                      "\"p\": 1, \"Ph\": \"B\"}");
    EXPECT_EQ(fields(others.ev), std::string(1, '\0') + "|0|0|||||||||" + std::to_string(kNoValue));
}

TEST(TraceEventReader, TheNextEventKeepsNothingOfTheLast)
{
    std::string buf = "{\"name\": \"f\\u0031\", \"ph\": \"X\", \"ts\": 1} {\"cat\": \"c\"}";
    Scanner s(buf.data(), buf.data() + buf.size());
    EventReader reader;
    s.peek();
    RawEvent first; // each event in a fresh slot, as the loader reads them
    reader.read(s, first);
    EXPECT_EQ(first.name, "f1");
    s.peek();
    RawEvent second;
    reader.read(s, second);
    EXPECT_TRUE(second.name.empty());
    EXPECT_FALSE(second.hasPh);
    EXPECT_FALSE(second.hasTs);
    EXPECT_EQ(second.cat, "c");
}

TEST(TraceEventReader, SyntaxErrorsSayWhereAndWhat)
{
    EXPECT_EQ(syntaxError("{\"ph\" \"X\"}"), "6: expected ':' after a key");
    EXPECT_EQ(syntaxError("{ph: 1}"), "1: expected a string key in a trace event");
    EXPECT_EQ(syntaxError("{\"ph\": \"X\" \"ts\": 1}"), "11: expected ',' or '}' in a trace event");
    EXPECT_EQ(syntaxError("{\"ph\": \"X\",}"), "11: expected a string key in a trace event");
    EXPECT_EQ(syntaxError("{\"args\": {1: 2}}"), "10: expected a string key in args");
    EXPECT_EQ(syntaxError("{\"args\": {\"a\": 1 \"b\": 2}}"), "17: expected ',' or '}' in args");
    EXPECT_EQ(syntaxError("{\"args\": {\"a\" 1}}"), "14: expected ':' after a key");
    EXPECT_EQ(syntaxError("{\"name\": \"a\\x\"}"), "12: invalid escape in a string");
    EXPECT_EQ(syntaxError("{\"ts\": 01}"), "8: expected ',' or '}' in a trace event");
    EXPECT_EQ(syntaxError("{\"ts\": 1.}"), "9: invalid number");
}

// The refill contract of the event layer: an event cut anywhere needs more and
// never reports an error; read again whole, it gives what it gives uncut.
TEST(TraceEventReader, EveryCutOfAnEventNeedsMore)
{
    const std::string doc =
        "{\"ph\": \"X\", \"name\": \"a\\u00e9\\\"\", \"ts\": 12.5, \"dur\": \"3\", \"pid\": -1,"
        " \"tid\": \"t\\/1\", \"id\": 4, \"args\": {\"External id\": \"7\", \"bytes\": 64,"
        " \"cuda_sync_kind\": \"ev\\u0065nt\", \"more\": [true, null, {\"x\": -0.5e-3}]}, \"extra\": false}";
    EventReader reader; // one reader for every try, as in the loader
    for (size_t n = 1; n < doc.size(); ++n) {
        std::string cut = doc.substr(0, n);
        Scanner s(cut.data(), cut.data() + cut.size());
        RawEvent ev;
        EXPECT_THROW(reader.read(s, ev), NeedMore) << "cut after " << n << " bytes: " << cut;
    }
    std::string whole = doc;
    Scanner s(whole.data(), whole.data() + whole.size());
    RawEvent e;
    reader.read(s, e);
    EXPECT_EQ(e.name, "a\xC3\xA9\"");
    EXPECT_EQ(e.ts, 12500);
    EXPECT_EQ(e.dur, 3000);
    EXPECT_EQ(e.pid, "-1");
    EXPECT_EQ(e.tid, "t/1");
    EXPECT_EQ(e.keys.externalId, 7);
    EXPECT_EQ(e.keys.bytes, 64);
    EXPECT_EQ(e.syncKind, "event");
    EXPECT_EQ(s.p, whole.data() + whole.size());
}
