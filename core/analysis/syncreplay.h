#pragma once
// The sync-free replay: how much earlier would each GPU finish its work if the
// host had not waited in a set R of blocking calls? (README "What a sync costs")
//
// Model: the host issues work in order, each GPU stream runs it in order, and
// every duration stays as measured. Host events of all threads are walked in
// time order: the launches (the runtime/driver call with an activity's
// correlation, at its start) and the blocking calls (at their start); at one
// instant, a call that ended first came first, and an activity's launch comes
// before a blocking call (a blocking copy waits for its own copy). Each
// thread T carries a head start S_T, 0 at first.
//  - A launched activity a of T on stream q:
//      new start = min(s_a, max(s_a - S_T, new end of the previous activity on q)).
//    An activity with no launch call takes the head start of the previous
//    activity on its stream.
//  - A blocking call c in R: S_T += its duration.
//  - A blocking call c not in R re-synchronizes T. old / new: the latest old /
//    new end among the activities T launched at or before c's start, with old
//    capped at c's end (a call that returned before the GPU finished did not
//    wait for the rest) and new capped at old.
//      wait = max(0, old - c.start), ret = max(0, c.end - max(c.start, old)),
//      new_end = max(c.start - S_T + (c.dur - wait), new + ret), S_T = c.end - new_end.
//  - Avoidable time per device: the device's last old end minus its last new end.
// Before the first call of R nothing moves, so the walk starts there, and it stops
// once every S_T is 0, every stream's last new end equals its old end and no call
// of R is left: from there on nothing changes.
#include "trace/tracemodel.h"

#include <cstdint>
#include <vector>

namespace syncscope {

class SyncReplay {
public:
    struct Activity {
        uint32_t device = 0; // dense index, 0 .. devices-1
        uint32_t stream = 0; // dense index of (device, stream)
        TimeNs start = 0, end = 0;
        int64_t correlation = kNoValue;
    };
    struct Launch {
        uint32_t thread = 0; // dense index of the host thread (track)
        TimeNs start = 0, end = 0;
        int64_t correlation = kNoValue;
    };
    struct Blocking {
        uint32_t thread = 0;
        TimeNs start = 0, end = 0;
    };

    SyncReplay(std::vector<Activity> activities, const std::vector<Launch> &launches,
               std::vector<Blocking> calls, uint32_t devices);

    // Avoidable time per device (>= 0) without the blocking calls `removed`
    // (indices into the calls given to the constructor). Not thread-safe: it
    // reuses scratch space between runs.
    std::vector<TimeNs> run(const std::vector<size_t> &removed);

    // Items the last run() walked (for tests of the early stop).
    size_t lastWalked() const { return m_lastWalked; }

private:
    enum Kind : uint8_t { LaunchedActivity = 0, OrphanActivity = 1, Block = 2 };
    struct Item {
        TimeNs t, tEnd; // the host call's start and end (an orphan's start twice)
        Kind kind;
        uint32_t ref;    // activity or blocking-call index
        uint32_t thread; // launching / calling thread; unused for orphans
    };
    struct DeviceIndex {
        std::vector<uint32_t> positions; // item positions of its activities
        std::vector<TimeNs> prefixMax;   // max old end over positions[0..k]
        std::vector<TimeNs> suffixMax;   // max old end over positions[k..]
        TimeNs oldMax = 0;
    };

    std::vector<Activity> m_acts;
    std::vector<Blocking> m_calls;
    std::vector<Item> m_items;
    std::vector<int32_t> m_pred;          // previous activity on the same stream, or -1
    std::vector<int32_t> m_prevOfThread;  // per item: previous item of the same thread, or -1
    std::vector<TimeNs> m_threadOldMax;   // per item: the thread's launched old-end max so far
    std::vector<uint32_t> m_blockItem;    // per call: its item position
    std::vector<DeviceIndex> m_devices;
    uint32_t m_threads = 0, m_streams = 0;

    // Scratch, valid where the stamp equals m_gen.
    uint32_t m_gen = 0;
    std::vector<uint32_t> m_actStamp, m_thrStamp, m_strStamp;
    std::vector<TimeNs> m_newEnd, m_headUsed;
    std::vector<TimeNs> m_head, m_thrNewMax, m_thrOldBefore;
    std::vector<TimeNs> m_strLastNew, m_strLastOld;
    std::vector<char> m_removed;
    size_t m_lastWalked = 0;
};

} // namespace syncscope
