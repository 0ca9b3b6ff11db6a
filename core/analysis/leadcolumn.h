#pragma once
// Times kept each as its lead on a reference time of its own (reference minus
// time: how much earlier), in 32 bits a position, where a full time would take
// 64. A lead that does not fit, or a time after its reference, is kept beside
// them. A position may hold no time.
#include "trace/tracemodel.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace syncscope {

class LeadColumn {
public:
    // n positions, none holding a time.
    void assign(size_t n)
    {
        m_lead.assign(n, kNone);
        m_far.clear();
    }
    size_t size() const { return m_lead.size(); }
    bool empty() const { return m_lead.empty(); }
    bool has(size_t i) const { return m_lead[i] != kNone; }
    // The time at i (has(i) only), given its reference.
    TimeNs get(size_t i, TimeNs reference) const
    {
        const uint32_t lead = m_lead[i];
        return lead == kElsewhere ? m_far.at(i) : reference - TimeNs(lead);
    }
    void set(size_t i, TimeNs reference, TimeNs t)
    {
        if (t <= reference && reference - t < TimeNs(kElsewhere)) {
            m_lead[i] = static_cast<uint32_t>(reference - t);
        } else {
            m_lead[i] = kElsewhere;
            m_far[i] = t;
        }
    }
    // Positions [from, to) hold no time again.
    void clear(size_t from, size_t to)
    {
        for (size_t i = from; i < to; ++i) {
            if (m_lead[i] == kElsewhere)
                m_far.erase(i);
            m_lead[i] = kNone;
        }
    }
    // How many times are kept beside the leads.
    size_t farCount() const { return m_far.size(); }

private:
    static constexpr uint32_t kNone = UINT32_MAX, kElsewhere = UINT32_MAX - 1;
    std::vector<uint32_t> m_lead;
    std::unordered_map<size_t, TimeNs> m_far;
};

} // namespace syncscope
