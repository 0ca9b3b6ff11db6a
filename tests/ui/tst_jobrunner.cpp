// The job runner never runs two jobs at once: a new job waits until a cancelled
// one has returned.
#include "jobs/jobrunner.h"

#include "common/error.h"

#include <QSignalSpy>
#include <QtTest>

#include <any>
#include <atomic>
#include <chrono>
#include <new>
#include <thread>

using namespace syncscope;
using namespace syncscope::ui;

class TestJobRunner : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void newJobWaitsForTheCancelledOne()
    {
        JobRunner runner;
        std::atomic<int> running{0};
        std::atomic<int> overlaps{0};
        std::atomic<bool> firstStarted{false};
        // A job that notices cancel only after 300 ms (a long kernel call).
        auto slow = [&](const ProgressFn &, const CancelToken *cancel) -> std::any {
            if (++running > 1)
                ++overlaps;
            firstStarted = true;
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            --running;
            if (cancel->cancelled())
                throw Cancelled();
            return 1;
        };
        auto quick = [&](const ProgressFn &, const CancelToken *) -> int {
            if (++running > 1)
                ++overlaps;
            --running;
            return 2;
        };
        QSignalSpy finished(&runner, &JobRunner::finished);
        QSignalSpy cancelled(&runner, &JobRunner::cancelled);
        const quint64 first = runner.start(QStringLiteral("slow"), slow);
        QTRY_VERIFY(firstStarted.load());
        int delivered = 0;
        const quint64 second = runner.start(QStringLiteral("quick"), quick, &runner,
                                            [&](int result) { delivered = result; }); // cancels the first
        QVERIFY(runner.isRunning());
        QCOMPARE(runner.currentId(), second);
        QTRY_COMPARE(finished.count(), 1);
        QCOMPARE(finished.at(0).at(0).toULongLong(), second);
        QCOMPARE(delivered, 2);
        QCOMPARE(overlaps.load(), 0);
        QCOMPARE(cancelled.count(), 1);
        QCOMPARE(cancelled.at(0).at(0).toULongLong(), first);
    }

    void aWaitingJobReplacedByAnotherNeverRuns()
    {
        JobRunner runner;
        std::atomic<bool> firstStarted{false}, middleRan{false};
        runner.start(QStringLiteral("slow"), [&](const ProgressFn &, const CancelToken *) -> std::any {
            firstStarted = true;
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            return 0;
        });
        QTRY_VERIFY(firstStarted.load());
        runner.start(QStringLiteral("middle"), [&](const ProgressFn &, const CancelToken *) -> std::any {
            middleRan = true;
            return 0;
        });
        QSignalSpy finished(&runner, &JobRunner::finished);
        const quint64 last = runner.start(QStringLiteral("last"),
                                          [](const ProgressFn &, const CancelToken *) -> std::any { return 3; });
        QTRY_COMPARE(finished.count(), 1);
        QCOMPARE(finished.at(0).at(0).toULongLong(), last);
        QVERIFY(!middleRan.load());
    }

    void runningOutOfMemoryIsOneSentence()
    {
        JobRunner runner;
        QSignalSpy failed(&runner, &JobRunner::failed);
        runner.start(QStringLiteral("Loading big.json"),
                     [](const ProgressFn &, const CancelToken *) -> std::any { throw std::bad_alloc(); });
        QTRY_COMPARE(failed.count(), 1);
        const QString error = failed.at(0).at(1).toString();
        QVERIFY2(error.contains(QStringLiteral("Loading big.json: ran out of memory")), qPrintable(error));
        QVERIFY2(!error.contains(QStringLiteral("bad_alloc")), qPrintable(error));
    }
};

QTEST_MAIN(TestJobRunner)
#include "tst_jobrunner.moc"
