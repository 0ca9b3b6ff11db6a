// Benchmark (not a test): peak memory of opening a trace in the Timeline page,
// then of reopening the same file over it. The reopen frees the shown trace
// before it loads, so its peak should be that of a fresh open, not two traces.
//   reopen_memory_bench [EVENTS] [FILE]
// writes a synthetic trace of about EVENTS duration events to FILE (default: a
// temporary file) unless FILE exists, then opens it twice. Peak RSS per open
// comes from VmHWM, reset before each open (/proc/self/clear_refs, "5").
#include "synthetictrace.h"
#include "timeline/timelinepage.h"
#include "trace/tracewriter.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QTemporaryDir>

#include <cstdio>
#include <fstream>
#include <string>

using namespace syncscope;
using namespace syncscope::ui;

namespace {

// kB of a "Vm...:" line of /proc/self/status.
long statusKb(const char *key)
{
    std::ifstream in("/proc/self/status");
    std::string line;
    const std::string k(key);
    while (std::getline(in, line))
        if (line.compare(0, k.size(), k) == 0)
            return std::stol(line.substr(k.size() + 1));
    return -1;
}

bool resetPeak()
{
    std::ofstream out("/proc/self/clear_refs");
    out << "5";
    return bool(out);
}

} // namespace

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const size_t events = argc > 1 ? size_t(std::stoull(argv[1])) : 5'000'000;
    QTemporaryDir dir;
    const QString path = argc > 2 ? QString::fromLocal8Bit(argv[2]) : dir.filePath(QStringLiteral("reopen.json"));
    if (!QFile::exists(path)) {
        test::SyntheticTrace t;
        t.kernelsPerStep = 100;
        t.steps = std::max<size_t>(1, events / (2 * (3 * t.kernelsPerStep + 3)));
        writeTrace(*t.build("reopen.json"), QFile::encodeName(path).toStdString());
    }
    std::printf("trace %s: %.0f MB\n", qPrintable(path), QFile(path).size() / 1e6);

    TimelinePage page;
    auto open = [&](const char *what) {
        if (!resetPeak())
            std::printf("cannot reset the peak (/proc/self/clear_refs)\n");
        const long before = statusKb("VmRSS:");
        QEventLoop loop;
        QObject::connect(&page, &TimelinePage::loadFinished, &loop, &QEventLoop::quit);
        QObject::connect(&page, &TimelinePage::loadFailed, &loop, [&](const QString &e) {
            std::printf("load failed: %s\n", qPrintable(e));
            loop.quit();
        });
        QElapsedTimer timer;
        timer.start();
        page.openFiles({path});
        loop.exec();
        std::printf("%s: %.2f s, RSS before %.0f MB, peak %.0f MB, after %.0f MB\n", what, timer.elapsed() / 1e3,
                    before / 1e3, statusKb("VmHWM:") / 1e3, statusKb("VmRSS:") / 1e3);
    };
    open("fresh open");
    open("reopen over itself");
    return 0;
}
