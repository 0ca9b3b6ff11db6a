// The Timeline page's table exports: the sync gaps, the sync sources and the
// range statistics, in their shown order, as CSV or JSON, written atomically;
// the save dialog starts in the last export folder and the status bar says
// where the file went.
#include "timeline/timelinepage.h"

#include "analysis/filereport.h"
#include "analysis/jobanalysis.h"
#include "analysis/report.h"
#include "common/error.h"
#include "jobs/jobrunner.h"
#include "shared/savefolder.h"
#include "timeline/devicetablemodel.h"
#include "timeline/rangestatsmodel.h"
#include "timeline/syncgapmodel.h"
#include "timeline/syncsourcemodel.h"
#include "timeline/timelinedata.h"
#include "timeline/timelineview.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QSortFilterProxyModel>
#include <QTableView>

namespace syncscope::ui {

namespace {

std::vector<int> shownOrder(const QSortFilterProxyModel *proxy)
{
    std::vector<int> rows;
    for (int r = 0; r < proxy->rowCount(); ++r)
        rows.push_back(proxy->mapToSource(proxy->index(r, 0)).row());
    return rows;
}

} // namespace

void TimelinePage::exportReportWithDialog()
{
    if (!hasTrace())
        return;
    QString selected;
    const QString base = m_files.isEmpty() ? QStringLiteral("trace")
                                           : QFileInfo(m_files.front()).completeBaseName();
    QString path = QFileDialog::getSaveFileName(this, tr("Export Report"),
                                                defaultSavePath(base.section(QLatin1Char('.'), 0, 0) +
                                                                QStringLiteral("-report.html")),
                                                tr("HTML page (*.html);;Markdown (*.md)"), &selected);
    if (path.isEmpty())
        return;
    const bool md = selected.contains(QLatin1String("*.md"));
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix != QLatin1String("html") && suffix != QLatin1String("htm") && suffix != QLatin1String("md"))
        path += md ? QStringLiteral(".md") : QStringLiteral(".html");
    startReport(path);
}

void TimelinePage::startReport(const QString &path)
{
    const auto data = m_view->data();
    if (!data) {
        Q_EMIT reportFailed(tr("No trace is open: open one to report on."));
        return;
    }
    const bool md = QFileInfo(path).suffix().compare(QLatin1String("md"), Qt::CaseInsensitive) == 0;
    Q_EMIT statusMessage(tr("Writing the report…"));
    m_reportRunner->start(
        tr("Report"),
        [data, path, md](const ProgressFn &progress, const CancelToken *cancel) {
            std::vector<FileReport> reports;
            const size_t n = data->files().size();
            for (size_t f = 0; f < n; ++f) {
                checkCancel(cancel);
                if (progress)
                    progress(0.8 * double(f) / double(n), "reporting on the traces");
                const TimelineFile &file = data->files()[f];
                reports.push_back(makeFileReport(*file.model, file.sync, cancel));
            }
            static const std::vector<RankInput> none;
            JobAnalysis job = assembleJob(std::move(reports), n >= 2 ? data->rankInputs() : none, {}, cancel);
            ReportInput in;
            in.job = &job;
            in.generator = "syncscope " SYNCSCOPE_VERSION;
            const std::string text = md ? reportMarkdown(in) : reportHtml(in);
            QString error;
            if (!writeTextAtomically(path, text, &error))
                throw Error(error.toStdString());
            return path;
        },
        this,
        [this](QString written) {
            rememberSaveFolder(written);
            Q_EMIT statusMessage(tr("Saved the report to %1").arg(QDir::toNativeSeparators(written)));
            Q_EMIT reportWritten(written);
        });
}

bool TimelinePage::exportTable(Table table, const QString &path, QString *error) const
{
    const bool json = QFileInfo(path).suffix().compare(QLatin1String("json"), Qt::CaseInsensitive) == 0;
    std::string text;
    switch (table) {
    case Table::Gaps: {
        const auto rows = shownOrder(m_gapProxy);
        text = json ? m_gapModel->toJson(rows) : m_gapModel->toCsv(rows);
        break;
    }
    case Table::Sources: {
        const auto rows = shownOrder(m_sourceProxy);
        text = json ? m_sourceModel->toJson(rows) : m_sourceModel->toCsv(rows);
        break;
    }
    case Table::RangeStats: {
        const auto rows = shownOrder(m_rangeProxy);
        text = json ? m_rangeModel->toJson(rows) : m_rangeModel->toCsv(rows);
        break;
    }
    case Table::Devices: {
        const auto rows = shownOrder(m_deviceProxy);
        text = json ? m_deviceModel->toJson(rows) : m_deviceModel->toCsv(rows);
        break;
    }
    }
    return writeTextAtomically(path, text, error);
}

bool TimelinePage::exportGapsCsv(const QString &path, QString *error) const
{
    return writeTextAtomically(path, m_gapModel->toCsv(shownOrder(m_gapProxy)), error);
}

bool TimelinePage::exportSourcesCsv(const QString &path, QString *error) const
{
    return writeTextAtomically(path, m_sourceModel->toCsv(shownOrder(m_sourceProxy)), error);
}

QString TimelinePage::suggestedExportPath(Table table, bool json) const
{
    const QString base = m_files.isEmpty() ? QStringLiteral("trace")
                                           : QFileInfo(m_files.front()).completeBaseName();
    const char *what = table == Table::Gaps      ? "-sync-gaps"
                       : table == Table::Sources ? "-sync-sources"
                       : table == Table::Devices ? "-devices"
                                                 : "-range-stats";
    return defaultSavePath(base + QLatin1String(what) + (json ? QStringLiteral(".json") : QStringLiteral(".csv")));
}

void TimelinePage::exportTableWithDialog(Table table, bool json)
{
    const QString title = table == Table::Gaps      ? tr("Export Sync Gaps")
                          : table == Table::Sources ? tr("Export Sync Sources")
                          : table == Table::Devices ? tr("Export Devices")
                                                    : tr("Export Range Statistics");
    const QString path = ui::exportTableWithDialog(this, title, suggestedExportPath(table, json), json,
                                                   [&](const QString &p, QString *error) {
                                                       return exportTable(table, p, error);
                                                   });
    if (path.isEmpty())
        return;
    Q_EMIT statusMessage(tr("Wrote %1").arg(QDir::toNativeSeparators(QFileInfo(path).absoluteFilePath())));
}

void TimelinePage::tableMenu(QTableView *table, const QPoint &pos)
{
    const Table which = table == m_gapTable      ? Table::Gaps
                        : table == m_sourceTable ? Table::Sources
                        : table == m_deviceTable ? Table::Devices
                                                 : Table::RangeStats;
    QMenu menu(this);
    QAction *csv = menu.addAction(tr("Export CSV…"));
    QAction *json = menu.addAction(tr("Export JSON…"));
    const bool any = table->model()->rowCount() > 0;
    csv->setEnabled(any);
    json->setEnabled(any);
    QAction *chosen = menu.exec(table->viewport()->mapToGlobal(pos));
    if (chosen == csv || chosen == json)
        exportTableWithDialog(which, chosen == json);
}

} // namespace syncscope::ui
