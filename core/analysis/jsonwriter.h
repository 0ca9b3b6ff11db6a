#pragma once
// A small streaming JSON writer for reports whose numbers must be exact: times
// go out as decimal text made from integer nanoseconds (formatMicros), never
// through a double. Keys keep the order they are written in.
#include "trace/tracemodel.h"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace syncscope {

// ns as microseconds with exactly 3 fractional digits: 1712195495519689047 ->
// "1712195495519689.047", -1500 -> "-1.500".
std::string formatMicros(TimeNs ns);

class JsonWriter {
public:
    // Where a streamed document goes, piece by piece.
    using Sink = std::function<void(std::string_view)>;

    explicit JsonWriter(int indent = 1) : m_indent(indent) {}
    // A document streamed to `sink` whenever about 1 MiB has gathered (at the
    // end of an object or array), so a long one is never whole in memory;
    // finish() writes the rest.
    JsonWriter(int indent, Sink sink) : m_indent(indent), m_sink(std::move(sink)) {}

    JsonWriter &beginObject();
    JsonWriter &endObject();
    JsonWriter &beginArray();
    JsonWriter &endArray();
    JsonWriter &key(std::string_view k);
    JsonWriter &value(std::string_view s); // a string, invalid UTF-8 replaced by U+FFFD
    JsonWriter &value(const char *s) { return value(std::string_view(s)); }
    JsonWriter &value(const std::string &s) { return value(std::string_view(s)); }
    JsonWriter &value(int64_t v);
    JsonWriter &value(uint64_t v);
    JsonWriter &value(int v) { return value(static_cast<int64_t>(v)); }
    JsonWriter &value(unsigned v) { return value(static_cast<uint64_t>(v)); }
    JsonWriter &value(bool v);
    JsonWriter &null();
    JsonWriter &micros(TimeNs ns); // a number in exact microseconds
    // An int64 that may be kNoValue (written as null).
    JsonWriter &optional(int64_t v) { return v == kNoValue ? null() : value(v); }
    // A number or literal already formatted as JSON.
    JsonWriter &raw(std::string_view json);

    // Without a sink: the document, ending with a newline.
    std::string take();
    // With a sink: the rest of the document, ending with a newline, to the sink.
    void finish();

private:
    void beforeValue();
    JsonWriter &close(char bracket);
    void newline();
    std::string m_out;
    std::vector<bool> m_first; // per open container: nothing written yet
    int m_indent;
    bool m_afterKey = false;
    Sink m_sink;
};

} // namespace syncscope
