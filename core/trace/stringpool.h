#pragma once
// Interned strings: a trace repeats a few thousand names millions of times, so
// events store a 32-bit id and the text lives once in stable blocks.
#include "trace/lengthprefix.h"

#include <cstdint>
#include <memory>
#include <string_view>
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
    std::string_view get(StrId id) const { return readLengthPrefixed(m_strings[id]); }
    size_t size() const { return m_strings.size(); }
    // Bytes in use: the stored strings, the id table and the hash index.
    uint64_t memoryBytes() const;

private:
    // Open addressing over ids (kNoStr = free slot); at most 3/4 full.
    size_t slotOf(std::string_view s, size_t hash) const;
    void grow();
    char *store(size_t n);

    // Blocks never move, so the pointers in m_strings stay valid when the pool
    // itself is moved into the finished model.
    std::vector<std::unique_ptr<char[]>> m_blocks;
    uint64_t m_storedBytes = 0; // in blocks, length prefixes included
    size_t m_blockUsed = 0;
    size_t m_blockCap = 0;
    std::vector<const char *> m_strings;
    std::vector<StrId> m_slots;
};

} // namespace syncscope
