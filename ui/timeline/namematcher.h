#pragma once
// Find by name: which interned names match (substring, case-insensitive, or a
// regular expression), how many events carry them, and the next or previous
// match in time order from a position.
#include "timeline/timelinedata.h"

#include <QString>

#include <vector>

namespace syncscope::ui {

class NameMatcher {
public:
    NameMatcher(const TimelineData &data, const QString &pattern, bool regex);

    bool isValid() const { return m_error.isEmpty(); }
    QString error() const { return m_error; }
    QString pattern() const { return m_pattern; }
    uint64_t eventCount() const { return m_events; }
    bool matches(uint32_t file, StrId name) const { return m_match[file][name] != 0; }

    // The first match after `from` (or at/after `time` when from is invalid) in
    // (start, track, index) order; wraps around. Sets wrapped when it did.
    TimelineEvent next(const TimelineEvent &from, TimeNs time, bool *wrapped = nullptr) const;
    TimelineEvent previous(const TimelineEvent &from, TimeNs time, bool *wrapped = nullptr) const;

private:
    struct Key {
        TimeNs start;
        int track;
        int64_t index;
    };
    TimelineEvent search(const Key &from, bool forward) const;

    const TimelineData &m_data;
    QString m_pattern;
    QString m_error;
    std::vector<std::vector<char>> m_match; // per file, per StrId
    uint64_t m_events = 0;
};

} // namespace syncscope::ui
