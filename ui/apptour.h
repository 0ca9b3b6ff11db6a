#pragma once
// Drives the real window through real work, page by page: opens the demo
// trace, runs a CPU sweep, runs a sampling test. `--smoke` uses it to check a
// fresh machine end to end; `--screenshot-dir` grabs each page on the way.
#include <QObject>
#include <QString>

#include <functional>

namespace syncscope::ui {

class MainWindow;

class AppTour : public QObject {
    Q_OBJECT
public:
    struct Options {
        QString screenshotDir; // empty: grab to memory only (smoke)
        bool quick = true;     // tiny sizes, for the smoke check
        int stepTimeoutMs = 240000;
    };

    AppTour(MainWindow *window, Options options, QObject *parent = nullptr);
    void start();

Q_SIGNALS:
    // exitCode 0 on success; message is one sentence either way.
    void done(int exitCode, const QString &message);

private:
    void openTrace();
    void runSweep();
    void showTimeline();
    void runDistribution();
    // The order test at 1 % positives: the article's sampler, then ours.
    void runOrderComparison(const QString &variant, const QString &next);
    bool grab(const QString &name);
    void fail(const QString &message);
    void finish();
    // Calls `next` once `signalSender` emits, or fails after the step timeout.
    template <typename Sender, typename Signal>
    void waitFor(Sender *sender, Signal signal, std::function<void()> next, const QString &what);

    MainWindow *m_window;
    Options m_options;
    QStringList m_grabbed;
    bool m_done = false;
};

} // namespace syncscope::ui
