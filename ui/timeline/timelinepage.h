#pragma once
// The Timeline page: a profiler timeline of one job (one trace per rank) with the
// sync gaps marked; a header that leads with what the host waits cost; the sync
// sources and sync gaps as tables (sorted by avoidable time); event details,
// range statistics, a per-step chart and find.
#include "analysis/syncanalysis.h"

#include <QList>
#include <QStringList>
#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

class QAction;
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QSplitter;
class QTabWidget;
class QTableView;
class QToolButton;

namespace syncscope::ui {

class JobRunner;
class TimelineView;
class TimelineData;
struct TimelineEvent;
class SyncGapModel;
class SyncSourceModel;
class AdvicePanel;
class StepChart;
class RangeStatsModel;
class DeviceTableModel;
class NameMatcher;
class EventDetailsPanel;
class FindBar;
class NoticeBar;
class ProgressRow;
class TablesPanel;

class TimelinePage : public QWidget {
    Q_OBJECT
public:
    explicit TimelinePage(QWidget *parent = nullptr);
    ~TimelinePage() override;

    // Loads in the background with progress and a working cancel; several files
    // are the ranks of one job. Replaces what is shown once the load succeeds.
    void openFiles(const QStringList &paths);
    // Zoom, pan, fit, zoom to selection, find next/previous, sync gap navigation;
    // each has a shortcut active while focus is inside this page.
    QList<QAction *> pageActions() const;
    // File ▸ Export Report… (Ctrl+Shift+E): the open traces as one HTML page,
    // or Markdown when the name ends in .md (report.h); enabled with a trace.
    QAction *exportReportAction() const { return m_exportReport; }
    void exportReportWithDialog();
    // Makes and writes the report on a worker; reportWritten or reportFailed follows.
    void startReport(const QString &path);

    bool isLoading() const;
    bool hasTrace() const;
    QStringList currentFiles() const { return m_files; }
    TimelineView *view() const { return m_view; }
    SyncGapModel *syncGapModel() const { return m_gapModel; }
    SyncSourceModel *syncSourceModel() const { return m_sourceModel; }
    QTableView *gapTable() const { return m_gapTable; }
    QTableView *sourceTable() const { return m_sourceTable; }
    StepChart *stepChart() const { return m_stepChart; }
    // Rows of the gap table that are selected, as indices into data()->gaps(), sorted.
    std::vector<int> selectedGaps() const;
    RangeStatsModel *rangeStatsModel() const { return m_rangeModel; }
    std::shared_ptr<const TimelineData> data() const;
    EventDetailsPanel *detailsPanel() const { return m_details; }
    // The last what-if of the checked sources: per file, per device (the order
    // of its analysis's devices), how much earlier it would finish; with two or
    // more files the job's saving too. Empty with no source checked.
    struct WhatIfResult {
        size_t sources = 0, calls = 0;
        std::vector<std::vector<TimeNs>> byFile;
        // Per file, per device: where the head start stopped (limitSentence);
        // empty for a file with no checked call.
        std::vector<std::vector<std::string>> limitByFile;
        bool hasJob = false;
        TimeNs job = 0;
    };
    const std::optional<WhatIfResult> &whatIf() const { return m_whatIf; }
    AdvicePanel *advicePanel() const { return m_advice; }
    QLineEdit *findEdit() const;
    QCheckBox *findRegexBox() const;
    // "Aa": match case, in plain and regex mode alike.
    QToolButton *findCaseButton() const;
    // What the find row says: "n of m", "m matches", or why nothing matches.
    QString findStatusText() const;
    // What the Sync sources panel says of long host calls that are not syncs; empty when none.
    QString longCallsText() const;
    // "1 match", "0 matches", "1,234 matches" (the locale's digits).
    static QString matchCountText(uint64_t n);
    // The matcher of the current find text, once built (null before, or for no text).
    const NameMatcher *matcher() const { return m_matcher.get(); }
    // Jobs of more events than this build their matcher on a worker (the GUI
    // stays responsive; findReady when done); smaller ones at once.
    void setFindSyncLimit(uint64_t events) { m_findSyncLimit = events; }
    QTableView *rangeTable() const { return m_rangeTable; }
    // Every (rank, device) with its figures, in the side panel's Devices tab.
    QTableView *deviceTable() const { return m_deviceTable; }
    DeviceTableModel *deviceModel() const { return m_deviceModel; }
    // "All categories", then each category of the range statistics.
    QComboBox *rangeCategoryBox() const { return m_rangeCategory; }
    // The text of the summary header: what the host waits cost (avoidable time
    // of the device with the most), sync-gap time, the largest single source,
    // GPU busy %, sync calls.
    QString headerText() const;

    // The options every load and re-analysis uses (QSettings "timeline/...").
    const AnalysisOptions &analysisOptions() const { return m_options; }
    // Saves them and re-analyses the open trace in the background (loadFinished
    // when done, loadFailed with one sentence when an option is bad).
    void setAnalysisOptions(const AnalysisOptions &options);

    // The tables in their shown order as CSV, written atomically; false with one
    // sentence in *error when the file cannot be written.
    bool exportGapsCsv(const QString &path, QString *error = nullptr) const;
    bool exportSourcesCsv(const QString &path, QString *error = nullptr) const;
    // A table in its shown order (sorted, filtered) as JSON when the path ends
    // in .json, else CSV; written atomically (timelinepageexport.cpp).
    enum class Table { Gaps, Sources, RangeStats, Devices };
    bool exportTable(Table table, const QString &path, QString *error = nullptr) const;
    // Where the save dialog for a table starts: the last export folder (or
    // home) and a name from the trace.
    QString suggestedExportPath(Table table, bool json) const;
    // Asks for a file, writes it, and says where in the status bar.
    void exportTableWithDialog(Table table, bool json);

public Q_SLOTS:
    void cancelLoad();
    void findNext();
    void findPrevious();
    void focusFind();
    // Selects the next / previous sync gap in time and zooms to it.
    void nextGap();
    void previousGap();
    void showGap(int gap);
    // Selects the gaps of a sync-source row (source model row), marks them in the
    // timeline and shows the first.
    void showSource(int row);
    // The advice of the source model's row in the panel; -1 clears it.
    void showAdvice(int row);
    void showAnalysisOptions();

Q_SIGNALS:
    void statusMessage(const QString &text);
    void loadFinished(const QStringList &paths);
    void loadFailed(const QString &error);
    // Right before a load's worker starts (the files it will read).
    void loadStarting(const QStringList &paths);
    void loadCancelled();
    // Range statistics of the current range selection are ready.
    void rangeStatsReady();
    // The matcher of the find text is built (find and "n of m" are up to date).
    void findReady();
    // The what-if of the checked sources is in the header (or was cleared).
    void whatIfReady();
    // A report (startReport) was written, or could not be.
    void reportWritten(const QString &path);
    void reportFailed(const QString &error);

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    // The side panel as wide as its tables' numbers need, at most half the
    // page; or as the user dragged it, in this session or an earlier one (all
    // but the timeline's last 400 px). Once sized it only widens, as the page
    // grows, until the user drags it.
    void fitSidePanel();
    // The constructor's parts, in the order it calls them.
    void createRunners();
    void buildHeader();
    void buildStatusRows();
    void buildSplit();
    void buildLayout();
    void connectFind();
    void connectLoader();
    void connectSelection();
    void connectTables();
    void createActions();
    void setData(std::shared_ptr<const TimelineData> data, const QStringList &paths);
    // A load's or a re-analysis's result, on the GUI thread.
    void onLoaded(std::shared_ptr<const TimelineData> data);
    // Drops the shown trace and everything that holds it.
    void releaseData();
    void updateHeader();
    // What-if: replays without the checked sources' calls together, on a worker.
    void startWhatIf();
    void updateLongCalls();
    void onSelectionChanged();
    void onRangeChanged();
    void onGapActivated(const QModelIndex &index);
    void onSourceActivated(const QModelIndex &index);
    void showGapImpl(int gap, bool keepTableSelection);
    void reanalyse();
    void tableMenu(QTableView *table, const QPoint &pos);
    void updateMatcher();
    void setMatcher(std::shared_ptr<const NameMatcher> matcher, std::shared_ptr<const TimelineData> data);
    void find(bool forward);
    void revealMatch(const TimelineEvent &e);
    void updateFindOrdinal();
    void updateRangeCategories();
    void showError(const QString &text);

    JobRunner *m_loader = nullptr;
    JobRunner *m_statsRunner = nullptr;
    JobRunner *m_whatIfRunner = nullptr;
    JobRunner *m_reportRunner = nullptr;
    QAction *m_exportReport = nullptr;
    std::optional<WhatIfResult> m_whatIf;
    bool m_whatIfPending = false;
    TimelineView *m_view = nullptr;
    SyncGapModel *m_gapModel = nullptr;
    QSortFilterProxyModel *m_gapProxy = nullptr;
    RangeStatsModel *m_rangeModel = nullptr;
    QSortFilterProxyModel *m_rangeProxy = nullptr;
    QTableView *m_gapTable = nullptr;
    QTableView *m_rangeTable = nullptr;
    DeviceTableModel *m_deviceModel = nullptr;
    QSortFilterProxyModel *m_deviceProxy = nullptr;
    QTableView *m_deviceTable = nullptr;
    SyncSourceModel *m_sourceModel = nullptr;
    QSortFilterProxyModel *m_sourceProxy = nullptr;
    QTableView *m_sourceTable = nullptr;
    StepChart *m_stepChart = nullptr;
    AnalysisOptions m_options;
    bool m_keepView = false; // the next result is a re-analysis of what is shown
    EventDetailsPanel *m_details = nullptr;
    AdvicePanel *m_advice = nullptr;
    QSplitter *m_split = nullptr;
    bool m_sideSized = false;   // the side panel's width was set on the first trace
    bool m_sideDragged = false; // the user dragged the handle in this session
    int m_sideNeed = 0;         // what the numbers of the side tables need
    QTabWidget *m_sideTabs = nullptr;
    QLabel *m_header = nullptr;
    QLabel *m_longCalls = nullptr; // under the sync sources: long host calls that are not syncs
    QLabel *m_rangeLabel = nullptr;
    NoticeBar *m_error = nullptr; // a failed load (red), or the problems a load skipped (amber)
    ProgressRow *m_progressRow = nullptr;
    FindBar *m_findBar = nullptr;
    TablesPanel *m_tables = nullptr;
    JobRunner *m_findRunner = nullptr;
    int m_pendingFind = 0; // a find asked for while the matcher builds: +1 next, -1 previous
    uint64_t m_findSyncLimit = 2'000'000;
    QComboBox *m_rangeCategory = nullptr;
    std::shared_ptr<const NameMatcher> m_matcher;
    std::shared_ptr<const TimelineData> m_matcherData; // what m_matcher refers to
    QList<QAction *> m_actions;
    QStringList m_files;
    QStringList m_pendingFiles;
};

} // namespace syncscope::ui
