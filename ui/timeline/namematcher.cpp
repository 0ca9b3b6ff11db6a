#include "timeline/namematcher.h"

#include <QRegularExpression>

#include <algorithm>
#include <limits>

namespace syncscope::ui {

NameMatcher::NameMatcher(const TimelineData &data, const QString &pattern, bool regex)
    : m_data(data), m_pattern(pattern)
{
    QRegularExpression re;
    if (regex) {
        re = QRegularExpression(pattern, QRegularExpression::CaseInsensitiveOption);
        if (!re.isValid()) {
            m_error = QStringLiteral("invalid regular expression: %1").arg(re.errorString());
            return;
        }
    }
    const QByteArray needle = pattern.toUtf8().toLower();
    m_match.resize(data.files().size());
    for (size_t f = 0; f < data.files().size(); ++f) {
        const TraceModel &m = *data.files()[f].model;
        auto &match = m_match[f];
        match.assign(m.strings().size(), 0);
        if (pattern.isEmpty())
            continue;
        for (size_t id = 0; id < match.size(); ++id) {
            const std::string_view s = m.str(StrId(id));
            if (regex) {
                match[id] = re.match(QString::fromUtf8(s.data(), int(s.size()))).hasMatch();
            } else {
                // ASCII case folding on the UTF-8 bytes: no conversion per string.
                auto it = std::search(s.begin(), s.end(), needle.begin(), needle.end(),
                                      [](char a, char b) {
                                          return (a >= 'A' && a <= 'Z' ? char(a + 32) : a) == b;
                                      });
                match[id] = it != s.end() || needle.isEmpty();
            }
        }
        for (const Track &t : m.tracks())
            for (StrId n : t.name)
                m_events += uint64_t(match[n]);
    }
}

TimelineEvent NameMatcher::search(const Key &from, bool forward) const
{
    TimelineEvent best;
    Key bestKey{};
    auto less = [](const Key &a, const Key &b) {
        if (a.start != b.start)
            return a.start < b.start;
        if (a.track != b.track)
            return a.track < b.track;
        return a.index < b.index;
    };
    for (int ti = 0; ti < int(m_data.tracks().size()); ++ti) {
        const uint32_t file = m_data.tracks()[size_t(ti)].file;
        const auto &match = m_match[file];
        const Track &mt = m_data.modelTrack(ti);
        const size_t n = mt.size();
        if (forward) {
            size_t i = size_t(std::lower_bound(mt.start.begin(), mt.start.end(), from.start) - mt.start.begin());
            for (; i < n; ++i) {
                const Key k{mt.start[i], ti, int64_t(i)};
                if (best.valid() && k.start > bestKey.start)
                    break;
                if (!less(from, k) || !match[mt.name[i]])
                    continue;
                if (!best.valid() || less(k, bestKey)) {
                    best = {ti, uint32_t(i)};
                    bestKey = k;
                }
                break;
            }
        } else {
            size_t i = size_t(std::upper_bound(mt.start.begin(), mt.start.end(), from.start) - mt.start.begin());
            while (i-- > 0) {
                const Key k{mt.start[i], ti, int64_t(i)};
                if (best.valid() && k.start < bestKey.start)
                    break;
                if (!less(k, from) || !match[mt.name[i]])
                    continue;
                if (!best.valid() || less(bestKey, k)) {
                    best = {ti, uint32_t(i)};
                    bestKey = k;
                }
                break;
            }
        }
    }
    return best;
}

TimelineEvent NameMatcher::next(const TimelineEvent &from, TimeNs time, bool *wrapped) const
{
    if (wrapped)
        *wrapped = false;
    if (!isValid() || m_events == 0)
        return {};
    const Key k = from.valid() ? Key{m_data.start(from), from.track, int64_t(from.index)}
                               : Key{time, -1, -1};
    TimelineEvent e = search(k, true);
    if (!e.valid()) {
        if (wrapped)
            *wrapped = true;
        e = search(Key{std::numeric_limits<TimeNs>::min(), -1, -1}, true);
    }
    return e;
}

TimelineEvent NameMatcher::previous(const TimelineEvent &from, TimeNs time, bool *wrapped) const
{
    if (wrapped)
        *wrapped = false;
    if (!isValid() || m_events == 0)
        return {};
    const Key k = from.valid() ? Key{m_data.start(from), from.track, int64_t(from.index)}
                               : Key{time, std::numeric_limits<int>::max(), 0};
    TimelineEvent e = search(k, false);
    if (!e.valid()) {
        if (wrapped)
            *wrapped = true;
        e = search(Key{std::numeric_limits<TimeNs>::max(), std::numeric_limits<int>::max(), 0}, false);
    }
    return e;
}

} // namespace syncscope::ui
