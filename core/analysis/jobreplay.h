#pragma once
// The job replay (docs/analysis.md "Job scale: what a sync costs the job"):
// every rank replays as in syncreplay.h, and the ranks meet at the matched
// collectives. When rank j's kernel of collective c starts delta_j <= 0 later
// than measured, c ends Delta = max_j (delta_j - w_j) later than measured on
// every rank. JobReplay::run walks the ranks together without a set of calls
// per rank and says where each rank's GPU activity ends.
#include "analysis/jobscale.h"
#include "analysis/syncreplay.h"
#include "common/progress.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace syncscope {

// A time that is none: no activity, no end.
constexpr TimeNs kNoEnd = std::numeric_limits<TimeNs>::min();

// One matched collective across its ranks.
struct Coupled {
    std::string group, name;
    uint32_t seq = 0;
    struct Part {
        uint32_t rank; // index into the sorted ranks
        uint32_t activity;
        TimeNs start, end, wait;
    };
    std::vector<Part> parts; // by rank
    size_t last = 0;         // index into parts
    TimeNs lateness = 0;
};

struct Walk {
    std::vector<TimeNs> newLast; // per rank: latest new end of any activity (kNoEnd: none)
    size_t forced = 0;           // collectives resolved before every rank arrived
};

class JobReplay {
public:
    // oldLast: per rank, its last measured end (kNoEnd: no activity).
    // indexed(r), when given, runs as soon as rank r's replay index is built,
    // before the next rank's: where the caller lets go of what only the index
    // needed (the launch calls), no two ranks' worth of it are held at once.
    JobReplay(const std::vector<const RankInput *> &ranks, const std::vector<Coupled> &coupled,
              const std::vector<TimeNs> &oldLast, const CancelToken *cancel,
              const std::function<void(size_t)> &indexed = {});
    ~JobReplay();
    JobReplay(const JobReplay &) = delete;
    JobReplay &operator=(const JobReplay &) = delete;

    // A replay of the same job with a walk state of its own, sharing the ranks'
    // replay indexes with this one (for replays on several threads), as
    // SyncReplay::twin does for one rank.
    std::unique_ptr<JobReplay> twin() const;

    // How much later collective c ended in the last run() (<= 0).
    TimeNs delta(size_t c) const;

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
    Walk run(const std::vector<std::vector<size_t>> &removed);

private:
    struct Twin {};
    JobReplay(const JobReplay &other, Twin);

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
        std::vector<std::vector<uint32_t>> order; // per rank: its collectives' activities in host order
        std::vector<std::vector<PartRef>> partOf; // per rank, as `order`: which collective and part
        bool orderConsistent = true;              // the ranks meet their collectives in compatible orders
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
    TimeNs m_tailDelta = 0;      // of the collectives the run did not reach
    std::vector<size_t> m_reach; // per rank, in the last run: the first item a change could reach

    // The per-collective state of a run, unstamped.
    void allocateRunState();

    // The index into m_plan->order[r] of rank r's first collective at or after item position `item`.
    size_t firstCollectiveFrom(size_t r, size_t item) const;

    // Which collective and part rank r's coupled activity a is.
    PartRef partOfActivity(size_t r, uint32_t a) const;

    // The first item position of each rank that the walk's changes can reach
    // (SIZE_MAX: none): a rank's first removed call, and on every rank of a
    // collective that comes at or after a reached item, that collective. Within
    // a group the ranks meet the collectives in one order (the orders are
    // compatible), so only each group's first reached collective can lower
    // another rank's reach.
    void reach(const std::vector<size_t> &wakeAt);

    // Every rank not done has just resumed after a collective, in a uniform
    // shift of one amount: the walks end there, the rest moved by it.
    bool uniformTail(const std::vector<State> &state);

    // Whether every collective can be reached with each rank meeting its own in
    // host order (no cycle of groups met in opposite orders): then no run ever
    // resolves a collective before all its ranks arrived.
    bool ordersConsistent() const;
};

} // namespace syncscope
