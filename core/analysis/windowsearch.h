#pragma once
// The latest-starting window [start, end) that holds a time, among windows
// sorted by start that may overlap (steps): how a call or a collective is
// given its step. O(log n) plus the windows that start before t but end by it.
#include "trace/tracemodel.h"

#include <algorithm>
#include <vector>

namespace syncscope {

template <class Window> class WindowSearch {
public:
    explicit WindowSearch(const std::vector<Window> &windows) : m_windows(windows), m_endMax(windows.size())
    {
        for (size_t k = 0; k < windows.size(); ++k)
            m_endMax[k] = k ? std::max(m_endMax[k - 1], windows[k].end) : windows[k].end;
    }

    // The index of that window, or -1.
    int64_t find(TimeNs t) const
    {
        size_t k = size_t(std::upper_bound(m_windows.begin(), m_windows.end(), t,
                                           [](TimeNs v, const Window &w) { return v < w.start; }) -
                          m_windows.begin());
        // m_endMax[k - 1] <= t: no window up to k - 1 ends after t.
        for (; k > 0 && m_endMax[k - 1] > t; --k)
            if (t < m_windows[k - 1].end)
                return int64_t(k - 1);
        return -1;
    }

private:
    const std::vector<Window> &m_windows;
    std::vector<TimeNs> m_endMax; // the latest end among windows[0..k]
};

} // namespace syncscope
