#pragma once
// The syncscope window: Explore, Timeline and Distribution pages, menus and
// toolbar over their actions, recent files, drag and drop, and the state that
// QSettings keeps between launches.
#include <QMainWindow>
#include <QStringList>

QT_BEGIN_NAMESPACE
class QAction;
class QLabel;
class QMenu;
class QTabWidget;
QT_END_NAMESPACE

namespace syncscope::ui {

class CompareView;
class DistributionPage;
class ExplorerPage;
class TimelinePage;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    enum Page { ExplorePage = 0, TimelinePageIndex = 1, DistributionPageIndex = 2 };

    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    ExplorerPage *explorer() const { return m_explorer; }
    TimelinePage *timeline() const { return m_timeline; }
    DistributionPage *distribution() const { return m_distribution; }
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

protected:
    void closeEvent(QCloseEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    void createMenus();
    // Export Chart… and Copy Chart of the window act on the page shown
    // (mainwindowcharts.cpp).
    void createChartActions();
    void updateChartActions();
    void routePaths(const QStringList &files, const QList<bool> &bench);
    void warnLater(const QString &title, const QString &text);
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
    ExplorerPage *m_explorer = nullptr;
    TimelinePage *m_timeline = nullptr;
    DistributionPage *m_distribution = nullptr;
    QMenu *m_recentMenu = nullptr;
    QLabel *m_deviceLabel = nullptr;
    QStringList m_recent;
    QAction *m_exportChart = nullptr;
    QAction *m_copyChart = nullptr;
    QList<QAction *> m_exploreTools;
    QStringList m_loading; // the traces being opened, for Open Recent
};

} // namespace syncscope::ui
