#include "analysis/handoffs.h"

#include "trace/categories.h"

#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <tuple>

namespace syncscope {

namespace {

bool startsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool endsWith(std::string_view s, std::string_view p)
{
    return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

// What one launching thread offers the search.
struct ThreadFacts {
    uint32_t track = 0;
    std::string tid;
    std::vector<TimeNs> bounds;                   // own events' starts and ends, sorted, unique
    std::vector<std::pair<TimeNs, TimeNs>> calls; // its runtime calls, by start
    std::vector<TimeNs> callsEnd;                 // the latest end of calls[0..k]
    // Whether one of its runtime calls spans [from, to].
    bool blockedOver(TimeNs from, TimeNs to) const
    {
        const auto it = std::upper_bound(calls.begin(), calls.end(), from,
                                         [](TimeNs t, const std::pair<TimeNs, TimeNs> &c) { return t < c.first; });
        return it != calls.begin() && callsEnd[size_t(it - calls.begin()) - 1] >= to;
    }
    std::vector<std::pair<TimeNs, TimeNs>> backward; // python backward frames
    std::vector<int64_t> ownSeq, backwardSeq;        // "Sequence number"s, sorted, unique
    std::vector<uint32_t> top;                       // top-level events
    std::vector<char> topHasCall;                    // per top-level event
};

struct Group {
    TimeNs at, end, b, n;
    TimeNs busy; // the sum of its events' durations
    size_t nIndex;
    bool valid, bounded, hasCall;
};

struct Candidate {
    uint32_t from, to;
    ThreadMode mode;
    size_t flows;
    std::vector<Group> groups;
};

} // namespace

Handoffs findHandoffs(const TraceModel &model)
{
    Handoffs out;
    const category::Ids cats(model);
    const auto tracks = model.tracks();
    const std::string_view evaluate = "autograd::engine::evaluate_function";
    std::map<std::string, std::vector<ThreadFacts>> byPid;
    for (uint32_t ti = 0; ti < tracks.size(); ++ti) {
        const Track t = tracks[ti];
        bool launches = false;
        for (size_t i = 0; i < t.size() && !launches; ++i)
            launches = cats.runtimeCall(t.cat[i]);
        if (!launches)
            continue;
        ThreadFacts f;
        f.track = ti;
        f.tid = std::string(model.str(t.tid.text));
        std::vector<TimeNs> starts, ends; // of its own events
        std::vector<char> excluded(t.size(), 0);
        std::vector<int32_t> topOf(t.size(), -1);
        for (size_t i = 0; i < t.size(); ++i) {
            const std::string_view name = model.str(t.name[i]);
            const int32_t p = t.parent[i];
            excluded[i] = (p >= 0 && excluded[static_cast<size_t>(p)]) || startsWith(name, evaluate);
            if (p < 0) {
                topOf[i] = static_cast<int32_t>(f.top.size());
                f.top.push_back(static_cast<uint32_t>(i));
                f.topHasCall.push_back(0);
            } else {
                topOf[i] = topOf[static_cast<size_t>(p)];
            }
            const int64_t seq = t.sequence[i]; // kNoValue: none
            if (cats.runtimeCall(t.cat[i])) {
                f.calls.push_back({t.start[i], t.end(i)});
                f.topHasCall[static_cast<size_t>(topOf[i])] = 1;
            }
            if (seq != kNoValue && name.find("Backward") != name.npos)
                f.backwardSeq.push_back(seq);
            if (t.cat[i] == cats.pythonFunction &&
                (endsWith(name, ": backward") || startsWith(name, "<built-in method run_backward")))
                f.backward.push_back({t.start[i], t.end(i)});
            if (excluded[i])
                continue;
            starts.push_back(t.start[i]);
            ends.push_back(t.end(i));
            if (seq != kNoValue)
                f.ownSeq.push_back(seq);
        }
        for (std::vector<int64_t> *v : {&f.ownSeq, &f.backwardSeq}) {
            std::sort(v->begin(), v->end());
            v->erase(std::unique(v->begin(), v->end()), v->end());
        }
        // The starts come sorted as a rule (a track's events are by start):
        // sorting the ends alone and merging is the sort of both, for less.
        for (std::vector<TimeNs> *v : {&starts, &ends})
            if (!std::is_sorted(v->begin(), v->end()))
                std::sort(v->begin(), v->end());
        f.bounds.resize(starts.size() + ends.size());
        std::merge(starts.begin(), starts.end(), ends.begin(), ends.end(), f.bounds.begin());
        f.bounds.erase(std::unique(f.bounds.begin(), f.bounds.end()), f.bounds.end());
        std::sort(f.calls.begin(), f.calls.end());
        f.callsEnd.resize(f.calls.size());
        for (size_t k = 0; k < f.calls.size(); ++k)
            f.callsEnd[k] = std::max(f.calls[k].second, k ? f.callsEnd[k - 1] : f.calls[k].second);
        byPid[std::string(model.str(t.pid.text))].push_back(std::move(f));
    }

    // fwdbwd flow pairs: (start track, end track) per (pid, id).
    std::map<std::pair<uint32_t, uint32_t>, size_t> flowPairs;
    {
        // Per (pid, id): the track of its last start and of its last end, in
        // the model's flow order (a stable sort keeps it within a key).
        struct End {
            StrId pid; // interned: one id per pid text
            int64_t id;
            StrId idText;
            bool start;
            uint32_t track;
        };
        std::vector<End> ends;
        const StrId fwdbwd = model.findString("fwdbwd");
        if (fwdbwd != kNoStr)
            for (const FlowEvent &e : model.flows())
                if (e.cat == fwdbwd && e.phase != FlowPhase::Step)
                    ends.push_back({tracks[e.track].pid.text, e.id, e.id == kNoValue ? e.idText : kEmptyStr,
                                    e.phase == FlowPhase::Start, e.track});
        const auto key = [](const End &e) { return std::make_tuple(e.pid, e.id, e.idText); };
        std::stable_sort(ends.begin(), ends.end(), [&](const End &x, const End &y) { return key(x) < key(y); });
        for (size_t i = 0; i < ends.size();) {
            int64_t first = -1, second = -1;
            size_t j = i;
            for (; j < ends.size() && key(ends[j]) == key(ends[i]); ++j)
                (ends[j].start ? first : second) = ends[j].track;
            if (first >= 0 && second >= 0)
                ++flowPairs[{static_cast<uint32_t>(first), static_cast<uint32_t>(second)}];
            i = j;
        }
    }

    struct Kept {
        ReplayHandoff h;
        ThreadMode mode;
        size_t nIndex;
        TimeNs end, busy;
        std::string toTid;
    };
    std::vector<Kept> kept;
    for (auto &pidThreads : byPid) {
        std::vector<ThreadFacts> &threads = pidThreads.second;
        std::vector<Candidate> all;
        for (const ThreadFacts &U : threads) {
            const Track ut = tracks[U.track];
            for (const ThreadFacts &T : threads) {
                if (T.track == U.track || T.bounds.empty())
                    continue;
                std::vector<Group> groups;
                bool everyBounded = true;
                for (size_t k = 0; k < U.top.size(); ++k) {
                    const size_t e = U.top[k];
                    const TimeNs s = ut.start[e], end = ut.end(e);
                    const auto it = std::upper_bound(T.bounds.begin(), T.bounds.end(), s);
                    if (it == T.bounds.begin() || it == T.bounds.end()) {
                        everyBounded = false;
                        continue;
                    }
                    const size_t nIndex = static_cast<size_t>(it - T.bounds.begin());
                    if (!groups.empty() && groups.back().nIndex == nIndex) {
                        Group &g = groups.back();
                        g.valid = g.valid && end <= g.n;
                        g.end = std::max(g.end, end);
                        g.busy += end - s;
                        g.hasCall = g.hasCall || U.topHasCall[k];
                        continue;
                    }
                    Group g{s, end, *std::prev(it), *it, end - s, nIndex, end <= *it, false, U.topHasCall[k] != 0};
                    // U idle at b: no top-level event of U spans it (top-level
                    // events do not overlap, so only the one before can).
                    if (k > 0)
                        g.valid = g.valid && !(ut.start[U.top[k - 1]] < g.b && g.b < ut.end(U.top[k - 1]));
                    groups.push_back(g);
                }
                for (Group &g : groups) {
                    g.valid = g.valid && !T.blockedOver(g.at, g.end);
                    g.bounded = g.valid && g.at - g.b <= kHandoffBound && g.n - g.end <= kHandoffBound;
                    everyBounded = everyBounded && g.bounded;
                }
                Candidate c{T.track, U.track, ThreadMode::None, 0, {}};
                auto fp = flowPairs.find({T.track, U.track});
                c.flows = fp != flowPairs.end() ? fp->second : 0;
                for (int64_t k : U.backwardSeq)
                    c.flows += std::binary_search(T.ownSeq.begin(), T.ownSeq.end(), k);
                if (c.flows > 0) {
                    c.mode = ThreadMode::Flows;
                    for (const Group &g : groups)
                        if (g.valid)
                            c.groups.push_back(g);
                } else {
                    for (const Group &g : groups) {
                        if (!g.valid)
                            continue;
                        for (const auto &fr : T.backward)
                            if (fr.first <= g.at && fr.second >= g.end) {
                                c.groups.push_back(g);
                                break;
                            }
                    }
                    if (!c.groups.empty()) {
                        c.mode = ThreadMode::Frames;
                    } else if (everyBounded && !groups.empty() &&
                               std::any_of(groups.begin(), groups.end(),
                                           [](const Group &g) { return g.hasCall; })) {
                        c.mode = ThreadMode::Inferred;
                        c.groups = groups;
                    }
                }
                if (!c.groups.empty())
                    all.push_back(std::move(c));
            }
        }
        // Only the strongest signal of the process counts: where the profiler
        // says which thread runs backward, no other thread is taken as woken.
        // Two threads that each look woken by the other are not told apart.
        ThreadMode strongest = ThreadMode::Inferred;
        for (const Candidate &c : all)
            strongest = std::min(strongest, c.mode);
        std::vector<Candidate> usable;
        for (const Candidate &c : all) {
            bool mutual = false;
            for (const Candidate &d : all)
                mutual = mutual || (d.from == c.to && d.to == c.from && d.mode == ThreadMode::Inferred);
            if (c.mode == strongest && !(c.mode == ThreadMode::Inferred && mutual))
                usable.push_back(c);
        }
        for (const ThreadFacts &U : threads) {
            std::vector<Candidate> candidates;
            for (const Candidate &c : usable)
                if (c.to == U.track)
                    candidates.push_back(c);
            if (candidates.empty())
                continue;
            auto tidOf = [&](uint32_t track) {
                for (const ThreadFacts &f : threads)
                    if (f.track == track)
                        return f.tid;
                return std::string();
            };
            const auto best = std::min_element(candidates.begin(), candidates.end(),
                                               [&](const Candidate &x, const Candidate &y) {
                                                   if (x.mode != y.mode)
                                                       return x.mode < y.mode;
                                                   if (x.flows != y.flows)
                                                       return x.flows > y.flows;
                                                   if (x.groups.size() != y.groups.size())
                                                       return x.groups.size() > y.groups.size();
                                                   if (x.groups.front().at != y.groups.front().at)
                                                       return x.groups.front().at < y.groups.front().at;
                                                   return tidOf(x.from) < tidOf(y.from);
                                               });
            for (const Group &g : best->groups)
                kept.push_back({{best->from, U.track, g.at, g.n}, best->mode, g.nIndex, g.end, g.busy, U.tid});
        }
    }
    // One woken thread per silence of a waker: the busiest burst (then the one
    // that ends last).
    std::sort(kept.begin(), kept.end(), [](const Kept &x, const Kept &y) {
        if (x.h.from != y.h.from)
            return x.h.from < y.h.from;
        if (x.nIndex != y.nIndex)
            return x.nIndex < y.nIndex;
        return false;
    });
    std::vector<Kept> chosen;
    for (size_t i = 0; i < kept.size();) {
        size_t j = i + 1;
        while (j < kept.size() && kept[j].h.from == kept[i].h.from && kept[j].nIndex == kept[i].nIndex)
            ++j;
        size_t best = i;
        for (size_t k = i + 1; k < j; ++k) {
            const Kept &x = kept[k], &y = kept[best];
            if (std::make_tuple(-x.busy, -x.end, x.h.at) < std::make_tuple(-y.busy, -y.end, y.h.at) ||
                (std::make_tuple(x.busy, x.end, x.h.at) == std::make_tuple(y.busy, y.end, y.h.at) &&
                 x.toTid < y.toTid))
                best = k;
        }
        chosen.push_back(kept[best]);
        i = j;
    }
    std::sort(chosen.begin(), chosen.end(), [](const Kept &x, const Kept &y) {
        return x.h.at != y.h.at ? x.h.at < y.h.at : x.h.back < y.h.back;
    });
    out.mode = ThreadMode::None;
    for (const Kept &k : chosen) {
        out.list.push_back(k.h);
        if (out.mode == ThreadMode::None || k.mode < out.mode)
            out.mode = k.mode;
    }
    return out;
}

} // namespace syncscope
