// The Timeline page end to end: opening files in the background (every shared
// trace, several ranks, a bad file), cancelling a load, find, range statistics,
// the gap table and the page's actions.
#include "jobs/jobrunner.h"
#include "loadandwait.h"
#include "synthetictrace.h"
#include "timeline/eventdetailspanel.h"
#include "timeline/rangestatsmodel.h"
#include "timeline/syncgapmodel.h"
#include "timeline/timelinedata.h"
#include "timeline/timelinepage.h"
#include "timeline/timelineview.h"
#include "trace/tracewriter.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QCheckBox>
#include <QDir>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace syncscope;
using namespace syncscope::ui;

class TstTimelinePage : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_tmp;
    QString m_small, m_big;

    static bool load(TimelinePage &page, const QStringList &paths, QString *error = nullptr)
    {
        return test::loadAndWait(
            &page, &TimelinePage::loadFinished, &TimelinePage::loadFailed, [&] { page.openFiles(paths); }, error);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        test::SyntheticTrace small;
        small.steps = 6;
        small.kernelsPerStep = 8;
        m_small = m_tmp.filePath(QStringLiteral("small.json"));
        writeTrace(*small.build(), m_small.toStdString());
        // big enough that a load is still running when it is cancelled
        test::SyntheticTrace big;
        big.steps = 4000;
        big.kernelsPerStep = 40;
        m_big = m_tmp.filePath(QStringLiteral("big.json"));
        writeTrace(*big.build(), m_big.toStdString());
    }

    void openEverySharedTrace()
    {
        const QDir dir(QStringLiteral(SYNCSCOPE_SHARED_DIR "/traces"));
        if (!dir.exists())
            QSKIP("../shared/traces is absent");
        QStringList singles = dir.entryList({QStringLiteral("*.json"), QStringLiteral("*.json.gz")}, QDir::Files);
        QVERIFY(!singles.isEmpty());
        TimelinePage page;
        page.resize(1400, 800);
        page.show();
        QAbstractItemModelTester tester(page.syncGapModel(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        bool anyGaps = false;
        for (const QString &name : singles) {
            QString error;
            QVERIFY2(load(page, {dir.filePath(name)}, &error), qPrintable(name + QStringLiteral(": ") + error));
            const auto data = page.data();
            QVERIFY(data);
            QVERIFY2(data->summary().events > 0, qPrintable(name));
            QCOMPARE(page.syncGapModel()->rowCount(), int(data->summary().syncGaps));
            QVERIFY(page.headerText().contains(QStringLiteral("sync call")));
            page.view()->viewport()->grab(); // full zoom-out paints
            if (!data->gaps().empty()) {
                anyGaps = true;
                page.showGap(0);
                const TimelineGap &g = data->gaps()[0];
                const Interval iv = data->files()[g.file].sync.syncGaps[g.gap].interval;
                QVERIFY(page.view()->mapping().start() <= iv.start);
                QVERIFY(page.view()->mapping().end() >= iv.end);
                QVERIFY(page.view()->selectedEvent().valid()); // the blocking call
                page.view()->viewport()->grab();
            }
        }
        QVERIFY2(anyGaps, "no shared trace showed a sync gap");
        // a directory of ranks opens as one job, ordered by rank
        const QDir ranks(dir.filePath(QStringLiteral("hta_trace_filter_2ranks")));
        if (ranks.exists()) {
            QStringList files;
            for (const QString &f :
                 ranks.entryList({QStringLiteral("*.json"), QStringLiteral("*.json.gz")}, QDir::Files))
                files << ranks.filePath(f);
            if (files.size() >= 2) {
                QString error;
                QVERIFY2(load(page, files, &error), qPrintable(error));
                QCOMPARE(page.data()->files().size(), size_t(files.size()));
                QVERIFY(page.headerText().contains(QStringLiteral("ranks")));
                page.view()->viewport()->grab();
            }
        }
    }

    // File > Open on an Nsight Systems export: one rank per GPU process.
    void openNsightSystemsExports()
    {
        const QDir dir(QStringLiteral(SYNCSCOPE_SHARED_DIR "/traces/nsys"));
        if (!dir.exists()) {
            if (qEnvironmentVariableIsSet("CI"))
                QFAIL("../shared/traces/nsys is missing under CI");
            QSKIP("../shared/traces/nsys is absent");
        }
        TimelinePage page;
        page.resize(1400, 800);
        page.show();
        for (const QString &name : dir.entryList({QStringLiteral("*.sqlite")}, QDir::Files)) {
            QString error;
            QVERIFY2(load(page, {dir.filePath(name)}, &error), qPrintable(name + QStringLiteral(": ") + error));
            const auto data = page.data();
            QCOMPARE(data->files().size(), size_t(2));
            QVERIFY(page.headerText().contains(QStringLiteral("ranks")));
            QVERIFY2(!data->gaps().empty(), qPrintable(name));
            page.showGap(0);
            QVERIFY(page.view()->selectedEvent().valid());
            page.view()->viewport()->grab();
        }
    }

    void badFileSaysWhyAndKeepsTheTrace()
    {
        TimelinePage page;
        QVERIFY(load(page, {m_small}));
        const QString bad = m_tmp.filePath(QStringLiteral("broken.json"));
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("this is not a trace at all");
        f.close();
        QString error;
        QVERIFY(!load(page, {bad}, &error));
        QVERIFY2(error.contains(QStringLiteral("broken.json")), qPrintable(error));
        QVERIFY(page.hasTrace()); // the previous trace stays
        QCOMPARE(page.currentFiles(), QStringList{m_small});
        QVERIFY(!load(page, {m_tmp.filePath(QStringLiteral("missing.json"))}, &error));
        QVERIFY(error.contains(QStringLiteral("missing.json")));
    }

    void cancelledLoad()
    {
        TimelinePage page;
        page.show();
        QSignalSpy done(&page, &TimelinePage::loadFinished);
        QSignalSpy cancelled(&page, &TimelinePage::loadCancelled);
        auto *loader = page.findChild<JobRunner *>(QStringLiteral("loader"));
        QVERIFY(loader);
        QAction *cancelAction = nullptr;
        for (QAction *a : page.pageActions())
            if (a->text() == QStringLiteral("Cancel Loading"))
                cancelAction = a;
        QVERIFY(cancelAction);
        QVERIFY(!cancelAction->isEnabled()); // nothing to cancel yet
        QSignalSpy progress(loader, &JobRunner::progress);
        QSignalSpy ended(loader, &JobRunner::orphanEnded);
        page.openFiles({m_big});
        QVERIFY(page.isLoading());
        QVERIFY(progress.wait(10000)); // the worker is loading
        QVERIFY(cancelAction->isEnabled());
        // the visible Cancel button, as a user would press it
        QPushButton *cancel = nullptr;
        for (QPushButton *b : page.findChildren<QPushButton *>())
            if (b->text() == QStringLiteral("Cancel"))
                cancel = b;
        QVERIFY(cancel);
        QVERIFY(cancel->isVisible());
        QTest::mouseClick(cancel, Qt::LeftButton);
        QCOMPARE(cancelled.count(), 1);
        QVERIFY(!page.isLoading());
        QVERIFY(!cancelAction->isEnabled());
        QVERIFY(!cancel->isVisible());
        // The cancelled worker runs on to its end: its late result must be
        // dropped, not shown.
        QVERIFY(ended.count() == 1 || ended.wait(60000));
        QCOMPARE(done.count(), 0);
        QVERIFY(!page.hasTrace());
        // and the page still loads afterwards
        QVERIFY(load(page, {m_big}));
        QVERIFY(page.hasTrace());
        QVERIFY(page.data()->summary().events > 300'000);
    }

    void findRangeAndActions()
    {
        TimelinePage page;
        page.resize(1400, 800);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        QVERIFY(load(page, {m_small}));
        const auto data = page.data();

        page.findEdit()->setText(QStringLiteral("cudaStreamSync"));
        page.findNext();
        TimelineEvent e = page.view()->selectedEvent();
        QVERIFY(e.valid());
        QCOMPARE(data->name(e), std::string_view("cudaStreamSynchronize"));
        QCOMPARE(page.detailsPanel()->field(QStringLiteral("Name")), QStringLiteral("cudaStreamSynchronize"));
        QVERIFY(page.detailsPanel()->field(QStringLiteral("Blocking sync")).contains(QStringLiteral("caused")));
        const TimeNs first = data->start(e);
        page.findNext();
        QVERIFY(data->start(page.view()->selectedEvent()) > first);
        page.findPrevious();
        QCOMPARE(data->start(page.view()->selectedEvent()), first);

        // a kernel's details show its args, parsed from the raw JSON
        page.findEdit()->setText(QStringLiteral("^relu_kernel$"));
        for (QCheckBox *c : page.findChildren<QCheckBox *>())
            c->setChecked(true); // regex
        page.findNext();
        e = page.view()->selectedEvent();
        QCOMPARE(data->name(e), std::string_view("relu_kernel"));
        QVERIFY(!page.view()->links().empty()); // the flow from its launch
        QCOMPARE(page.detailsPanel()->field(QStringLiteral("Category")), QStringLiteral("kernel"));
        QVERIFY(!page.detailsPanel()->field(QStringLiteral("Args")).isEmpty());

        // range statistics arrive in the background
        QSignalSpy stats(&page, &TimelinePage::rangeStatsReady);
        page.view()->setRangeSelection(data->minTime(), data->maxTime());
        QVERIFY(stats.wait(10000));
        QVERIFY(page.rangeStatsModel()->rowCount() > 5);
        QAbstractItemModelTester tester(page.rangeStatsModel(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        uint64_t launches = 0;
        for (const auto &r : page.rangeStatsModel()->rows())
            if (r.name == QStringLiteral("cudaLaunchKernel"))
                launches = r.count;
        QCOMPARE(launches, uint64_t(6 * 8));

        // every action has a shortcut and does something
        QStringList names;
        for (QAction *a : page.pageActions()) {
            names << a->text();
            if (a->text() != QStringLiteral("Cancel Loading"))
                QVERIFY2(!a->shortcuts().isEmpty(), qPrintable(a->text()));
        }
        for (const char *n : {"Zoom In", "Zoom Out", "Pan Left", "Pan Right", "Fit All", "Zoom to Selection",
                              "Find Next", "Find Previous", "Next Sync Gap"})
            QVERIFY2(names.contains(QString::fromLatin1(n)), n);
        auto action = [&](const QString &n) {
            for (QAction *a : page.pageActions())
                if (a->text() == n)
                    return a;
            return static_cast<QAction *>(nullptr);
        };
        action(QStringLiteral("Fit All"))->trigger();
        const TimeNs span = page.view()->mapping().span();
        action(QStringLiteral("Zoom In"))->trigger();
        QVERIFY(page.view()->mapping().span() < span);
        action(QStringLiteral("Next Sync Gap"))->trigger();
        QCOMPARE(page.view()->highlightedGap(), 0);
        action(QStringLiteral("Next Sync Gap"))->trigger();
        QCOMPARE(page.view()->highlightedGap(), 1);
        // W through the page's shortcut or the view's own key handling
        page.view()->setFocus();
        const TimeNs before = page.view()->mapping().span();
        QTest::keyClick(page.view(), Qt::Key_W);
        QVERIFY(page.view()->mapping().span() < before);
    }
};

QTEST_MAIN(TstTimelinePage)
#include "tst_timelinepage.moc"
