// Explore on the real lab (libsyncscope_lab.so): benchmarks that finish and
// that are cancelled, and captures that open in the Timeline. The page's own
// behaviour on a fake lab is tst_explorer.
#include "charts/benchcharts.h"
#include "charts/chartpanel.h"
#include "explorer/explorerpage.h"
#include "explorer/paramsform.h"
#include "explorer/resultsmodel.h"
#include "jobs/jobrunner.h"
#include "lab/api/labloader.h"
#include "common/error.h"
#include "mainwindow.h"
#include "timeline/timelinedata.h"
#include "timeline/timelinepage.h"
#include "trace/tracemodel.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QChart>
#include <QLogValueAxis>
#include <QMessageBox>
#include <QPushButton>
#include <QTableView>
#include <QTimer>
#include <QValueAxis>
#include <QAction>
#include <QFileInfo>
#include <QElapsedTimer>
#include <QFile>
#include <QLineEdit>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <thread>

using namespace syncscope;
using namespace syncscope::ui;


class TestExplorerLab : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void jobCompletes()
    {
        ExplorerPage page(lab::requireLab());
        ParamsForm *form = page.params();
        form->setField("n", "2000");
        form->setVariantsChecked({"naive", "fused"});
        form->setIterations(1, 5);
        QSignalSpy added(&page, &ExplorerPage::runAdded);
        QSignalSpy status(&page, &ExplorerPage::statusMessage);
        page.runPoint();
        QVERIFY(page.isBusy());
        QVERIFY(added.wait(120000));
        QVERIFY(!page.isBusy());
        QCOMPARE(page.results()->rowCount(), 2);
        // The status names what was measured: two variants at one point.
        bool said = false;
        for (const QList<QVariant> &s : status)
            said = said || s.front().toString().contains(QStringLiteral("2 variant(s) at 1 point(s)"));
        QVERIFY(said);
        QVERIFY(page.results()->result(0).stats.medianMs > 0);
        QVERIFY(page.chart()->hasChart());
    }

    void jobIsCancelledQuickly()
    {
        ExplorerPage page(lab::requireLab());
        ParamsForm *form = page.params();
        form->setField("n", "1e6");
        form->setVariantsChecked({"naive", "static", "fused"});
        form->setIterations(50, 5000);
        QSignalSpy cancelled(page.jobs(), &JobRunner::cancelled);
        QSignalSpy added(&page, &ExplorerPage::runAdded);
        page.runPoint();
        QVERIFY(page.isBusy());
        QTest::qWait(300);
        QElapsedTimer clock;
        clock.start();
        page.cancel();
        QVERIFY(cancelled.count() == 1 || cancelled.wait(200));
        QVERIFY(!page.isBusy());
        QVERIFY2(clock.elapsed() < 200, "cancel must take effect within 200 ms");
        QVERIFY(page.runAction()->isEnabled());
        // The worker unwinds soon after; its result is dropped, not shown.
        page.jobs()->waitForDone();
        QTest::qWait(100);
        QCOMPARE(added.count(), 0);
        QCOMPARE(page.results()->rowCount(), 0);
    }

    void profileWritesATrace()
    {
        ExplorerPage page(lab::requireLab());
        page.params()->setField("n", "5000");
        page.params()->setVariantsChecked({"naive"});
        QSignalSpy captured(&page, &ExplorerPage::traceCaptured);
        QSignalSpy failed(page.jobs(), &JobRunner::failed);
        page.profileRun();
        QVERIFY(page.isBusy());
        QTRY_VERIFY_WITH_TIMEOUT(!page.isBusy(), 120000);
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.at(0).at(1).toString()));
        QCOMPARE(captured.count(), 1);
        const QString path = captured.at(0).at(0).toString();
        QVERIFY(path.endsWith(".json.gz"));
        QVERIFY(QFile(path).size() > 100);
    }

    void profileOpensInTimeline()
    {
        MainWindow window;
        window.explorer()->params()->setField("n", "5000");
        window.explorer()->params()->setVariantsChecked({"static"});
        QSignalSpy loaded(window.timeline(), &TimelinePage::loadFinished);
        QSignalSpy loadFailed(window.timeline(), &TimelinePage::loadFailed);
        window.explorer()->profileRun();
        QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty() || !loadFailed.isEmpty(), 120000);
        QVERIFY2(loadFailed.isEmpty(), loadFailed.isEmpty() ? "" : qPrintable(loadFailed.at(0).at(0).toString()));
        QCOMPARE(window.currentPage(), MainWindow::TimelinePageIndex);
        QVERIFY(window.timeline()->hasTrace());
    }

    void profileAndCompareCapturesThePair()
    {
        ExplorerPage page(lab::requireLab());
        page.params()->setField("n", "5000");
        page.params()->setVariantsChecked({"naive"});
        QVERIFY(!page.profileCompareAction()->isEnabled()); // needs two variants
        page.params()->setVariantsChecked({"naive", "static"});
        QTRY_VERIFY(page.profileCompareAction()->isEnabled());
        QSignalSpy pair(&page, &ExplorerPage::pairCaptured);
        QSignalSpy failed(page.jobs(), &JobRunner::failed);
        page.profileCompareAction()->trigger();
        QVERIFY(page.isBusy());
        QTRY_VERIFY_WITH_TIMEOUT(!page.isBusy(), 180000);
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.at(0).at(1).toString()));
        QCOMPARE(pair.count(), 1);
        const QString before = pair.at(0).at(0).toString(), after = pair.at(0).at(1).toString();
        QVERIFY(before != after);
        QVERIFY(before.contains("-naive-") && after.contains("-static-"));
        QVERIFY(QFile(before).size() > 100 && QFile(after).size() > 100);
    }

    void cancelledSweepKeepsItsFinishedPoints()
    {
        ExplorerPage page(lab::requireLab());
        ParamsForm *form = page.params();
        form->setVariantsChecked({"fused"});
        form->setKIsRatio(true);
        form->setField("k", "0.01");
        form->setIterations(1, 400);
        // 1e3 and 3e4 finish quickly; 1e6 runs long enough to be cancelled.
        form->setSweep(SweepAxis::N, "1000", "1000000", 3);
        QSignalSpy added(&page, &ExplorerPage::runAdded);
        double fraction = 0;
        connect(page.jobs(), &JobRunner::progress, this,
                [&](quint64, double f, const QString &) { fraction = f; });
        page.runSweep();
        QVERIFY(page.isBusy());
        // Progress past 2/3: the first two points are measured, the third runs.
        QTRY_VERIFY_WITH_TIMEOUT(fraction > 2.0 / 3.0 + 1e-9, 120000);
        QVERIFY(page.isBusy());
        page.cancel();
        QCOMPARE(added.count(), 1);
        QVERIFY(!page.isBusy());
        QCOMPARE(page.results()->rowCount(), 2); // one variant, two points
        QCOMPARE(page.results()->result(0).point.n, int64_t(1000));
        QCOMPARE(page.results()->result(1).point.n, int64_t(31623));
        QVERIFY(page.results()->result(1).stats.medianMs > 0);
        QVERIFY(page.results()->runLabel(page.currentRun()).contains("cancelled after 2 of 3 points"));
        page.jobs()->waitForDone();
        QTest::qWait(100);
        QCOMPARE(added.count(), 1); // the point in flight is dropped, not added later
        QCOMPARE(page.results()->rowCount(), 2);
    }

    void profileCapturesEveryCheckedVariantAsOneJob()
    {
        MainWindow window;
        window.explorer()->params()->setField("n", "5000");
        window.explorer()->params()->setVariantsChecked({"naive", "static"});
        QSignalSpy loaded(window.timeline(), &TimelinePage::loadFinished);
        QSignalSpy loadFailed(window.timeline(), &TimelinePage::loadFailed);
        window.explorer()->profileRun();
        QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty() || !loadFailed.isEmpty(), 180000);
        QVERIFY2(loadFailed.isEmpty(), loadFailed.isEmpty() ? "" : qPrintable(loadFailed.at(0).at(0).toString()));
        const QStringList files = loaded.at(0).at(0).toStringList();
        QCOMPARE(files.size(), 2);
        QVERIFY(files[0].contains("-naive-") && files[1].contains("-static-"));
        const auto data = window.timeline()->data();
        QCOMPARE(data->files().size(), size_t(2)); // two ranks of one job
        // Whichever profiler wrote them, the ops carry a category: cpu_op.
        for (const TimelineFile &file : data->files()) {
            const TraceModel &m = *file.model;
            bool sawOp = false;
            for (const Track &t : m.tracks())
                for (size_t i = 0; i < t.size(); ++i)
                    if (m.str(t.name[i]) == "aten::eq") {
                        QCOMPARE(QString::fromUtf8(m.str(t.cat[i]).data(), int(m.str(t.cat[i]).size())),
                                 QStringLiteral("cpu_op"));
                        sawOp = true;
                    }
            QVERIFY(sawOp);
        }
        QCOMPARE(window.recentFiles().value(0), files.join('\n'));
    }
};

QTEST_MAIN(TestExplorerLab)
#include "tst_explorerlab.moc"
