#pragma once
// JSON without its layout: the whitespace outside strings dropped, everything
// else (strings, escapes, numbers) byte for byte as it was. Profilers
// pretty-print an event's args; the model keeps them compact.
#include <cstddef>
#include <string_view>

namespace syncscope {

// Writes the compacted text of `json` to `out` (room for json.size() bytes)
// and returns its length. Sixteen bytes at a time where the CPU has SSSE3.
size_t compactJson(std::string_view json, char *out);
// The same a byte at a time: the fallback, and what the tests hold the fast
// path to.
size_t compactJsonBytewise(std::string_view json, char *out);

} // namespace syncscope
