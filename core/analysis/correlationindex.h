#pragma once
// The first runtime or driver call of each correlation id, as one sorted
// vector: built by appending every call, then finish(). A look-up goes through
// a flat table of indices into it: indexed by the correlation itself where the
// ids are dense (as a profiler numbers its calls: a run of look-ups in
// correlation order reads it in order); where they are dense in a few blocks
// far apart (processes or runs numbered from different bases), one such table
// per block, found by a binary search over the blocks' first ids; else a hash
// table (open addressing, at most half full). Against a node-based hash map it
// allocates twice and frees twice, which on a trace of millions of launches is
// the difference.
#include "trace/tracemodel.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace syncscope {

// A call: its track and its index there.
struct CallRef {
    uint32_t track, index;
};

// A call with its host interval.
struct HostCallRef {
    uint32_t track, index;
    TimeNs start, end;
};

// Ref: a call with `track` and `index` (CallRef, HostCallRef).
template <class Ref> class CorrelationIndexOf {
public:
    using Entry = std::pair<int64_t, Ref>;

    void reserve(size_t n) { m_entries.reserve(n); }
    // In event order (track, then index): of two calls with one correlation,
    // the first in that order is kept.
    void add(int64_t correlation, const Ref &call) { m_entries.push_back({correlation, call}); }
    // Sorts by correlation and keeps the first call of each; add() may not
    // follow. In place: the order of the calls breaks ties, no buffer needed.
    void finish()
    {
        const auto before = [](const Entry &x, const Entry &y) {
            if (x.first != y.first)
                return x.first < y.first;
            return x.second.track != y.second.track ? x.second.track < y.second.track
                                                    : x.second.index < y.second.index;
        };
        // Each launching thread appends its calls in correlation order as a
        // rule: a few sorted runs, merged where a sort of interleaved runs
        // would fall back to its heap sort.
        std::vector<size_t> runEnds;
        for (size_t i = 1; i <= m_entries.size() && runEnds.size() <= kMaxRuns; ++i)
            if (i == m_entries.size() || before(m_entries[i], m_entries[i - 1]))
                runEnds.push_back(i);
        if (runEnds.size() > kMaxRuns) {
            std::sort(m_entries.begin(), m_entries.end(), before);
        } else {
            for (size_t r = 1; r < runEnds.size(); ++r)
                std::inplace_merge(m_entries.begin(),
                                   m_entries.begin() + static_cast<std::ptrdiff_t>(runEnds[r - 1]),
                                   m_entries.begin() + static_cast<std::ptrdiff_t>(runEnds[r]), before);
        }
        m_entries.erase(std::unique(m_entries.begin(), m_entries.end(),
                                    [](const Entry &x, const Entry &y) { return x.first == y.first; }),
                        m_entries.end());
        m_entries.shrink_to_fit();
        m_slots.clear();
        if (m_entries.empty())
            return;
        m_blocks.clear();
        const uint64_t room = 4 * static_cast<uint64_t>(m_entries.size()) + 64;
        const uint64_t span = static_cast<uint64_t>(m_entries.back().first) -
                              static_cast<uint64_t>(m_entries.front().first);
        if (span < room) {
            m_blocks.push_back({m_entries.front().first, span + 1, 0});
        } else {
            // Blocks split where two neighbouring ids are more than kGap apart;
            // worth it while they are few and their tables small.
            uint64_t slots = 0;
            size_t from = 0;
            for (size_t e = 1; e <= m_entries.size() && m_blocks.size() <= maxBlocks(); ++e) {
                if (e < m_entries.size() &&
                    static_cast<uint64_t>(m_entries[e].first) - static_cast<uint64_t>(m_entries[e - 1].first) <=
                        kGap)
                    continue;
                const uint64_t len = static_cast<uint64_t>(m_entries[e - 1].first) -
                                     static_cast<uint64_t>(m_entries[from].first) + 1;
                m_blocks.push_back({m_entries[from].first, len, slots});
                slots += len;
                from = e;
            }
            if (m_blocks.size() > maxBlocks() || slots >= room)
                m_blocks.clear();
        }
        if (!m_blocks.empty()) {
            m_direct = true;
            const Block &last = m_blocks.back();
            m_slots.assign(static_cast<size_t>(last.slot + last.len), kEmpty);
            size_t b = 0;
            for (size_t e = 0; e < m_entries.size(); ++e) {
                while (static_cast<uint64_t>(m_entries[e].first) - static_cast<uint64_t>(m_blocks[b].first) >=
                       m_blocks[b].len)
                    ++b;
                m_slots[static_cast<size_t>(m_blocks[b].slot + static_cast<uint64_t>(m_entries[e].first) -
                                            static_cast<uint64_t>(m_blocks[b].first))] = static_cast<uint32_t>(e);
            }
            return;
        }
        m_direct = false;
        unsigned bits = 4;
        while ((size_t(1) << bits) < 2 * m_entries.size())
            ++bits;
        m_shift = 64 - bits;
        m_slots.assign(size_t(1) << bits, kEmpty);
        const size_t mask = m_slots.size() - 1;
        for (size_t e = 0; e < m_entries.size(); ++e) {
            size_t i = slotOf(m_entries[e].first);
            while (m_slots[i] != kEmpty)
                i = (i + 1) & mask;
            m_slots[i] = static_cast<uint32_t>(e);
        }
    }
    // The call of a correlation, or null.
    const Ref *find(int64_t correlation) const
    {
        if (m_slots.empty())
            return nullptr;
        if (m_direct) {
            const Block *b = m_blocks.data();
            if (m_blocks.size() > 1) {
                const auto it = std::upper_bound(m_blocks.begin(), m_blocks.end(), correlation,
                                                 [](int64_t c, const Block &x) { return c < x.first; });
                if (it == m_blocks.begin())
                    return nullptr;
                b = &*std::prev(it);
            }
            // Wraps below the block's first id.
            const uint64_t at = static_cast<uint64_t>(correlation) - static_cast<uint64_t>(b->first);
            const uint32_t e = at < b->len ? m_slots[static_cast<size_t>(b->slot + at)] : kEmpty;
            return e == kEmpty ? nullptr : &m_entries[e].second;
        }
        const size_t mask = m_slots.size() - 1;
        for (size_t i = slotOf(correlation);; i = (i + 1) & mask) {
            const uint32_t e = m_slots[i];
            if (e == kEmpty)
                return nullptr;
            if (m_entries[e].first == correlation)
                return &m_entries[e].second;
        }
    }
    size_t size() const { return m_entries.size(); }
    // How look-ups go (for tests): "direct", "blocks" or "hash".
    const char *layout() const { return !m_direct ? "hash" : m_blocks.size() > 1 ? "blocks" : "direct"; }
    // By correlation.
    auto begin() const { return m_entries.begin(); }
    auto end() const { return m_entries.end(); }

private:
    static constexpr uint32_t kEmpty = UINT32_MAX;
    static constexpr size_t kMaxRuns = 16;
    static constexpr uint64_t kGap = 64;
    // A block of dense ids: its table is m_slots[slot, slot + len).
    struct Block {
        int64_t first;
        uint64_t len, slot;
    };
    // At most one block per 64 calls: the search over them stays short.
    size_t maxBlocks() const { return m_entries.size() / 64 + 1; }
    size_t slotOf(int64_t correlation) const
    {
        return static_cast<size_t>((static_cast<uint64_t>(correlation) * 0x9E3779B97F4A7C15ull) >> m_shift);
    }

    std::vector<Entry> m_entries;
    std::vector<uint32_t> m_slots; // indices into m_entries; kEmpty where none
    bool m_direct = false;         // m_slots through m_blocks, else hashed
    std::vector<Block> m_blocks;   // by first id
    unsigned m_shift = 64;
};

using CorrelationIndex = CorrelationIndexOf<HostCallRef>;

} // namespace syncscope
