#include "analysis/jobreplay.h"

#include "common/error.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace syncscope {

namespace {
constexpr TimeNs kNever = kNoEnd;
} // namespace

JobReplay::~JobReplay() = default;

JobReplay::JobReplay(const std::vector<const RankInput *> &ranks, const std::vector<Coupled> &coupled,
                     const std::vector<TimeNs> &oldLast, const CancelToken *cancel,
                     const std::function<void(size_t)> &indexed)
    : m_ranks(ranks), m_coupled(coupled), m_oldLast(oldLast), m_cancel(cancel)
{
    const size_t n = ranks.size(), nc = coupled.size();
    auto plan = std::make_shared<Plan>();
    plan->order.resize(n);
    plan->partOf.resize(n);
    {
        std::vector<std::vector<uint32_t>> acts(n);
        for (size_t c = 0; c < nc; ++c)
            for (const Coupled::Part &p : coupled[c].parts)
                acts[p.rank].push_back(p.activity);
        for (size_t r = 0; r < n; ++r) {
            m_replays.push_back(std::make_unique<SyncReplay>(ranks[r]->replay));
            m_replays.back()->setCoupled(acts[r]);
            if (indexed)
                indexed(r);
        }
    }
    // Each rank's collectives in host order (the order its walk meets them).
    {
        std::vector<std::vector<std::pair<uint32_t, PartRef>>> mine(n);
        for (size_t c = 0; c < nc; ++c)
            for (size_t k = 0; k < coupled[c].parts.size(); ++k) {
                const Coupled::Part &p = coupled[c].parts[k];
                mine[p.rank].push_back({p.activity, {static_cast<uint32_t>(c), static_cast<uint32_t>(k)}});
            }
        for (size_t r = 0; r < n; ++r) {
            const SyncReplay &replay = *m_replays[r];
            std::sort(mine[r].begin(), mine[r].end(), [&](const auto &x, const auto &y) {
                return replay.itemOf(x.first) < replay.itemOf(y.first);
            });
            plan->order[r].reserve(mine[r].size());
            plan->partOf[r].reserve(mine[r].size());
            for (const auto &e : mine[r]) {
                plan->order[r].push_back(e.first);
                plan->partOf[r].push_back(e.second);
            }
            std::vector<std::pair<uint32_t, PartRef>>().swap(mine[r]);
        }
    }
    m_plan = plan;
    allocateRunState();
    plan->orderConsistent = ordersConsistent();
    // Per rank, its collectives of each group in host order, for the reach of a change.
    std::map<std::string, size_t> groupIndex;
    for (const Coupled &c : coupled)
        groupIndex.emplace(c.group, groupIndex.size());
    plan->groupItems.resize(n);
    for (size_t r = 0; r < n; ++r) {
        std::unordered_map<size_t, size_t> local;
        for (size_t i = 0; i < plan->order[r].size(); ++i) {
            const uint32_t c = plan->partOf[r][i].collective;
            const auto at = local.emplace(groupIndex.at(coupled[c].group), local.size()).first->second;
            if (at == plan->groupItems[r].size())
                plan->groupItems[r].emplace_back();
            plan->groupItems[r][at].push_back({static_cast<uint32_t>(m_replays[r]->itemOf(plan->order[r][i])), c});
        }
    }
    m_reach.assign(n, 0);
    // Lock-step: every collective has every rank, and every rank meets them in one order.
    bool lockStep = plan->orderConsistent && nc > 0;
    for (size_t c = 0; c < nc && lockStep; ++c)
        lockStep = coupled[c].parts.size() == n;
    for (size_t r = 0; r < n && lockStep; ++r) {
        lockStep = plan->order[r].size() == nc;
        for (size_t i = 0; i < nc && lockStep; ++i)
            lockStep = plan->partOf[r][i].collective == plan->partOf[0][i].collective;
    }
    plan->lockStep = lockStep;
    if (lockStep) {
        plan->seqIndex.assign(nc, 0);
        for (size_t i = 0; i < nc; ++i)
            plan->seqIndex[plan->partOf[0][i].collective] = static_cast<uint32_t>(i);
    }
}

std::unique_ptr<JobReplay> JobReplay::twin() const
{
    return std::unique_ptr<JobReplay>(new JobReplay(*this, Twin{}));
}

TimeNs JobReplay::delta(size_t c) const
{
    if (m_cStamp[c] == m_gen && m_resolved[c])
        return m_delta[c];
    const Coupled::Part &p = m_coupled[c].parts.front();
    if (m_replays[p.rank]->itemOf(p.activity) < m_reach[p.rank])
        return 0; // before anything the run changed could reach
    return m_tailDelta;
}

Walk JobReplay::run(const std::vector<std::vector<size_t>> &removed)
{
    const size_t n = m_ranks.size();
    if (++m_gen == 0) {
        std::fill(m_cStamp.begin(), m_cStamp.end(), 0);
        m_gen = 1;
    }
    m_tailDelta = 0;
    std::vector<State> state(n, Lazy);
    std::vector<size_t> cursor(n, 0), wakeAt(n, SIZE_MAX), partAt(n, 0);
    std::vector<char> walked(n, 0);
    Walk out;
    // Ranks being walked, and ranks whose first removed call is still to come:
    // once both are 0, every rank meets the rest as measured and nothing moves.
    size_t active = 0, pendingWake = 0;
    for (size_t r = 0; r < n; ++r) {
        wakeAt[r] = m_replays[r]->firstRemovedItem(removed[r]);
        pendingWake += wakeAt[r] != SIZE_MAX;
    }
    if (m_plan->orderConsistent) {
        reach(wakeAt);
        for (size_t r = 0; r < n; ++r)
            cursor[r] = firstCollectiveFrom(r, m_reach[r]);
    } else {
        std::fill(m_reach.begin(), m_reach.end(), 0);
    }
    std::vector<size_t> runnable(n), complete, sleeping;
    for (size_t r = 0; r < n; ++r)
        runnable[r] = n - 1 - r; // popped from the back: rank 0 first
    size_t done = 0;
    auto touch = [&](size_t c) {
        if (m_cStamp[c] != m_gen) {
            m_cStamp[c] = m_gen;
            m_arrived[c] = 0;
            m_resolved[c] = 0;
            m_delta[c] = 0;
            m_deltaMax[c] = kNever;
            m_pausedAt[c].clear();
        }
    };
    auto isResolved = [&](size_t c) { return m_cStamp[c] == m_gen && m_resolved[c]; };
    auto wakeSleepers = [&](size_t c) {
        for (size_t r : sleeping) {
            cursor[r] = m_plan->seqIndex[c];
            state[r] = Lazy;
            runnable.push_back(r);
        }
        sleeping.clear();
    };
    auto arrive = [&](size_t r, size_t c, size_t part, TimeNs d, State paused) {
        wakeSleepers(c);
        touch(c);
        partAt[r] = part;
        m_deltaMax[c] = std::max(m_deltaMax[c], d - m_coupled[c].parts[part].wait);
        m_pausedAt[c].push_back(r);
        state[r] = paused;
        if (++m_arrived[c] == m_coupled[c].parts.size())
            complete.push_back(c);
    };
    auto wake = [&](size_t r, size_t item) {
        if (walked[r]) {
            m_replays[r]->rewake(item); // after it converged: the same walk goes on
        } else {
            m_replays[r]->beginWalk(removed[r], item);
            walked[r] = 1;
        }
        if (wakeAt[r] != SIZE_MAX)
            --pendingWake;
        wakeAt[r] = SIZE_MAX;
        state[r] = Running;
        ++active;
    };
    while (done < n) {
        checkCancel(m_cancel);
        if (active == 0 && pendingWake == 0)
            break;
        while (!runnable.empty()) {
            const size_t r = runnable.back();
            runnable.pop_back();
            while (state[r] == Lazy || state[r] == Running) {
                if (state[r] == Lazy) {
                    const std::vector<uint32_t> &mine = m_plan->order[r];
                    const size_t next = cursor[r] < mine.size() ? m_replays[r]->itemOf(mine[cursor[r]]) : SIZE_MAX;
                    if (wakeAt[r] != SIZE_MAX && wakeAt[r] <= next) {
                        wake(r, wakeAt[r]);
                        continue;
                    }
                    if (next == SIZE_MAX) {
                        state[r] = Done;
                        ++done;
                        break;
                    }
                    const PartRef ck = m_plan->partOf[r][cursor[r]];
                    if (isResolved(ck.collective)) { // resolved without this rank (a cycle of groups)
                        if (m_delta[ck.collective] == 0) {
                            ++cursor[r];
                        } else {
                            wake(r, next);
                            m_replays[r]->pauseUnmoved(mine[cursor[r]]);
                            m_replays[r]->resume(m_coupled[ck.collective].parts[ck.part].end +
                                                 m_delta[ck.collective]);
                        }
                        continue;
                    }
                    if (m_plan->lockStep && wakeAt[r] == SIZE_MAX &&
                        !(m_cStamp[ck.collective] == m_gen && m_arrived[ck.collective] > 0)) {
                        state[r] = Asleep;
                        sleeping.push_back(r);
                        break;
                    }
                    arrive(r, ck.collective, ck.part, 0, PausedLazy);
                    break;
                }
                const uint32_t a = m_replays[r]->walkToCoupled();
                if (a == SyncReplay::kConverged) {
                    // Nothing more moves on it unless a collective ends at another time.
                    cursor[r] = firstCollectiveFrom(r, m_replays[r]->walkPos());
                    state[r] = Lazy;
                    --active;
                    continue;
                }
                if (a == UINT32_MAX) {
                    state[r] = Done;
                    ++done;
                    --active;
                    break;
                }
                const PartRef ck = partOfActivity(r, a);
                const Coupled::Part &p = m_coupled[ck.collective].parts[ck.part];
                if (isResolved(ck.collective)) {
                    m_replays[r]->resume(p.end + m_delta[ck.collective]);
                    continue;
                }
                if (m_plan->lockStep && p.wait > 0 && sleeping.size() + 1 == n) { // lock-step: it ends as measured
                    touch(ck.collective);
                    m_resolved[ck.collective] = 1;
                    m_replays[r]->resume(p.end);
                    continue;
                }
                arrive(r, ck.collective, ck.part, m_replays[r]->pausedNewStart() - p.start, Paused);
            }
        }
        if (done == n || (!sleeping.empty() && complete.empty() && active == 0 && pendingWake == 0))
            break; // every rank not done sleeps: nothing more moves
        if (complete.empty()) {
            // Every rank waits at a collective another rank has not reached:
            // take the first such collective (in group, then sequence order),
            // counting the missing ranks as not moved.
            size_t best = SIZE_MAX;
            for (size_t c = 0; c < m_coupled.size() && best == SIZE_MAX; ++c)
                if (m_cStamp[c] == m_gen && !m_resolved[c] && m_arrived[c] > 0)
                    best = c;
            if (best == SIZE_MAX)
                throw Error("internal: the job replay stalled");
            std::vector<char> here(n, 0);
            for (size_t r : m_pausedAt[best])
                here[r] = 1;
            for (const Coupled::Part &p : m_coupled[best].parts)
                if (!here[p.rank])
                    m_deltaMax[best] = std::max(m_deltaMax[best], -p.wait);
            complete.push_back(best);
            ++out.forced;
        }
        size_t resumed = 0;
        for (size_t c : complete) {
            m_delta[c] = std::min<TimeNs>(0, m_deltaMax[c]);
            m_resolved[c] = 1;
            for (size_t r : m_pausedAt[c]) {
                const Coupled::Part &p = m_coupled[c].parts[partAt[r]];
                if (state[r] == PausedLazy) {
                    if (m_delta[c] == 0) {
                        ++cursor[r];
                        state[r] = Lazy;
                    } else {
                        wake(r, m_replays[r]->itemOf(p.activity));
                        m_replays[r]->pauseUnmoved(p.activity);
                        m_replays[r]->resume(p.end + m_delta[c]);
                        ++resumed;
                    }
                } else {
                    m_replays[r]->resume(p.end + m_delta[c]);
                    state[r] = Running;
                    ++resumed;
                }
                runnable.push_back(r);
            }
        }
        complete.clear();
        if (m_plan->orderConsistent && out.forced == 0 && resumed + done == n && uniformTail(state))
            break;
    }
    out.newLast.assign(n, kNever);
    for (size_t r = 0; r < n; ++r) {
        if (!walked[r]) { // nothing on it moved
            out.newLast[r] = m_oldLast[r];
            continue;
        }
        for (TimeNs t : m_replays[r]->walkNewLast())
            if (t != kNoValue)
                out.newLast[r] = std::max(out.newLast[r], t);
        out.newLast[r] = std::max(out.newLast[r], m_replays[r]->skippedMax());
    }
    return out;
}

JobReplay::JobReplay(const JobReplay &other, Twin)
    : m_ranks(other.m_ranks), m_coupled(other.m_coupled), m_oldLast(other.m_oldLast), m_cancel(other.m_cancel),
      m_plan(other.m_plan)
{
    for (const auto &r : other.m_replays)
        m_replays.push_back(r->twin());
    allocateRunState();
    m_reach.assign(m_ranks.size(), 0);
}

// The per-collective state of a run, unstamped.
void JobReplay::allocateRunState()
{
    const size_t nc = m_coupled.size();
    m_cStamp.assign(nc, 0);
    m_arrived.assign(nc, 0);
    m_resolved.assign(nc, 0);
    m_delta.assign(nc, 0);
    m_deltaMax.assign(nc, kNever);
    m_pausedAt.assign(nc, {});
}

// The index into m_plan->order[r] of rank r's first collective at or after item position `item`.
size_t JobReplay::firstCollectiveFrom(size_t r, size_t item) const
{
    const std::vector<uint32_t> &mine = m_plan->order[r];
    return size_t(std::lower_bound(mine.begin(), mine.end(), item,
                                   [&](uint32_t x, size_t pos) { return m_replays[r]->itemOf(x) < pos; }) -
                  mine.begin());
}

// Which collective and part rank r's coupled activity a is.
JobReplay::PartRef JobReplay::partOfActivity(size_t r, uint32_t a) const
{
    const size_t i = firstCollectiveFrom(r, m_replays[r]->itemOf(a));
    if (i >= m_plan->order[r].size() || m_plan->order[r][i] != a)
        throw Error("internal: a coupled activity that is no collective's");
    return m_plan->partOf[r][i];
}

// The first item position of each rank that the walk's changes can reach
// (SIZE_MAX: none): a rank's first removed call, and on every rank of a
// collective that comes at or after a reached item, that collective. Within
// a group the ranks meet the collectives in one order (the orders are
// compatible), so only each group's first reached collective can lower
// another rank's reach.
void JobReplay::reach(const std::vector<size_t> &wakeAt)
{
    std::fill(m_reach.begin(), m_reach.end(), SIZE_MAX);
    std::vector<size_t> work;
    auto lower = [&](size_t r, size_t item) {
        if (item < m_reach[r]) {
            m_reach[r] = item;
            work.push_back(r);
        }
    };
    for (size_t r = 0; r < wakeAt.size(); ++r)
        if (wakeAt[r] != SIZE_MAX)
            lower(r, wakeAt[r]);
    while (!work.empty()) {
        const size_t r = work.back();
        work.pop_back();
        for (const auto &list : m_plan->groupItems[r]) {
            const auto it = std::lower_bound(list.begin(), list.end(), m_reach[r],
                                             [](const std::pair<uint32_t, uint32_t> &e, size_t item) {
                                                 return e.first < item;
                                             });
            if (it == list.end())
                continue;
            for (const Coupled::Part &p : m_coupled[it->second].parts)
                lower(p.rank, m_replays[p.rank]->itemOf(p.activity));
        }
    }
}

// Every rank not done has just resumed after a collective, in a uniform
// shift of one amount: the walks end there, the rest moved by it.
bool JobReplay::uniformTail(const std::vector<State> &state)
{
    TimeNs d = 0;
    bool have = false;
    for (size_t r = 0; r < m_ranks.size(); ++r) {
        if (state[r] != Running)
            continue; // done
        TimeNs s = 0;
        if (!m_replays[r]->resumedUniformShift(s) || (have && s != d))
            return false;
        d = s;
        have = true;
    }
    if (!have)
        return false;
    for (size_t r = 0; r < m_ranks.size(); ++r)
        if (state[r] == Running)
            m_replays[r]->endShifted(d);
    m_tailDelta = -d;
    return true;
}

// Whether every collective can be reached with each rank meeting its own in
// host order (no cycle of groups met in opposite orders): then no run ever
// resolves a collective before all its ranks arrived.
bool JobReplay::ordersConsistent() const
{
    const size_t n = m_ranks.size(), nc = m_coupled.size();
    std::vector<size_t> ptr(n, 0), at(nc, 0), ready;
    auto enter = [&](size_t r) {
        if (ptr[r] >= m_plan->order[r].size())
            return;
        const size_t c = m_plan->partOf[r][ptr[r]].collective;
        if (++at[c] == m_coupled[c].parts.size())
            ready.push_back(c);
    };
    for (size_t r = 0; r < n; ++r)
        enter(r);
    size_t resolved = 0;
    while (!ready.empty()) {
        const size_t c = ready.back();
        ready.pop_back();
        ++resolved;
        for (const Coupled::Part &p : m_coupled[c].parts) {
            ++ptr[p.rank];
            enter(p.rank);
        }
    }
    return resolved == nc;
}

} // namespace syncscope
