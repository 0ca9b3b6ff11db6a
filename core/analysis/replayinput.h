#pragma once
// What the sync-free replay needs of one rank, and nothing else: the GPU
// activities, the host calls that launched them, the blocking calls, the stream
// dependencies and the collective kernels. Every time is an integer ns on the
// rank's own clock. The analysis builds it from a trace model
// (buildReplayInput); a rank summary stores it, so the job analysis can run
// without the trace (docs/analysis.md "Job scale: what a sync costs the job").
#include "common/error.h"
#include "trace/tracemodel.h"

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace syncscope {

struct ReplayActivity {
    uint32_t device = 0; // dense index into ReplayInput::deviceIds
    uint32_t stream = 0; // dense index of (device, stream) into ReplayInput::streamIds
    TimeNs start = 0, end = 0;
    int64_t correlation = kNoValue;
};

// A runtime or driver call that carries an activity's correlation (the first
// such call of each correlation).
struct ReplayLaunch {
    uint32_t thread = 0; // dense index of the host thread
    TimeNs start = 0, end = 0;
    int64_t correlation = kNoValue;
};

// What a blocking call waits for, as CUDA documents it.
enum class BlockKind : uint8_t {
    Stream = 0, // a stream synchronize: the stream's work launched before it
    Device = 1, // a device synchronize: every stream of the device
    Event = 2,  // an event synchronize: the event's stream up to its record
    Copy = 3    // a synchronous or pageable copy: its stream, itself included
};
const char *blockKindName(BlockKind k);

// A blocking call, in the order of SyncAnalysis::syncCalls.
struct ReplayBlocking {
    uint32_t thread = 0;
    TimeNs start = 0, end = 0;
    BlockKind kind = BlockKind::Device;
    // The stream it waits on (dense index; stream, event and copy calls) or the
    // device (dense index; device calls), where the trace names it; -1: the
    // stream / device of the last activity its thread launched before it.
    int32_t stream = -1;
    int32_t device = -1;
    // An event synchronize whose record call the trace names: that call's
    // start (the event holds the work launched on its stream up to then).
    TimeNs cut = kNoValue;
};

// Control passing between host threads of one process: thread `from` wakes
// thread `to` (its first event at `at`, say the autograd engine running
// backward) and resumes at `back`, once `to` is done.
struct ReplayHandoff {
    uint32_t from = 0, to = 0;
    TimeNs at = 0, back = 0;
};

// How the handoffs were found, strongest first (docs/analysis.md "Host threads").
enum class ThreadMode : uint8_t { None = 0, Flows = 1, Frames = 2, Inferred = 3 };
const char *threadModeName(ThreadMode m);

// Activity `activity` may not start before activity `on` ends (another stream).
struct StreamDependency {
    uint32_t activity = 0;
    uint32_t on = 0;
};

// How the stream dependencies were found: from the profiler's `Stream Wait
// Event` records (exact), or from the measured schedule (inferred).
enum class WaitMode : uint8_t { Exact = 0, Inferred = 1 };

// A collective (NCCL/RCCL) kernel. Its sequence number is its order, by start,
// among the rank's collectives of the same group.
struct CollectiveKernel {
    uint32_t activity = 0; // index into ReplayInput::activities
    std::string group;     // process group name, else "stream <id>"
    std::string name;      // the kernel's name
    uint32_t seq = 0;
};

// Why a replay's saving on a device is what it is: where the head start
// stopped, found by following the binding constraints back from the activity
// that ends the device last in the replay (docs/analysis.md "Why a figure is small").
struct ReplayLimit {
    enum class Kind : uint8_t {
        None = 0,          // no blocking call to remove
        GpuBusy,           // the queue on `stream` was full from `at` on
        Resynchronized,    // the kept blocking call `call` at `at` waited for the same work
        StreamWait,        // `activity` (on `stream`, at `at`) waited for stream `onStream`
        IndependentThread, // the work that ends the device was launched by `thread`, which nothing delays
        ExternalWait, // `activity` (at `at`) started `wait` after it was ready: a wait the trace does not hold
        TraceEnd      // the head start carried to the end of the trace, or no work came after the calls
    };
    Kind kind = Kind::None;
    TimeNs at = 0, wait = 0;
    int32_t stream = -1, onStream = -1; // dense stream indices
    int64_t activity = -1, call = -1;   // activity / blocking-call index
    int64_t thread = -1;                // dense host thread
    bool noLaterWork = false;           // TraceEnd: nothing on the device after the first removed call
};
const char *limitKindName(ReplayLimit::Kind k);

// Names kept end to end in one buffer: a trace of a million one-event threads
// holds a million short names, which as separate strings cost 32 bytes each
// and twice that while the vector grows.
class NameList {
public:
    NameList() = default;
    NameList(std::initializer_list<std::string_view> names)
    {
        for (std::string_view n : names)
            push_back(n);
    }
    void reserve(size_t names, size_t chars = 0)
    {
        m_ends.reserve(names);
        m_chars.reserve(chars);
    }
    void push_back(std::string_view name)
    {
        if (name.size() > UINT32_MAX - m_chars.size())
            throw Error("the thread names of the trace take more than 4 GiB");
        m_chars.append(name);
        m_ends.push_back(uint32_t(m_chars.size()));
    }
    void clear()
    {
        m_chars.clear();
        m_ends.clear();
    }
    size_t size() const { return m_ends.size(); }
    bool empty() const { return m_ends.empty(); }
    std::string_view operator[](size_t i) const
    {
        const size_t begin = i == 0 ? 0 : m_ends[i - 1];
        return std::string_view(m_chars).substr(begin, m_ends[i] - begin);
    }
    bool operator==(const NameList &o) const { return m_chars == o.m_chars && m_ends == o.m_ends; }
    bool operator!=(const NameList &o) const { return !(*this == o); }

private:
    std::string m_chars;
    std::vector<uint32_t> m_ends; // end of each name in m_chars
};

struct ReplayInput {
    std::vector<int64_t> deviceIds;                     // dense device -> device id, ascending
    std::vector<std::pair<int64_t, int64_t>> streamIds; // dense stream -> (device id, stream id)
    uint32_t threads = 0;
    std::vector<ReplayActivity> activities;
    std::vector<ReplayLaunch> launches;
    std::vector<ReplayBlocking> calls;
    std::vector<ReplayHandoff> handoffs; // by at, then back
    ThreadMode threadMode = ThreadMode::None;
    NameList threadNames;               // per dense host thread: its tid as written, for sentences
    std::vector<StreamDependency> deps; // sorted by activity, then on
    WaitMode waitMode = WaitMode::Inferred;
    std::vector<CollectiveKernel> collectives; // by activity start
};

} // namespace syncscope
