#pragma once
// Reading one top-level member of an event's args (the minified JSON object the
// model keeps). For the few args the analysis needs beyond the indexed columns.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace syncscope {

// The raw JSON text of member `key` of the object `args`; nullopt when absent or
// when `args` is not an object.
std::optional<std::string_view> argRaw(std::string_view args, std::string_view key);
// An integer member (a JSON integer, or a string holding one); nullopt otherwise.
std::optional<int64_t> argInt(std::string_view args, std::string_view key);
// What argInt makes of a member's raw text, its quotes removed: an optional
// '-' and 1 to 18 digits; nullopt otherwise.
std::optional<int64_t> argIntText(std::string_view digits);
// A string member (unescaped), or a number's text; nullopt otherwise.
std::optional<std::string> argString(std::string_view args, std::string_view key);

} // namespace syncscope
