#include "trace/eventcommit.h"

#include "common/error.h"
#include "trace/categories.h"
#include "trace/jsonscanner.h"

#include <limits>

namespace syncscope {

using json::NeedMore;
using json::Scanner;

namespace {

// Sub-scanners read a value the main scanner has already skipped whole, so they
// never reach the end of their range. If one did, its NeedMore would make the
// loader refill and run the step again, adding the event's values twice: the
// invariant is checked in every build, not only with assertions on.
template <typename Fn> void withinCompleteValue(const char *what, Fn &&fn)
{
    try {
        fn();
    } catch (const NeedMore &) {
        throw Error(std::string("internal error: reading the args of a ") + what +
                    " event ran past their end; please report this trace.");
    }
}

} // namespace

void EventCommitter::eventWarning(uint64_t offset, const RawEvent &ev, const std::string &what)
{
    std::string text = "the event at byte " + std::to_string(offset);
    if (!ev.name.empty())
        text += " ('" + std::string(ev.name.substr(0, 60)) + "')";
    m_b.warn(text + " " + what);
}

uint32_t EventCommitter::trackFor(const RawEvent &ev, IdValue &pidOut)
{
    if (m_lastTrack != UINT32_MAX && ev.pid == m_lastPid && ev.tid == m_lastTid) {
        pidOut = m_lastPidValue;
        return m_lastTrack;
    }
    TraceBuilder &b = m_b;
    const IdValue pid = b.id(ev.pid);
    const IdValue tid = b.id(ev.tid);
    m_lastPid.assign(ev.pid);
    m_lastTid.assign(ev.tid);
    m_lastPidValue = pid;
    m_lastTrack = b.track(pid, tid);
    pidOut = pid;
    return m_lastTrack;
}

void EventCommitter::commit(const RawEvent &ev, uint64_t offset)
{
    TraceBuilder &b = m_b;
    if (ev.wrongType) {
        eventWarning(offset, ev, "has a field of the wrong type; it was skipped");
        ++b.counts().skipped;
        return;
    }
    if (ev.outOfRange) {
        eventWarning(offset, ev,
                     "has a \"" + std::string(ev.outOfRange) +
                         "\" out of range (beyond +-9.2e18 ns); it was skipped");
        ++b.counts().skipped;
        return;
    }
    if (!ev.hasPh) {
        eventWarning(offset, ev, "has no \"ph\"; it was skipped");
        ++b.counts().skipped;
        return;
    }
    const char ph = ev.ph;
    const bool needsTs = ph != 'M';
    if (needsTs && !ev.hasTs) {
        eventWarning(offset, ev, "has no \"ts\"; it was skipped");
        ++b.counts().skipped;
        return;
    }
    IdValue pid;
    switch (ph) {
    case 'X': {
        TimeNs dur = ev.dur;
        if (!ev.hasDur) {
            eventWarning(offset, ev, "is a complete event without \"dur\"; it was kept with dur 0");
            dur = 0;
        } else if (dur < 0) {
            eventWarning(offset, ev, "has a negative \"dur\"; it was skipped");
            ++b.counts().skipped;
            return;
        } else if (ev.ts > std::numeric_limits<TimeNs>::max() - dur) {
            eventWarning(offset, ev, "ends past the largest time (ts + dur overflows); it was skipped");
            ++b.counts().skipped;
            return;
        }
        const uint32_t t = trackFor(ev, pid);
        EventKeys keys = ev.keys;
        if (!ev.syncKind.empty())
            keys.syncKind = b.intern(ev.syncKind);
        // The legacy autograd profiler (LibTorch without Kineto) writes its ops
        // without a category, under the pid "CPU Functions": they are CPU ops.
        const std::string_view cat = ev.cat.empty() && ev.pid == "CPU Functions" ? category::kCpuOp : ev.cat;
        b.addComplete(t, ev.ts, dur, b.intern(ev.name), b.internCategory(cat), b.storeArgs(ev.args), keys);
        return;
    }
    case 'B': {
        const uint32_t t = trackFor(ev, pid);
        EventKeys keys = ev.keys;
        if (!ev.syncKind.empty())
            keys.syncKind = b.intern(ev.syncKind);
        b.addBegin(t, ev.ts, b.intern(ev.name), b.internCategory(ev.cat), b.storeArgs(ev.args), keys);
        return;
    }
    case 'E': b.addEnd(trackFor(ev, pid), ev.ts); return;
    case 'i':
    case 'I': {
        const uint32_t t = trackFor(ev, pid);
        const char scope = ev.scope.empty() ? 't' : ev.scope[0];
        b.addInstant(t, ev.ts, b.intern(ev.name), b.internCategory(ev.cat), scope, b.storeArgs(ev.args));
        return;
    }
    case 'C': withinCompleteValue("counter", [&] { counters(ev, b.id(ev.pid), offset); }); return;
    case 'M': withinCompleteValue("metadata", [&] { metadata(ev, b.id(ev.pid)); }); return;
    case 's':
    case 't':
    case 'f': {
        if (!ev.hasId) {
            eventWarning(offset, ev, "is a flow event without \"id\"; it was skipped");
            ++b.counts().skipped;
            return;
        }
        FlowEvent f;
        f.phase = ph == 's' ? FlowPhase::Start : ph == 't' ? FlowPhase::Step : FlowPhase::End;
        f.bindEnclosing = ev.bp == "e";
        f.track = trackFor(ev, pid);
        f.ts = ev.ts;
        f.name = b.intern(ev.name);
        f.cat = b.internCategory(ev.cat);
        int64_t n;
        if (ev.idIsNumber && json::parseInt64(ev.id, n))
            f.id = n;
        else
            f.idText = b.intern(ev.id);
        b.addFlow(f);
        return;
    }
    default: {
        ++b.counts().unknownPhase;
        const unsigned char u = static_cast<unsigned char>(ph);
        if (u < 128 && !m_unknownSeen[u]) {
            m_unknownSeen[u] = true;
            eventWarning(offset, ev,
                         "has phase '" + std::string(1, ph) +
                             "', which is not supported; such events are counted "
                             "and skipped");
        }
        return;
    }
    }
}

void EventCommitter::counters(const RawEvent &ev, IdValue pid, uint64_t offset)
{
    TraceBuilder &b = m_b;
    b.countCounterEvent();
    if (ev.args.empty() || ev.args[0] != '{')
        return;
    const StrId name = b.intern(ev.name);
    Scanner d(ev.args.data() + 1, ev.args.data() + ev.args.size());
    if (d.peek() == '}')
        return;
    for (;;) {
        const std::string_view k = d.string(m_key);
        d.expect(':', "expected ':' after a key");
        const char c = d.peek();
        double v;
        if (c == '-' || Scanner::isDigit(c)) {
            if (json::parseDouble(d.number(), v))
                b.addCounterValue(pid, name, b.intern(k), ev.ts, v);
        } else if (c == '"') {
            const StrId key = b.intern(k);
            if (json::parseDouble(d.string(m_val), v))
                b.addCounterValue(pid, name, key, ev.ts, v);
            else
                eventWarning(offset, ev, "has a counter value that is not a number; it was skipped");
        } else {
            d.skipValue();
            eventWarning(offset, ev, "has a counter value that is not a number; it was skipped");
        }
        if (d.peek() != ',')
            break;
        ++d.p;
        d.peek();
    }
}

void EventCommitter::metadata(const RawEvent &ev, IdValue pid)
{
    TraceBuilder &b = m_b;
    ++b.counts().metadata;
    if (ev.args.empty() || ev.args[0] != '{')
        return;
    std::string_view nameValue;
    int64_t sortIndex = kNoValue;
    Scanner d(ev.args.data() + 1, ev.args.data() + ev.args.size());
    if (d.peek() != '}') {
        for (;;) {
            const std::string_view k = d.string(m_key);
            const bool isName = k == "name" || k == "labels";
            const bool isSort = k == "sort_index";
            d.expect(':', "expected ':' after a key");
            const char c = d.peek();
            if (isName && c == '"')
                nameValue = d.string(m_val);
            else if (isSort && (c == '-' || Scanner::isDigit(c)))
                json::parseInt64(d.number(), sortIndex);
            else
                d.skipValue();
            if (d.peek() != ',')
                break;
            ++d.p;
            d.peek();
        }
    }
    const std::string_view what = ev.name;
    if (what == "process_name")
        b.setProcessName(pid, b.intern(nameValue));
    else if (what == "process_labels")
        b.setProcessLabels(pid, b.intern(nameValue));
    else if (what == "thread_name")
        b.setThreadName(trackFor(ev, pid), b.intern(nameValue));
    else if (what == "process_sort_index" && sortIndex != kNoValue)
        b.setProcessSortIndex(pid, sortIndex);
    else if (what == "thread_sort_index" && sortIndex != kNoValue)
        b.setThreadSortIndex(trackFor(ev, pid), sortIndex);
}

} // namespace syncscope
