#include "analysis/jobscale.h"

#include "analysis/advice.h"

#include "analysis/jsonwriter.h"
#include "analysis/syncanalysis.h"
#include "analysis/syncreplay.h"
#include "analysis/windowsearch.h"
#include "common/error.h"
#include "common/threadsperrun.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <thread>
#include <unordered_map>

namespace syncscope {

namespace {

constexpr TimeNs kNever = std::numeric_limits<TimeNs>::min();

// One matched collective across its ranks.
struct Coupled {
    std::string group, name;
    uint32_t seq = 0;
    struct Part {
        uint32_t rank;      // index into the sorted ranks
        uint32_t activity;
        TimeNs start, end, wait;
    };
    std::vector<Part> parts; // by rank
    size_t last = 0;         // index into parts
    TimeNs lateness = 0;
};

struct Walk {
    std::vector<TimeNs> newLast;  // per rank: latest new end of any activity (kNever: none)
    size_t forced = 0;            // collectives resolved before every rank arrived
};

class JobReplay {
public:
    // oldLast: per rank, its last measured end (kNever: no activity).
    // indexed(r), when given, runs as soon as rank r's replay index is built,
    // before the next rank's: where the caller lets go of what only the index
    // needed (the launch calls), no two ranks' worth of it are held at once.
    JobReplay(const std::vector<const RankInput *> &ranks, const std::vector<Coupled> &coupled,
              const std::vector<TimeNs> &oldLast, const CancelToken *cancel,
              const std::function<void(size_t)> &indexed = {})
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
                std::sort(mine[r].begin(), mine[r].end(),
                          [&](const auto &x, const auto &y) { return replay.itemOf(x.first) < replay.itemOf(y.first); });
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
                plan->groupItems[r][at].push_back(
                    {static_cast<uint32_t>(m_replays[r]->itemOf(plan->order[r][i])), c});
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

    JobReplay(const JobReplay &) = delete;
    JobReplay &operator=(const JobReplay &) = delete;

    // A replay of the same job with a walk state of its own, sharing the ranks'
    // replay indexes with this one (for replays on several threads), as
    // SyncReplay::twin does for one rank.
    std::unique_ptr<JobReplay> twin() const
    {
        return std::unique_ptr<JobReplay>(new JobReplay(*this, Twin{}));
    }

    // How much later collective c ended in the last run() (<= 0).
    TimeNs delta(size_t c) const
    {
        if (m_cStamp[c] == m_gen && m_resolved[c])
            return m_delta[c];
        const Coupled::Part &p = m_coupled[c].parts.front();
        if (m_replays[p.rank]->itemOf(p.activity) < m_reach[p.rank])
            return 0; // before anything the run changed could reach
        return m_tailDelta;
    }

    // A rank whose walk has changed nothing yet is lazy: it reaches each of its
    // collectives as measured (delta 0) without being walked, until a collective
    // it takes part in ends at another time or its first removed call comes;
    // from there it is walked. Before that point nothing on it moved, so the
    // walk may start there, exactly as SyncReplay::run starts at its first call.
    // Where the ranks meet their collectives in compatible orders, a lazy rank
    // starts at the first of its collectives a change can reach (reach()): every
    // collective before it ends as measured on every rank, so stepping through
    // them one by one, as the ranks do otherwise, finds nothing.
    // In a lock-step job (every rank at every collective, in one order) a lazy
    // rank with no removed call to come sleeps at a collective no rank has
    // reached yet. A walked rank that reaches a collective where it waited
    // (w > 0) while every other rank sleeps resolves it alone: the sleeping
    // ranks arrive as measured and one of them has w = 0, so it ends as
    // measured (Delta = 0) and they sleep on. Any other arrival wakes the
    // sleepers there; the collectives they slept through all ended as measured.
    // The walk ends once no rank is walked and no removed call is left, or once
    // every rank still to go has just left a collective in a uniform shift of
    // one amount D (SyncReplay::resumedUniformShift): every rank then reaches
    // every later collective D early, which then ends D early on every rank, so
    // everything still to come moves by D.
    Walk run(const std::vector<std::vector<size_t>> &removed)
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
                                m_replays[r]->resume(m_coupled[ck.collective].parts[ck.part].end + m_delta[ck.collective]);
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

private:
    struct Twin {};
    JobReplay(const JobReplay &other, Twin)
        : m_ranks(other.m_ranks), m_coupled(other.m_coupled), m_oldLast(other.m_oldLast),
          m_cancel(other.m_cancel), m_plan(other.m_plan)
    {
        for (const auto &r : other.m_replays)
            m_replays.push_back(r->twin());
        allocateRunState();
        m_reach.assign(m_ranks.size(), 0);
    }

    enum State : uint8_t { Lazy, Running, Paused, PausedLazy, Asleep, Done };
    const std::vector<const RankInput *> &m_ranks;
    const std::vector<Coupled> &m_coupled;
    const std::vector<TimeNs> &m_oldLast; // per rank: its last measured end
    const CancelToken *m_cancel;
    std::vector<std::unique_ptr<SyncReplay>> m_replays;
    struct PartRef {
        uint32_t collective, part; // into m_coupled, and its parts
    };
    // What the job's collectives are to each rank, read-only once built and
    // shared by the twins.
    struct Plan {
        std::vector<std::vector<uint32_t>> order;  // per rank: its collectives' activities in host order
        std::vector<std::vector<PartRef>> partOf;  // per rank, as `order`: which collective and part
        bool orderConsistent = true;               // the ranks meet their collectives in compatible orders
        // Per rank, its collectives of each group in host order: (item position, collective).
        std::vector<std::vector<std::vector<std::pair<uint32_t, uint32_t>>>> groupItems;
        bool lockStep = false;          // every rank meets every collective, in one order
        std::vector<uint32_t> seqIndex; // lock-step: a collective's position in that order
    };
    std::shared_ptr<const Plan> m_plan;
    // Per collective, valid in the current run where m_cStamp equals m_gen.
    uint32_t m_gen = 0;
    std::vector<uint32_t> m_cStamp;
    std::vector<size_t> m_arrived;
    std::vector<char> m_resolved;
    std::vector<TimeNs> m_delta, m_deltaMax;
    std::vector<std::vector<size_t>> m_pausedAt;
    TimeNs m_tailDelta = 0; // of the collectives the run did not reach
    std::vector<size_t> m_reach; // per rank, in the last run: the first item a change could reach

    // The per-collective state of a run, unstamped.
    void allocateRunState()
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
    size_t firstCollectiveFrom(size_t r, size_t item) const
    {
        const std::vector<uint32_t> &mine = m_plan->order[r];
        return size_t(std::lower_bound(mine.begin(), mine.end(), item,
                                       [&](uint32_t x, size_t pos) { return m_replays[r]->itemOf(x) < pos; }) -
                      mine.begin());
    }

    // Which collective and part rank r's coupled activity a is.
    PartRef partOfActivity(size_t r, uint32_t a) const
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
    void reach(const std::vector<size_t> &wakeAt)
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
                const auto it = std::lower_bound(
                    list.begin(), list.end(), m_reach[r],
                    [](const std::pair<uint32_t, uint32_t> &e, size_t item) { return e.first < item; });
                if (it == list.end())
                    continue;
                for (const Coupled::Part &p : m_coupled[it->second].parts)
                    lower(p.rank, m_replays[p.rank]->itemOf(p.activity));
            }
        }
    }

    // Every rank not done has just resumed after a collective, in a uniform
    // shift of one amount: the walks end there, the rest moved by it.
    bool uniformTail(const std::vector<State> &state)
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
    bool ordersConsistent() const
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
};

// How many threads the job's replays use: `requested` (0: every core), and no
// more extra threads than fit 1 GiB of their state: each twin walks every rank
// at most once (about 4 bytes per GPU activity of the job) and keeps its own
// per-collective state (about 64 bytes per collective and 8 per part); the
// collectives' order is one plan they share.
size_t replayThreads(size_t requested, const std::vector<const RankInput *> &ranks,
                     const std::vector<Coupled> &coupled)
{
    size_t threads = requested ? requested : std::max(1u, std::thread::hardware_concurrency());
    size_t activities = 0, parts = 0;
    for (const RankInput *r : ranks)
        activities += r->replay.activities.size();
    for (const Coupled &c : coupled)
        parts += c.parts.size();
    const size_t perTwin = std::max<size_t>(1, activities * 4 + coupled.size() * 64 + parts * 8);
    return std::max<size_t>(1, std::min(threads, 1 + (size_t(1) << 30) / perTwin));
}

// Nearest-rank percentiles of a sorted list: p5 at floor(0.05 (n-1)), the median
// at floor((n-1)/2), p95 at ceil(0.95 (n-1)).
void percentiles(std::vector<TimeNs> v, TimeNs &median, TimeNs &p5, TimeNs &p95)
{
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    median = v[(n - 1) / 2];
    p5 = v[(5 * (n - 1)) / 100];
    p95 = v[(95 * (n - 1) + 99) / 100];
}

int64_t rankOf(const std::vector<RankInput> &input, size_t i)
{
    return input[i].rank != kNoValue ? input[i].rank : int64_t(i);
}

// Rank identity: distributedInfo.rank, else the position of the file. The
// positions in rank order; two files of one rank are an Error.
std::vector<size_t> rankOrder(const std::vector<int64_t> &rank, const std::vector<std::string> &file)
{
    std::vector<std::pair<int64_t, size_t>> order;
    for (size_t i = 0; i < rank.size(); ++i)
        order.push_back({rank[i] != kNoValue ? rank[i] : int64_t(i), i});
    std::stable_sort(order.begin(), order.end(),
                     [](const auto &x, const auto &y) { return x.first < y.first; });
    for (size_t i = 1; i < order.size(); ++i)
        if (order[i].first == order[i - 1].first)
            throw Error("'" + file[order[i - 1].second] + "' and '" + file[order[i].second] +
                        "' are both rank " + std::to_string(order[i].first) +
                        " of the job: give each rank's trace once");
    std::vector<size_t> out;
    for (const auto &o : order)
        out.push_back(o.second);
    return out;
}

std::vector<size_t> rankOrder(const std::vector<RankInput> &input)
{
    std::vector<int64_t> rank;
    std::vector<std::string> file;
    for (const RankInput &r : input) {
        rank.push_back(r.rank);
        file.push_back(r.file);
    }
    return rankOrder(rank, file);
}

// The collectives of ranks (in rank order) matched by (group, seq), in group,
// then sequence order; the ones that cannot be coupled are counted in `unmatched`.
std::vector<Coupled> coupleCollectives(const std::vector<const ReplayInput *> &ranks, size_t &unmatched)
{
    const size_t n = ranks.size();
    // Collectives: by group, the ranks that have any, and each (group, seq).
    std::map<std::string, std::vector<char>> groupRanks;
    std::map<std::pair<std::string, uint32_t>, std::vector<const CollectiveKernel *>> bySeq;
    for (size_t r = 0; r < n; ++r)
        for (const CollectiveKernel &c : ranks[r]->collectives) {
            auto &g = groupRanks[c.group];
            g.resize(n, 0);
            g[r] = 1;
            auto &v = bySeq[{c.group, c.seq}];
            v.resize(n, nullptr);
            v[r] = &c;
        }
    std::vector<Coupled> coupled;
    for (const auto &kv : bySeq) {
        const std::vector<char> &members = groupRanks[kv.first.first];
        bool ok = true;
        const CollectiveKernel *first = nullptr;
        for (size_t r = 0; r < n && ok; ++r) {
            if (!members[r])
                continue;
            const CollectiveKernel *k = kv.second[r];
            if (!k || (first && k->name != first->name))
                ok = false;
            else if (!first)
                first = k;
        }
        size_t memberCount = 0;
        for (char m : members)
            memberCount += m != 0;
        if (!ok || !first || memberCount < 2) {
            ++unmatched;
            continue;
        }
        Coupled c;
        c.group = kv.first.first;
        c.seq = kv.first.second;
        c.name = first->name;
        TimeNs d = std::numeric_limits<TimeNs>::max();
        for (size_t r = 0; r < n; ++r) {
            const CollectiveKernel *k = members[r] ? kv.second[r] : nullptr;
            if (!k)
                continue;
            const ReplayActivity &a = ranks[r]->activities[k->activity];
            c.parts.push_back({static_cast<uint32_t>(r), k->activity, a.start, a.end, 0});
            d = std::min(d, a.end - a.start);
        }
        for (Coupled::Part &p : c.parts)
            p.wait = (p.end - p.start) - d;
        // The last: no wait (ties: the lowest rank); lateness: the second smallest wait.
        std::vector<TimeNs> waits;
        for (size_t i = 0; i < c.parts.size(); ++i) {
            waits.push_back(c.parts[i].wait);
            if (c.parts[i].wait < c.parts[c.last].wait)
                c.last = i;
        }
        std::sort(waits.begin(), waits.end());
        c.lateness = waits.size() > 1 ? waits[1] : 0;
        coupled.push_back(std::move(c));
    }
    return coupled;
}

// Clock offsets from the coupled collectives' ends, against the first rank.
std::vector<ClockOffset> offsetsFrom(const std::vector<Coupled> &coupled, size_t n)
{
    std::vector<std::vector<TimeNs>> diffs(n);
    for (const Coupled &c : coupled) {
        if (c.parts.front().rank != 0)
            continue;
        const TimeNs end0 = c.parts.front().end;
        for (const Coupled::Part &p : c.parts)
            diffs[p.rank].push_back(p.end - end0);
    }
    std::vector<ClockOffset> out(n);
    for (size_t r = 0; r < n; ++r)
        if (!diffs[r].empty()) {
            out[r].known = true;
            percentiles(diffs[r], out[r].median, out[r].p5, out[r].p95);
        }
    return out;
}
} // namespace

RankInput makeRankInput(const TraceModel &model, const SyncAnalysis &analysis)
{
    RankInput r;
    r.rank = model.info().rank;
    r.file = model.info().path;
    r.clockShift = model.info().clockShift;
    r.origin = model.minTime();
    r.replay = analysis.replay;
    for (const SyncSource &s : analysis.sources) {
        RankSource rs;
        rs.sync = std::string(model.str(s.sync));
        rs.hasOp = s.op != kNoStr;
        if (rs.hasOp)
            rs.op = std::string(model.str(s.op));
        rs.hasUserFrame = s.userFrame != kNoStr;
        if (rs.hasUserFrame)
            rs.userFrame = std::string(model.str(s.userFrame));
        const AdviceRules &rules = builtinAdviceRules();
        for (size_t c : s.calls) {
            rs.calls.push_back(static_cast<uint32_t>(c));
            const int32_t a = analysis.syncCalls[c].advice;
            rs.callAdvice.push_back(a >= 0 ? rules.rules[size_t(a)].id : std::string());
        }
        if (s.advice >= 0)
            rs.advice = builtinAdviceRules().rules[size_t(s.advice)].id;
        r.sources.push_back(std::move(rs));
    }
    for (const Step &s : analysis.steps)
        r.steps.push_back({std::string(model.str(s.name)), s.start, s.end});
    for (const DeviceActivity &d : analysis.devices)
        r.localAvoidable.push_back(d.avoidable);
    return r;
}

std::vector<ClockOffset> clockOffsets(const std::vector<int64_t> &rank, const std::vector<std::string> &file,
                                      const std::vector<const ReplayInput *> &replays)
{
    const std::vector<size_t> order = rankOrder(rank, file);
    std::vector<const ReplayInput *> sorted;
    for (size_t i : order)
        sorted.push_back(replays[i]);
    size_t unmatched = 0;
    const std::vector<ClockOffset> byRank = offsetsFrom(coupleCollectives(sorted, unmatched), sorted.size());
    std::vector<ClockOffset> out(replays.size());
    for (size_t r = 0; r < order.size(); ++r)
        out[order[r]] = byRank[r];
    return out;
}

namespace {

// A rank input read back from a file may be damaged: every index must point
// inside its table before a replay touches it.
void validate(const RankInput &r)
{
    const ReplayInput &in = r.replay;
    auto bad = [&](const char *what) {
        throw Error("the rank data of '" + r.file + "' is inconsistent (" + what +
                    "): summarize the trace again");
    };
    for (const ReplayActivity &a : in.activities)
        if (a.device >= in.deviceIds.size() || a.stream >= in.streamIds.size() || a.end < a.start)
            bad("an activity names a device or stream it does not list, or ends before it starts");
    for (const StreamDependency &d : in.deps)
        if (d.activity >= in.activities.size() || d.on >= in.activities.size())
            bad("a stream dependency names an activity it does not have");
    {
        std::vector<uint32_t> kernels;
        kernels.reserve(in.collectives.size());
        for (const CollectiveKernel &c : in.collectives) {
            if (c.activity >= in.activities.size())
                bad("a collective names an activity it does not have");
            kernels.push_back(c.activity);
        }
        std::sort(kernels.begin(), kernels.end());
        if (std::adjacent_find(kernels.begin(), kernels.end()) != kernels.end())
            bad("two collectives name one activity");
    }
    for (const RankSource &s : r.sources)
        for (uint32_t c : s.calls)
            if (c >= in.calls.size())
                bad("a sync source names a call it does not have");
    for (const ReplayBlocking &c : in.calls)
        if (c.end < c.start)
            bad("a blocking call ends before it starts");
    if (r.localAvoidable.size() > in.deviceIds.size())
        bad("more per-device figures than devices");
}

} // namespace

namespace {

// The job analysis; with `whatIf` (per input file, calls to remove) it stops
// once the replay without exactly those calls, together, has run, and puts its
// saving in *whatIfSaving. With `owned` (the same vector as `input`, given
// up by the caller) each rank's launch calls are let go once the replay
// indexes no longer need them.
JobScale jobScaleImpl(const std::vector<RankInput> &input, const ProgressFn &progress,
                      const CancelToken *cancel, const std::vector<std::vector<size_t>> *whatIf,
                      TimeNs *whatIfSaving, size_t threads, std::vector<RankInput> *owned = nullptr)
{
    JobScale job;
    for (const RankInput &r : input)
        validate(r);
    const std::vector<size_t> order = rankOrder(input);
    std::vector<const RankInput *> ranks;
    std::vector<const ReplayInput *> replays;
    for (size_t i : order) {
        ranks.push_back(&input[i]);
        replays.push_back(&input[i].replay);
    }
    const size_t n = ranks.size();
    job.ranks = n;
    std::vector<Coupled> coupled = coupleCollectives(replays, job.unmatched);
    job.collectives = coupled.size();
    // In group, then sequence order, already (coupleCollectives returns them so).

    // Clock offsets from the collectives' ends, against the first rank, on the
    // clocks the ranks were analysed in (offset); the rows report them on the
    // files' clocks.
    std::vector<TimeNs> offset(n, 0);
    job.rankRows.resize(n);
    {
        const std::vector<ClockOffset> clocks = offsetsFrom(coupled, n);
        size_t missing = 0;
        for (size_t r = 0; r < n; ++r) {
            JobRank &row = job.rankRows[r];
            const ClockOffset &c = clocks[r];
            missing += r > 0 && !c.known;
            offset[r] = c.median;
            row.analysedOffset = c.median;
            row.clockShift = ranks[r]->clockShift;
            if (!c.known)
                continue;
            // analysed = file + shift, so the file clocks differ by the shifts less.
            const TimeNs fileDelta = ranks[r]->clockShift - ranks[0]->clockShift;
            row.hasClockOffset = true;
            row.clockOffset = c.median - fileDelta;
            row.clockOffsetP5 = c.p5 - fileDelta;
            row.clockOffsetP95 = c.p95 - fileDelta;
        }
        if (missing)
            job.warnings.push_back(std::to_string(missing) +
                                   " rank(s) share no collective with the first rank: their clocks "
                                   "are taken as aligned with it");
    }

    for (size_t r = 0; r < n; ++r) {
        JobRank &row = job.rankRows[r];
        row.rank = rankOf(input, order[r]);
        row.file = ranks[r]->file;
        row.fileIndex = size_t(ranks[r] - input.data());
        row.waitMode = ranks[r]->replay.waitMode;
        row.streamWaits = ranks[r]->replay.deps.size();
        // The device: the one most of its collectives run on (ties: the lowest
        // id), else its busiest.
        const RankInput &ri = *ranks[r];
        std::vector<uint64_t> count(ri.replay.deviceIds.size(), 0);
        for (const CollectiveKernel &k : ri.replay.collectives)
            if (k.activity < ri.replay.activities.size())
                ++count[ri.replay.activities[k.activity].device];
        if (std::all_of(count.begin(), count.end(), [](uint64_t x) { return x == 0; }))
            for (const ReplayActivity &a : ri.replay.activities)
                ++count[a.device];
        size_t dense = SIZE_MAX;
        if (!count.empty() && *std::max_element(count.begin(), count.end()) > 0) {
            dense = size_t(std::max_element(count.begin(), count.end()) - count.begin());
            row.device = ri.replay.deviceIds[dense];
        }
        if (dense != SIZE_MAX && dense < ri.localAvoidable.size())
            row.localAvoidable = ri.localAvoidable[dense];
        if (owned && !whatIf) // coupled: its collectives' names and groups are no longer read
            std::vector<CollectiveKernel>().swap((*owned)[size_t(ranks[r] - input.data())].replay.collectives);
    }

    // The measured job: first start and last end per rank, on the aligned clock.
    std::vector<TimeNs> oldLast(n, kNever);
    TimeNs first = std::numeric_limits<TimeNs>::max(), jobEnd = kNever;
    for (size_t r = 0; r < n; ++r) {
        for (const ReplayActivity &a : ranks[r]->replay.activities) {
            oldLast[r] = std::max(oldLast[r], a.end);
            first = std::min(first, a.start - offset[r]);
        }
        if (oldLast[r] != kNever)
            jobEnd = std::max(jobEnd, oldLast[r] - offset[r]);
    }
    if (jobEnd == kNever) {
        job.warnings.push_back("no rank has GPU activity: nothing to replay");
        if (whatIfSaving)
            *whatIfSaving = 0;
        return job;
    }
    job.span = jobEnd - first;

    std::vector<std::vector<std::pair<size_t, size_t>>> partsOf(n); // (collective, part)
    for (size_t c = 0; c < coupled.size(); ++c)
        for (size_t i = 0; i < coupled[c].parts.size(); ++i)
            partsOf[coupled[c].parts[i].rank].push_back({c, i});
    // Each collective's step, as partsOf: the latest-starting step whose window
    // holds its launch call's start; -1 (none) without a launch call. The last
    // use of the launch calls, which the replay index holds what it needs of:
    // worked out for each rank as soon as its index is built.
    std::vector<std::vector<int64_t>> stepOfPart(n);
    auto replay = std::make_unique<JobReplay>(ranks, coupled, oldLast, cancel, [&](size_t r) {
        const RankInput &ri = *ranks[r];
        std::unordered_map<int64_t, TimeNs> launchStart;
        for (const ReplayLaunch &l : ri.replay.launches)
            launchStart.emplace(l.correlation, l.start);
        const WindowSearch<RankStepWindow> search(ri.steps);
        for (const auto &ck : partsOf[r]) {
            const ReplayActivity &act = ri.replay.activities[coupled[ck.first].parts[ck.second].activity];
            auto it = act.correlation == kNoValue ? launchStart.end() : launchStart.find(act.correlation);
            stepOfPart[r].push_back(it == launchStart.end() ? -1 : search.find(it->second));
        }
        if (owned && !whatIf)
            std::vector<ReplayLaunch>().swap((*owned)[size_t(ranks[r] - input.data())].replay.launches);
    });
    auto jobSaving = [&](const Walk &w) {
        TimeNs end = kNever;
        for (size_t r = 0; r < n; ++r)
            if (w.newLast[r] != kNever)
                end = std::max(end, w.newLast[r] - offset[r]);
        return std::max<TimeNs>(0, jobEnd - end);
    };
    auto onlyRank = [&](size_t r, std::vector<size_t> calls) {
        std::vector<std::vector<size_t>> removed(n);
        removed[r] = std::move(calls);
        return removed;
    };
    auto allCalls = [&](size_t r) {
        std::vector<size_t> v(ranks[r]->replay.calls.size());
        for (size_t i = 0; i < v.size(); ++i)
            v[i] = i;
        return v;
    };
    if (whatIf) {
        std::vector<std::vector<size_t>> removed(n);
        for (size_t r = 0; r < n; ++r) {
            const size_t f = size_t(ranks[r] - input.data());
            if (f < whatIf->size())
                for (size_t c : (*whatIf)[f])
                    if (c < ranks[r]->replay.calls.size())
                        removed[r].push_back(c);
            std::sort(removed[r].begin(), removed[r].end());
            removed[r].erase(std::unique(removed[r].begin(), removed[r].end()), removed[r].end());
        }
        *whatIfSaving = jobSaving(replay->run(removed));
        return job;
    }

    // What may make the job late: a rank with no wait at some collective, or whose
    // last activity ends the job. Any other rank's fix saves the job exactly 0.
    std::vector<char> critical(n, 0);
    for (const Coupled &c : coupled)
        for (const Coupled::Part &p : c.parts)
            if (p.wait == 0)
                critical[p.rank] = 1;
    for (size_t r = 0; r < n; ++r)
        if (oldLast[r] != kNever && oldLast[r] - offset[r] == jobEnd)
            critical[r] = 1;

    size_t work = 1, doneWork = 0;
    for (size_t r = 0; r < n; ++r)
        if (critical[r])
            work += 1 + ranks[r]->steps.size() + ranks[r]->sources.size();
    auto tick = [&](const char *what) {
        checkCancel(cancel);
        if (progress)
            progress(double(++doneWork) / double(work), what);
    };

    {
        std::vector<std::vector<size_t>> removed(n);
        for (size_t r = 0; r < n; ++r)
            removed[r] = allCalls(r);
        const Walk w = replay->run(removed);
        job.avoidable = jobSaving(w);
        if (w.forced)
            job.warnings.push_back(std::to_string(w.forced) +
                                   " collective(s) were met in a different order on different ranks; "
                                   "the replay counted the ranks not yet there as not moved");
        tick("job replay");
    }

    // The replays below are independent of each other: they run on a pool of
    // threads, each task writing its own slot.
    std::vector<std::unique_ptr<JobReplay>> twins;
    std::vector<JobReplay *> workers{replay.get()};
    for (size_t t = 1, count = replayThreads(threads, ranks, coupled); t < count; ++t) {
        twins.push_back(replay->twin());
        workers.push_back(twins.back().get());
    }
    ThreadsPerRun<JobReplay> pool(workers);

    // Rows per rank: waits and last arrivals, and which ranks are critical.
    std::vector<size_t> criticalRanks;
    for (size_t r = 0; r < n; ++r) {
        JobRank &row = job.rankRows[r];
        for (const auto &ck : partsOf[r]) {
            row.wait += coupled[ck.first].parts[ck.second].wait;
            row.lastArrivals += ck.second == coupled[ck.first].last;
        }
        if (critical[r])
            criticalRanks.push_back(r);
    }
    // The replay is monotone in what it removes (every new time is a min and max
    // of earlier ones, and a removed call only adds to a head start), so where
    // all of a rank's calls save the job nothing, so does any part of them.
    std::vector<char> savesNothing(n, 0);
    {
        std::vector<size_t> forced(criticalRanks.size(), 0);
        pool.run(
            criticalRanks.size(),
            [&](JobReplay &rp, size_t i) {
                const size_t r = criticalRanks[i];
                const Walk w = rp.run(onlyRank(r, allCalls(r)));
                job.rankRows[r].jobAvoidable = jobSaving(w);
                forced[i] = w.forced;
            },
            [&] { tick("replay of each rank"); });
        for (size_t i = 0; i < criticalRanks.size(); ++i) {
            const size_t r = criticalRanks[i];
            savesNothing[r] = job.rankRows[r].jobAvoidable == 0 && forced[i] == 0;
        }
    }

    // Which sync on the last rank moved each collective most: each source of a
    // critical rank alone, in rank and then source order (the first of equals).
    std::vector<std::vector<size_t>> lastAt(n); // per rank: the collectives it was last at
    for (size_t c = 0; c < coupled.size(); ++c)
        lastAt[coupled[c].parts[coupled[c].last].rank].push_back(c);
    std::vector<std::pair<size_t, const RankSource *>> blameTasks;
    for (size_t r : criticalRanks)
        for (const RankSource &s : ranks[r]->sources)
            blameTasks.push_back({r, &s});
    std::vector<std::vector<std::pair<size_t, TimeNs>>> moved(
        blameTasks.size()); // (collective, delta < 0)
    pool.run(
        blameTasks.size(),
        [&](JobReplay &rp, size_t i) {
            const size_t r = blameTasks[i].first;
            if (lastAt[r].empty())
                return;
            const RankSource &s = *blameTasks[i].second;
            rp.run(onlyRank(r, std::vector<size_t>(s.calls.begin(), s.calls.end())));
            for (size_t c : lastAt[r])
                if (rp.delta(c) < 0)
                    moved[i].push_back({c, rp.delta(c)});
        },
        [&] { tick("blame"); });
    std::vector<TimeNs> bestDelta(coupled.size(), 0);
    std::vector<const RankSource *> bestSource(coupled.size(), nullptr);
    for (size_t i = 0; i < blameTasks.size(); ++i)
        for (const auto &cd : moved[i])
            if (cd.second < bestDelta[cd.first]) {
                bestDelta[cd.first] = cd.second;
                bestSource[cd.first] = blameTasks[i].second;
            }
    moved.clear();
    for (size_t c = 0; c < coupled.size(); ++c) {
        const Coupled &k = coupled[c];
        const Coupled::Part &p = k.parts[k.last];
        CollectiveBlame b;
        b.group = k.group;
        b.seq = k.seq;
        b.name = k.name;
        b.lastRank = rankOf(input, order[p.rank]);
        b.lateness = k.lateness;
        b.start = p.start - offset[p.rank];
        b.end = p.end - offset[p.rank];
        if (bestSource[c]) {
            // The source without its per-call lists: every collective holding a
            // copy of them made the memory grow with the square of the steps.
            const RankSource &src = *bestSource[c];
            b.hasCause = true;
            b.cause.sync = src.sync;
            b.cause.op = src.op;
            b.cause.userFrame = src.userFrame;
            b.cause.hasOp = src.hasOp;
            b.cause.hasUserFrame = src.hasUserFrame;
            b.cause.advice = src.advice;
            b.saves = -bestDelta[c];
        }
        job.blame.push_back(std::move(b));
    }
    std::stable_sort(job.blame.begin(), job.blame.end(),
                     [](const CollectiveBlame &x, const CollectiveBlame &y) { return x.lateness > y.lateness; });

    // Rank x step: each step of a critical rank is a task (one tick each); those
    // with calls to remove, on a rank whose calls can save the job anything, replay.
    // A task's calls are a range of its rank's calls by end (byEnd). The rows
    // are made once the replays are done and their state is let go.
    struct StepTask {
        uint32_t rank, begin, end; // begin == end: nothing to replay
        TimeNs avoidable = 0;
    };
    std::vector<StepTask> stepTasks; // by rank, then step
    {
        std::vector<std::vector<uint32_t>> byEnd(n); // per rank that can save the job anything
        size_t tasks = 0;
        for (size_t r = 0; r < n; ++r)
            tasks += critical[r] ? ranks[r]->steps.size() : 0;
        stepTasks.reserve(tasks);
        for (size_t r = 0; r < n; ++r) {
            if (!critical[r])
                continue;
            const RankInput &ri = *ranks[r];
            // The calls by end, for each step's calls.
            if (!savesNothing[r]) {
                byEnd[r].resize(ri.replay.calls.size());
                for (size_t c = 0; c < byEnd[r].size(); ++c)
                    byEnd[r][c] = uint32_t(c);
                std::stable_sort(byEnd[r].begin(), byEnd[r].end(), [&](uint32_t x, uint32_t y) {
                    return ri.replay.calls[x].end < ri.replay.calls[y].end;
                });
            }
            auto endsBefore = [&](uint32_t c, TimeNs t) { return ri.replay.calls[c].end < t; };
            const std::vector<uint32_t> &mine = byEnd[r]; // empty where it saves nothing
            for (const RankStepWindow &s : ri.steps) {
                const auto b = std::lower_bound(mine.begin(), mine.end(), s.start, endsBefore);
                const auto e = std::lower_bound(b, mine.end(), s.end, endsBefore);
                stepTasks.push_back({uint32_t(r), uint32_t(b - mine.begin()), uint32_t(e - mine.begin())});
            }
        }
        pool.run(
            stepTasks.size(),
            [&](JobReplay &rp, size_t i) {
                StepTask &t = stepTasks[i];
                if (t.begin == t.end)
                    return;
                std::vector<size_t> calls(byEnd[t.rank].begin() + t.begin, byEnd[t.rank].begin() + t.end);
                std::sort(calls.begin(), calls.end());
                t.avoidable = jobSaving(rp.run(onlyRank(t.rank, std::move(calls))));
            },
            [&] { tick("replay of each step"); });
    }
    // The replays are done: their indexes and walk state go before the rows come.
    twins.clear();
    replay.reset();

    size_t rows = 0;
    for (size_t r = 0; r < n; ++r)
        rows += ranks[r]->steps.size();
    job.rankSteps.reserve(rows);
    size_t task = 0;
    for (size_t r = 0; r < n; ++r) {
        const RankInput &ri = *ranks[r];
        std::vector<std::vector<std::pair<size_t, size_t>>> inStep(ri.steps.size());
        for (size_t i = 0; i < partsOf[r].size(); ++i)
            if (stepOfPart[r][i] >= 0)
                inStep[size_t(stepOfPart[r][i])].push_back(partsOf[r][i]);
        for (size_t k = 0; k < ri.steps.size(); ++k) {
            const RankStepWindow &s = ri.steps[k];
            RankStep st;
            st.rank = rankOf(input, order[r]);
            if (owned) // its last use
                st.step = std::move((*owned)[size_t(ranks[r] - input.data())].steps[k].name);
            else
                st.step = s.name;
            st.start = s.start;
            st.end = s.end;
            st.dur = s.end - s.start;
            for (const auto &ck : inStep[k]) {
                st.wait += coupled[ck.first].parts[ck.second].wait;
                if (ck.second == coupled[ck.first].last)
                    st.lateness += coupled[ck.first].lateness;
            }
            if (critical[r])
                st.avoidable = stepTasks[task++].avoidable;
            job.rankSteps.push_back(std::move(st));
        }
    }
    if (job.unmatched)
        job.warnings.push_back(std::to_string(job.unmatched) +
                               " collective(s) are missing on some ranks of their group or differ in "
                               "kernel name: they were not coupled");
    if (progress)
        progress(1.0, "done");
    return job;
}

} // namespace

JobScale analyzeJobScale(const std::vector<RankInput> &input, const ProgressFn &progress,
                         const CancelToken *cancel, size_t threads)
{
    return jobScaleImpl(input, progress, cancel, nullptr, nullptr, threads);
}

JobScale analyzeJobScale(std::vector<RankInput> &&input, const ProgressFn &progress,
                         const CancelToken *cancel, size_t threads)
{
    std::vector<RankInput> owned = std::move(input);
    return jobScaleImpl(owned, progress, cancel, nullptr, nullptr, threads, &owned);
}

TimeNs jobWhatIfSaving(const std::vector<RankInput> &input, const std::vector<std::vector<size_t>> &removed,
                       const CancelToken *cancel)
{
    TimeNs saving = 0;
    jobScaleImpl(input, {}, cancel, &removed, &saving, 1);
    return saving;
}

void writeJobScaleJson(JsonWriter &w, const JobScale &job)
{
    w.key("job").beginObject();
    w.key("ranks").value(uint64_t(job.ranks));
    w.key("collectives").value(uint64_t(job.collectives));
    w.key("unmatched_collectives").value(uint64_t(job.unmatched));
    w.key("span_us").micros(job.span);
    w.key("avoidable_us").micros(job.avoidable);
    w.key("warnings").beginArray();
    for (const std::string &s : job.warnings)
        w.value(s);
    w.endArray();
    w.endObject();
    w.key("ranks").beginArray();
    for (size_t i = 0; i < job.rankRows.size(); ++i) {
        const JobRank &r = job.rankRows[i];
        w.beginObject();
        w.key("rank").value(r.rank);
        w.key("file").value(uint64_t(r.fileIndex));
        w.key("device").optional(r.device);
        auto optMicros = [&](TimeNs v) {
            if (r.hasClockOffset)
                w.micros(v);
            else
                w.null();
        };
        w.key("clock_offset_us");
        optMicros(r.clockOffset);
        w.key("clock_offset_p5_us");
        optMicros(r.clockOffsetP5);
        w.key("clock_offset_p95_us");
        optMicros(r.clockOffsetP95);
        w.key("local_avoidable_us").micros(r.localAvoidable);
        w.key("job_avoidable_us").micros(r.jobAvoidable);
        w.key("last_arrivals").value(r.lastArrivals);
        w.key("wait_us").micros(r.wait);
        w.key("wait_mode").value(r.waitMode == WaitMode::Exact ? "exact" : "inferred");
        w.key("stream_dependencies").value(r.streamWaits);
        w.endObject();
    }
    w.endArray();
    w.key("collective_blame").beginArray();
    for (const CollectiveBlame &b : job.blame) {
        w.beginObject();
        w.key("group").value(b.group);
        w.key("seq").value(uint64_t(b.seq));
        w.key("name").value(b.name);
        w.key("last_rank").value(b.lastRank);
        w.key("lateness_us").micros(b.lateness);
        w.key("cause");
        if (!b.hasCause) {
            w.null();
        } else {
            w.beginObject();
            w.key("sync").value(b.cause.sync);
            w.key("op");
            if (b.cause.hasOp)
                w.value(b.cause.op);
            else
                w.null();
            w.key("user_frame");
            if (b.cause.hasUserFrame)
                w.value(b.cause.userFrame);
            else
                w.null();
            w.key("saves_us").micros(b.saves);
            w.endObject();
        }
        w.endObject();
    }
    w.endArray();
    w.key("rank_steps").beginArray();
    for (const RankStep &s : job.rankSteps) {
        w.beginObject();
        w.key("rank").value(s.rank);
        w.key("step").value(s.step);
        w.key("dur_us").micros(s.dur);
        w.key("avoidable_us").micros(s.avoidable);
        w.key("lateness_us").micros(s.lateness);
        w.key("wait_us").micros(s.wait);
        w.endObject();
    }
    w.endArray();
}

} // namespace syncscope
