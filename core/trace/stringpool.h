#pragma once
// Interned strings: a trace repeats a few thousand names millions of times, so
// events store a 32-bit id and the text lives once in stable blocks.
#include <cstdint>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace syncscope {

using StrId = uint32_t;
// Id 0 is always the empty string, so a default-initialized id is valid.
constexpr StrId kEmptyStr = 0;
constexpr StrId kNoStr = UINT32_MAX;

class StringPool {
public:
    StringPool();
    StringPool(StringPool &&) noexcept = default;
    StringPool &operator=(StringPool &&) noexcept = default;
    StringPool(const StringPool &) = delete;
    StringPool &operator=(const StringPool &) = delete;

    StrId intern(std::string_view s);
    // kNoStr when the text was never interned; never adds.
    StrId find(std::string_view s) const;
    std::string_view get(StrId id) const { return m_strings[id]; }
    size_t size() const { return m_strings.size(); }

private:
    // Blocks never move, so the views in m_strings and the map keys stay valid
    // when the pool itself is moved into the finished model.
    std::vector<std::unique_ptr<char[]>> m_blocks;
    size_t m_blockUsed = 0;
    size_t m_blockCap = 0;
    std::vector<std::string_view> m_strings;
    std::unordered_map<std::string_view, StrId> m_index;
};

} // namespace syncscope
