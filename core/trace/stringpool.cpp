#include "trace/stringpool.h"

#include <cstring>

namespace syncscope {

namespace {
constexpr size_t kBlockSize = 1 << 20;
}

StringPool::StringPool()
{
    m_strings.emplace_back();
    m_index.emplace(std::string_view(), kEmptyStr);
    m_index.reserve(4096);
}

StrId StringPool::intern(std::string_view s)
{
    auto it = m_index.find(s);
    if (it != m_index.end())
        return it->second;
    const char *stored = "";
    if (!s.empty()) {
        if (s.size() > kBlockSize / 4) {
            // A huge string gets its own block so it cannot waste a shared one.
            m_blocks.emplace_back(new char[s.size()]);
            std::memcpy(m_blocks.back().get(), s.data(), s.size());
            stored = m_blocks.back().get();
            // Keep appending to the previous shared block.
            if (m_blocks.size() >= 2 && m_blockCap)
                std::swap(m_blocks[m_blocks.size() - 1], m_blocks[m_blocks.size() - 2]);
        } else {
            if (m_blockCap - m_blockUsed < s.size()) {
                m_blocks.emplace_back(new char[kBlockSize]);
                m_blockUsed = 0;
                m_blockCap = kBlockSize;
            }
            char *dst = m_blocks.back().get() + m_blockUsed;
            std::memcpy(dst, s.data(), s.size());
            m_blockUsed += s.size();
            stored = dst;
        }
    }
    const auto id = static_cast<StrId>(m_strings.size());
    std::string_view view(stored, s.size());
    m_strings.push_back(view);
    m_index.emplace(view, id);
    return id;
}

StrId StringPool::find(std::string_view s) const
{
    auto it = m_index.find(s);
    return it == m_index.end() ? kNoStr : it->second;
}

} // namespace syncscope
