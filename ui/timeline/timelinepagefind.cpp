// The Timeline page's find: the matcher of the find text (built on a worker for
// large jobs), "n of m", the other matches outlined, and next/previous that
// zoom and pan to the match.
#include "timeline/timelinepage.h"

#include "jobs/jobrunner.h"
#include "shared/timeformat.h"
#include "timeline/findbar.h"
#include "timeline/namematcher.h"
#include "timeline/timelinedata.h"
#include "timeline/timelineview.h"

#include <QLocale>

#include <algorithm>
#include <limits>
#include <cmath>

namespace syncscope::ui {

void TimelinePage::focusFind() { m_findBar->focusText(); }

QString TimelinePage::matchCountText(uint64_t n)
{
    return n == 1 ? tr("1 match") : tr("%1 matches").arg(QLocale().toString(qulonglong(n)));
}

QString TimelinePage::findStatusText() const { return m_findBar->status(); }

void TimelinePage::updateMatcher()
{
    m_findBar->settle();
    m_findRunner->cancel();
    m_matcher.reset();
    m_matcherData.reset();
    m_view->setHighlightedNames(nullptr);
    const auto data = m_view->data();
    const QString text = m_findBar->text();
    if (!data || text.isEmpty()) {
        m_pendingFind = 0;
        m_findBar->clearStatus();
        return;
    }
    const bool regex = m_findBar->isRegex(), matchCase = m_findBar->matchCase();
    const uint64_t size = data->summary().events;
    if (size <= m_findSyncLimit) {
        setMatcher(std::make_shared<const NameMatcher>(*data, text, regex, matchCase), data);
        return;
    }
    // Every string of every rank through a regex, and every event counted: on a
    // job of millions of events that is too long for the GUI thread.
    m_findBar->setStatus(tr("Searching…"));
    m_findRunner->start(
        tr("Find"),
        [data, text, regex, matchCase](const ProgressFn &, const CancelToken *cancel) {
            return std::make_shared<const NameMatcher>(*data, text, regex, matchCase, cancel);
        },
        this,
        [this, data](std::shared_ptr<const NameMatcher> matcher) {
            // A matcher of a trace no longer shown is dropped.
            if (data == m_view->data())
                setMatcher(std::move(matcher), data);
        });
}

void TimelinePage::setMatcher(std::shared_ptr<const NameMatcher> matcher, std::shared_ptr<const TimelineData> data)
{
    m_matcher = std::move(matcher);
    m_matcherData = std::move(data);
    if (!m_matcher->isValid()) {
        m_findBar->setStatus(m_matcher->error());
    } else {
        m_findBar->setStatus(matchCountText(m_matcher->eventCount()));
        if (m_matcher->eventCount() > 0)
            m_view->setHighlightedNames(m_matcher->mask());
    }
    const int pending = m_pendingFind;
    m_pendingFind = 0;
    if (pending != 0)
        find(pending > 0);
    Q_EMIT findReady();
}

void TimelinePage::find(bool forward)
{
    if (m_findBar->isChangePending() || (!m_matcher && !m_findRunner->isRunning() && !m_findBar->text().isEmpty()))
        updateMatcher();
    if (m_findRunner->isRunning()) { // finds once the matcher is built
        m_pendingFind = forward ? 1 : -1;
        return;
    }
    if (!m_matcher) {
        focusFind();
        return;
    }
    if (!m_matcher->isValid() || m_matcher->eventCount() == 0) {
        Q_EMIT statusMessage(m_matcher->isValid() ? tr("No event matches “%1”").arg(m_matcher->pattern())
                                                  : m_matcher->error());
        return;
    }
    bool wrapped = false;
    const TimelineEvent from = m_view->selectedEvent();
    const TimeNs t = forward ? m_view->mapping().start() : m_view->mapping().end();
    const TimelineEvent e = forward ? m_matcher->next(from, t, &wrapped) : m_matcher->previous(from, t, &wrapped);
    if (!e.valid())
        return;
    m_view->selectEvent(e, false);
    revealMatch(e);
    updateFindOrdinal();
    if (wrapped)
        Q_EMIT statusMessage(forward ? tr("Find wrapped to the start of the trace")
                                     : tr("Find wrapped to the end of the trace"));
}

void TimelinePage::updateFindOrdinal()
{
    // Also for a match selected by a click. The matcher must be of the data
    // shown: a new trace selects (nothing) before its matcher is built.
    const TimelineEvent e = m_view->selectedEvent();
    if (!m_matcher || m_matcherData != m_view->data() || !m_matcher->matches(e))
        return;
    m_findBar->setStatus(tr("%1 of %2")
                             .arg(QLocale().toString(qulonglong(m_matcher->ordinal(e))),
                                  QLocale().toString(qulonglong(m_matcher->eventCount()))));
}

void TimelinePage::revealMatch(const TimelineEvent &e)
{
    const auto data = m_view->data();
    const TimeNs s = data->start(e), d = data->end(e) - s;
    const TimeMapping &map = m_view->mapping();
    const double width = std::max(1, m_view->plotRect().width());
    // Readable: at least an eighth of the plot (room for its label) and at most
    // 80% of it (its neighbours in view). Otherwise zoom so that it fills the
    // middle third; an instant keeps the zoom, up to 100 µs of context.
    TimeNs span = map.span();
    const double px = double(d) / std::max(1e-9, map.nsPerPixel());
    if (d > 0 && (px < width / 8 || px > 0.8 * width))
        span = d < std::numeric_limits<TimeNs>::max() / 6 ? 3 * d : d; // no overflow on absurd durations
    else if (d == 0)
        span = std::min<TimeNs>(span, 100'000);
    const TimeNs mid = s + d / 2;
    m_view->setVisibleRange(mid - span / 2, mid - span / 2 + span);
    m_view->revealEvent(e);
}

void TimelinePage::findNext() { find(true); }
void TimelinePage::findPrevious() { find(false); }

} // namespace syncscope::ui
