// The Timeline page's sync verdict: the header that leads with the avoidable
// time and a sync source's gaps selected together.
#include "timeline/timelinepage.h"

#include "analysis/advice.h"
#include "analysis/filereport.h"
#include "analysis/jobscale.h"
#include "analysis/limittext.h"
#include "analysis/runtime.h"
#include "analysis/syncreplay.h"
#include "common/progress.h"
#include "jobs/jobrunner.h"
#include "shared/timeformat.h"
#include "timeline/advicepanel.h"
#include "timeline/syncgapmodel.h"
#include "timeline/syncsourcemodel.h"
#include "timeline/timelinedata.h"
#include "timeline/timelineview.h"

#include <QFontMetrics>
#include <QItemSelection>
#include <QLabel>
#include <QLocale>
#include <QSortFilterProxyModel>
#include <QTableView>

#include <algorithm>

namespace syncscope::ui {


void TimelinePage::startWhatIf()
{
    const auto data = m_view->data();
    const std::vector<int> rows = m_sourceModel->checkedRows();
    if (!data || rows.empty()) {
        m_whatIfRunner->cancel();
        m_whatIf.reset();
        m_whatIfPending = false;
        updateHeader();
        Q_EMIT whatIfReady();
        return;
    }
    // The checked sources' calls, per file.
    std::vector<std::vector<size_t>> calls(data->files().size());
    for (int row : rows) {
        const SyncSourceModel::Entry &e = m_sourceModel->entries()[size_t(row)];
        const SyncSource &src = m_sourceModel->source(row);
        calls[e.file].insert(calls[e.file].end(), src.calls.begin(), src.calls.end());
    }
    const size_t sources = rows.size();
    m_whatIfPending = true;
    updateHeader();
    m_whatIfRunner->start(
        tr("What-if"),
        [data, calls = std::move(calls), sources](const ProgressFn &, const CancelToken *cancel) {
            WhatIfResult r;
            r.sources = sources;
            for (size_t f = 0; f < data->files().size(); ++f) {
                checkCancel(cancel);
                std::vector<size_t> mine = calls[f];
                std::sort(mine.begin(), mine.end());
                r.calls += mine.size();
                const TimelineFile &file = data->files()[f];
                SyncReplay replay(file.sync.replay);
                r.byFile.push_back(replay.run(mine));
                std::vector<std::string> limits;
                if (!mine.empty() && file.model)
                    for (size_t d = 0; d < file.sync.replay.deviceIds.size(); ++d) {
                        checkCancel(cancel);
                        limits.push_back(limitSentence(replay.limitedBy(mine, d), file.sync.replay,
                                                       syncCallText(*file.model, file.sync),
                                                       file.model->minTime()));
                    }
                r.limitByFile.push_back(std::move(limits));
            }
            if (data->files().size() >= 2) {
                r.hasJob = true;
                r.job = jobWhatIfSaving(data->rankInputs(), calls, cancel);
            }
            return r;
        },
        this,
        [this](WhatIfResult r) {
            m_whatIf = std::move(r);
            m_whatIfPending = false;
            updateHeader();
            Q_EMIT whatIfReady();
        });
}

void TimelinePage::updateHeader()
{
    const auto data = m_view->data();
    if (!data) {
        m_header->setText(tr("No trace open"));
        return;
    }
    const TimelineSummary &s = data->summary();
    const bool ranks = data->files().size() > 1;
    // Lead with the device that host waits cost the most: what removing every
    // blocking call would save (an upper bound), and the single source that
    // saves the most on it.
    const TimelineFile *bestFile = nullptr;
    const DeviceActivity *best = nullptr;
    for (const TimelineFile &f : data->files())
        for (const DeviceActivity &d : f.sync.devices)
            if (!best || d.avoidable > best->avoidable) {
                best = &d;
                bestFile = &f;
            }
    QStringList parts;
    // A file that ends early says so first: every figure covers only its start.
    bool truncated = false;
    for (const TimelineFile &f : data->files()) {
        const TraceInfo &info = f.model->info();
        if (!info.truncated)
            continue;
        truncated = true;
        const QString sentence = QString::fromStdString(truncationSentence(info.truncatedAtByte,
                                                                           info.format == "json.gz",
                                                                           f.model->maxTime() - f.model->minTime(),
                                                                           f.model->counts().durationEvents));
        parts << QStringLiteral("<b>%1</b>")
                     .arg((ranks ? f.label + QStringLiteral(": ") + sentence : sentence).toHtmlEscaped());
    }
    // Cut inside its kinds of events: what is missing leads, and no figure
    // below reads as a finding (busy, avoidable, sync calls).
    bool incomplete = false;
    for (const TimelineFile &f : data->files())
        if (!f.unevenCut.empty()) {
            incomplete = true;
            const QString sentence = QString::fromStdString(f.unevenCut);
            parts << QStringLiteral("<b>%1</b>")
                         .arg((ranks ? f.label + QStringLiteral(": ") + sentence : sentence).toHtmlEscaped());
        }
    // The runtime each file was recorded with (CUDA, HIP), or why there is no
    // sync analysis. With no file's runtime known, that leads: no figure
    // below it is a verdict.
    QStringList runtimes;
    int unknown = 0;
    for (const TimelineFile &f : data->files()) {
        const QString label = QString::fromLatin1(runtimeLabel(f.sync.runtime.runtime));
        if (label.isEmpty())
            ++unknown;
        else if (!runtimes.contains(label))
            runtimes << label;
    }
    // With no runtime known, or a file cut unevenly, no figure below is a verdict.
    const bool noneKnown = unknown == int(data->files().size()) || incomplete;
    if (incomplete)
        ; // said above
    else if (noneKnown && !ranks)
        parts << QString::fromStdString(runtimeUnavailableSentence(data->files().front().sync.runtime))
                     .toHtmlEscaped();
    else if (noneKnown)
        parts << tr("no file has runtime calls syncscope knows: sync analysis unavailable");
    // What-if of the checked sources, first: the user asked for it.
    const std::vector<int> checked = m_sourceModel->checkedRows();
    QString whatIfTip;
    if (!checked.empty() && m_whatIfPending) {
        parts << tr("%n checked source(s) removed together: computing…", nullptr, int(checked.size()));
    } else if (!checked.empty() && m_whatIf) {
        const WhatIfResult &w = *m_whatIf;
        const TimelineFile *wf = nullptr;
        const DeviceActivity *wd = nullptr;
        TimeNs saved = -1;
        std::string limit;
        for (size_t f = 0; f < w.byFile.size() && f < data->files().size(); ++f) {
            const TimelineFile &file = data->files()[f];
            for (size_t d = 0; d < w.byFile[f].size() && d < file.sync.devices.size(); ++d) {
                whatIfTip += tr("%1 GPU %2 would finish %3 earlier without the checked sources\n")
                                 .arg(file.label)
                                 .arg(file.sync.devices[d].device)
                                 .arg(formatDuration(w.byFile[f][d]));
                if (w.byFile[f][d] > saved) {
                    saved = w.byFile[f][d];
                    wf = &file;
                    wd = &file.sync.devices[d];
                    limit = f < w.limitByFile.size() && d < w.limitByFile[f].size() ? w.limitByFile[f][d]
                                                                                    : std::string();
                }
            }
        }
        QString text =
            tr("%n checked source(s) (%1 call(s)) removed together: ", nullptr, int(w.sources)).arg(w.calls);
        if (w.hasJob)
            text += tr("the job would finish <b>%1</b> earlier (all ranks)").arg(formatDuration(w.job));
        if (wd) {
            const QString gpu = ranks ? tr("%1 GPU %2").arg(wf->label).arg(wd->device)
                                      : tr("GPU %1").arg(wd->device);
            text += (w.hasJob ? tr("; at most %1 on %2 alone") : tr("%2 would finish <b>%1</b> earlier"))
                        .arg(formatDuration(saved), gpu.toHtmlEscaped());
            if (!limit.empty())
                text += tr(" (limited by: %1)").arg(QString::fromStdString(limit).toHtmlEscaped());
        }
        parts << text;
    }
    if (best && !noneKnown) {
        const QString gpu = ranks ? tr("%1 GPU %2").arg(bestFile->label).arg(best->device)
                                  : tr("GPU %1").arg(best->device);
        parts << tr("%1 would finish up to <b>%2</b> earlier without host waits (%3 of its span)")
                     .arg(gpu.toHtmlEscaped(), formatDuration(best->avoidable),
                          formatPercent(best->avoidable, best->span()));
        // Where the head start stopped: a small or 0 figure says why.
        const SyncAnalysis &sa = bestFile->sync;
        if (!sa.syncCalls.empty() && bestFile->model) {
            parts << tr("limited by: %1")
                         .arg(QString::fromStdString(limitSentence(best->limit, *bestFile->model, sa))
                                  .toHtmlEscaped());
        }
    } else if (!best) {
        parts << (truncated ? tr("no GPU activity in the part read") : tr("no GPU activity in this trace"));
    }
    // Job-wide figures name their scope when several ranks are open.
    const QString all = ranks ? tr(" (all ranks)") : QString();
    if (!noneKnown) {
        QString gaps = tr("sync-gap time <b>%1</b> in %n gap(s)", nullptr, int(s.syncGaps))
                           .arg(formatDuration(s.syncGapTime)) +
                       all;
        // A saving with no gap: the waits delayed launches, the GPU never sat idle waiting on them.
        if (s.syncGaps == 0 && best && best->avoidable > 0)
            gaps += tr(" (the saving comes from no gap: the waits made the host launch later work late, "
                       "and no idle stretch of the GPU ends in one)");
        parts << gaps;
    }
    if (best && !noneKnown) {
        const SyncAnalysis &sa = bestFile->sync;
        const size_t di = sa.deviceIndex(best->device);
        const SyncSource *top = nullptr;
        for (const SyncSource &src : sa.sources)
            if (di < src.avoidableByDevice.size() &&
                (!top || src.avoidableByDevice[di] > top->avoidableByDevice[di]))
                top = &src;
        if (top && top->avoidableByDevice[di] > 0) {
            const uint32_t fi = uint32_t(bestFile - data->files().data());
            QString where = data->text(fi, top->sync);
            if (top->op != kNoStr)
                where += tr(" in %1").arg(data->text(fi, top->op));
            if (top->userFrame != kNoStr)
                where += tr(" at %1").arg(data->text(fi, top->userFrame));
            const QFontMetrics fm(m_header->font());
            parts << tr("largest single source <b>%1</b>: %2")
                             .arg(formatDuration(top->avoidableByDevice[di]),
                                  fm.elidedText(where, Qt::ElideMiddle, 420).toHtmlEscaped()) +
                         (ranks ? tr(" (%1)").arg(bestFile->label.toHtmlEscaped()) : QString());
        }
        // The total with no single source near it: the syncs hold each other up.
        const TimeNs largest = top ? top->avoidableByDevice[di] : 0;
        if (noSingleSourceExplains(largest, best->avoidable))
            parts << tr("no single source saves much: the syncs re-synchronize each other; removing all %n "
                        "blocking call(s) together saves %1 (check sources to see what a set saves)",
                        nullptr, int(sa.syncCalls.size()))
                         .arg(formatDuration(best->avoidable));
    }
    if (s.devices > 0 && !noneKnown)
        parts << tr("GPU busy %1").arg(formatPercent(s.busy, s.span)) + all;
    // No count of sync calls where no file's runtime is known: "0" would be a verdict.
    if (!noneKnown)
        parts << tr("%n sync call(s)", nullptr, int(s.syncCalls)) + all;
    if (!runtimes.isEmpty())
        parts << tr("runtime %1").arg(runtimes.join(QStringLiteral(", ")));
    if (unknown && unknown < int(data->files().size()))
        parts << tr("%n file(s) with no runtime calls syncscope knows", nullptr, unknown);
    if (ranks)
        parts << tr("%n ranks", nullptr, int(data->files().size()));
    parts << tr("%1 events").arg(QLocale().toString(qulonglong(s.events)));
    m_header->setText(parts.join(QStringLiteral(" · ")));
    QString tip;
    for (const TimelineFile &f : data->files())
        for (const DeviceActivity &d : f.sync.devices)
            tip += tr("%1 GPU %2: would finish up to %3 earlier without host waits; busy %4 of %5 (%6), "
                      "sync gaps %7\n")
                       .arg(f.label)
                       .arg(d.device)
                       .arg(formatDuration(d.avoidable), formatDuration(d.busy), formatDuration(d.span()),
                            formatPercent(d.busy, d.span()), formatDuration(d.syncGap));
    tip += tr("Avoidable: how much earlier the device's last activity would end in a replay of the trace "
              "in which the host never waits (every blocking call removed): an upper bound.");
    if (!whatIfTip.isEmpty())
        tip = whatIfTip + tip;
    m_header->setToolTip(tip.trimmed());
}

void TimelinePage::onSourceActivated(const QModelIndex &index)
{
    if (!index.isValid())
        return;
    showSource(m_sourceProxy->mapToSource(index).row());
}

void TimelinePage::showSource(int row)
{
    const auto data = m_view->data();
    if (!data || row < 0 || row >= m_sourceModel->rowCount())
        return;
    showAdvice(row);
    const SyncSourceModel::Entry &e = m_sourceModel->entries()[size_t(row)];
    const SyncSource &src = m_sourceModel->source(row);
    const std::vector<int> gaps = data->gapsOfSource(e.file, e.source);
    const QString name = data->text(e.file, src.sync);
    m_view->setMarkedGaps(gaps);
    QItemSelection sel;
    for (int g : gaps) {
        const QModelIndex p = m_gapProxy->mapFromSource(m_gapModel->index(g, 0));
        sel.select(p, p);
    }
    m_gapTable->selectionModel()->select(sel, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    if (gaps.empty()) {
        // No gap to show: show its first call, marked orange on its thread.
        const SyncAnalysis &sa = data->files()[e.file].sync;
        if (!src.calls.empty())
            m_view->selectEvent(data->eventOf(e.file, sa.syncCalls[src.calls.front()].event), true);
        m_sideTabs->setCurrentWidget(m_advice); // what to write instead, over the call's details
        Q_EMIT statusMessage(
            tr("%1: %n call(s), none of them caused a sync gap", nullptr, int(src.count)).arg(name));
        return;
    }
    showGapImpl(gaps.front(), true);
    m_sideTabs->setCurrentWidget(m_advice); // what to write instead, over the gap's details
    Q_EMIT statusMessage(tr("%1: %n sync gap(s) selected, %2 in total; removing all %3 call(s) would save %4",
                            nullptr, int(gaps.size()))
                             .arg(name, formatDuration(src.gapTime))
                             .arg(src.count)
                             .arg(formatDuration(src.avoidable)));
}

void TimelinePage::showAdvice(int row)
{
    const auto data = m_view->data();
    if (!data || row < 0 || row >= m_sourceModel->rowCount()) {
        m_advice->clear();
        return;
    }
    const SyncSourceModel::Entry &e = m_sourceModel->entries()[size_t(row)];
    const SyncSource &src = m_sourceModel->source(row);
    QString name = data->text(e.file, src.sync);
    if (src.op != kNoStr)
        name += tr(" in %1").arg(data->text(e.file, src.op));
    if (src.userFrame != kNoStr)
        name += tr(" at %1").arg(data->text(e.file, src.userFrame));
    const TimelineFile &file = data->files()[e.file];
    m_advice->showAdvice(name, src.advice, src.adviceCalls, src.count,
                         QString::fromStdString(torchVersionFromMetadata(file.model->info().metadataJson)));
}

std::vector<int> TimelinePage::selectedGaps() const
{
    std::vector<int> out;
    for (const QModelIndex &i : m_gapTable->selectionModel()->selectedRows())
        out.push_back(m_gapProxy->mapToSource(i).row());
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace syncscope::ui
