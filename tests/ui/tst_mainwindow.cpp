// The main window never blocks on input: the kind of a file is decided by its
// structure on a worker, and what is not a regular file is refused at once.
#include "mainwindow.h"

#include <QFile>
#include <QMessageBox>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

using namespace syncscope::ui;

class TestMainWindow : public QObject {
    Q_OBJECT

    static QString warningsShown(const MainWindow &window)
    {
        QString text;
        for (const QMessageBox *box : window.findChildren<QMessageBox *>())
            text += box->text() + QLatin1Char('\n');
        return text;
    }

private Q_SLOTS:
    void traceWithEventsAfterTheFirst4KBIsATrace()
    {
        QTemporaryDir dir;
        QFile f(dir.filePath(QStringLiteral("late.json")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"deviceProperties":[{"name":"results","pad":")");
        f.write(QByteArray(8000, 'x'));
        f.write(R"("}],"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":5}]})");
        f.close();
        QVERIFY(!MainWindow::isBenchResults(f.fileName()));
        MainWindow window;
        window.showPage(MainWindow::DistributionPageIndex);
        window.openPaths({f.fileName()});
        QTRY_COMPARE(window.currentPage(), MainWindow::TimelinePageIndex);
        QVERIFY2(warningsShown(window).isEmpty(), qPrintable(warningsShown(window)));
    }

    void fifoIsRefusedWithoutBlocking()
    {
        QTemporaryDir dir;
        const QString fifo = dir.filePath(QStringLiteral("pipe.json"));
        QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
        MainWindow window;
        window.showPage(MainWindow::DistributionPageIndex);
        window.openPaths({fifo}); // would block forever if the GUI thread opened it
        QTRY_VERIFY(warningsShown(window).contains(QStringLiteral("not a regular file")));
        QCOMPARE(window.currentPage(), MainWindow::DistributionPageIndex);
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
