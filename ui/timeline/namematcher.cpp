#include "timeline/namematcher.h"

#include "common/error.h"

#include <QRegularExpression>

#include <algorithm>
#include <limits>

namespace syncscope::ui {

NameMatcher::NameMatcher(const TimelineData &data, const QString &pattern, bool regex, bool caseSensitive,
                         const CancelToken *cancel)
    : m_data(data), m_pattern(pattern), m_regex(regex), m_caseSensitive(caseSensitive),
      m_match(std::make_shared<NameMask>())
{
    auto poll = [cancel] { checkCancel(cancel); };
    QRegularExpression re;
    if (regex) {
        re = QRegularExpression(pattern, caseSensitive ? QRegularExpression::NoPatternOption
                                                       : QRegularExpression::CaseInsensitiveOption);
        if (!re.isValid()) {
            m_error = QStringLiteral("invalid regular expression: %1").arg(re.errorString());
            return;
        }
    }
    const QByteArray needle = caseSensitive ? pattern.toUtf8() : pattern.toUtf8().toLower();
    auto fold = [](char a) { return a >= 'A' && a <= 'Z' ? char(a + 32) : a; };
    m_match->resize(data.files().size());
    for (size_t f = 0; f < data.files().size(); ++f) {
        const TraceModel &m = *data.files()[f].model;
        auto &match = (*m_match)[f];
        match.assign(m.strings().size(), 0);
        if (pattern.isEmpty())
            continue;
        for (size_t id = 0; id < match.size(); ++id) {
            if (id % 4096 == 0)
                poll();
            const std::string_view s = m.str(StrId(id));
            if (regex) {
                match[id] = re.match(QString::fromUtf8(s.data(), int(s.size()))).hasMatch();
            } else if (caseSensitive) {
                match[id] = s.find(std::string_view(needle.constData(), size_t(needle.size()))) != s.npos;
            } else {
                // ASCII case folding on the UTF-8 bytes: no conversion per string.
                auto it = std::search(s.begin(), s.end(), needle.begin(), needle.end(),
                                      [&](char a, char b) { return fold(a) == b; });
                match[id] = it != s.end() || needle.isEmpty();
            }
        }
    }
    m_prefix.resize(data.tracks().size());
    for (int ti = 0; ti < int(data.tracks().size()); ++ti) {
        poll();
        const auto &match = (*m_match)[data.tracks()[size_t(ti)].file];
        const Track &mt = data.modelTrack(ti);
        auto &prefix = m_prefix[size_t(ti)];
        prefix.reserve(mt.size() / kBlock + 2);
        uint64_t count = 0;
        for (size_t i = 0; i < mt.size(); ++i) {
            if (i % kBlock == 0)
                prefix.push_back(count);
            count += uint64_t(match[mt.name[i]] != 0);
        }
        prefix.push_back(count); // an end entry, also for a track of a multiple of kBlock events
        m_events += count;
    }
}

bool NameMatcher::matches(const TimelineEvent &e) const
{
    if (!isValid() || !e.valid() || e.track >= int(m_data.tracks().size()))
        return false;
    return matches(m_data.tracks()[size_t(e.track)].file, m_data.modelTrack(e.track).name[e.index]);
}

uint64_t NameMatcher::countBefore(int ti, size_t end) const
{
    const auto &prefix = m_prefix[size_t(ti)];
    const Track &mt = m_data.modelTrack(ti);
    const auto &match = (*m_match)[m_data.tracks()[size_t(ti)].file];
    const size_t block = end / kBlock;
    if (end == mt.size())
        return prefix.back();
    uint64_t n = prefix[block];
    for (size_t i = block * kBlock; i < end; ++i)
        n += uint64_t(match[mt.name[i]] != 0);
    return n;
}

uint64_t NameMatcher::ordinal(const TimelineEvent &e) const
{
    if (!matches(e))
        return 0;
    const TimeNs t = m_data.start(e);
    uint64_t before = 0;
    for (int ti = 0; ti < int(m_data.tracks().size()); ++ti) {
        const Track &mt = m_data.modelTrack(ti);
        size_t end;
        if (ti < e.track) // (start, track) before e's: starts up to and including t
            end = size_t(std::upper_bound(mt.start.begin(), mt.start.end(), t) - mt.start.begin());
        else if (ti > e.track)
            end = size_t(std::lower_bound(mt.start.begin(), mt.start.end(), t) - mt.start.begin());
        else // a track's events are sorted by start: the index orders them
            end = e.index;
        before += countBefore(ti, end);
    }
    return before + 1;
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
        const auto &match = (*m_match)[file];
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
    const Key k = from.valid() ? Key{m_data.start(from), from.track, int64_t(from.index)} : Key{time, -1, -1};
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
