#include "mainwindow.h"

#include "compare/compareview.h"
#include "distribution/distributionpage.h"
#include "explorer/explorerpage.h"
#include "explorer/paramsform.h"
#include "job/jobpage.h"
#include "job/showintimeline.h"
#include "shortcutpriority.h"
#include "lab/api/labloader.h"
#include "lab/api/samplerun.h"
#include "lab/api/variants.h"
#include "shared/elide.h"
#include "timeline/timelinepage.h"
#include "timeline/timelineview.h"
#include "shared/noticebar.h"
#include "shared/sentence.h"
#include "trace/filekind.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHash>
#include <QFutureWatcher>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QSet>
#include <QSettings>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QScreen>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QThread>
#include <QTimer>
#include <QVBoxLayout>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <sys/stat.h>

#include <algorithm>

namespace syncscope::ui {

namespace {
constexpr int kMaxRecent = 10;
const char *kDemoResource = ":/demo/hta_cuda_event_sync.json.gz";

QString lastOpenDir() { return QSettings().value("window/lastOpenDir", QDir::homePath()).toString(); }
} // namespace

MainWindow::MainWindow(lab::LabInterface &lab, QWidget *parent) : MainWindow(parent) { m_lab = &lab; }

MainWindow::MainWindow(QWidget *parent) : QMainWindow(parent)
{
    setOpenFiles({});
    setWindowIcon(QIcon(QStringLiteral(":/icons/syncscope.svg")));
    setAcceptDrops(true);
    setObjectName(QStringLiteral("MainWindow"));

    m_tabs = new QTabWidget(this);
    m_tabs->setDocumentMode(true);
    m_timeline = new TimelinePage(m_tabs);
    m_tabs->addTab(labPlaceholder(&m_exploreHolder, &m_exploreNote), tr("Explore"));
    m_tabs->addTab(m_timeline, tr("Timeline"));
    m_tabs->addTab(labPlaceholder(&m_distributionHolder, &m_distributionNote), tr("Distribution"));
    m_job = new JobPage(m_tabs);
    m_tabs->addTab(m_job, tr("Job"));
    m_tabs->setTabToolTip(0, tr("Benchmark the sampler variants at your sizes (Ctrl+1)"));
    m_tabs->setTabToolTip(1, tr("Read a profiler trace with its sync gaps marked (Ctrl+2)"));
    m_tabs->setTabToolTip(2, tr("Test a sampler for bias over many runs (Ctrl+3)"));
    m_tabs->setTabToolTip(JobPageIndex,
                          tr("What a sync on one rank costs the whole job, for the ranks open in the "
                             "Timeline (Ctrl+4)"));
    // Refusals of what was opened show inline above the pages, never in a dialog.
    auto *central = new QWidget(this);
    auto *centralLayout = new QVBoxLayout(central);
    centralLayout->setContentsMargins(0, 0, 0, 0);
    centralLayout->setSpacing(0);
    m_notice = new NoticeBar(central);
    centralLayout->addWidget(m_notice);
    centralLayout->addWidget(m_tabs, 1);
    setCentralWidget(central);
    installShortcutPriority(this);

    // The device and LibTorch the Explore page will measure, always in view
    // (filled in when the lab has loaded).
    m_deviceLabel = new QLabel(tr("Loading the lab…"), this);
    m_deviceLabel->setToolTip(tr("Explore and Distribution need the lab (LibTorch); it loads in the background."));
    statusBar()->addPermanentWidget(m_deviceLabel);
    connect(statusBar(), &QStatusBar::messageChanged, this, [this](const QString &message) {
        if (message.isEmpty())
            statusBar()->setToolTip(QString());
    });

    connect(m_timeline, &TimelinePage::statusMessage, this, &MainWindow::showStatusMessage);
    connect(m_timeline, &TimelinePage::loadFailed, this,
            [this] { QTimer::singleShot(0, this, &MainWindow::startLabLoad); });
    connect(m_timeline, &TimelinePage::loadFinished, this,
            [this] { QTimer::singleShot(0, this, &MainWindow::startLabLoad); });
    connect(m_timeline, &TimelinePage::loadCancelled, this,
            [this] { QTimer::singleShot(0, this, &MainWindow::startLabLoad); });
    // A trace is listed in Open Recent, and names the window, once it has
    // loaded: a file that failed to open is not offered again.
    connect(m_timeline, &TimelinePage::loadFinished, this, [this](const QStringList &paths) {
        m_loading.clear();
        addRecent(paths.join(QLatin1Char('\n')));
        setOpenFiles(paths);
    });
    connect(m_timeline, &TimelinePage::loadFailed, this, [this] {
        // A job that no longer opens leaves Open Recent.
        const QString entry = m_loading.join(QLatin1Char('\n'));
        m_loading.clear();
        if (!entry.isEmpty() && m_recent.removeAll(entry) > 0) {
            QSettings().setValue("window/recentFiles", m_recent);
            rebuildRecentMenu();
        }
    });
    connect(m_timeline, &TimelinePage::loadCancelled, this, [this] { m_loading.clear(); });
    // File > Open starts where the last trace that opened is, however it was
    // opened (the dialog, Open Recent, a drop or the command line).
    connect(m_timeline, &TimelinePage::loadFinished, this, [](const QStringList &paths) {
        if (!paths.isEmpty())
            QSettings().setValue("window/lastOpenDir", QFileInfo(paths.front()).absolutePath());
    });
    // The Job view follows the job in the Timeline: its analysis lets go of
    // the old trace before a new one loads, and starts on each (re)load.
    connect(m_timeline, &TimelinePage::loadStarting, m_job, &JobPage::clear);
    connect(m_timeline, &TimelinePage::loadFinished, m_job,
            [this] { m_job->setTimelineData(m_timeline->data()); });
    connect(m_job, &JobPage::statusMessage, this, &MainWindow::showStatusMessage);
    connect(m_job, &JobPage::showRankWindow, this, [this](int file, TimeNs start, TimeNs end) {
        showPage(TimelinePageIndex);
        showRankWindowInTimeline(*m_timeline->view(), file, start, end);
    });
    connect(m_job, &JobPage::showBlame, this,
            [this](int file, TimeNs start, TimeNs end, const CollectiveBlame &blame) {
                showPage(TimelinePageIndex);
                showBlameInTimeline(*m_timeline->view(), file, start, end, blame);
            });
    connect(m_tabs, &QTabWidget::currentChanged, this, [this](int index) {
        // Page shortcuts (Ctrl+R, Esc, W/A/S/D) follow the focus, so move it into the page.
        if (QWidget *page = m_tabs->widget(index)) {
            QWidget *target = page->focusWidget() ? page->focusWidget() : page->nextInFocusChain();
            if (target && page->isAncestorOf(target))
                target->setFocus(Qt::OtherFocusReason);
            else
                page->setFocus(Qt::OtherFocusReason);
        }
    });

    createMenus();
    restoreSettings();
    statusBar()->showMessage(tr("Ready. Open a trace or a bench result with Ctrl+O, or drop one here."), 10000);
}

MainWindow::~MainWindow()
{
    // The pages are deleted after this body: a page that cancels its running
    // job on the way out must not reach this half-destroyed window.
    for (QObject *page : {static_cast<QObject *>(m_explorer), static_cast<QObject *>(m_timeline),
                          static_cast<QObject *>(m_distribution), static_cast<QObject *>(m_job)})
        if (page)
            disconnect(page, nullptr, this, nullptr);
    // LibTorch must not be half-initialised on another thread while the
    // process exits.
    if (m_labThread) {
        disconnect(m_labThread, nullptr, this, nullptr);
        m_labThread->wait();
        delete m_labThread;
    }
}

QWidget *MainWindow::labPlaceholder(QStackedWidget **holder, QLabel **note)
{
    *holder = new QStackedWidget(m_tabs);
    auto *page = new QWidget(*holder);
    auto *layout = new QVBoxLayout(page);
    *note = new QLabel(tr("Loading the lab (LibTorch) in the background…"), page);
    (*note)->setObjectName(QStringLiteral("labNote"));
    (*note)->setWordWrap(true);
    (*note)->setAlignment(Qt::AlignCenter);
    (*note)->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addStretch();
    layout->addWidget(*note);
    layout->addStretch();
    (*holder)->addWidget(page);
    return *holder;
}

bool MainWindow::event(QEvent *event)
{
    if (event->type() == QEvent::Paint && !m_painted) {
        m_painted = true;
        QTimer::singleShot(0, this, &MainWindow::startLabLoad);
    }
    return QMainWindow::event(event);
}

void MainWindow::startLabLoad()
{
    // The lab loads once the first frame is drawn and no trace is opening: its
    // LibTorch takes about half a CPU-second and holds the dynamic loader's
    // lock while it initialises, so a trace being opened must not share the
    // start with it. It is tried again whenever an open ends.
    if (!m_painted || m_labThread || m_explorer || !m_labError.isEmpty())
        return;
    if (m_lab) { // given: nothing to load
        ensureLabPages();
        return;
    }
    if (m_kindChecks > 0 || m_timeline->isLoading())
        return;
    m_labThread = QThread::create([] { lab::loadLab(); });
    connect(m_labThread, &QThread::finished, this, [this] { ensureLabPages(); });
    m_labThread->start();
}

ExplorerPage *MainWindow::explorer()
{
    ensureLabPages();
    return m_explorer;
}

DistributionPage *MainWindow::distribution()
{
    ensureLabPages();
    return m_distribution;
}

void MainWindow::setLabUnavailable(const QString &reason)
{
    m_labError = reason;
    const QString text = tr("Explore and Distribution need the lab, which could not be loaded: %1. "
                            "The Timeline works without it.")
                             .arg(reason);
    for (QLabel *note : {m_exploreNote, m_distributionNote})
        note->setText(text);
    for (int page : {int(ExplorePage), int(DistributionPageIndex)}) {
        m_tabs->setTabToolTip(page, text);
        m_tabs->widget(page)->setEnabled(false);
    }
    m_deviceLabel->setText(tr("Lab unavailable"));
    m_deviceLabel->setToolTip(text);
    m_labNote->setText(tr("Explore and Distribution unavailable: the lab could not be loaded"));
    m_labNote->setToolTip(text);
    updateChartActions();
    Q_EMIT labUnavailable(reason);
}

bool MainWindow::ensureLabPages()
{
    if (m_explorer)
        return true;
    if (!m_labError.isEmpty())
        return false;
    if (!m_lab) {
        std::string error;
        m_lab = lab::loadLab(&error);
        if (!m_lab) {
            setLabUnavailable(QString::fromStdString(error));
            return false;
        }
    }
    m_explorer = new ExplorerPage(*m_lab, m_exploreHolder);
    m_distribution = new DistributionPage(*m_lab, m_distributionHolder);
    m_exploreHolder->addWidget(m_explorer);
    m_exploreHolder->setCurrentWidget(m_explorer);
    m_distributionHolder->addWidget(m_distribution);
    m_distributionHolder->setCurrentWidget(m_distribution);
    m_tabs->setTabToolTip(ExplorePage, tr("Benchmark the sampler variants at your sizes (Ctrl+1)"));
    m_tabs->setTabToolTip(DistributionPageIndex, tr("Test a sampler for bias over many runs (Ctrl+3)"));

    std::string why;
    const bool cuda = m_lab->cudaAvailable(&why);
    m_deviceLabel->setText(tr("%1 · LibTorch %2")
                               .arg(cuda ? tr("CPU + CUDA") : tr("CPU only"),
                                    QString::fromStdString(m_lab->torchVersion())));
    m_deviceLabel->setToolTip(cuda ? tr("CUDA is available to this process.")
                                   : tr("CUDA is unavailable: %1.").arg(QString::fromStdString(why)));

    connect(m_explorer, &ExplorerPage::statusMessage, this, &MainWindow::showStatusMessage);
    connect(m_distribution, &DistributionPage::statusMessage, this, &MainWindow::showStatusMessage);
    // Every checked variant's capture opens as one rank of one job.
    connect(m_explorer, &ExplorerPage::tracesCaptured, this, [this](const QStringList &paths) {
        openTraces(paths);
        showPage(TimelinePageIndex);
    });
    connect(m_explorer, &ExplorerPage::pairCaptured, this,
            [this](const QString &before, const QString &after) { compareFiles(before, after); });
    connect(m_explorer, &ExplorerPage::fileOpened, this, &MainWindow::addRecent);
    connect(m_distribution, &DistributionPage::takeFromExploreRequested, this, &MainWindow::takeFromExplore);

    // Their actions join the menus and the toolbar where createMenus left room.
    m_fileMenu->insertActions(m_fileLabAnchor, {m_explorer->saveAction(), m_explorer->exportCsvAction()});
    m_runMenu->removeAction(m_labNote);
    m_runMenu->addActions({m_explorer->runAction(), m_explorer->sweepAction(), m_explorer->profileAction(),
                           m_explorer->profileCompareAction(), m_explorer->cancelAction()});
    m_runMenu->addSeparator();
    m_runMenu->addActions({m_distribution->runAction(), m_distribution->cancelAction()});
    m_exploreTools << m_toolBar->insertSeparator(m_toolBarLabAnchor);
    for (QAction *a : {m_explorer->runAction(), m_explorer->sweepAction(), m_explorer->cancelAction(),
                       m_explorer->profileAction()}) {
        auto *button = new QToolButton(m_toolBar);
        button->setDefaultAction(a);
        button->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
        button->setObjectName(a->objectName().isEmpty() ? a->text().remove(QLatin1Char('&')) : a->objectName());
        m_exploreTools << m_toolBar->insertWidget(m_toolBarLabAnchor, button);
    }
    updateExploreTools();
    connectChartActions();

    QSettings settings;
    m_explorer->params()->restore(settings);
    m_distribution->restore(settings);
    Q_EMIT labPagesBuilt();
    return true;
}

void MainWindow::updateExploreTools()
{
    for (QAction *a : m_exploreTools)
        a->setVisible(m_tabs->currentIndex() == ExplorePage);
}

void MainWindow::showStatusMessage(const QString &text)
{
    // A message with a long path ("Wrote /…/rank3-ranks.csv") loses the middle
    // to fit the bar; the bar's tooltip has it whole while it shows.
    const int room = statusBar()->width() - (m_deviceLabel ? m_deviceLabel->width() : 0) - 40;
    const QString shown = statusBar()->fontMetrics().elidedText(text, Qt::ElideMiddle, std::max(200, room));
    statusBar()->showMessage(shown, 10000);
    statusBar()->setToolTip(shown == text ? QString() : text);
}

void MainWindow::showPage(Page page) { m_tabs->setCurrentIndex(page); }
MainWindow::Page MainWindow::currentPage() const { return static_cast<Page>(m_tabs->currentIndex()); }

CompareView *MainWindow::compareFiles(const QString &before, const QString &after)
{
    auto *view = new CompareView(this);
    view->setWindowFlag(Qt::Window);
    view->setAttribute(Qt::WA_DeleteOnClose);
    view->setWindowTitle(
        tr("Compare %1 with %2 — syncscope").arg(QFileInfo(before).fileName(), QFileInfo(after).fileName()));
    view->show();
    // The pair is listed in Open Recent once it has opened, and leaves it when
    // it no longer does.
    const QString entry = compareRecentEntry(before, after);
    connect(view, &CompareView::loaded, this, [this, entry] { addRecent(entry); });
    connect(view, &CompareView::loadFailed, this, [this, entry] {
        if (m_recent.removeAll(entry) > 0) {
            QSettings().setValue("window/recentFiles", m_recent);
            rebuildRecentMenu();
        }
    });
    view->openFiles(before, after);
    return view;
}

QString MainWindow::compareRecentEntry(const QString &before, const QString &after)
{
    return QStringList{QString::fromLatin1(kCompareMarker), QFileInfo(before).absoluteFilePath(),
                       QFileInfo(after).absoluteFilePath()}
        .join(QLatin1Char('\n'));
}

void MainWindow::compareWithDialog()
{
    // The open trace is the "before"; with none open, ask for it first.
    QString before = m_timeline->hasTrace() && m_timeline->currentFiles().size() == 1
                         ? m_timeline->currentFiles().front()
                         : QString();
    const QString filter = tr("Traces (*.json *.json.gz *.gz *.sqlite *.nsys-rep);;All files (*)");
    if (before.isEmpty())
        before = QFileDialog::getOpenFileName(this, tr("Compare: the trace before"), lastOpenDir(), filter);
    if (before.isEmpty())
        return;
    const QString after = QFileDialog::getOpenFileName(this,
                                                       tr("Compare %1 with…").arg(QFileInfo(before).fileName()),
                                                       QFileInfo(before).absolutePath(), filter);
    if (!after.isEmpty())
        compareFiles(before, after);
}

void MainWindow::createMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    m_fileMenu = file;
    QAction *open = file->addAction(QIcon::fromTheme("document-open"), tr("&Open…"), this,
                                    &MainWindow::openWithDialog);
    open->setShortcut(QKeySequence::Open);
    open->setToolTip(tr("Open a trace (.json, .json.gz; several files = ranks of one job) or bench "
                        "results (Ctrl+O)"));
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    file->addAction(tr("Open &Demo Trace"), this, [this] {
        QString error;
        if (!openDemo(&error))
            refuse(error);
    });
    QAction *compare = file->addAction(tr("&Compare With…"), this, &MainWindow::compareWithDialog);
    compare->setToolTip(tr("Open a second trace beside the open one: before and after, zoom locked, with the "
                           "deltas of step time, sync gaps, sources, ops and kernels"));
    file->addAction(m_timeline->exportReportAction());
    file->addSeparator();
    // Explore's save and export actions go before this separator once the lab
    // has loaded; the window's chart actions act on the page shown.
    m_fileLabAnchor = file->addSeparator();
    createChartActions();
    file->addAction(m_exportChart);
    file->addAction(m_copyChart);
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    quit->setMenuRole(QAction::QuitRole);

    // Explore's and Distribution's actions replace the note once the lab has loaded.
    m_runMenu = menuBar()->addMenu(tr("&Run"));
    m_labNote = m_runMenu->addAction(tr("Explore and Distribution: loading the lab…"));
    m_labNote->setEnabled(false);

    QMenu *timeline = menuBar()->addMenu(tr("&Timeline"));
    for (QAction *a : m_timeline->pageActions())
        timeline->addAction(a);

    QMenu *view = menuBar()->addMenu(tr("&View"));
    const QString names[] = {tr("&Explore"), tr("&Timeline"), tr("&Distribution"), tr("&Job")};
    for (int i = 0; i < 4; ++i) {
        QAction *a = view->addAction(names[i], this, [this, i] { showPage(static_cast<Page>(i)); });
        a->setShortcut(QKeySequence(Qt::CTRL | (Qt::Key_1 + i)));
    }
    view->addSeparator();
    QAction *full = view->addAction(tr("&Full Screen"), this, [this](bool on) {
        setWindowState(on ? windowState() | Qt::WindowFullScreen : windowState() & ~Qt::WindowFullScreen);
    });
    full->setCheckable(true);
    full->setShortcut(QKeySequence::FullScreen);

    QToolBar *tools = addToolBar(tr("Main"));
    m_toolBar = tools;
    tools->setObjectName(QStringLiteral("mainToolBar"));
    tools->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    tools->setMovable(false);
    tools->addAction(open);
    // Explore's job buttons show on Explore only: elsewhere they would act on
    // a page that is not in view (Timeline and Distribution have their own).
    connect(m_tabs, &QTabWidget::currentChanged, this, &MainWindow::updateExploreTools);
    // Explore's run buttons go before this separator once the lab has loaded.
    m_toolBarLabAnchor = tools->addSeparator();
    tools->addAction(m_exportChart);
    view->addAction(tools->toggleViewAction());

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    QAction *keys = help->addAction(tr("&Keyboard Shortcuts"), this, &MainWindow::showShortcuts);
    keys->setShortcut(QKeySequence::HelpContents);
    help->addAction(tr("&About syncscope"), this, &MainWindow::showAbout);
    rebuildRecentMenu();
}

void MainWindow::openWithDialog()
{
    const QStringList paths = QFileDialog::getOpenFileNames(
        this, tr("Open Trace or Results"), lastOpenDir(),
        tr("Traces and bench results (*.json *.json.gz *.gz *.sqlite *.nsys-rep);;All files (*)"));
    if (paths.isEmpty())
        return;
    QSettings().setValue("window/lastOpenDir", QFileInfo(paths.front()).absolutePath());
    openPaths(paths);
}

bool MainWindow::isBenchResults(const QString &path)
{
    // By the top-level keys, however far into the file they are (reads up to a
    // trace's "traceEvents" key): call it off the GUI thread.
    return jsonFileKind(QFile::encodeName(path).toStdString()) == JsonFileKind::BenchResult;
}

void MainWindow::refuse(const QString &text)
{
    // Inline: the event loop, and any job in flight, keep running, and the
    // page the user was on stays.
    m_notice->showRefusal(refusalSentence(text));
    showStatusMessage(refusalSentence(text));
}

QStringList MainWindow::tracesInFolder(const QString &folder)
{
    static const QStringList patterns = {QStringLiteral("*.json"), QStringLiteral("*.json.gz"),
                                         QStringLiteral("*.gz"), QStringLiteral("*.sqlite"),
                                         QStringLiteral("*.nsys-rep")};
    QStringList files;
    const QDir dir(folder);
    for (const QString &name : dir.entryList(patterns, QDir::Files | QDir::Readable, QDir::Name))
        files << dir.absoluteFilePath(name);
    return files;
}

void MainWindow::openPaths(const QStringList &paths)
{
    m_notice->clear();
    QStringList files;
    for (const QString &p : paths) {
        struct stat st;
        if (::stat(QFile::encodeName(p).constData(), &st) != 0) {
            refuse(tr("Cannot open '%1': the file does not exist.").arg(p));
            forgetRecent(p);
            continue;
        }
        // A folder holds the ranks of one job: its traces and summaries.
        if (S_ISDIR(st.st_mode)) {
            const QStringList inside = tracesInFolder(p);
            if (inside.isEmpty())
                refuse(tr("Cannot open the folder '%1': it holds no traces or summaries (.json, .json.gz, "
                          ".sqlite, .nsys-rep).")
                           .arg(p));
            files << inside;
            continue;
        }
        // A FIFO or device could block whoever reads it; only regular files are opened.
        if (!S_ISREG(st.st_mode)) {
            refuse(tr("Cannot open '%1': it is not a regular file (a pipe or a device). Save its contents to a "
                      "file and open that.")
                       .arg(p));
            continue;
        }
        files << QFileInfo(p).absoluteFilePath();
    }
    if (files.isEmpty())
        return;
    // Bench result or trace: decided by reading, so on a worker thread.
    auto *watcher = new QFutureWatcher<QList<bool>>(this);
    ++m_kindChecks;
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, files] {
        const QList<bool> bench = watcher->result();
        watcher->deleteLater();
        --m_kindChecks;
        routePaths(files, bench);
        startLabLoad();
    });
    watcher->setFuture(QtConcurrent::run([files] {
        QList<bool> bench;
        for (const QString &f : files)
            bench << isBenchResults(f);
        return bench;
    }));
}

void MainWindow::routePaths(const QStringList &files, const QList<bool> &bench)
{
    QStringList traces;
    for (qsizetype i = 0; i < files.size(); ++i) {
        if (bench.value(i)) {
            QString error;
            if (!explorer()) {
                refuse(tr("Cannot show the bench results '%1': %2.").arg(files[i], m_labError));
            } else if (m_explorer->openResults(files[i], &error)) {
                addRecent(files[i]);
                setOpenFiles({files[i]});
                showPage(ExplorePage);
            } else {
                refuse(error);
            }
        } else {
            traces << files[i];
        }
    }
    if (traces.isEmpty())
        return;
    openTraces(traces);
    showPage(TimelinePageIndex);
}

QString MainWindow::demoTracePath(QString *error)
{
    QFile resource(QString::fromLatin1(kDemoResource));
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) +
                        QStringLiteral("/demo");
    const QString path = dir + QStringLiteral("/hta_cuda_event_sync.json.gz");
    if (!resource.exists()) {
        if (error)
            *error = tr("This build of syncscope has no bundled demo trace.");
        return {};
    }
    if (QFileInfo(path).size() == resource.size())
        return path;
    if (!QDir().mkpath(dir) || !resource.open(QIODevice::ReadOnly)) {
        if (error)
            *error = tr("Cannot unpack the demo trace into '%1'.").arg(dir);
        return {};
    }
    QFile::remove(path);
    QFile out(path);
    if (!out.open(QIODevice::WriteOnly) || out.write(resource.readAll()) != resource.size()) {
        out.remove();
        if (error)
            *error = tr("Cannot write the demo trace to '%1': %2.").arg(path, out.errorString());
        return {};
    }
    return path;
}

bool MainWindow::openDemo(QString *error)
{
    const QString path = demoTracePath(error);
    if (path.isEmpty())
        return false;
    openTraces({path});
    return true;
}

void MainWindow::firstLaunch()
{
    QSettings settings;
    if (settings.value("window/launched", false).toBool())
        return;
    settings.setValue("window/launched", true);
    openDemo();
    showPage(ExplorePage);
    statusBar()->showMessage(tr("Welcome: the demo trace is in the Timeline; Run CPU Sweep on Explore "
                                "measures the samplers here."),
                             15000);
}

void MainWindow::openTraces(const QStringList &paths)
{
    m_loading = paths;
    m_timeline->openFiles(paths);
}

void MainWindow::setOpenFiles(const QStringList &paths)
{
    // "trace.json.gz — syncscope", the desktop convention: the document, then the app.
    setWindowFilePath(paths.value(0));
    if (paths.isEmpty())
        setWindowTitle(QStringLiteral("syncscope"));
    else if (paths.size() == 1)
        setWindowTitle(tr("%1 — syncscope").arg(QFileInfo(paths.front()).fileName()));
    else
        setWindowTitle(tr("%1 and %n more — syncscope", nullptr, int(paths.size() - 1))
                           .arg(QFileInfo(paths.front()).fileName()));
}

void MainWindow::forgetRecent(const QString &path)
{
    // Any entry that holds the file: a job of several ranks cannot open without it.
    const QString abs = QFileInfo(path).absoluteFilePath();
    const qsizetype before = m_recent.size();
    m_recent.erase(std::remove_if(m_recent.begin(), m_recent.end(),
                                  [&](const QString &e) { return e.split(QLatin1Char('\n')).contains(abs); }),
                   m_recent.end());
    if (m_recent.size() != before) {
        QSettings().setValue("window/recentFiles", m_recent);
        rebuildRecentMenu();
    }
}

void MainWindow::addRecent(const QString &entry)
{
    // One entry per job: the absolute paths of its files, one per line; a
    // compared pair: the marker line, then before and after.
    QStringList files = entry.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    for (QString &f : files)
        if (f != QLatin1String(kCompareMarker))
            f = QFileInfo(f).absoluteFilePath();
    const QString abs = files.join(QLatin1Char('\n'));
    if (abs.isEmpty())
        return;
    m_recent.removeAll(abs);
    m_recent.prepend(abs);
    while (m_recent.size() > kMaxRecent)
        m_recent.removeLast();
    QSettings().setValue("window/recentFiles", m_recent);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    // Names and paths lose their middle past about 60 characters; the
    // tooltip has them whole.
    const QFontMetrics fm(m_recentMenu->font());
    const int nameWidth = 60 * fm.averageCharWidth();
    auto name = [&](const QString &path) {
        return fm.elidedText(QFileInfo(path).fileName(), Qt::ElideMiddle, nameWidth);
    };
    auto paths = [&](const QStringList &list) {
        QStringList out;
        for (const QString &p : list)
            out << fm.elidedText(p, Qt::ElideMiddle, 2 * nameWidth);
        return out;
    };
    for (int i = 0; i < m_recent.size(); ++i) {
        const QStringList files = m_recent[i].split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        if (files.isEmpty())
            continue;
        if (files.size() == 3 && files.front() == QLatin1String(kCompareMarker)) {
            QAction *a =
                m_recentMenu->addAction(QStringLiteral("&%1 %2")
                                            .arg((i + 1) % 10)
                                            .arg(tr("Compare %1 with %2").arg(name(files[1]), name(files[2]))),
                                        this, [this, files] { compareFiles(files[1], files[2]); });
            a->setToolTip(tr("before: %1\nafter: %2").arg(files[1], files[2]));
            a->setStatusTip(tr("Compare %1 with %2").arg(paths({files[1]}).front(), paths({files[2]}).front()));
            continue;
        }
        const QString label =
            files.size() == 1
                ? name(files.front())
                : tr("%1 and %n more (one job)", nullptr, int(files.size() - 1)).arg(name(files.front()));
        QAction *a = m_recentMenu->addAction(QStringLiteral("&%1 %2").arg((i + 1) % 10).arg(label), this,
                                             [this, files] { openPaths(files); });
        a->setToolTip(files.join(QLatin1Char('\n')));
        a->setStatusTip(paths(files).join(QStringLiteral(", ")));
    }
    if (!m_recent.isEmpty()) {
        m_recentMenu->addSeparator();
        m_recentMenu->addAction(tr("Clear Recent Files"), this, [this] {
            m_recent.clear();
            QSettings().setValue("window/recentFiles", m_recent);
            rebuildRecentMenu();
        });
    }
    m_recentMenu->setEnabled(!m_recent.isEmpty());
}

void MainWindow::takeFromExplore()
{
    if (!m_explorer)
        return;
    QString error;
    const auto request = m_explorer->params()->pointRequest(&error);
    if (!request) {
        statusBar()->showMessage(tr("Explore's parameters are not valid: %1").arg(error), 10000);
        return;
    }
    const lab::BenchPoint &p = request->points.front();
    lab::SampleRequest r;
    r.variant = request->variants.front();
    r.input.n = p.n;
    r.input.batch = p.batch;
    r.input.posFrac = p.posFrac;
    r.input.ignoreFrac = p.ignoreFrac;
    r.input.seed = request->seed;
    r.input.device = request->device;
    r.k = p.k;
    r.targetPosFraction = p.targetPosFraction;
    r.seed = request->seed + 1;
    m_distribution->setRequest(r, m_distribution->runs());
}

void MainWindow::showShortcuts()
{
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Keyboard Shortcuts"));
    auto *table = new QTableWidget(&dialog);
    table->setColumnCount(3);
    table->setHorizontalHeaderLabels({tr("Menu"), tr("Action"), tr("Keys")});
    // One row per set of keys: actions with the same keys (Esc cancels on each
    // page) share a row, and an action in two menus counts once.
    struct Row {
        QStringList menus, actions;
    };
    QList<QString> order;
    QHash<QString, Row> byKey;
    QSet<const QAction *> seen;
    for (QAction *menuAction : menuBar()->actions()) {
        QMenu *menu = menuAction->menu();
        if (!menu)
            continue;
        const QString menuName = menu->title().remove(QLatin1Char('&'));
        for (QAction *a : menu->actions()) {
            if (a->shortcuts().isEmpty() || seen.contains(a))
                continue;
            seen.insert(a);
            const QString name = a->text().remove(QLatin1Char('&'));
            QStringList keys;
            for (const QKeySequence &k : a->shortcuts())
                keys << k.toString(QKeySequence::NativeText);
            const QString key = keys.join(QStringLiteral(", "));
            if (!byKey.contains(key))
                order.append(key);
            Row &r = byKey[key];
            if (!r.menus.contains(menuName))
                r.menus << menuName;
            if (!r.actions.contains(name))
                r.actions << name;
        }
    }
    for (const QString &key : order) {
        const Row &r = byKey[key];
        const int row = table->rowCount();
        table->insertRow(row);
        table->setItem(row, 0, new QTableWidgetItem(r.menus.join(QStringLiteral(", "))));
        table->setItem(row, 1, new QTableWidgetItem(r.actions.join(QStringLiteral(" / "))));
        table->setItem(row, 2, new QTableWidgetItem(key));
    }
    table->setObjectName(QStringLiteral("shortcutTable"));
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->verticalHeader()->hide();
    table->horizontalHeader()->setStretchLastSection(true);
    table->resizeColumnsToContents();
    auto *note = new QLabel(tr("Run, Cancel and the Timeline keys act on the page that has the focus."), &dialog);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, &dialog);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    auto *layout = new QVBoxLayout(&dialog);
    layout->addWidget(table);
    layout->addWidget(note);
    layout->addWidget(buttons);
    // The whole list at a glance: the table as large as its rows and
    // columns, as far as the screen allows (then it scrolls).
    const int frame = 2 * table->frameWidth();
    const QSize content(table->horizontalHeader()->length() + frame,
                        table->horizontalHeader()->sizeHint().height() + table->verticalHeader()->length() +
                            frame);
    const QSize room = screen() ? screen()->availableGeometry().size() * 9 / 10 : content;
    const QSize chrome = layout->sizeHint() - table->sizeHint();
    table->setMinimumSize(content.boundedTo(room - chrome));
    dialog.adjustSize();
    dialog.exec();
}

void MainWindow::showAbout()
{
    QMessageBox::about(
        this, tr("About syncscope"),
        tr("<h3>syncscope %1</h3><p>Find, measure and fix host-device syncs in PyTorch code.</p>"
           "<p>LibTorch %2, Qt %3.</p><p>The demo trace is from facebookresearch/HolisticTraceAnalysis "
           "(MIT License); see resources/demo/ATTRIBUTION.md.</p>")
            .arg(QStringLiteral(SYNCSCOPE_VERSION),
                 m_explorer ? QString::fromStdString(m_lab->torchVersion())
                            : tr("not loaded (%1)").arg(m_labError.isEmpty() ? tr("loading") : m_labError),
                 QString::fromLatin1(qVersion())));
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    if (event->mimeData()->hasUrls()) {
        for (const QUrl &url : event->mimeData()->urls())
            if (!url.isLocalFile())
                return;
        event->acceptProposedAction();
    }
}

void MainWindow::dropEvent(QDropEvent *event)
{
    QStringList paths;
    for (const QUrl &url : event->mimeData()->urls())
        paths << url.toLocalFile();
    event->acceptProposedAction();
    openPaths(paths);
}

void MainWindow::saveSettings()
{
    QSettings settings;
    settings.setValue("window/geometry", saveGeometry());
    settings.setValue("window/state", saveState());
    settings.setValue("window/page", m_tabs->currentIndex());
    if (m_explorer) {
        m_explorer->params()->save(settings);
        m_distribution->save(settings);
    }
}

void MainWindow::restoreSettings()
{
    QSettings settings;
    if (!restoreGeometry(settings.value("window/geometry").toByteArray()))
        resize(1400, 900);
    restoreState(settings.value("window/state").toByteArray());
    m_tabs->setCurrentIndex(std::clamp(settings.value("window/page", 0).toInt(), 0, 2));
    m_recent = settings.value("window/recentFiles").toStringList();
    rebuildRecentMenu();
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    saveSettings();
    if (m_explorer) {
        m_explorer->cancel();
        m_distribution->cancel();
    }
    m_timeline->cancelLoad();
    m_job->cancel();
    event->accept();
}

} // namespace syncscope::ui
