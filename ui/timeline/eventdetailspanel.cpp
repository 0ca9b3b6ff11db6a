#include "timeline/eventdetailspanel.h"

#include "analysis/advice.h"
#include "analysis/runtime.h"
#include "shared/timeformat.h"
#include "trace/categories.h"

#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>

namespace syncscope::ui {

namespace {

QString qs(std::string_view s) { return QString::fromUtf8(s.data(), int(s.size())); }

// A blocking call this long with an idle GPU is explained in Details.
constexpr TimeNs kLongWaitNs = 1'000'000;

void addJson(QTreeWidgetItem *parent, const QString &key, const QJsonValue &v)
{
    auto *item = new QTreeWidgetItem(parent, {key});
    if (v.isObject()) {
        const QJsonObject o = v.toObject();
        for (auto it = o.begin(); it != o.end(); ++it)
            addJson(item, it.key(), it.value());
        item->setText(1, QStringLiteral("{%1}").arg(o.size()));
    } else if (v.isArray()) {
        const QJsonArray a = v.toArray();
        for (int i = 0; i < a.size(); ++i)
            addJson(item, QString::number(i), a.at(i));
        item->setText(1, QStringLiteral("[%1]").arg(a.size()));
    } else if (v.isString()) {
        item->setText(1, v.toString());
    } else if (v.isDouble()) {
        const double d = v.toDouble();
        // Ids and byte counts are integers: no exponent notation for them.
        item->setText(1, d == std::floor(d) && std::fabs(d) < 9e15 ? QString::number(qint64(d))
                                                                   : QString::number(d, 'g', 12));
    } else if (v.isBool()) {
        item->setText(1, v.toBool() ? QStringLiteral("true") : QStringLiteral("false"));
    } else {
        item->setText(1, QStringLiteral("null"));
    }
    item->setToolTip(1, item->text(1));
}

} // namespace

EventDetailsPanel::EventDetailsPanel(QWidget *parent) : QTreeWidget(parent)
{
    setColumnCount(2);
    setHeaderLabels({tr("Field"), tr("Value")});
    header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    setUniformRowHeights(true);
    setAlternatingRowColors(true);
    setRootIsDecorated(true);
    connect(this, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem *item) {
        bool ok = false;
        const int link = item->data(0, Qt::UserRole).toInt(&ok);
        if (ok && link >= 0 && link < int(m_linkTargets.size()))
            Q_EMIT eventRequested(m_linkTargets[size_t(link)]);
    });
}

QString EventDetailsPanel::field(const QString &key) const
{
    for (int i = 0; i < topLevelItemCount(); ++i)
        if (topLevelItem(i)->text(0) == key)
            return topLevelItem(i)->text(1);
    return {};
}

void EventDetailsPanel::setEvent(const std::shared_ptr<const TimelineData> &data, const TimelineEvent &e,
                                 const std::vector<std::pair<TimelineEvent, TimelineEvent>> &links,
                                 const std::vector<TimelineEvent> &with)
{
    clear();
    m_data = data;
    m_linkTargets.clear();
    if (!data || !e.valid())
        return;
    const TimelineTrack &tt = data->tracks()[size_t(e.track)];
    const TimelineFile &file = data->files()[tt.file];
    const TraceModel &m = *file.model;
    const Track &mt = data->modelTrack(e.track);
    const uint32_t i = e.index;
    auto add = [this](const QString &k, const QString &v) {
        auto *item = new QTreeWidgetItem(this, {k, v});
        item->setToolTip(1, v);
        return item;
    };
    add(tr("Name"), qs(m.str(mt.name[i])));
    add(tr("Category"), qs(m.str(mt.cat[i])));
    // What is selected with it (a collective with its late sync), near the top.
    if (!with.empty()) {
        auto *selected = add(tr("Selected with"), QString::number(with.size()));
        for (const TimelineEvent &other : with) {
            const QString name = qs(data->name(other));
            auto *item = new QTreeWidgetItem(
                selected, {QString(), QStringLiteral("%1  (%2, %3, starts %4 after trace start)")
                                          .arg(name, data->files()[data->tracks()[size_t(other.track)].file].label,
                                               data->tracks()[size_t(other.track)].name,
                                               formatDuration(data->start(other) - data->minTime()))});
            item->setData(0, Qt::UserRole, int(m_linkTargets.size()));
            item->setToolTip(1, tr("%1\nDouble-click to select it").arg(name));
            m_linkTargets.push_back(other);
        }
        selected->setExpanded(true);
    }
    // ts is the file's own time: a rank of a job is drawn on the job's clock,
    // moved by its clock shift.
    const TimeNs shift = m.info().clockShift;
    const QString fileTs = formatScaled(mt.start[i] - shift, 3, 3); // 16 integer digits: no double
    add(tr("Start"),
        shift == 0
            ? tr("%1 after trace start (ts %2 µs)").arg(formatDuration(mt.start[i] - data->minTime()), fileTs)
            : tr("%1 after trace start on the job's clock (ts %2 µs in the file, "
                 "whose clock is %3 %4)")
                  .arg(formatDuration(mt.start[i] - data->minTime()), fileTs,
                       formatDuration(shift < 0 ? -shift : shift), shift < 0 ? tr("ahead") : tr("behind")));
    add(tr("Duration"), formatDuration(mt.dur[i]));
    // Self time: minus the direct children, found in the next level by binary search.
    TimeNs children = 0;
    const size_t depth = mt.depth[i];
    if (depth + 1 < tt.levels.size()) {
        const TimelineLevel &lvl = tt.levels[depth + 1];
        for (size_t p = TimelineData::firstEndingAtOrAfter(mt, lvl, 0, mt.start[i]);
             p < lvl.events.size() && mt.start[lvl.events[p]] < mt.end(i); ++p)
            if (mt.parent[lvl.events[p]] == int32_t(i))
                children += mt.dur[lvl.events[p]];
    }
    add(tr("Self time"), formatDuration(mt.dur[i] - children));
    QString where =
        QStringLiteral("%1 · pid %2 tid %3").arg(tt.name, qs(m.str(mt.pid.text)), qs(m.str(mt.tid.text)));
    if (data->files().size() > 1)
        where = file.label + QStringLiteral(" · ") + where;
    add(tr("Track"), where);
    add(tr("Depth"), QString::number(depth));

    if (isGraphLaunch(m.str(mt.name[i]))) {
        const GpuWork g = gpuWorkOfCorrelation(m, mt.correlation[i]);
        add(tr("Graph"), tr("%n kernel(s), GPU time %1", nullptr, int(g.count)).arg(formatDuration(g.time)));
    }

    // A kernel of a graph replay, and the profiler's own sync records.
    const int64_t corr = mt.correlation[i];
    const std::string_view cat = m.str(mt.cat[i]);
    if (tt.gpu && corr != kNoValue && (category::isGpuActivity(cat) || cat == category::kCudaSync)) {
        for (const Track &t : m.tracks()) {
            bool found = false;
            for (uint32_t k = 0; k < t.size() && !found; ++k) {
                if (t.correlation[k] != corr)
                    continue;
                const std::string_view c2 = m.str(t.cat[k]);
                if (!category::isRuntimeCall(c2))
                    continue;
                found = true;
                const QString host = qs(m.str(t.name[k]));
                if (cat == category::kCudaSync) {
                    add(tr("Host call"),
                        tr("%1 (%2 long; double-click it under Flows)").arg(host, formatDuration(t.dur[k])));
                } else if (isGraphLaunch(m.str(t.name[k]))) {
                    const GpuWork g = gpuWorkOfCorrelation(m, corr);
                    add(tr("Graph"),
                        tr("part of a graph launched by %1: %n activity(ies), GPU time %2", nullptr, int(g.count))
                            .arg(host, formatDuration(g.time)));
                }
            }
            if (found)
                break;
        }
    }
    const ReplayInput &rin = file.sync.replay;
    if (tt.gpu && corr != kNoValue && !rin.deps.empty()) {
        int waitsFor = 0, waitedBy = 0;
        for (const StreamDependency &d : rin.deps) {
            waitsFor += rin.activities[d.activity].correlation == corr;
            waitedBy += rin.activities[d.on].correlation == corr;
        }
        const QString how = rin.waitMode == WaitMode::Exact ? tr("from the profiler's Stream Wait Event records")
                                                            : tr("inferred from the measured schedule");
        if (waitsFor)
            add(tr("Stream wait"),
                tr("waited for %n activity(ies) of another stream (%1)", nullptr, waitsFor).arg(how));
        if (waitedBy)
            add(tr("Awaited by"),
                tr("%n activity(ies) of another stream waited for it (%1)", nullptr, waitedBy).arg(how));
    }

    // A long host call that is not a sync: the host waited inside it.
    {
        const auto &longs = file.sync.longCalls;
        auto l = std::lower_bound(longs.begin(), longs.end(), mt.start[i],
                                  [](const SyncCall &sc, TimeNs t) { return sc.start < t; });
        for (; l != longs.end() && l->start == mt.start[i]; ++l)
            if (data->eventOf(tt.file, l->event) == e)
                add(tr("Long host call"),
                    tr("the host waited %1 inside a call that is not a sync (a full launch queue or a module "
                       "load, for example); the replay does not count it")
                        .arg(formatDuration(l->dur)));
    }

    // Is it a blocking sync call, and did it cause a gap?
    const auto &calls = file.sync.syncCalls;
    auto c = std::lower_bound(calls.begin(), calls.end(), mt.start[i],
                              [](const SyncCall &sc, TimeNs t) { return sc.start < t; });
    for (; c != calls.end() && c->start == mt.start[i]; ++c) {
        if (data->eventOf(tt.file, c->event) != e)
            continue;
        TimeNs gapTime = 0;
        int gaps = 0;
        int64_t gapDevice = kNoValue;
        const size_t ci = size_t(c - calls.begin());
        for (const SyncGap &g : file.sync.syncGaps)
            if (g.syncCall == ci) {
                gapTime += g.interval.length();
                ++gaps;
                gapDevice = g.device;
            }
        add(tr("Blocking sync"),
            gaps ? tr("caused %n GPU idle gap(s), %1 in total", nullptr, gaps).arg(formatDuration(gapTime))
                 : tr("the GPU was not idle while it waited"));
        if (c->pageableCopy)
            add(tr("Hidden sync"), tr("a device-to-host copy into pageable memory blocks the host"));
        // A long wait with an idle GPU: it waited for something the trace does not show.
        if (c->dur >= kLongWaitNs) {
            const TimeNs busy = gpuBusyWithin(file.sync, c->start, c->end());
            if (busy * 2 <= c->dur)
                add(tr("Waited outside the trace"),
                    tr("the GPU ran work for %1 of this call's %2: the rest of the wait was for something the "
                       "trace does not show (the runtime's or driver's set-up, lazy code loading, or another "
                       "process on the GPU)")
                        .arg(formatDuration(busy), formatDuration(c->dur)));
        }
        add(tr("Avoidable"), tr("%1 (the GPUs finish this much earlier in a replay without this call alone)")
                                 .arg(formatDuration(c->avoidable)));
        if (c->avoidable == 0 && gaps > 0)
            add(tr("Why 0"), whyNothingAvoidable(file.sync, gapDevice));
        if (file.hasPythonFrames) {
            add(tr("User frame"),
                c->userFrame.valid() ? data->text(tt.file, c->userFrame) : tr("none (library code only)"));
            if (c->pyFrame.valid())
                add(tr("Python frame"), data->text(tt.file, c->pyFrame));
        }
        if (c->step >= 0)
            add(tr("Step"), data->text(tt.file, file.sync.steps[size_t(c->step)].name));
        if (c->advice >= 0) {
            const AdviceRule &r = builtinAdviceRules().rules[size_t(c->advice)];
            add(tr("What to change"), QStringLiteral("%1 [%2]: %3")
                                          .arg(QString::fromStdString(r.title), QString::fromStdString(r.id),
                                               QString::fromStdString(r.rewrite)));
        } else {
            add(tr("What to change"), tr("no known rewrite (no advice rule matches this call)"));
        }
        if (c->source >= 0) {
            const SyncSource &src = file.sync.sources[size_t(c->source)];
            add(tr("Sync source"),
                tr("%n call(s) like it; %1 avoidable without all of them", nullptr, int(src.count))
                    .arg(formatDuration(src.avoidable)));
        }
    }

    if (!links.empty()) {
        auto *flows = add(tr("Flows"), QString::number(links.size()));
        for (const auto &[from, to] : links) {
            const TimelineEvent other = from == e ? to : from;
            const QString dir = from == e ? QStringLiteral("→") : QStringLiteral("←");
            auto *item = new QTreeWidgetItem(
                flows,
                {dir,
                 QStringLiteral("%1  (%2)").arg(qs(data->name(other)), data->tracks()[size_t(other.track)].name)});
            item->setData(0, Qt::UserRole, int(m_linkTargets.size()));
            item->setToolTip(1, tr("Double-click to select it"));
            m_linkTargets.push_back(other);
        }
        flows->setExpanded(true);
    }

    const std::string_view raw = m.args(mt.args[i]);
    if (!raw.empty()) {
        auto *argsItem = add(tr("Args"), QString());
        QJsonParseError err{};
        const QJsonDocument doc = QJsonDocument::fromJson(QByteArray(raw.data(), int(raw.size())), &err);
        if (doc.isObject()) {
            const QJsonObject o = doc.object();
            for (auto it = o.begin(); it != o.end(); ++it)
                addJson(argsItem, it.key(), it.value());
            argsItem->setText(1, QString::number(o.size()));
        } else {
            argsItem->setText(1, qs(raw));
        }
        argsItem->setExpanded(true);
    }
}

} // namespace syncscope::ui
