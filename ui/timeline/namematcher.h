#pragma once
// Find by name: which interned names match (a substring or a regular
// expression, either case-sensitive or not), how many events carry them, where
// one match stands among all ("n of m"), and the next or previous match in time
// order from a position. Built once per pattern, on a worker for large traces.
#include "common/progress.h"
#include "timeline/timelinedata.h"

#include <QString>

#include <memory>
#include <vector>

namespace syncscope::ui {

// Per file of the job, per string id: 1 when that name matches.
using NameMask = std::vector<std::vector<char>>;

class NameMatcher {
public:
    // Plain mode is a substring search; case-insensitive folds ASCII only (the
    // names of a trace are C++ and Python identifiers). Regex mode follows the
    // same case switch. Throws Cancelled when `cancel` is set.
    NameMatcher(const TimelineData &data, const QString &pattern, bool regex, bool caseSensitive = false,
                const CancelToken *cancel = nullptr);

    bool isValid() const { return m_error.isEmpty(); }
    QString error() const { return m_error; }
    QString pattern() const { return m_pattern; }
    bool regex() const { return m_regex; }
    bool caseSensitive() const { return m_caseSensitive; }
    // Matching events on the drawn tracks.
    uint64_t eventCount() const { return m_events; }
    bool matches(uint32_t file, StrId name) const { return (*m_match)[file][name] != 0; }
    bool matches(const TimelineEvent &e) const;
    std::shared_ptr<const NameMask> mask() const { return m_match; }

    // 1-based position of a matching event among all matches in (start, track,
    // index) order, the order next() walks; 0 when e is no match.
    uint64_t ordinal(const TimelineEvent &e) const;

    // The first match after `from` (or at/after `time` when from is invalid) in
    // (start, track, index) order; wraps around. Sets wrapped when it did.
    TimelineEvent next(const TimelineEvent &from, TimeNs time, bool *wrapped = nullptr) const;
    TimelineEvent previous(const TimelineEvent &from, TimeNs time, bool *wrapped = nullptr) const;

private:
    static constexpr size_t kBlock = 4096;
    struct Key {
        TimeNs start;
        int track;
        int64_t index;
    };
    TimelineEvent search(const Key &from, bool forward) const;
    // Matches among the first `end` events (model order) of drawn track ti.
    uint64_t countBefore(int ti, size_t end) const;

    const TimelineData &m_data;
    QString m_pattern;
    QString m_error;
    bool m_regex = false;
    bool m_caseSensitive = false;
    std::shared_ptr<NameMask> m_match;
    // Per drawn track: matches in the events before each block of kBlock
    // (size blocks + 1), so ordinal() scans at most one block per track.
    std::vector<std::vector<uint64_t>> m_prefix;
    uint64_t m_events = 0;
};

} // namespace syncscope::ui
