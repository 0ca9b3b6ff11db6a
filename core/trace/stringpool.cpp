#include "trace/stringpool.h"

#include <cstring>
#include <functional>

namespace syncscope {

namespace {
constexpr size_t kBlockSize = 1 << 20;
const char kEmptyRecord[1] = {0}; // length 0

size_t hashOf(std::string_view s) { return std::hash<std::string_view>()(s); }
} // namespace

StringPool::StringPool()
{
    m_strings.push_back(kEmptyRecord);
    m_slots.assign(4096, kNoStr);
    m_slots[slotOf({}, hashOf({}))] = kEmptyStr;
}

size_t StringPool::slotOf(std::string_view s, size_t hash) const
{
    const size_t mask = m_slots.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
        const StrId id = m_slots[i];
        if (id == kNoStr || get(id) == s)
            return i;
    }
}

void StringPool::grow()
{
    std::vector<StrId> old;
    old.swap(m_slots);
    m_slots.assign(old.size() * 2, kNoStr);
    const size_t mask = m_slots.size() - 1;
    for (StrId id : old) {
        if (id == kNoStr)
            continue;
        size_t i = hashOf(get(id)) & mask;
        while (m_slots[i] != kNoStr)
            i = (i + 1) & mask;
        m_slots[i] = id;
    }
}

char *StringPool::store(size_t n)
{
    if (n > kBlockSize / 4) {
        // A huge string gets its own block so it cannot waste a shared one.
        m_blocks.emplace_back(new char[n]);
        m_storedBytes += n;
        // Keep appending to the previous shared block.
        if (m_blocks.size() >= 2 && m_blockCap)
            std::swap(m_blocks[m_blocks.size() - 1], m_blocks[m_blocks.size() - 2]);
        return m_blockCap ? m_blocks[m_blocks.size() - 2].get() : m_blocks.back().get();
    }
    if (m_blockCap - m_blockUsed < n) {
        m_blocks.emplace_back(new char[kBlockSize]);
        m_blockUsed = 0;
        m_blockCap = kBlockSize;
    }
    char *dst = m_blocks.back().get() + m_blockUsed;
    m_blockUsed += n;
    m_storedBytes += n;
    return dst;
}

StrId StringPool::intern(std::string_view s)
{
    const size_t h = hashOf(s);
    size_t slot = slotOf(s, h);
    if (m_slots[slot] != kNoStr)
        return m_slots[slot];
    unsigned char prefix[kMaxLengthPrefix];
    const size_t k = writeLengthPrefix(s.size(), prefix);
    char *dst = store(k + s.size());
    std::memcpy(dst, prefix, k);
    if (!s.empty())
        std::memcpy(dst + k, s.data(), s.size());
    const auto id = static_cast<StrId>(m_strings.size());
    m_strings.push_back(dst);
    if (4 * (m_strings.size() + 1) > 3 * m_slots.size()) {
        grow();
        slot = slotOf(s, h);
    }
    m_slots[slot] = id;
    return id;
}

StrId StringPool::find(std::string_view s) const { return m_slots[slotOf(s, hashOf(s))]; }

uint64_t StringPool::memoryBytes() const
{
    return m_storedBytes + m_blocks.capacity() * sizeof(m_blocks[0]) + m_strings.size() * sizeof(const char *) +
           m_slots.capacity() * sizeof(StrId);
}

} // namespace syncscope
