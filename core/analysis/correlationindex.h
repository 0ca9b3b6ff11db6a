#pragma once
// The first runtime or driver call of each correlation id, as one sorted
// vector: built by appending every call, then finish(); a look-up is a binary
// search. Against a node-based hash map it allocates once
// and frees once, which on a trace of millions of launches is the difference.
#include "trace/tracemodel.h"

#include <algorithm>
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
        // One launching thread appends its calls in correlation order already.
        if (!std::is_sorted(m_entries.begin(), m_entries.end(), before))
            std::sort(m_entries.begin(), m_entries.end(), before);
        m_entries.erase(std::unique(m_entries.begin(), m_entries.end(),
                                    [](const Entry &x, const Entry &y) { return x.first == y.first; }),
                        m_entries.end());
        m_entries.shrink_to_fit();
    }
    // The call of a correlation, or null.
    const Ref *find(int64_t correlation) const
    {
        auto it = std::lower_bound(m_entries.begin(), m_entries.end(), correlation,
                                   [](const Entry &e, int64_t c) { return e.first < c; });
        return it != m_entries.end() && it->first == correlation ? &it->second : nullptr;
    }
    size_t size() const { return m_entries.size(); }
    // By correlation.
    auto begin() const { return m_entries.begin(); }
    auto end() const { return m_entries.end(); }

private:
    std::vector<Entry> m_entries;
};

using CorrelationIndex = CorrelationIndexOf<HostCallRef>;

} // namespace syncscope
