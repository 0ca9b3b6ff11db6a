#include "analysis/limittext.h"

#include "analysis/timetext.h"

namespace syncscope {

namespace {

std::string streamText(const ReplayInput &in, int32_t s)
{
    if (s < 0 || size_t(s) >= in.streamIds.size())
        return "a stream";
    const auto &id = in.streamIds[size_t(s)];
    return "stream " + std::to_string(id.second) +
           (in.deviceIds.size() > 1 ? " of GPU " + std::to_string(id.first) : "");
}

std::string threadText(const ReplayInput &in, int64_t t)
{
    if (t >= 0 && size_t(t) < in.threadNames.size() && !in.threadNames[size_t(t)].empty())
        return "thread " + std::string(in.threadNames[size_t(t)]);
    return "a thread";
}

} // namespace

std::string limitSentence(const ReplayLimit &l, const ReplayInput &in,
                          const std::function<std::string(size_t)> &callText, TimeNs origin)
{
    using Kind = ReplayLimit::Kind;
    const auto at = [&](TimeNs t) { return formatMillis(t - origin); };
    switch (l.kind) {
    case Kind::None: return "no blocking call to remove";
    case Kind::GpuBusy:
        return "the GPU was the limit: the queue on " + streamText(in, l.stream) + " was full from " + at(l.at) +
               " on, so work launched earlier could not run earlier";
    case Kind::Resynchronized:
        return "a kept blocking call waited for the same work: " +
               (l.call >= 0 ? callText(size_t(l.call)) : std::string("a blocking call")) + " at " + at(l.at) +
               " re-synchronized " + threadText(in, l.thread) + ", so its head start ended there";
    case Kind::StreamWait:
        return "the work at " + at(l.at) + " on " + streamText(in, l.stream) + " waited for " +
               streamText(in, l.onStream) + ", whose work did not move";
    case Kind::IndependentThread:
        return "the work that ends the device was launched by " + threadText(in, l.thread) +
               ", which runs on its own schedule: nothing removed here delays it";
    case Kind::ExternalWait:
        return "the work at " + at(l.at) + " on " + streamText(in, l.stream) + " started " + formatMillis(l.wait) +
               " after it was ready, waiting for something the trace does not hold (kept as measured)";
    case Kind::TraceEnd:
        return l.noLaterWork ? "the work that ends the device was launched before the first removed call, so "
                               "nothing after it can move"
                             : "the head start carried to the end of the trace: nothing re-synchronized it";
    }
    return "";
}

std::function<std::string(size_t)> syncCallText(const TraceModel &m, const SyncAnalysis &a)
{
    return [&m, &a](size_t c) {
        if (c >= a.syncCalls.size())
            return std::string("a blocking call");
        const SyncCall &s = a.syncCalls[c];
        std::string t(m.str(m.tracks()[s.event.track].name[s.event.index]));
        if (s.op.valid())
            t += " in " + std::string(m.str(m.tracks()[s.op.track].name[s.op.index]));
        return t;
    };
}

std::string limitSentence(const ReplayLimit &limit, const TraceModel &model, const SyncAnalysis &analysis)
{
    return limitSentence(limit, analysis.replay, syncCallText(model, analysis), model.minTime());
}

} // namespace syncscope
