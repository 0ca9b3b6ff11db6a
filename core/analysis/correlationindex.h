#pragma once
// The first runtime or driver call of each correlation id, as one sorted
// vector: built by appending every call, then finish(). A look-up goes through
// a flat table of indices into it: indexed by the correlation itself where the
// ids are dense (as a profiler numbers its calls: a run of look-ups in
// correlation order reads it in order), else a hash table (open addressing, at
// most half full). Against a node-based hash map it allocates twice and frees
// twice, which on a trace of millions of launches is the difference.
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
        const uint64_t span = static_cast<uint64_t>(m_entries.back().first) -
                              static_cast<uint64_t>(m_entries.front().first);
        if (span < 4 * static_cast<uint64_t>(m_entries.size()) + 64) {
            m_direct = true;
            m_base = m_entries.front().first;
            m_slots.assign(static_cast<size_t>(span) + 1, kEmpty);
            for (size_t e = 0; e < m_entries.size(); ++e)
                m_slots[offsetOf(m_entries[e].first)] = static_cast<uint32_t>(e);
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
            const uint64_t at = offsetOf(correlation); // wraps below the first
            const uint32_t e = at < m_slots.size() ? m_slots[static_cast<size_t>(at)] : kEmpty;
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
    // By correlation.
    auto begin() const { return m_entries.begin(); }
    auto end() const { return m_entries.end(); }

private:
    static constexpr uint32_t kEmpty = UINT32_MAX;
    static constexpr size_t kMaxRuns = 16;
    uint64_t offsetOf(int64_t correlation) const
    {
        return static_cast<uint64_t>(correlation) - static_cast<uint64_t>(m_base);
    }
    size_t slotOf(int64_t correlation) const
    {
        return static_cast<size_t>((static_cast<uint64_t>(correlation) * 0x9E3779B97F4A7C15ull) >> m_shift);
    }

    std::vector<Entry> m_entries;
    std::vector<uint32_t> m_slots; // indices into m_entries; kEmpty where none
    bool m_direct = false;         // m_slots[correlation - m_base], else hashed
    int64_t m_base = 0;
    unsigned m_shift = 64;
};

using CorrelationIndex = CorrelationIndexOf<HostCallRef>;

} // namespace syncscope
