#pragma once
// The syncscope window: Explore, Timeline, Distribution and Job pages, menus and
// toolbar over their actions, recent files, drag and drop, and the state that
// QSettings keeps between launches.
#include "lab/api/labinterface.h"

#include <QMainWindow>
#include <QStringList>

QT_BEGIN_NAMESPACE
class QAction;
class QLabel;
class QMenu;
class QStackedWidget;
class QTabWidget;
class QThread;
class QToolBar;
QT_END_NAMESPACE

namespace syncscope::ui {

class CompareView;
class DistributionPage;
class ExplorerPage;
class JobPage;
class NoticeBar;
class TimelinePage;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    enum Page { ExplorePage = 0, TimelinePageIndex = 1, DistributionPageIndex = 2, JobPageIndex = 3 };

    explicit MainWindow(QWidget *parent = nullptr);
    // A window whose pages use `lab` (which outlives it) instead of loading one.
    explicit MainWindow(lab::LabInterface &lab, QWidget *parent = nullptr);
    ~MainWindow() override;

    // Explore and Distribution need the lab (libsyncscope_lab.so, LibTorch),
    // which they are given. It loads on a background thread once the window
    // shows; the Timeline never waits for it. These two build the pages on
    // first use, waiting for the load if it has not finished; null when the
    // lab cannot load.
    ExplorerPage *explorer();
    DistributionPage *distribution();
    TimelinePage *timeline() const { return m_timeline; }
    // The Job view of the ranks open in the Timeline.
    JobPage *jobPage() const { return m_job; }
    // Whether Explore and Distribution exist (never blocks), and why they are
    // disabled when the lab could not load (empty otherwise).
    bool labPagesReady() const { return m_explorer != nullptr; }
    QString labUnavailableReason() const { return m_labError; }
    // The Open Recent entry of a compared pair: a marker line, then the
    // absolute paths of before and after.
    static constexpr const char *kCompareMarker = "compare:";
    static QString compareRecentEntry(const QString &before, const QString &after);
    void showPage(Page page);
    Page currentPage() const;

    // Bench JSON files go to Explore, everything else to the Timeline (several
    // trace files open together as the ranks of one job). Which is which is
    // decided on a worker thread; the routing happens when that finishes.
    // Anything but a regular file is refused with a message.
    void openPaths(const QStringList &paths);
    // Opens a Compare window: BEFORE above AFTER, zoom locked, with the deltas.
    CompareView *compareFiles(const QString &before, const QString &after);
    // Copies the bundled demo trace to the app's data folder (once) and opens it.
    bool openDemo(QString *error = nullptr);
    // Where the bundled demo trace is unpacked; empty with *error on failure.
    static QString demoTracePath(QString *error);
    // True for `syncscope-cli bench --json` output: a top-level "results" key and
    // no "traceEvents". Reads the file: not for the GUI thread.
    static bool isBenchResults(const QString &path);

    // Open Recent's entries, newest first: a path, or a job's paths joined by '\n'.
    QStringList recentFiles() const { return m_recent; }
    // The toolbar's Explore buttons (visible on Explore only).
    QList<QAction *> exploreToolActions() const { return m_exploreTools; }
    // On first launch, opens the demo trace and shows Explore ready to sweep.
    void firstLaunch();
    void showStatusMessage(const QString &text);

Q_SIGNALS:
    // Explore and Distribution were built (the lab loaded), or cannot be.
    void labPagesBuilt();
    void labUnavailable(const QString &reason);

protected:
    bool event(QEvent *event) override;
    void closeEvent(QCloseEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    QWidget *labPlaceholder(QStackedWidget **holder, QLabel **note);
    void startLabLoad();
    bool ensureLabPages();
    void setLabUnavailable(const QString &reason);
    void createMenus();
    // Export Chart… and Copy Chart of the window act on the page shown
    // (mainwindowcharts.cpp).
    void createChartActions();
    void connectChartActions(); // once the lab's pages exist
    void updateChartActions();
    void updateExploreTools();
    void routePaths(const QStringList &files, const QList<bool> &bench);
    // One inline sentence above the pages (refusalSentence); the page stays.
    void refuse(const QString &text);
    // The traces and summaries a folder holds, by name (not its subfolders).
    static QStringList tracesInFolder(const QString &folder);
    void openWithDialog();
    void compareWithDialog();
    // An entry is one file, or the files of one job, one path per line.
    void addRecent(const QString &entry);
    void forgetRecent(const QString &path);
    // The window title and file path follow what was opened last.
    void setOpenFiles(const QStringList &paths);
    // Opens traces in the Timeline, remembering them until the load ends.
    void openTraces(const QStringList &paths);
    void rebuildRecentMenu();
    void showShortcuts();
    void showAbout();
    void takeFromExplore();
    void saveSettings();
    void restoreSettings();

    QTabWidget *m_tabs = nullptr;
    NoticeBar *m_notice = nullptr;
    ExplorerPage *m_explorer = nullptr;
    TimelinePage *m_timeline = nullptr;
    JobPage *m_job = nullptr;
    DistributionPage *m_distribution = nullptr;
    QStackedWidget *m_exploreHolder = nullptr;
    QStackedWidget *m_distributionHolder = nullptr;
    QLabel *m_exploreNote = nullptr;
    QLabel *m_distributionNote = nullptr;
    QThread *m_labThread = nullptr;
    lab::LabInterface *m_lab = nullptr; // the loaded or given lab
    bool m_painted = false;             // the first frame is drawn
    int m_kindChecks = 0;               // opens still deciding trace or bench result
    QString m_labError;
    // Where the lab pages' actions go once they exist.
    QMenu *m_fileMenu = nullptr;
    QMenu *m_runMenu = nullptr;
    QToolBar *m_toolBar = nullptr;
    QAction *m_fileLabAnchor = nullptr;
    QAction *m_toolBarLabAnchor = nullptr;
    QAction *m_labNote = nullptr;
    QMenu *m_recentMenu = nullptr;
    QLabel *m_deviceLabel = nullptr;
    QStringList m_recent;
    QAction *m_exportChart = nullptr;
    QAction *m_copyChart = nullptr;
    QList<QAction *> m_exploreTools;
    QStringList m_loading; // the traces being opened, for Open Recent
};

} // namespace syncscope::ui
