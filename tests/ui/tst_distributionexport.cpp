// The Distribution page's charts export as one picture (PNG, SVG, PDF, the
// clipboard), and the window's Export Chart… on that page exports them, not the
// Explore chart; the export dialog starts in the last export folder and the
// status bar says where the file went.
#include "lab/api/labloader.h"
#include "charts/chartpanel.h"
#include "charts/exportdialog.h"
#include "distribution/distributionpage.h"
#include "mainwindow.h"
#include "shared/savefolder.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QLineEdit>
#include <QMenuBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

using namespace syncscope;
using namespace syncscope::ui;

namespace {

void runSmallTest(DistributionPage &page)
{
    lab::SampleRequest r;
    r.variant = "fused";
    r.input.n = 300;
    r.input.batch = 3;
    r.input.posFrac = 0.2;
    r.k = 30;
    page.setRequest(r, 100);
    QSignalSpy finished(&page, &DistributionPage::finished);
    page.run();
    QVERIFY(finished.wait(120000));
}

// Distinct colours in a region of an image, sampled every 5 px.
int colours(const QImage &image, const QRect &region)
{
    QSet<QRgb> seen;
    for (int y = region.top(); y <= region.bottom(); y += 5)
        for (int x = region.left(); x <= region.right(); x += 5)
            seen.insert(image.pixel(x, y));
    return int(seen.size());
}

QAction *windowAction(MainWindow &window, const QString &text)
{
    for (QAction *a : window.menuBar()->actions())
        if (QMenu *m = a->menu())
            for (QAction *b : m->actions())
                if (b->text() == text)
                    return b;
    return nullptr;
}

} // namespace

class TstDistributionExport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void chartsExportAsOnePicture()
    {
        DistributionPage page(lab::requireLab());
        QVERIFY(!page.exportChartsAction()->isEnabled()); // nothing to draw yet
        QTemporaryDir dir;
        QString error;
        QVERIFY(!page.exportCharts(QSize(800, 600), dir.filePath(QStringLiteral("none.png")), &error));
        QVERIFY(error.contains(QStringLiteral("run a sampling test")));
        runSmallTest(page);
        QCOMPARE(page.drawnCharts().size(), 4);
        QVERIFY(page.exportChartsAction()->isEnabled());

        const QString png = dir.filePath(QStringLiteral("d.png"));
        QVERIFY2(page.exportCharts(QSize(1200, 800), png, &error), qPrintable(error));
        QImage image;
        QVERIFY(image.load(png, "PNG"));
        QCOMPARE(image.size(), QSize(1200, 800));
        // four charts in a 2 x 2 grid: every quadrant is drawn
        for (const QRect &q :
             {QRect(0, 0, 600, 400), QRect(600, 0, 600, 400), QRect(0, 400, 600, 400), QRect(600, 400, 600, 400)})
            QVERIFY2(colours(image, q) > 10, qPrintable(QStringLiteral("%1,%2").arg(q.x()).arg(q.y())));

        const QString svg = dir.filePath(QStringLiteral("d.svg"));
        QVERIFY2(page.exportCharts(QSize(1200, 800), svg, &error), qPrintable(error));
        QFile f(svg);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QSvgRenderer renderer(f.readAll());
        QVERIFY(renderer.isValid());
        QCOMPARE(renderer.viewBox(), QRect(0, 0, 1200, 800));

        const QString pdf = dir.filePath(QStringLiteral("d.pdf"));
        QVERIFY2(page.exportCharts(QSize(1200, 800), pdf, &error), qPrintable(error));
        QFile p(pdf);
        QVERIFY(p.open(QIODevice::ReadOnly));
        QVERIFY(p.readAll().startsWith("%PDF-"));

        // a bad suffix is one sentence and no file
        QVERIFY(!page.exportCharts(QSize(800, 600), dir.filePath(QStringLiteral("d.bmp")), &error));
        QVERIFY(error.contains(QStringLiteral(".png, .svg or .pdf")));
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("d.bmp"))));

        QApplication::clipboard()->clear();
        page.copyChartsAction()->trigger();
        const QImage copied = QApplication::clipboard()->image();
        QVERIFY(!copied.isNull());
        QVERIFY(colours(copied, QRect(QPoint(0, 0), copied.size() / 2)) > 10);
    }

    void windowExportChartFollowsThePage()
    {
        QTemporaryDir dir;
        QSettings().setValue("export/dir", dir.path());
        MainWindow window;
        window.resize(1280, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QAction *exportChart = windowAction(window, QStringLiteral("&Export Chart…"));
        QVERIFY(exportChart);
        window.showPage(MainWindow::TimelinePageIndex);
        QVERIFY(!exportChart->isEnabled());
        QVERIFY(exportChart->toolTip().contains(QStringLiteral("Timeline")));
        window.showPage(MainWindow::DistributionPageIndex);
        QVERIFY(!exportChart->isEnabled()); // no run yet
        runSmallTest(*window.distribution());
        QVERIFY(exportChart->isEnabled());

        const QString target = dir.filePath(QStringLiteral("page.svg"));
        QString suggested;
        QTimer::singleShot(300, [&] {
            auto *dialog = qobject_cast<ExportDialog *>(QApplication::activeModalWidget());
            QVERIFY(dialog);
            auto *path = dialog->findChild<QLineEdit *>();
            QVERIFY(path);
            suggested = path->text();
            path->setText(target);
            QMetaObject::invokeMethod(dialog, "accept");
        });
        QSignalSpy exported(window.distribution(), &DistributionPage::chartsExported);
        exportChart->trigger();
        QCOMPARE(exported.size(), 1);
        QCOMPARE(exported.front().front().toString(), target);
        // the dialog started in the last export folder
        QCOMPARE(QFileInfo(suggested).absolutePath(), QDir(dir.path()).absolutePath());
        QFile f(target);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(QSvgRenderer(f.readAll()).isValid());
        QCOMPARE(window.statusBar()->currentMessage(),
                 QStringLiteral("Wrote %1").arg(QDir::toNativeSeparators(target)));
        QCOMPARE(defaultSaveFolder(), QDir::cleanPath(dir.path()));
    }
};

QTEST_MAIN(TstDistributionExport)
#include "tst_distributionexport.moc"
