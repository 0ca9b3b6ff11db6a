// `syncscope`: the desktop app, and a headless chart exporter for reports and
// scripts. One binary serves both (hotspot's pattern): --export-chart and
// --smoke force the offscreen platform before the application exists.
#include "apptour.h"
#include "charts/benchcharts.h"
#include "charts/chartexport.h"
#include "compare/compareview.h"
#include "explorer/explorerpage.h"
#include "job/jobpage.h"
#include "lab/api/bench.h"
#include "mainwindow.h"
#include "timeline/syncgapmodel.h"
#include "timeline/syncsourcemodel.h"
#include "timeline/timelinedata.h"
#include "timeline/timelinepage.h"
#include "timeline/timelineview.h"

#include <QApplication>
#include <QChart>
#include <QCommandLineParser>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTableView>
#include <QTimer>

#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <utility>

using namespace syncscope;

namespace {

void addOptions(QCommandLineParser &parser)
{
    parser.setApplicationDescription(
        QStringLiteral("Find, measure and fix host-device syncs in PyTorch code.\n\n"
                       "Opens trace files (.json, .json.gz; several = ranks of one job) in the Timeline and\n"
                       "bench results (syncscope-cli bench --json) in Explore."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("FILE"), QStringLiteral("Traces or bench results to open."),
                                 QStringLiteral("[FILE...]"));
    parser.addOptions({
        {QStringLiteral("demo"), QStringLiteral("Open the bundled demo trace and show Explore ready to run.")},
        {QStringLiteral("page"),
         QStringLiteral("Page to show first: explore, timeline, distribution or job. With "
                        "--screenshot-dir and FILEs, job saves DIR/job-NAME.png (the Job view "
                        "once the job is analysed) instead of the Timeline."),
         QStringLiteral("PAGE")},
        {QStringLiteral("run-sweep"), QStringLiteral("Start a CPU sweep of N (10^3 to 10^6) at launch.")},
        {QStringLiteral("smoke"),
         QStringLiteral("Offscreen self-check: load the demo trace, run a tiny sweep and sampling test, "
                        "render every page, exit 0 on success.")},
        {QStringLiteral("screenshot-dir"),
         QStringLiteral(
             "Drive every page with real data and save window screenshots (PNG) to DIR, then quit. "
             "With FILEs: open them as one job in the Timeline, select the top row of the sync-gap table, save "
             "DIR/timeline-NAME.png (NAME: --screenshot-name, else the first file's name), then quit."),
         QStringLiteral("DIR")},
        {QStringLiteral("screenshot-name"),
         QStringLiteral("Name of the Timeline screenshot taken with --screenshot-dir and FILEs."),
         QStringLiteral("NAME")},
        {QStringLiteral("screenshot-select"),
         QStringLiteral("What the Timeline screenshot selects: gap (the top row of the sync-gap table, the "
                        "default) or source (the top sync source, with its advice shown)."),
         QStringLiteral("gap|source")},
        {QStringLiteral("compare"),
         QStringLiteral("Compare BEFORE with the one FILE given (syncscope --compare BEFORE AFTER): two "
                        "timelines locked together and the deltas."),
         QStringLiteral("BEFORE")},
        {QStringLiteral("export-chart"),
         QStringLiteral("Render a chart of RESULTS.json (bench JSON) without a display, then exit."),
         QStringLiteral("RESULTS.json")},
        {QStringLiteral("chart"), QStringLiteral("Chart to export: steptime, sweep or speedup."),
         QStringLiteral("KIND"), QStringLiteral("steptime")},
        {QStringLiteral("out"), QStringLiteral("Output file for --export-chart: .png, .svg or .pdf."),
         QStringLiteral("FILE")},
        {QStringLiteral("size"), QStringLiteral("Chart size in pixels (default 1200x700)."), QStringLiteral("WxH"),
         QStringLiteral("1200x700")},
        {QStringLiteral("baseline"), QStringLiteral("Baseline variant of the speedup chart (default naive)."),
         QStringLiteral("VARIANT")},
        {QStringLiteral("timing"),
         QStringLiteral("Open the FILEs in the window as a user would, print 'window shown at X ms' and "
                        "'first frame with FILE at Y ms' (since the process started), then quit.")},
    });
}

int failWith(const QString &sentence)
{
    std::fprintf(stderr, "syncscope: %s\n", qPrintable(sentence));
    return 1;
}

int exportChartHeadless(const QCommandLineParser &parser)
{
    const QString input = parser.value(QStringLiteral("export-chart"));
    const QString out = parser.value(QStringLiteral("out"));
    const QString kind = parser.value(QStringLiteral("chart"));
    if (out.isEmpty())
        return failWith(QStringLiteral("--export-chart needs --out FILE.png|svg|pdf."));
    if (!ui::chartFormatForPath(out))
        return failWith(QStringLiteral("--out '%1' must end in .png, .svg or .pdf.").arg(out));
    const auto size = ui::parseChartSize(parser.value(QStringLiteral("size")));
    if (!size)
        return failWith(QStringLiteral("--size '%1' must be WxH with both sides from 64 to 16384, e.g. 1200x700.")
                            .arg(parser.value(QStringLiteral("size"))));
    QFile file(input);
    if (!file.open(QIODevice::ReadOnly))
        return failWith(QStringLiteral("cannot read '%1': %2.").arg(input, file.errorString()));
    lab::BenchReport report;
    try {
        report = lab::benchReportFromJson(file.readAll().toStdString());
    } catch (const std::exception &e) {
        return failWith(QStringLiteral("'%1' is %2.").arg(input, QString::fromUtf8(e.what())));
    }
    if (report.results.empty())
        return failWith(QStringLiteral("'%1' holds no results.").arg(input));
    QString why;
    std::unique_ptr<QChart> chart;
    if (kind == QLatin1String("steptime"))
        chart.reset(ui::makeStepTimeChart(report, ui::defaultPoint(report), &why));
    else if (kind == QLatin1String("sweep"))
        chart.reset(ui::makeSweepChart(report, &why));
    else if (kind == QLatin1String("speedup")) {
        const std::string baseline = parser.isSet(QStringLiteral("baseline"))
                                         ? parser.value(QStringLiteral("baseline")).toStdString()
                                         : ui::defaultBaseline(report);
        chart.reset(ui::makeSpeedupChart(report, baseline, &why));
    } else
        return failWith(QStringLiteral("--chart must be steptime, sweep or speedup (got '%1').").arg(kind));
    if (!chart)
        return failWith(why);
    QString error;
    if (!ui::exportChart(chart.get(), *size, out, &error))
        return failWith(error);
    return 0;
}

// Milliseconds since the kernel started this process, so that loading Qt and
// the other shared libraries counts too. /proc/self/stat's field 22 is the
// start time in clock ticks after boot (a 10 ms tick here), CLOCK_BOOTTIME the
// same clock now.
double msSinceProcessStart()
{
    std::ifstream in("/proc/self/stat");
    std::string stat;
    std::getline(in, stat);
    const size_t paren = stat.rfind(')'); // the command name may hold spaces
    if (paren == std::string::npos)
        return -1;
    std::istringstream fields(stat.substr(paren + 2));
    std::string field;
    unsigned long long startTicks = 0;
    for (int i = 3; i <= 22 && fields >> field; ++i)
        if (i == 22)
            startTicks = std::stoull(field);
    timespec now{};
    clock_gettime(CLOCK_BOOTTIME, &now);
    const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
    return (now.tv_sec + now.tv_nsec * 1e-9 - startTicks / ticks) * 1000.0;
}

// Runs `then` once, on the next turn of the event loop after the watched
// widget's next paint (so after the frame that paint belongs to is drawn).
class PaintProbe : public QObject {
public:
    explicit PaintProbe(QObject *parent) : QObject(parent) {}
    void arm(QWidget *widget, std::function<void()> then)
    {
        m_then = std::move(then);
        widget->installEventFilter(this);
        widget->update();
    }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::Paint && m_then) {
            watched->removeEventFilter(this);
            QTimer::singleShot(0, this, std::exchange(m_then, nullptr));
        }
        return false;
    }

private:
    std::function<void()> m_then;
};

// --timing: the start-up benchmark's hook (tests/bench/startup_bench.py).
int runTiming(ui::MainWindow &window, const QStringList &files)
{
    if (files.isEmpty())
        return failWith(QStringLiteral("--timing needs at least one trace FILE to open."));
    int exitCode = 1;
    auto *shown = new PaintProbe(&window);
    auto *frame = new PaintProbe(&window);
    shown->arm(&window, [] {
        std::printf("window shown at %.0f ms\n", msSinceProcessStart());
        std::fflush(stdout);
    });
    ui::TimelinePage *timeline = window.timeline();
    QObject::connect(timeline, &ui::TimelinePage::loadFinished, frame, [&, frame, timeline, files] {
        frame->arm(timeline->view()->viewport(), [&exitCode, files] {
            const double ms = msSinceProcessStart();
            for (const QString &f : files)
                std::printf("first frame with %s at %.0f ms\n", qPrintable(f), ms);
            std::fflush(stdout);
            exitCode = 0;
            QApplication::exit(0);
        });
    });
    QObject::connect(timeline, &ui::TimelinePage::loadFailed, &window, [](const QString &error) {
        std::fprintf(stderr, "syncscope: %s\n", qPrintable(error));
        QApplication::exit(1);
    });
    QTimer::singleShot(600000, &window, [] {
        std::fprintf(stderr, "syncscope: --timing: no frame with the trace within 10 minutes.\n");
        QApplication::exit(1);
    });
    window.show();
    window.openPaths(files);
    QApplication::exec();
    return exitCode;
}

bool wantsOffscreen(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (!std::strncmp(a, "--export-chart", 14) || !std::strcmp(a, "--smoke"))
            return true;
    }
    return false;
}

bool wantsInfoOnly(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i)
        for (const char *o : {"-h", "--help", "-v", "--version", "--help-all"})
            if (!std::strcmp(argv[i], o))
                return true;
    return false;
}

bool haveDisplay()
{
    return !qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") || !qEnvironmentVariableIsEmpty("DISPLAY") ||
           !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY");
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication::setApplicationName(QStringLiteral("syncscope"));
    QCoreApplication::setOrganizationName(QStringLiteral("syncscope"));
    QCoreApplication::setApplicationVersion(QStringLiteral(SYNCSCOPE_VERSION));
    if (wantsInfoOnly(argc, argv)) {
        // --help and --version need no display.
        QCoreApplication core(argc, argv);
        QCommandLineParser parser;
        addOptions(parser);
        parser.parse(QCoreApplication::arguments());
        if (parser.isSet(QStringLiteral("version")))
            std::printf("syncscope %s\n", SYNCSCOPE_VERSION);
        else
            std::fputs(qPrintable(parser.helpText()), stdout);
        return 0;
    }
    if (wantsOffscreen(argc, argv))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    if (!haveDisplay())
        return failWith(QStringLiteral("no display found (DISPLAY and WAYLAND_DISPLAY are unset); run under a "
                                       "desktop session or xvfb-run, or use --export-chart for headless charts."));
    QApplication app(argc, argv);
    app.setWindowIcon(QIcon(QStringLiteral(":/icons/syncscope.svg")));
    // The application id: the desktop file and icon the shell matches to this window.
    QApplication::setDesktopFileName(QStringLiteral("io.github.syncscope.Syncscope"));

    QCommandLineParser parser;
    addOptions(parser);
    if (!parser.parse(QApplication::arguments()))
        return failWith(parser.errorText() + QStringLiteral("; see syncscope --help."));
    if (parser.isSet(QStringLiteral("export-chart")))
        return exportChartHeadless(parser);

    static const QStringList pages = {QStringLiteral("explore"), QStringLiteral("timeline"),
                                      QStringLiteral("distribution"), QStringLiteral("job")};
    const QString page = parser.value(QStringLiteral("page"));
    if (!page.isEmpty() && !pages.contains(page))
        return failWith(
            QStringLiteral("--page must be explore, timeline, distribution or job (got '%1').").arg(page));
    const QString shotDir = parser.value(QStringLiteral("screenshot-dir"));
    if (!shotDir.isEmpty() && !QDir().mkpath(shotDir))
        return failWith(QStringLiteral("cannot create the screenshot folder '%1'.").arg(shotDir));

    ui::MainWindow window;
    if (parser.isSet(QStringLiteral("timing")))
        return runTiming(window, parser.positionalArguments());
    if (parser.isSet(QStringLiteral("compare"))) {
        // --compare BEFORE AFTER; with --screenshot-dir, saves the Compare window
        // as compare.png once both traces are shown, then quits.
        const QStringList files = parser.positionalArguments();
        if (files.size() != 1)
            return failWith(
                QStringLiteral("--compare BEFORE takes exactly one more file, AFTER (got %1).").arg(files.size()));
        const QString before = parser.value(QStringLiteral("compare"));
        window.show();
        window.openPaths({before});
        ui::CompareView *view = window.compareFiles(before, files.front());
        int exitCode = 0;
        if (!shotDir.isEmpty()) {
            view->resize(1500, 950);
            QObject::connect(view, &ui::CompareView::loadFailed, [&exitCode](const QString &e) {
                std::fprintf(stderr, "syncscope: %s\n", qPrintable(e));
                exitCode = 1;
                QApplication::exit(1);
            });
            QObject::connect(view, &ui::CompareView::loaded, [view, shotDir, &exitCode] {
                QTimer::singleShot(500, view, [view, shotDir, &exitCode] {
                    const QString path = QDir(shotDir).filePath(QStringLiteral("compare.png"));
                    if (!view->grab().save(path)) {
                        std::fprintf(stderr, "syncscope: cannot write '%s'.\n", qPrintable(path));
                        exitCode = 1;
                    }
                    QApplication::exit(exitCode);
                });
            });
        }
        const int code = QApplication::exec();
        return exitCode ? exitCode : code;
    }
    if (!shotDir.isEmpty() && !parser.positionalArguments().isEmpty()) {
        // A trace as it opens, at the screenshot size: default tracks, the
        // first row of the sync-gap table selected when there is one.
        const QStringList files = parser.positionalArguments();
        QString name = parser.value(QStringLiteral("screenshot-name"));
        if (name.isEmpty())
            name = QFileInfo(files.front()).fileName().section(QLatin1Char('.'), 0, 0);
        const bool jobShot = page == QLatin1String("job");
        const QString select = parser.value(QStringLiteral("screenshot-select"));
        if (!select.isEmpty() && select != QLatin1String("gap") && select != QLatin1String("source"))
            return failWith(QStringLiteral("--screenshot-select takes gap or source, not '%1'.").arg(select));
        const QString path = QDir(shotDir).filePath(
            QStringLiteral("%1-%2.png").arg(jobShot ? QStringLiteral("job") : QStringLiteral("timeline"), name));
        window.resize(1480, 920);
        window.show();
        int exitCode = 1;
        ui::TimelinePage *timeline = window.timeline();
        auto fail = [&exitCode](const QString &e) {
            std::fprintf(stderr, "syncscope: %s\n", qPrintable(e));
            exitCode = 1;
            QApplication::exit(1);
        };
        QObject::connect(timeline, &ui::TimelinePage::loadFailed, &app, fail);
        if (jobShot) {
            // The Job view as it opens once the job is analysed: ranks by rank.
            QObject::connect(window.jobPage(), &ui::JobPage::jobFailed, &app, fail);
            QObject::connect(timeline, &ui::TimelinePage::loadFinished, &app, [&] {
                // Ranks as loaded: an Nsight Systems export holds one per GPU process.
                const auto data = timeline->data();
                if (!data || data->files().size() < 2)
                    fail(QStringLiteral("--page job needs the ranks of one job: two or more FILEs, or an "
                                        "Nsight Systems export of two or more GPU processes."));
            });
            QObject::connect(window.jobPage(), &ui::JobPage::jobReady, &app, [&] {
                window.showPage(ui::MainWindow::JobPageIndex);
                QTimer::singleShot(800, &window, [&] {
                    exitCode = window.grab().save(path) ? 0 : 1;
                    std::fprintf(exitCode ? stderr : stdout, exitCode ? "syncscope: cannot write '%s'.\n" : "%s\n",
                                 qPrintable(path));
                    QApplication::exit(exitCode);
                });
            });
            window.openPaths(files);
            QApplication::exec();
            return exitCode;
        }
        QObject::connect(timeline, &ui::TimelinePage::loadFinished, &app, [&] {
            window.showPage(ui::MainWindow::TimelinePageIndex);
            if (select == QLatin1String("source")) {
                // The top sync source (most avoidable first), as a click would.
                if (timeline->syncSourceModel()->rowCount() > 0) {
                    const QModelIndex top = timeline->sourceTable()->model()->index(0, 0);
                    timeline->sourceTable()->setCurrentIndex(top);
                    Q_EMIT timeline->sourceTable()->clicked(top);
                }
            } else if (timeline->syncGapModel()->rowCount() > 0) {
                // The top row of the gap table (most avoidable first), as a click would.
                Q_EMIT timeline->gapTable()->activated(timeline->gapTable()->model()->index(0, 0));
            }
            QTimer::singleShot(800, &window, [&] {
                exitCode = window.grab().save(path) ? 0 : 1;
                std::fprintf(exitCode ? stderr : stdout, exitCode ? "syncscope: cannot write '%s'.\n" : "%s\n",
                             qPrintable(path));
                QApplication::exit(exitCode);
            });
        });
        window.openPaths(files);
        QApplication::exec();
        return exitCode;
    }
    if (parser.isSet(QStringLiteral("smoke")) || !shotDir.isEmpty()) {
        // Every page is driven, Explore and Distribution too: they need the lab.
        if (!window.explorer())
            return failWith(window.labUnavailableReason() + QLatin1Char('.'));
        ui::AppTour::Options options;
        options.quick = parser.isSet(QStringLiteral("smoke"));
        options.screenshotDir = shotDir;
        if (!shotDir.isEmpty())
            window.resize(1480, 920);
        window.show();
        auto *tour = new ui::AppTour(&window, options, &window);
        int exitCode = 1;
        QObject::connect(tour, &ui::AppTour::done, &app, [&](int code, const QString &message) {
            exitCode = code;
            std::fprintf(code ? stderr : stdout, "syncscope: %s\n", qPrintable(message));
            QApplication::exit(code);
        });
        tour->start();
        QApplication::exec();
        return exitCode;
    }

    window.show();
    const QStringList files = parser.positionalArguments();
    if (!files.isEmpty()) {
        window.openPaths(files);
    } else if (parser.isSet(QStringLiteral("demo"))) {
        window.openDemo();
        window.showPage(ui::MainWindow::ExplorePage);
    } else {
        window.firstLaunch();
    }
    if (!page.isEmpty())
        window.showPage(static_cast<ui::MainWindow::Page>(pages.indexOf(page)));
    if (parser.isSet(QStringLiteral("run-sweep")))
        QTimer::singleShot(0, &window, [&window] {
            if (!window.explorer()) {
                window.showStatusMessage(QStringLiteral("--run-sweep: %1").arg(window.labUnavailableReason()));
                return;
            }
            window.showPage(ui::MainWindow::ExplorePage);
            window.explorer()->runQuickCpuSweep();
        });
    return QApplication::exec();
}
