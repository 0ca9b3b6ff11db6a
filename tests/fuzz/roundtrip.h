#pragma once
// The fuzz property: a loaded trace, written and loaded again, is the same model
// (the same tracks with the same events, instants and args). Returns an empty
// string when it holds, otherwise what differs.
#include "trace/tracemodel.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace syncscope::fuzz {

struct EventKey {
    TimeNs start, dur;
    std::string name, cat, args;
    bool operator<(const EventKey &o) const
    {
        return std::tie(start, dur, name, cat, args) < std::tie(o.start, o.dur, o.name, o.cat, o.args);
    }
    bool operator==(const EventKey &o) const
    {
        return std::tie(start, dur, name, cat, args) == std::tie(o.start, o.dur, o.name, o.cat, o.args);
    }
};

// Track (pid text, tid text) -> its duration events and its instants, each sorted
// so that the order of equal-start events does not matter.
using TrackEvents =
    std::map<std::pair<std::string, std::string>, std::pair<std::vector<EventKey>, std::vector<EventKey>>>;

inline TrackEvents eventsOf(const TraceModel &m)
{
    TrackEvents out;
    for (const Track &t : m.tracks()) {
        auto &[events, instants] = out[{std::string(m.str(t.pid.text)), std::string(m.str(t.tid.text))}];
        for (size_t i = 0; i < t.size(); ++i)
            events.push_back({t.start[i], t.dur[i], std::string(m.str(t.name[i])), std::string(m.str(t.cat[i])),
                              std::string(m.args(t.args[i]))});
        for (size_t i = 0; i < t.instants.ts.size(); ++i)
            instants.push_back({t.instants.ts[i], 0, std::string(m.str(t.instants.name[i])),
                                std::string(m.str(t.instants.cat[i])), std::string(m.args(t.instants.args[i]))});
        std::sort(events.begin(), events.end());
        std::sort(instants.begin(), instants.end());
    }
    // Tracks without events need not survive a write.
    for (auto it = out.begin(); it != out.end();)
        it = it->second.first.empty() && it->second.second.empty() ? out.erase(it) : std::next(it);
    return out;
}

inline std::string describe(const EventKey &e)
{
    return "'" + e.name.substr(0, 40) + "' at " + std::to_string(e.start) + " ns, dur " + std::to_string(e.dur) +
           ", cat '" + e.cat.substr(0, 20) + "', args " + e.args.substr(0, 60);
}

inline std::string roundTripDifference(const TraceModel &a, const TraceModel &b)
{
    if (a.counts().durationEvents != b.counts().durationEvents)
        return "duration events " + std::to_string(a.counts().durationEvents) + " became " +
               std::to_string(b.counts().durationEvents);
    if (a.counts().instants != b.counts().instants)
        return "instants " + std::to_string(a.counts().instants) + " became " +
               std::to_string(b.counts().instants);
    const TrackEvents ea = eventsOf(a), eb = eventsOf(b);
    if (ea.size() != eb.size())
        return "tracks with events " + std::to_string(ea.size()) + " became " + std::to_string(eb.size());
    for (auto ia = ea.begin(), ib = eb.begin(); ia != ea.end(); ++ia, ++ib) {
        if (ia->first != ib->first)
            return "track (" + ia->first.first + ", " + ia->first.second + ") became (" + ib->first.first + ", " +
                   ib->first.second + ")";
        for (int kind = 0; kind < 2; ++kind) {
            const auto &xa = kind ? ia->second.second : ia->second.first;
            const auto &xb = kind ? ib->second.second : ib->second.first;
            if (xa.size() != xb.size())
                return "track (" + ia->first.first + ", " + ia->first.second + ") had " +
                       std::to_string(xa.size()) + (kind ? " instants" : " events") + ", now " +
                       std::to_string(xb.size());
            for (size_t i = 0; i < xa.size(); ++i)
                if (!(xa[i] == xb[i]))
                    return "event " + describe(xa[i]) + " became " + describe(xb[i]);
        }
    }
    return "";
}

} // namespace syncscope::fuzz
