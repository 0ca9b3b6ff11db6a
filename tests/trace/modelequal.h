#pragma once
// Whether two loaded models are the same, field by field: everything TraceModel
// exposes (info, counts, warnings, strings, every column of every track, the
// instants, processes, counters, flows, times and byte counts). Ids are compared
// as ids: two loads of the same bytes intern the same strings in the same order.
// Returns an empty string when they are equal, otherwise the first difference.
// Shared by the loader tests and the fuzz target.
#include "trace/tracemodel.h"

#include <algorithm>
#include <cstddef>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace syncscope::test {

struct ModelCompare {
    // False where reading may legitimately have stopped at different places: data
    // follows the end of the JSON, and one load read more of it than the other.
    // Then TraceInfo::jsonBytes and the warning of a gzip problem met after the
    // JSON ended are left out of the comparison.
    bool sameReadExtent = true;
};

namespace detail {

class Differ {
public:
    std::string first;

    template <typename T> bool eq(const T &a, const T &b, const std::string &what)
    {
        if (!first.empty())
            return false;
        if (a == b)
            return true;
        std::ostringstream os;
        os << what << ": " << show(a) << " vs " << show(b);
        first = os.str();
        return false;
    }

private:
    template <typename T> static const T &show(const T &v) { return v; }
    static std::string show(const std::string &s) { return "'" + s.substr(0, 200) + "'"; }
    static std::string show(std::string_view s) { return show(std::string(s)); }
    static int show(char c) { return static_cast<unsigned char>(c); }
    static int show(bool b) { return b ? 1 : 0; }
    static unsigned show(uint8_t v) { return v; }
};

inline std::string at(const char *what, size_t i) { return std::string(what) + "[" + std::to_string(i) + "]"; }

template <typename A, typename B>
void columns(Differ &d, const A &a, const B &b, size_t n, const std::string &what)
{
    for (size_t i = 0; i < n && d.first.empty(); ++i)
        d.eq(a[i], b[i], what + "[" + std::to_string(i) + "]");
}

// A gzip problem met after the end of the JSON: "...; the data after it was ignored".
inline bool readExtentWarning(std::string_view text)
{
    constexpr std::string_view tail = "; the data after it was ignored";
    return text.size() >= tail.size() && text.substr(text.size() - tail.size()) == tail;
}

inline void warnings(Differ &d, const LoadWarnings &a, const LoadWarnings &b, bool strict)
{
    std::vector<std::string> fa, fb;
    for (const std::string &t : a.first)
        if (strict || !readExtentWarning(t))
            fa.push_back(t);
    for (const std::string &t : b.first)
        if (strict || !readExtentWarning(t))
            fb.push_back(t);
    std::vector<const LoadWarnings::Kind *> ka, kb;
    uint64_t ca = a.count, cb = b.count;
    for (const LoadWarnings::Kind &k : a.kinds) {
        if (strict || !readExtentWarning(k.pattern))
            ka.push_back(&k);
        else
            ca -= k.count;
    }
    for (const LoadWarnings::Kind &k : b.kinds) {
        if (strict || !readExtentWarning(k.pattern))
            kb.push_back(&k);
        else
            cb -= k.count;
    }
    d.eq(ca, cb, "warnings.count");
    // The first kKeep texts of one load may then hold one warning more of the rest:
    // compare what both hold (the counts above still see every warning).
    if (!strict) {
        const size_t n = std::min(fa.size(), fb.size());
        fa.resize(n);
        fb.resize(n);
    }
    d.eq(fa.size(), fb.size(), "warnings.first.size");
    columns(d, fa, fb, fa.size(), "warnings.first");
    d.eq(ka.size(), kb.size(), "warnings.kinds.size");
    for (size_t i = 0; i < ka.size() && d.first.empty(); ++i) {
        d.eq(ka[i]->pattern, kb[i]->pattern, at("warnings.kinds", i) + ".pattern");
        d.eq(ka[i]->example, kb[i]->example, at("warnings.kinds", i) + ".example");
        d.eq(ka[i]->count, kb[i]->count, at("warnings.kinds", i) + ".count");
    }
}

inline void id(Differ &d, const IdValue &a, const IdValue &b, const std::string &what)
{
    d.eq(a.text, b.text, what + ".text");
    d.eq(a.num, b.num, what + ".num");
}

} // namespace detail

inline std::string modelDifference(const TraceModel &a, const TraceModel &b, const ModelCompare &how = {})
{
    using detail::at;
    using detail::columns;
    detail::Differ d;

    const TraceInfo &ia = a.info(), &ib = b.info();
    d.eq(ia.path, ib.path, "info.path");
    d.eq(ia.format, ib.format, "info.format");
    d.eq(ia.fileBytes, ib.fileBytes, "info.fileBytes");
    if (how.sameReadExtent)
        d.eq(ia.jsonBytes, ib.jsonBytes, "info.jsonBytes");
    d.eq(ia.rank, ib.rank, "info.rank");
    d.eq(ia.worldSize, ib.worldSize, "info.worldSize");
    d.eq(ia.baseTimeNanoseconds, ib.baseTimeNanoseconds, "info.baseTimeNanoseconds");
    d.eq(ia.schemaVersion, ib.schemaVersion, "info.schemaVersion");
    d.eq(ia.displayTimeUnit, ib.displayTimeUnit, "info.displayTimeUnit");
    d.eq(ia.distributedInfoJson, ib.distributedInfoJson, "info.distributedInfoJson");
    d.eq(ia.devicePropertiesJson, ib.devicePropertiesJson, "info.devicePropertiesJson");
    d.eq(ia.truncated, ib.truncated, "info.truncated");

    const TraceCounts &ca = a.counts(), &cb = b.counts();
    d.eq(ca.durationEvents, cb.durationEvents, "counts.durationEvents");
    d.eq(ca.instants, cb.instants, "counts.instants");
    d.eq(ca.counters, cb.counters, "counts.counters");
    d.eq(ca.flows, cb.flows, "counts.flows");
    d.eq(ca.metadata, cb.metadata, "counts.metadata");
    d.eq(ca.unknownPhase, cb.unknownPhase, "counts.unknownPhase");
    d.eq(ca.skipped, cb.skipped, "counts.skipped");

    detail::warnings(d, a.warnings(), b.warnings(), how.sameReadExtent);

    d.eq(a.strings().size(), b.strings().size(), "strings.size");
    for (size_t i = 0; i < a.strings().size() && d.first.empty(); ++i)
        d.eq(a.str(static_cast<StrId>(i)), b.str(static_cast<StrId>(i)), at("strings", i));

    d.eq(a.tracks().size(), b.tracks().size(), "tracks.size");
    for (size_t t = 0; t < a.tracks().size() && d.first.empty(); ++t) {
        const Track ta = a.track(t), tb = b.track(t);
        const std::string w = at("tracks", t);
        detail::id(d, ta.pid, tb.pid, w + ".pid");
        detail::id(d, ta.tid, tb.tid, w + ".tid");
        d.eq(ta.threadName, tb.threadName, w + ".threadName");
        d.eq(ta.threadSortIndex, tb.threadSortIndex, w + ".threadSortIndex");
        d.eq(ta.maxDur, tb.maxDur, w + ".maxDur");
        d.eq(ta.maxDepth, tb.maxDepth, w + ".maxDepth");
        d.eq(ta.size(), tb.size(), w + ".size");
        if (!d.first.empty())
            break;
        const size_t n = ta.size();
        columns(d, ta.start, tb.start, n, w + ".start");
        columns(d, ta.dur, tb.dur, n, w + ".dur");
        columns(d, ta.name, tb.name, n, w + ".name");
        columns(d, ta.cat, tb.cat, n, w + ".cat");
        columns(d, ta.depth, tb.depth, n, w + ".depth");
        columns(d, ta.parent, tb.parent, n, w + ".parent");
        columns(d, ta.externalId, tb.externalId, n, w + ".externalId");
        columns(d, ta.correlation, tb.correlation, n, w + ".correlation");
        columns(d, ta.device, tb.device, n, w + ".device");
        columns(d, ta.stream, tb.stream, n, w + ".stream");
        columns(d, ta.bytes, tb.bytes, n, w + ".bytes");
        columns(d, ta.syncKind, tb.syncKind, n, w + ".syncKind");
        for (size_t i = 0; i < n && d.first.empty(); ++i) {
            d.eq(ta.args[i].pos, tb.args[i].pos, w + at(".args", i));
            d.eq(a.args(ta.args[i]), b.args(tb.args[i]), w + at(".argsText", i));
        }
        d.eq(ta.instants.size(), tb.instants.size(), w + ".instants.size");
        if (!d.first.empty())
            break;
        const size_t m = ta.instants.size();
        columns(d, ta.instants.ts, tb.instants.ts, m, w + ".instants.ts");
        columns(d, ta.instants.name, tb.instants.name, m, w + ".instants.name");
        columns(d, ta.instants.cat, tb.instants.cat, m, w + ".instants.cat");
        columns(d, ta.instants.scope, tb.instants.scope, m, w + ".instants.scope");
        for (size_t i = 0; i < m && d.first.empty(); ++i) {
            d.eq(ta.instants.args[i].pos, tb.instants.args[i].pos, w + at(".instants.args", i));
            d.eq(a.args(ta.instants.args[i]), b.args(tb.instants.args[i]), w + at(".instants.argsText", i));
        }
    }

    d.eq(a.processes().size(), b.processes().size(), "processes.size");
    for (size_t i = 0; i < a.processes().size() && d.first.empty(); ++i) {
        const Process &pa = a.processes()[i], &pb = b.processes()[i];
        const std::string w = at("processes", i);
        detail::id(d, pa.pid, pb.pid, w + ".pid");
        d.eq(pa.name, pb.name, w + ".name");
        d.eq(pa.labels, pb.labels, w + ".labels");
        d.eq(pa.sortIndex, pb.sortIndex, w + ".sortIndex");
    }

    d.eq(a.counters().size(), b.counters().size(), "counters.size");
    for (size_t i = 0; i < a.counters().size() && d.first.empty(); ++i) {
        const CounterSeries &sa = a.counters()[i], &sb = b.counters()[i];
        const std::string w = at("counters", i);
        detail::id(d, sa.pid, sb.pid, w + ".pid");
        d.eq(sa.name, sb.name, w + ".name");
        d.eq(sa.key, sb.key, w + ".key");
        d.eq(sa.ts.size(), sb.ts.size(), w + ".size");
        d.eq(sa.value.size(), sb.value.size(), w + ".values");
        if (!d.first.empty())
            break;
        columns(d, sa.ts, sb.ts, sa.ts.size(), w + ".ts");
        columns(d, sa.value, sb.value, sa.value.size(), w + ".value");
    }

    d.eq(a.flows().size(), b.flows().size(), "flows.size");
    for (size_t i = 0; i < a.flows().size() && d.first.empty(); ++i) {
        const FlowEvent &fa = a.flows()[i], &fb = b.flows()[i];
        const std::string w = at("flows", i);
        d.eq(static_cast<int>(fa.phase), static_cast<int>(fb.phase), w + ".phase");
        d.eq(fa.bindEnclosing, fb.bindEnclosing, w + ".bindEnclosing");
        d.eq(fa.track, fb.track, w + ".track");
        d.eq(fa.ts, fb.ts, w + ".ts");
        d.eq(fa.name, fb.name, w + ".name");
        d.eq(fa.cat, fb.cat, w + ".cat");
        d.eq(fa.id, fb.id, w + ".id");
        d.eq(fa.idText, fb.idText, w + ".idText");
    }

    d.eq(a.minTime(), b.minTime(), "minTime");
    d.eq(a.maxTime(), b.maxTime(), "maxTime");
    d.eq(a.argsBytes(), b.argsBytes(), "argsBytes");
    d.eq(a.memoryBytes(), b.memoryBytes(), "memoryBytes");
    return d.first;
}

} // namespace syncscope::test
