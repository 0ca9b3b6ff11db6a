#pragma once
// The Timeline page: a profiler timeline of one job (one trace per rank) with the
// sync gaps marked, a gap table, event details, range statistics and find.
#include <QList>
#include <QStringList>
#include <QWidget>

#include <memory>

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
    RangeStatsModel *rangeStatsModel() const { return m_rangeModel; }
    std::shared_ptr<const TimelineData> data() const;
    EventDetailsPanel *detailsPanel() const { return m_details; }
    QLineEdit *findEdit() const { return m_findEdit; }
    // The text of the summary header (GPU busy %, sync-gap time, sync calls).
    QString headerText() const;

public Q_SLOTS:
    void cancelLoad();
    void findNext();
    void findPrevious();
    void focusFind();
    // Selects the next / previous sync gap in time and zooms to it.
    void nextGap();
    void previousGap();
    void showGap(int gap);

Q_SIGNALS:
    void statusMessage(const QString &text);
    void loadFinished(const QStringList &paths);
    void loadFailed(const QString &error);
    void loadCancelled();
    // Range statistics of the current range selection are ready.
    void rangeStatsReady();

private:
    void createActions();
    void setData(std::shared_ptr<const TimelineData> data, const QStringList &paths);
    void updateHeader();
    void onSelectionChanged();
    void onRangeChanged();
    void onGapActivated(const QModelIndex &index);
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
