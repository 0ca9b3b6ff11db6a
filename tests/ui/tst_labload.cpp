// The lab (libsyncscope_lab.so, LibTorch) and the window. Run twice by ctest:
// SYNCSCOPE_EXPECT_LAB=1 with the real library, where it loads in the
// background after the window shows and Explore and Distribution appear without
// anyone asking for them; SYNCSCOPE_EXPECT_LAB=0 with SYNCSCOPE_LAB pointing
// nowhere, where the window still opens a trace and both pages say why they
// are disabled, naming the library.
#include "distribution/distributionpage.h"
#include "explorer/explorerpage.h"
#include "lab/api/labloader.h"
#include "mainwindow.h"
#include "timeline/timelinepage.h"

#include <QLabel>
#include <QSignalSpy>
#include <QTabWidget>
#include <QtTest>

using namespace syncscope;
using namespace syncscope::ui;

class TestLabLoad : public QObject {
    Q_OBJECT

    static bool expectLab() { return qgetenv("SYNCSCOPE_EXPECT_LAB") == "1"; }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY2(qEnvironmentVariableIsSet("SYNCSCOPE_EXPECT_LAB"), "run through ctest");
        // Nothing has touched the lab yet: constructing the window must not either.
        QVERIFY(!lab::labLoadFinished());
    }

    void windowOpensATraceWhileTheLabLoadsOrFails()
    {
        MainWindow window;
        QVERIFY(!window.labPagesReady());
        QVERIFY(!lab::labLoadFinished()); // the constructor did not load it
        QSignalSpy built(&window, &MainWindow::labPagesBuilt);
        QSignalSpy unavailable(&window, &MainWindow::labUnavailable);
        QSignalSpy loaded(window.timeline(), &TimelinePage::loadFinished);
        window.show();
        window.openPaths({QStringLiteral(SYNCSCOPE_TEST_DATA_DIR "/gpu_sync_gaps.json")});
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 60000);
        QVERIFY(window.timeline()->hasTrace());
        QCOMPARE(window.currentPage(), MainWindow::TimelinePageIndex);

        // Nobody asks for Explore: the background load alone decides.
        QTRY_VERIFY_WITH_TIMEOUT(built.count() + unavailable.count() == 1, 120000);
        if (expectLab()) {
            QCOMPARE(built.count(), 1);
            QVERIFY(window.labPagesReady());
            QVERIFY(window.labUnavailableReason().isEmpty());
            QVERIFY(window.explorer() != nullptr);
            QVERIFY(window.distribution() != nullptr);
        } else {
            QCOMPARE(unavailable.count(), 1);
            QVERIFY(!window.labPagesReady());
            QVERIFY(window.explorer() == nullptr);
            QVERIFY(window.distribution() == nullptr);
            const QString reason = window.labUnavailableReason();
            const QString path = qEnvironmentVariable("SYNCSCOPE_LAB");
            QVERIFY2(reason.contains(path), qPrintable(reason));
            QVERIFY2(reason.contains(QStringLiteral("No such file")), qPrintable(reason));
            // Both pages are disabled and show the reason where the user looks.
            auto *tabs = window.findChild<QTabWidget *>();
            QVERIFY(tabs);
            for (int page : {int(MainWindow::ExplorePage), int(MainWindow::DistributionPageIndex)}) {
                QWidget *w = tabs->widget(page);
                QVERIFY(!w->isEnabled());
                auto *note = w->findChild<QLabel *>(QStringLiteral("labNote"));
                QVERIFY(note);
                QVERIFY2(note->text().contains(path), qPrintable(note->text()));
                QVERIFY(tabs->tabToolTip(page).contains(path));
            }
            // The Timeline still works: a second trace opens over the first.
            window.openPaths({QStringLiteral(SYNCSCOPE_TEST_DATA_DIR "/phases.json")});
            QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, 60000);
            QVERIFY(window.timeline()->hasTrace());
        }
    }
};

QTEST_MAIN(TestLabLoad)
#include "tst_labload.moc"
