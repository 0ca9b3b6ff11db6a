// What the window's actions and keys do wherever the user is: an action is
// enabled only when it can act, a page's keys work while a text field has
// the focus, a folder opens as the ranks of one job, and every refusal is one
// inline sentence that starts with a capital.
#include "explorer/explorerpage.h"
#include "mainwindow.h"
#include "shared/noticebar.h"
#include "timeline/timelinepage.h"
#include "tinytrace.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QToolBar>
#include <QToolButton>
#include <QtTest>

#include <sys/stat.h>

using namespace syncscope::ui;
using syncscope::test::writeTinyTrace;

namespace {
// The window with its lab pages built (or the lab refused): the state a user
// meets a few seconds after start.
bool waitForLab(MainWindow &window)
{
    QSignalSpy built(&window, &MainWindow::labPagesBuilt);
    QSignalSpy unavailable(&window, &MainWindow::labUnavailable);
    window.show();
    if (!QTest::qWaitForWindowExposed(&window))
        return false;
    (void)QTest::qWaitFor([&] { return !built.isEmpty() || !unavailable.isEmpty() || window.labPagesReady(); },
                          60000);
    return window.labPagesReady();
}

// Claims a key as a text field's own (a ShortcutOverride accepted).
class ClaimKey : public QObject {
public:
    explicit ClaimKey(QKeySequence key) : m_key(key) {}

protected:
    bool eventFilter(QObject *, QEvent *e) override
    {
        if (e->type() == QEvent::ShortcutOverride &&
            QKeySequence(static_cast<QKeyEvent *>(e)->keyCombination()) == m_key) {
            e->accept();
            return true;
        }
        return false;
    }

private:
    QKeySequence m_key;
};

// Every refusal the window shows inline, and none in a dialog.
QString notice(const MainWindow &window)
{
    const auto *bar = window.findChild<NoticeBar *>(QStringLiteral("noticeBar"));
    return bar && bar->isVisibleTo(&window) ? bar->text() : QString();
}
} // namespace

class TestAppActions : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    // Idle, no Cancel anywhere can act: the toolbar, the menus and each page
    // agree, on every page.
    void cancelIsDisabledWhileIdle()
    {
        MainWindow window;
        window.resize(1280, 800);
        waitForLab(window);
        QToolBar *toolBar = window.findChild<QToolBar *>();
        QVERIFY(toolBar);
        for (int page = 0; page < window.findChild<QTabWidget *>()->count(); ++page) {
            window.showPage(MainWindow::Page(page));
            QApplication::processEvents();
            for (QToolButton *b : toolBar->findChildren<QToolButton *>()) {
                if (!b->isVisibleTo(toolBar) || !b->text().contains(QStringLiteral("Cancel")))
                    continue;
                QVERIFY2(!b->isEnabled(), qPrintable(QStringLiteral("page %1: toolbar '%2' is enabled while idle")
                                                         .arg(page)
                                                         .arg(b->text())));
            }
            for (QAction *a : toolBar->actions())
                if (a->isVisible() && a->text().contains(QStringLiteral("Cancel")))
                    QVERIFY2(!a->isEnabled(), qPrintable(a->text()));
            for (QMenu *menu : window.menuBar()->findChildren<QMenu *>())
                for (QAction *a : menu->actions())
                    if (a->text().contains(QStringLiteral("Cancel")))
                        QVERIFY2(!a->isEnabled(), qPrintable(menu->title() + QStringLiteral(" > ") + a->text()));
        }
    }

    // Ctrl+E exports the chart of Explore even while the Seed field has the
    // focus (a line edit would take it as "end of line").
    void pageKeysWorkFromATextField()
    {
        MainWindow window;
        window.resize(1280, 800);
        if (!waitForLab(window))
            QSKIP("the lab is not available in this build");
        window.showPage(MainWindow::ExplorePage);
        ExplorerPage *explore = window.explorer();
        QLineEdit *field = nullptr;
        for (QLineEdit *e : explore->findChildren<QLineEdit *>())
            if (e->isVisibleTo(explore) && e->isEnabled() && !e->isReadOnly()) {
                field = e;
                break;
            }
        QVERIFY(field);
        field->setFocus();
        QTRY_VERIFY(field->hasFocus());
        // On X11 a line edit claims Ctrl+E (end of line) before any shortcut;
        // the offscreen platform binds no such key, so the field here claims
        // it the way it does there.
        ClaimKey claim(QKeySequence(Qt::CTRL | Qt::Key_E));
        field->installEventFilter(&claim);
        QAction *exportChart = explore->exportChartAction();
        exportChart->setEnabled(true); // what a shown chart enables
        QSignalSpy triggered(exportChart, &QAction::triggered);
        // The action's own handler would open a file dialog: keep only the count.
        exportChart->disconnect(explore);
        field->setText(QStringLiteral("123"));
        field->setCursorPosition(0);
        QTest::keyClick(field, Qt::Key_E, Qt::ControlModifier);
        QCOMPARE(triggered.count(), 1);
        QCOMPARE(field->text(), QStringLiteral("123"));
        // Keys a text field needs stay its own: Ctrl+A selects the text.
        QTest::keyClick(field, Qt::Key_A, Qt::ControlModifier);
        QCOMPARE(field->selectedText(), QStringLiteral("123"));
    }

    // A folder opens as the ranks of one job: the traces inside it, in name
    // order; other files are passed over.
    void folderOpensAsTheRanksOfAJob()
    {
        QTemporaryDir dir;
        writeTinyTrace(dir.filePath(QStringLiteral("rank1.json")), 2);
        writeTinyTrace(dir.filePath(QStringLiteral("rank0.json")), 1);
        QFile notes(dir.filePath(QStringLiteral("notes.txt")));
        QVERIFY(notes.open(QIODevice::WriteOnly));
        notes.write("not a trace");
        notes.close();
        QDir().mkdir(dir.filePath(QStringLiteral("sub")));
        MainWindow window;
        QSignalSpy loaded(window.timeline(), &TimelinePage::loadFinished);
        window.openPaths({dir.path()});
        QVERIFY(loaded.wait(20000));
        QCOMPARE(window.currentPage(), MainWindow::TimelinePageIndex);
        QCOMPARE(window.timeline()->currentFiles(), QStringList({dir.filePath(QStringLiteral("rank0.json")),
                                                                 dir.filePath(QStringLiteral("rank1.json"))}));
        QVERIFY2(notice(window).isEmpty(), qPrintable(notice(window)));
    }

    // A folder without traces, a missing file and a pipe: each is one inline
    // sentence starting with a capital, no dialog, and the page stays.
    void refusalsAreInlineSentences()
    {
        QTemporaryDir dir;
        QDir().mkdir(dir.filePath(QStringLiteral("empty")));
        QCOMPARE(::mkfifo(QFile::encodeName(dir.filePath(QStringLiteral("pipe.json"))).constData(), 0600), 0);
        const QStringList inputs = {dir.filePath(QStringLiteral("empty")),
                                    dir.filePath(QStringLiteral("missing.json")),
                                    dir.filePath(QStringLiteral("pipe.json"))};
        const QStringList expected = {QStringLiteral("holds no traces"), QStringLiteral("does not exist"),
                                      QStringLiteral("not a regular file")};
        for (int i = 0; i < inputs.size(); ++i) {
            MainWindow window;
            window.showPage(MainWindow::DistributionPageIndex);
            window.openPaths({inputs[i]});
            QTRY_VERIFY(notice(window).contains(expected[i]));
            const QString text = notice(window);
            QVERIFY2(text.at(0).isUpper() && text.endsWith(QLatin1Char('.')), qPrintable(text));
            QCOMPARE(window.findChildren<QMessageBox *>().size(), 0);
            QCOMPARE(window.currentPage(), MainWindow::DistributionPageIndex);
        }
    }

    // A file the loader refuses: the Timeline's inline error is a sentence
    // that starts with a capital, whatever the loader's own wording.
    void loadErrorsStartWithACapital()
    {
        QTemporaryDir dir;
        QFile f(dir.filePath(QStringLiteral("broken.json")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("this is not a trace");
        f.close();
        MainWindow window;
        QSignalSpy failed(window.timeline(), &TimelinePage::loadFailed);
        window.openPaths({f.fileName()});
        QVERIFY(failed.wait(20000));
        const QString text = failed.front().front().toString();
        QVERIFY2(text.at(0).isUpper(), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("broken.json")), qPrintable(text));
    }
};

QTEST_MAIN(TestAppActions)
#include "tst_appactions.moc"
