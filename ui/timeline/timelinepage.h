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
#include <vector>

class QAction;
class QCheckBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QSplitter;
class QTabWidget;
class QTableView;
class QToolButton;
class QTimer;

namespace syncscope::ui {

class JobRunner;
class TimelineView;
class TimelineData;
class SyncGapModel;
class SyncSourceModel;
class StepChart;
class RangeStatsModel;
class NameMatcher;
class EventDetailsPanel;

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
    QLineEdit *findEdit() const { return m_findEdit; }
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

private:
    void createActions();
    void setData(std::shared_ptr<const TimelineData> data, const QStringList &paths);
    // Drops the shown trace and everything that holds it.
    void releaseData();
    void updateHeader();
    void onSelectionChanged();
    void onRangeChanged();
    void onGapActivated(const QModelIndex &index);
    void onSourceActivated(const QModelIndex &index);
    void showGapImpl(int gap, bool keepTableSelection);
    void reanalyse();
    void tableMenu(QTableView *table, const QPoint &pos);
    void onFindTextChanged();
    void updateMatcher();
    void find(bool forward);
    void showError(const QString &text);

    JobRunner *m_loader = nullptr;
    JobRunner *m_statsRunner = nullptr;
    TimelineView *m_view = nullptr;
    SyncGapModel *m_gapModel = nullptr;
    QSortFilterProxyModel *m_gapProxy = nullptr;
    RangeStatsModel *m_rangeModel = nullptr;
    QSortFilterProxyModel *m_rangeProxy = nullptr;
    QTableView *m_gapTable = nullptr;
    QTableView *m_rangeTable = nullptr;
    SyncSourceModel *m_sourceModel = nullptr;
    QSortFilterProxyModel *m_sourceProxy = nullptr;
    QTableView *m_sourceTable = nullptr;
    StepChart *m_stepChart = nullptr;
    AnalysisOptions m_options;
    bool m_keepView = false; // the next result is a re-analysis of what is shown
    EventDetailsPanel *m_details = nullptr;
    QTabWidget *m_sideTabs = nullptr;
    QLabel *m_header = nullptr;
    QLabel *m_rangeLabel = nullptr;
    QLabel *m_error = nullptr;
    QWidget *m_progressRow = nullptr;
    QProgressBar *m_progress = nullptr;
    QPushButton *m_cancel = nullptr;
    QLineEdit *m_findEdit = nullptr;
    QCheckBox *m_findRegex = nullptr;
    QLabel *m_findStatus = nullptr;
    QTimer *m_findTimer = nullptr;
    QLabel *m_progressLabel = nullptr;
    std::unique_ptr<NameMatcher> m_matcher;
    QList<QAction *> m_actions;
    QStringList m_files;
    QStringList m_pendingFiles;
};

} // namespace syncscope::ui
