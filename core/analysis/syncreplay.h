#pragma once
// The sync-free replay: how much earlier would each GPU finish its work if the
// host had not waited in a set R of blocking calls? (docs/analysis.md "What a sync costs")
//
// Model: the host issues work in order, each GPU stream runs it in order, an
// activity that waited on another stream (a stream dependency) still waits for
// it, and every duration stays as measured. Host events of all threads are
// walked in time order: the launches (the runtime/driver call with an
// activity's correlation, at its start) and the blocking calls (at their
// start); at one instant, a call that ended first came first, and an
// activity's launch comes before a blocking call (a blocking copy waits for its
// own copy). Each thread T carries a head start S_T, 0 at first.
//  - A handoff (thread T wakes thread U at `at`, U hands back at `back`) moves
//    the head start with control: at `at`, S_U := S_T; at `back`, S_T := S_U.
//    At one instant the handoffs come first, a hand-back before a wake.
//  - A launched activity a of T on stream q starts once its constraints are
//    ready: its launch (ready at min(s_a, launch end), moved by -S_T), its
//    stream predecessor p (ready at p's end) and each activity it depends on
//    (ready at its end). In the measured run it started s_a - R after the last
//    of them was ready (R = the latest old ready time); that latency stays with
//    the constraints that were last ready, the others have none:
//      new start = min(s_a, max over constraints c of (new ready_c + (old ready_c == R ? s_a - R :
//      0))).
//    An activity with no launch call takes, for its launch term, the head start
//    of the previous activity on its stream.
//  - A blocking call c in R: S_T += its duration.
//  - A blocking call c not in R re-synchronizes T with what it waits for, W(c):
//    the last activity launched before it on its stream (a stream synchronize,
//    a copy), on each stream of its device (a device synchronize), or on the
//    event's stream up to the event's record (an event synchronize), by any
//    thread. old / new: the latest old / new end in W(c), with old capped at
//    c's end (a call that returned before the GPU finished did not wait for
//    the rest) and new capped at old. With W(c) empty, nothing changes.
//      wait = max(0, old - c.start), ret = max(0, c.end - max(c.start, old)),
//      new_end = max(c.start - S_T + (c.dur - wait), new + ret), S_T = c.end - new_end.
//  - Avoidable time per device: the device's last old end minus its last new end.
// Before the first call of R nothing moves, so the walk starts there, and it stops
// once every S_T is 0, every stream's last new end equals its old end, no moved
// activity has a dependent (an activity that waits on it, or a kept call whose
// W holds it) still to come and no call of R is left: from there on nothing
// changes. It also stops once everything still to come is shifted by one
// amount D: every thread with host events left has S_T = D and its launched
// work's last new end D before the old one, every stream with activity left and
// every moved activity with a dependent still to come ends D early, and no orphan
// activity, overlap or call that returned before its GPU work ended is left: from
// there on every activity moves by exactly D.
//
// run() goes further: a uniform shift D passes through the host order
// unchanged except in a few unsteady spans (Jumps::spanStart), each known to
// let every shift up to its steady limit through as is. Once everything is
// shifted by D (and every stream with an orphan to come last took D as its
// head start), the walk jumps to the first span whose limit is below D (the
// items before it all move by D, unwalked), walks that span, and stops where
// no such span is left, so a replay costs its unsteady spans, not the length
// of the trace (docs/analysis.md "What a sync costs"). Its stop where nothing
// moves also waits for the late readers of moved activities (a stream
// successor read after another activity of its stream was walked).
//
// For a job, the ranks' replays walk together (walkJob in jobscale.cpp): a
// coupled activity (a collective) pauses its rank's walk once its new start is
// known, and resumes when the job gives it its new end.
#include "analysis/leadcolumn.h"
#include "analysis/markedpositions.h"
#include "analysis/rangemax.h"
#include "analysis/replayinput.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <vector>

namespace syncscope {

class SyncReplay {
public:
    // What the replay derives from its input once (the host order, the stream
    // predecessors, the dependencies, the old times' indexes), read-only after
    // it is built, so replays on several threads can share one. Keeps a
    // reference to its input, which must outlive it.
    struct Index;
    // What run() reads to jump and stop, derived from an Index (see there).
    struct Jumps;

    // Keeps a reference to `input`, which must outlive the replay.
    explicit SyncReplay(const ReplayInput &input);
    // A replay of the same input with a walk state of its own, sharing this
    // one's index and its coupled activities as set so far (a later setCoupled
    // on either changes only that one), for replays on several threads. Its
    // walk state is allocated at its first walk.
    std::unique_ptr<SyncReplay> twin() const;

    // Avoidable time per device (>= 0) without the blocking calls `removed`
    // (indices into input.calls). Not thread-safe: it reuses scratch space.
    std::vector<TimeNs> run(const std::vector<size_t> &removed);

    // Where the head start stopped on device `device` (dense) in the replay
    // without `removed`: a full walk that records each activity's binding
    // constraint, then a walk back from the activity that ends the device last.
    // Not thread-safe.
    ReplayLimit limitedBy(const std::vector<size_t> &removed, size_t device);
    // An activity that started this long after its binding constraint was
    // ready waited for something the trace does not hold.
    static constexpr TimeNs kExternalWait = 20'000;

    // Items the last run() walked, and the shift of the rest (for tests of the early stops).
    size_t lastWalked() const { return m_lastWalked; }
    TimeNs lastTailShift() const { return m_lastShift; }
    size_t lastJumps() const { return m_skips.size(); } // stretches it jumped over
    // Activity a's new end in the last run(), walked, jumped over or after its stop.
    TimeNs lastRunEnd(uint32_t a) const;
    // With `on`, run() walks every item from the first removed call to the end:
    // no early stop and no jump (what the early stops are tested against).
    void setFullWalk(bool on) { m_fullWalk = on; }
    // How many items run() walks between two looks for a uniform shift (at
    // least 256 or threads + streams unless set; tests look more often).
    void setShiftCheckEvery(size_t items) { m_checkEvery = items; }

    // A walk in pieces, for the job: coupled activities pause it.
    void setCoupled(const std::vector<uint32_t> &activities);
    // Starts a walk without `removed` at item position startItem (before it,
    // nothing may have moved).
    void beginWalk(const std::vector<size_t> &removed, size_t startItem = 0);
    // The item position of the first of `removed` (SIZE_MAX when empty), and of an activity.
    size_t firstRemovedItem(const std::vector<size_t> &removed) const;
    size_t itemOf(uint32_t activity) const;
    // Right after beginWalk(removed, itemOf(activity)): pauses at that coupled
    // activity as measured, for resume() to give it a new end.
    void pauseUnmoved(uint32_t activity);
    // Walks on to the next coupled activity and returns its index, its new start
    // computed; returns UINT32_MAX at the end of the trace, and kConverged once
    // nothing more can move unless a coupled activity ends at another time
    // (walkPos() is then where it converged).
    static constexpr uint32_t kConverged = UINT32_MAX - 1;
    uint32_t walkToCoupled();
    TimeNs pausedNewStart() const { return m_pausedStart; }
    // Gives the paused activity its new end and continues after it.
    void resume(TimeNs newEnd);
    size_t walkPos() const { return m_walkPos; }
    // Continues a converged walk at item position `item` (a coupled activity's,
    // for pauseUnmoved and resume), nothing before it having moved since.
    void rewake(size_t item);
    // Right after resume(): whether everything from walkPos() on would move by
    // one amount, as run()'s uniform-shift stop finds (the same conditions, and
    // a walk that was never rewoken); `shift` > 0 is how much earlier.
    bool resumedUniformShift(TimeNs &shift);
    // Ends the walk at walkPos(), everything from there on `shift` earlier.
    void endShifted(TimeNs shift);
    // After the walk: each device's last new end (kNoValue: no activity); also
    // valid after kConverged or endShifted, and the skipped activities' old ends
    // are counted in skippedMax().
    std::vector<TimeNs> walkNewLast() const;
    TimeNs skippedMax() const { return m_skippedMax; }
    // The last new end of activity a in the current walk (its old end if not walked).
    TimeNs newEnd(uint32_t a) const;

    const ReplayInput &input() const { return m_in; }

private:
    SyncReplay(std::shared_ptr<const Index> index, std::shared_ptr<const std::vector<char>> coupled);

    std::shared_ptr<const Index> m_ix;
    const ReplayInput &m_in;
    std::shared_ptr<const std::vector<char>> m_coupled; // per activity: pauses the walk

    // Scratch: threads' and streams' state is valid where its stamp equals
    // m_thrGen / m_gen. An activity's new end is kept as its lead on its
    // measured end (the replay only moves work earlier); it holds none until
    // the walk settles it. The blocks of kDirtyBlock activities a walk wrote
    // hold none again after the next reset, so a walk costs what it touched.
    static constexpr size_t kDirtyBlock = 64;
    uint32_t m_gen = 0;
    std::vector<uint32_t> m_thrStamp, m_strStamp;
    LeadColumn m_newEnd;
    std::vector<char> m_blockDirty;      // per block of kDirtyBlock activities
    std::vector<uint32_t> m_dirtyBlocks; // the blocks marked there
    // The head start an activity's start used, kept only where an orphan reads
    // it (its stream predecessor: Index::headSlot), and for the paused activity.
    std::vector<TimeNs> m_predHead;
    TimeNs m_pausedHead = 0;
    std::vector<TimeNs> m_head;
    std::vector<TimeNs> m_strLastNew, m_strLastOld, m_strLastHead;
    std::vector<TimeNs> m_devNewMax;
    std::vector<char> m_removed;
    size_t m_nonZeroHeads = 0, m_divergedStreams = 0, m_headStreams = 0;
    size_t m_runFirst = 0;
    struct Pending {
        uint32_t until;
        TimeNs shift;
    };
    std::vector<Pending> m_pending; // moved activities with a dependent still to come
    uint32_t m_pendingUntil = 0;
    uint32_t m_lateUntil = 0;    // a moved activity's late reader still to come (run() only)
    const Jumps *m_jx = nullptr; // run()'s, from its first call on
    size_t m_walkPos = 0, m_walkStart = 0, m_pausedItem = 0;
    size_t m_walkLastRemoved = 0, m_convergedAt = SIZE_MAX;
    TimeNs m_tailShift = 0; // of the items from m_convergedAt on (endShifted)
    bool m_rewoken = false; // the walk went on after converging
    TimeNs m_skippedMax = std::numeric_limits<TimeNs>::min();
    uint32_t m_thrGen = 0;
    TimeNs m_pausedStart = 0;
    std::vector<size_t> m_walkRemoved;
    size_t m_lastWalked = 0;
    TimeNs m_lastShift = 0;
    bool m_fullWalk = false;
    size_t m_checkEvery = 0; // 0: the default
    size_t m_lastStop = 0;   // where the last run() stopped (the shift of what follows: m_lastShift)
    // Item ranges run() jumped over, in order: every activity in [from, to)
    // ends `shift` earlier; reach is the last item position of their dependents.
    struct Skip {
        uint32_t from, to;
        TimeNs shift;
        uint32_t reach;
    };
    std::vector<Skip> m_skips;
    // What limitedBy records during its walk.
    struct Recorder {
        enum Bind : uint8_t { Launch = 0, Pred = 1, Dep = 2, NotWalked = 3 };
        std::vector<uint8_t> bind;        // per activity
        std::vector<uint32_t> bindDep;    // the dependency that bound it
        std::vector<TimeNs> head, kept;   // head start used, latency kept with the binding constraint
        std::vector<int64_t> cutAtLaunch; // its thread's last head-lowering kept call at its launch
        std::vector<char> hadAtLaunch;    // whether its thread had had a head start by then
        std::vector<int64_t> lastCut;     // per thread
        std::vector<char> hadHead;        // per thread
    };
    Recorder *m_rec = nullptr;

    void allocateWalkState();
    void reset(const std::vector<size_t> &removed);
    void clearRemoved(const std::vector<size_t> &removed);
    void newThreadGeneration();
    void touchThread(uint32_t t);
    TimeNs itemOldEnd(size_t item) const; // its activity's old end; kNever for a blocking call
    TimeNs oldMaxInItems(size_t from, size_t to) const;
    void setHead(uint32_t t, TimeNs h);
    void visitBlock(size_t item);
    void visitHandoff(size_t item);
    void visit(size_t item); // a blocking call or a handoff
    void step(size_t item);  // any item: visit, or an activity started and settled
    TimeNs activityStart(size_t item, TimeNs &headUsed);
    void settle(size_t item, TimeNs newEnd, TimeNs headUsed);
    bool converged(size_t item, size_t lastRemoved) const;
    TimeNs lastNewEnd(size_t device, size_t from, size_t to, TimeNs shift) const;
    bool uniformShift(size_t item, TimeNs &shift);
    // Everything in items [from, to) moves by `shift`, unwalked; the walk goes on at `to`.
    void skipUniform(size_t from, size_t to, TimeNs shift);
    TimeNs skippedShift(size_t item) const; // of a skipped item, else 0
};

struct SyncReplay::Index {
    // A Handoff item's ref is 2 * handoff + (0: the wake, 1: the hand-back).
    enum Kind : uint8_t { LaunchedActivity = 0, OrphanActivity = 1, Block = 2, Handoff = 3 };
    static bool isActivity(Kind k) { return k <= OrphanActivity; }
    static constexpr uint32_t kMaxThreads = (1u << 30) - 1; // kNoThread is the last
    static constexpr uint32_t kNoThread = kMaxThreads;
    struct Item {
        Kind kind : 2;
        uint32_t thread : 30; // launching / calling / receiving thread; kNoThread for orphans
        uint32_t ref;         // activity, blocking-call or handoff index
    };
    struct DeviceIndex {
        size_t activities = 0;
        TimeNs oldMax = std::numeric_limits<TimeNs>::min();
        BlockRangeMax ends; // its activities' old ends by item; with one device, blockMax serves
    };

    explicit Index(const ReplayInput &input);
    // Where the walk keeps activity a's head start (an orphan's start reads its
    // stream predecessor's): a slot of the walk's head table, or SIZE_MAX where
    // nothing reads it. Every activity has one when more than an eighth are such.
    size_t headSlot(uint32_t a) const;
    size_t headSlots() const { return denseHeads ? in.activities.size() : orphanPredCount; }
    TimeNs oldEnd(size_t item) const;                  // its activity's old end; kNever for a blocking call
    TimeNs oldEndOn(size_t device, size_t item) const; // the same, kNever off that device
    // The latest old end of the device's activities at item positions [from, to).
    TimeNs deviceOldMax(size_t device, size_t from, size_t to) const;
    // min(s, launch end) of activity a (s for an orphan).
    TimeNs launchReady(uint32_t a) const;
    // Activity a's dependencies: [first, second) in depOn.
    std::pair<uint32_t, uint32_t> depRange(uint32_t a) const
    {
        if (!hasDeps.marked(a))
            return {0, 0};
        const size_t k = hasDeps.rank(a);
        return {depStart[k], depStart[k + 1]};
    }
    // What kept call c waits for: [first, second) in waitOn.
    std::pair<uint32_t, uint32_t> waitRange(size_t c) const { return {waitStart[c], waitStart[c + 1]}; }
    // The last item position of a dependent of activity a (an activity that
    // waits on it, or a blocking call whose W holds it), or 0.
    uint32_t lastDependent(uint32_t a) const
    {
        return hasDependent.marked(a) ? lastDependents[hasDependent.rank(a)] : 0;
    }
    // R: the latest old ready time of activity a's constraints (its launch, its
    // stream predecessor's end, the ends it depends on).
    TimeNs oldReady(uint32_t a) const;
    // The latest last dependent (lastDependent) of the activities before item position `item`.
    uint32_t depReachBefore(size_t item) const;
    // W(c) of every blocking call (waitStart, waitOn), from the host order.
    void buildWaits(const std::vector<TimeNs> &itemTime);
    // What run() reads to jump and stop (SyncReplay::Jumps), built at its
    // first call (once, whichever thread comes first); a job's walks never need it.
    const Jumps &jumps() const;

    const ReplayInput &in;
    std::vector<Item> items;       // in host order
    std::vector<uint32_t> actItem; // activity -> item position
    std::vector<int32_t> pred;     // previous activity on the same stream, or -1
    // Per activity: min(s, launch end), s for an orphan; as a lead on s.
    LeadColumn launchReadyTimes;
    // Dependencies (CSR over the activities that have any): the k-th such
    // activity (its rank in hasDeps) depends on depOn[depStart[k], depStart[k + 1]).
    MarkedPositions hasDeps;
    std::vector<uint32_t> depStart;
    std::vector<uint32_t> depOn;
    // The last item position of a dependent, by rank in hasDependent.
    MarkedPositions hasDependent;
    std::vector<uint32_t> lastDependents;
    // W(c) of each blocking call (CSR by call): activities.
    std::vector<uint32_t> waitStart;
    std::vector<uint32_t> waitOn;
    std::vector<uint32_t> blockItem;    // per call: its item position
    std::vector<uint32_t> lastOfThread; // last item position of each thread
    std::vector<uint32_t> lastOfStream; // last item position of each stream
    size_t orphanPredCount = 0;         // activities that are an orphan's stream predecessor
    std::vector<uint64_t> isOrphanPred; // those activities as bits (sparse heads only)
    std::vector<uint32_t> orphanRank;   // per word of isOrphanPred: the bits set in the words before
    bool denseHeads = false;            // headSlot(a) is a
    size_t lastIrregular = 0;           // 1 + last orphan/overlap/early-return item
    size_t lastOrphan = 0;              // 1 + last orphan item
    // (item position, max lastDependent up to it) at each activity with a dependent.
    std::vector<std::pair<uint32_t, uint32_t>> depReach;
    std::vector<DeviceIndex> devices;
    uint32_t threads = 0, streams = 0;
    BlockRangeMax blockMax; // the old ends of the items' activities

private:
    mutable std::once_flag m_jumpsOnce;
    mutable std::unique_ptr<const Jumps> m_jumps;
};

struct SyncReplay::Jumps {
    explicit Jumps(const Index &ix);
    // The first unsteady span that ends after item position `item` and whose
    // steady limit is below `shift`; spanStart.size() when there is none.
    size_t firstSpanBelow(size_t item, TimeNs shift) const;
    // The latest last dependent or late reader of the activities at item
    // positions [from, to), or 0.
    uint32_t dependentReach(size_t from, size_t to) const;
    uint32_t lateReader(uint32_t a) const
    {
        return hasLateReader.marked(a) ? lateReaders[hasLateReader.rank(a)] : 0;
    }

    const Index &ix;
    // Unsteady spans, sorted and disjoint: item positions [spanStart[k],
    // spanEnd[k]). Start every thread and stream with the same head start D at
    // an item position outside them, or at a span's start: every activity up to
    // the next span's start ends exactly D earlier and the state there is the
    // same D again; through span k as well where D <= spanSteady[k]. A span
    // holds an item that may take in a shift as it is not (its limit 0: an
    // activity whose stream predecessor or dependency is not the one walked
    // before it, one with a constraint ready between its start and R), or a
    // kept call that returned before its GPU work ended (it lowers its thread's
    // head start by how much later that work ended), up to the next item that
    // reads that thread's head start and the last orphan that takes the lowered
    // one from its stream predecessor (its limit: the wait of a kept call that
    // gives it back, and the slack of the launches in between).
    std::vector<uint32_t> spanStart, spanEnd;
    std::vector<TimeNs> spanSteady;
    std::vector<TimeNs> spanSteadyTree; // a min tree over spanSteady, for firstSpanBelow
    size_t spanLeaves = 0;
    BlockRangeMax dependentMax;         // the last dependent or late reader of the items' activities
    std::vector<uint32_t> lastOrphanOn; // per stream: 1 + the item position of its last orphan, or 0
    // Activities whose stream successor reads them after another activity of
    // their stream was walked (so that stream's last walked activity does not
    // stand for them): the item position of that reader, by rank in hasLateReader.
    MarkedPositions hasLateReader;
    std::vector<uint32_t> lateReaders;

private:
    TimeNs reachOf(size_t item) const; // of one item's activity (kNever: none)
};

static_assert(sizeof(SyncReplay::Index::Item) == 8,
              "a host-order item is one word of kind and thread, and its index");

inline size_t SyncReplay::itemOf(uint32_t activity) const { return m_ix->actItem[activity]; }

} // namespace syncscope
