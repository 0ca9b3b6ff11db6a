#pragma once
// The selected event: name, category, times, self time, where it ran, its
// flows and every arg (parsed from the raw JSON the model keeps).
#include "timeline/timelinedata.h"

#include <QTreeWidget>

#include <memory>
#include <utility>
#include <vector>

namespace syncscope::ui {

class EventDetailsPanel : public QTreeWidget {
    Q_OBJECT
public:
    explicit EventDetailsPanel(QWidget *parent = nullptr);

    // links: the flows of e; with: the events selected together with it.
    void setEvent(const std::shared_ptr<const TimelineData> &data, const TimelineEvent &e,
                  const std::vector<std::pair<TimelineEvent, TimelineEvent>> &links,
                  const std::vector<TimelineEvent> &with = {});
    // The value shown for a top-level field ("Name", "Duration", ...); for tests.
    QString field(const QString &key) const;

Q_SIGNALS:
    // A linked event (flow) was activated in the panel.
    void eventRequested(const TimelineEvent &e);

private:
    std::shared_ptr<const TimelineData> m_data;
    std::vector<TimelineEvent> m_linkTargets;
};

} // namespace syncscope::ui
