// A job's result reaches its onDone with the work's own type: checked by the
// compiler, delivered on the GUI thread before finished(id), and only for a
// job that succeeded while its context lives.
#include "jobs/jobrunner.h"

#include "common/error.h"

#include <QSignalSpy>
#include <QThread>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace syncscope;
using namespace syncscope::ui;

namespace {

// The result type is the work's return type; onDone is checked against it.
const auto makeNames = [](const ProgressFn &, const CancelToken *) { return std::vector<std::string>{"a", "b"}; };
const auto makeNothing = [](const ProgressFn &, const CancelToken *) {};
static_assert(std::is_same_v<JobResult<decltype(makeNames)>, std::vector<std::string>>);
static_assert(std::is_void_v<JobResult<decltype(makeNothing)>>);
static_assert(jobDeliversTo<decltype(makeNames), void (*)(std::vector<std::string>)>);
static_assert(jobDeliversTo<decltype(makeNames), void (*)(const std::vector<std::string> &)>);
static_assert(!jobDeliversTo<decltype(makeNames), void (*)(const std::vector<int> &)>);
static_assert(!jobDeliversTo<decltype(makeNames), void (*)(std::vector<std::string> &)>);
static_assert(!jobDeliversTo<decltype(makeNames), void (*)()>);
static_assert(jobDeliversTo<decltype(makeNothing), void (*)()>);
static_assert(!jobDeliversTo<decltype(makeNothing), void (*)(int)>);

} // namespace

class TestJobResults : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void aMoveOnlyResultReachesOnDoneOnTheGuiThread()
    {
        JobRunner runner;
        QSignalSpy finished(&runner, &JobRunner::finished);
        std::vector<int> got;
        bool onGuiThread = false;
        int finishedBefore = -1;
        const quint64 id = runner.start(
            QStringLiteral("numbers"),
            [](const ProgressFn &, const CancelToken *) {
                return std::make_unique<std::vector<int>>(std::vector<int>{1, 2, 3});
            },
            &runner,
            [&](std::unique_ptr<std::vector<int>> numbers) {
                got = std::move(*numbers);
                onGuiThread = QThread::currentThread() == runner.thread();
                finishedBefore = int(finished.count());
            });
        QTRY_COMPARE(finished.count(), 1);
        QCOMPARE(finished.at(0).at(0).toULongLong(), id);
        QCOMPARE(got, (std::vector<int>{1, 2, 3}));
        QVERIFY(onGuiThread);
        QCOMPARE(finishedBefore, 0);
    }

    void voidWorkCallsOnDoneWithNothing()
    {
        JobRunner runner;
        QSignalSpy finished(&runner, &JobRunner::finished);
        std::atomic<bool> ran{false};
        bool done = false;
        runner.start(
            QStringLiteral("side effect"), [&](const ProgressFn &, const CancelToken *) { ran = true; }, &runner,
            [&] { done = true; });
        QTRY_COMPARE(finished.count(), 1);
        QVERIFY(ran.load());
        QVERIFY(done);
    }

    void onDoneIsDroppedWithItsContext()
    {
        JobRunner runner;
        QSignalSpy finished(&runner, &JobRunner::finished);
        auto *context = new QObject;
        std::atomic<bool> started{false};
        bool done = false;
        runner.start(
            QStringLiteral("slow"),
            [&](const ProgressFn &, const CancelToken *) {
                started = true;
                std::this_thread::sleep_for(std::chrono::milliseconds(100));
                return 7;
            },
            context, [&](int) { done = true; });
        QTRY_VERIFY(started.load());
        delete context;
        QTRY_COMPARE(finished.count(), 1);
        QVERIFY(!done);
    }

    void onlyASucceededCurrentJobCallsOnDone()
    {
        JobRunner runner;
        QSignalSpy finished(&runner, &JobRunner::finished);
        QSignalSpy failed(&runner, &JobRunner::failed);
        QSignalSpy cancelled(&runner, &JobRunner::cancelled);
        int doneCalls = 0;
        runner.start(
            QStringLiteral("fails"),
            [](const ProgressFn &, const CancelToken *) -> int { throw Error("no input"); }, &runner,
            [&](int) { ++doneCalls; });
        QTRY_COMPARE(failed.count(), 1);
        QCOMPARE(doneCalls, 0);

        std::atomic<bool> started{false};
        runner.start(
            QStringLiteral("superseded"),
            [&](const ProgressFn &, const CancelToken *) {
                started = true;
                std::this_thread::sleep_for(std::chrono::milliseconds(100));
                return std::string("old");
            },
            &runner, [&](const std::string &) { ++doneCalls; });
        QTRY_VERIFY(started.load());
        QString last;
        runner.start(
            QStringLiteral("current"),
            [](const ProgressFn &, const CancelToken *) { return QStringLiteral("new"); }, &runner,
            [&](QString s) { last = std::move(s); });
        QTRY_COMPARE(finished.count(), 1);
        QCOMPARE(cancelled.count(), 1);
        QCOMPARE(doneCalls, 0);
        QCOMPARE(last, QStringLiteral("new"));
    }
};

QTEST_MAIN(TestJobResults)
#include "tst_jobresults.moc"
