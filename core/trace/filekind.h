#pragma once
// What a JSON file is, decided by its structure: the keys of its top-level
// object, not a window of its first bytes. A trace may carry megabytes of
// metadata before "traceEvents"; a bench result is an object with "results".
#include <string>

namespace syncscope {

enum class JsonFileKind {
    Trace,       // a top-level "traceEvents" key, or a bare array of events
    BenchResult, // a top-level "results" key and no "traceEvents"
    Other,       // neither (or not JSON): the trace loader will say what is wrong
};

// Reads (gunzipping when needed) only as far as the top-level keys decide it:
// at the "traceEvents" key of a trace, the whole of a small bench result.
// Never throws; an unreadable file is Other.
JsonFileKind jsonFileKind(const std::string &path);

// The same on bytes in memory.
JsonFileKind jsonKind(const std::string &bytes);

} // namespace syncscope
