// Explore page on a fake lab (fakelab.h): parameter validation, the results
// model, the requests it sends the lab it is given, jobs that finish and jobs
// that are cancelled, captures, bench JSON save/load, and the main window's
// routing. No LibTorch: it runs in the viewer leg too. The same page on the
// real lab is tst_explorerlab.
#include "charts/benchcharts.h"
#include "charts/chartgrid.h"
#include "charts/chartpanel.h"
#include "distribution/distributionpage.h"
#include "explorer/explorerpage.h"
#include "fakelab.h"
#include "explorer/paramsform.h"
#include "explorer/resultsmodel.h"
#include "jobs/jobrunner.h"
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
#include <QSortFilterProxyModel>
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
#include <QLegend>
#include <QTextDocument>
#include <QFontMetrics>
#include <QTest>

#include <thread>

using namespace syncscope;
using namespace syncscope::ui;

namespace {
lab::BenchReport syntheticReport(int points)
{
    lab::BenchReport r;
    r.device = "cpu";
    r.torchVersion = "1.13.0";
    r.threads = 2;
    for (int i = 0; i < points; ++i)
        for (const char *v : {"naive", "fused"}) {
            lab::BenchResult x;
            x.variant = v;
            x.device = "cpu";
            x.point.n = 1000 * (i + 1);
            x.point.k = 100 * (i + 1);
            x.stats.medianMs = (v[0] == 'n' ? 10.0 : 1.0) * (i + 1);
            x.stats.p5Ms = x.stats.medianMs * 0.9;
            x.stats.p95Ms = x.stats.medianMs * 1.2;
            x.stats.meanMs = x.stats.medianMs;
            x.iters = 10;
            x.floorMs = 0.1;
            r.results.push_back(x);
        }
    return r;
}
} // namespace

class TestExplorer : public QObject {
    Q_OBJECT
    test::FakeLab m_lab; // outlives every page of the tests
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void parseNumbers()
    {
        QCOMPARE(parseCount("1e6").value(), int64_t(1000000));
        QCOMPARE(parseCount("1,000,000").value(), int64_t(1000000));
        QCOMPARE(parseCount("10k").value(), int64_t(10000));
        QCOMPARE(parseCount("2M").value(), int64_t(2000000));
        QVERIFY(!parseCount("1.5").has_value());
        QVERIFY(!parseCount("abc").has_value());
        QVERIFY(!parseCount("").has_value());
        QCOMPARE(parseNumber("0.25").value(), 0.25);
        const auto v = sweepValues(1000, 1000000, 4, true);
        QCOMPARE(v.size(), size_t(4));
        QCOMPARE(v.front(), 1000.0);
        QCOMPARE(v[1], 10000.0);
        QCOMPARE(v.back(), 1000000.0);
        // Rounding to whole numbers must not repeat values.
        QCOMPARE(sweepValues(1, 3, 10, true).size(), size_t(3));
    }

    void validation_data()
    {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("valid");
        QTest::newRow("N ok") << "n"
                              << "1e5" << true;
        QTest::newRow("N text") << "n"
                                << "many" << false;
        QTest::newRow("N zero") << "n"
                                << "0" << false;
        QTest::newRow("N fraction") << "n"
                                    << "10.5" << false;
        QTest::newRow("K/N zero") << "k"
                                  << "0" << false;
        QTest::newRow("K/N above 1") << "k"
                                     << "1.5" << false;
        QTest::newRow("B negative") << "batch"
                                    << "-1" << false;
        QTest::newRow("D zero") << "dim"
                                << "0" << false;
        QTest::newRow("pos frac > 1") << "posFrac"
                                      << "1.2" << false;
        QTest::newRow("pos + ignored > 1") << "ignoreFrac"
                                           << "0.6" << false;
        QTest::newRow("f ok") << "targetFrac"
                              << "0.25" << true;
        QTest::newRow("f < 0") << "targetFrac"
                               << "-0.1" << false;
        QTest::newRow("seed text") << "seed"
                                   << "x" << false;
        QTest::newRow("sweep to < from") << "sweepTo"
                                         << "10" << false;
        QTest::newRow("too much memory") << "n"
                                         << "1e8" << false;
    }

    void validation()
    {
        QFETCH(QString, field);
        QFETCH(QString, text);
        QFETCH(bool, valid);
        ParamsForm form(m_lab);
        form.resetToDefaults();
        QVERIFY2(form.validate().isEmpty(), qPrintable(form.validate().join('|')));
        form.setField(field, text);
        const QStringList errors = form.validate();
        QCOMPARE(errors.isEmpty(), valid);
        QString error;
        QCOMPARE(form.pointRequest(&error).has_value() && form.sweepRequest(&error).has_value(), valid);
        if (!valid) {
            QVERIFY(!error.isEmpty());
            QVERIFY2(error.endsWith('.'), qPrintable(error)); // one sentence
        }
    }

    void noVariantIsInvalid()
    {
        ParamsForm form(m_lab);
        form.setVariantsChecked({});
        QVERIFY(!form.validate().isEmpty());
        QVERIFY(form.validate().join(' ').contains("variant"));
    }

    void requestsFollowTheForm()
    {
        ParamsForm form(m_lab);
        form.setField("n", "20000");
        form.setKIsRatio(true);
        form.setField("k", "0.05");
        form.setSweep(SweepAxis::N, "1000", "100000", 3);
        form.setVariantsChecked({"fused"});
        QString error;
        const auto point = form.pointRequest(&error);
        QVERIFY2(point, qPrintable(error));
        QCOMPARE(point->points.size(), size_t(1));
        QCOMPARE(point->points[0].k, int64_t(1000));
        QCOMPARE(point->variants, std::vector<std::string>{"fused"});
        const auto sweep = form.sweepRequest(&error);
        QVERIFY(sweep);
        QCOMPARE(sweep->points.size(), size_t(3));
        QCOMPARE(sweep->points[1].n, int64_t(10000));
        QCOMPARE(sweep->points[1].k, int64_t(500)); // K follows N at a fixed K/N
    }

    void resultsModel()
    {
        ResultsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        const int a = model.addRun(syntheticReport(2), "first");
        const int b = model.addRun(syntheticReport(1), "second");
        QCOMPARE(model.rowCount(), 6);
        QCOMPARE(model.runOfRow(4), b);
        QCOMPARE(model.firstRowOfRun(b), 4);
        QCOMPARE(model.index(0, ResultsModel::RunColumn).data().toString(), QString("first"));
        QCOMPARE(model.index(1, ResultsModel::VariantColumn).data().toString(), QString("fused"));
        QCOMPARE(model.index(0, ResultsModel::MedianColumn).data(ResultsModel::SortRole).toDouble(), 10.0);
        QCOMPARE(model.index(0, ResultsModel::RatioColumn).data().toString(), QString("100.0"));
        QCOMPARE(model.headerData(ResultsModel::RatioColumn, Qt::Horizontal).toString(),
                 QString(QChar(0x00D7)) + QStringLiteral(" floor")); // not mojibake
        // CPU reports leave syncs and memory unmeasured, never zero.
        QCOMPARE(model.index(0, ResultsModel::SyncsColumn).data().toString(), QString("n/m"));
        QCOMPARE(model.report(a).results.size(), size_t(4));
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }


    void saveResultsSavesTheTableOrTheSelection()
    {
        QTemporaryDir dir;
        ExplorerPage page(m_lab);
        QString error;
        const QString fixture = QStringLiteral(SYNCSCOPE_UI_TEST_DATA "/bench_cuda_sweep.json");
        QVERIFY2(page.openResults(fixture, &error), qPrintable(error));
        QVERIFY2(page.openResults(fixture, &error), qPrintable(error));
        QCOMPARE(page.results()->rowCount(), 16);
        // One row selected (what selecting a run does): the whole table, no question.
        QCOMPARE(page.askSaveScope(), std::optional(ExplorerPage::SaveScope::All));
        QVERIFY(page.saveResults(dir.filePath("all.json"), &error));
        ExplorerPage reader(m_lab);
        QVERIFY(reader.openResults(dir.filePath("all.json"), &error));
        QCOMPARE(reader.results()->rowCount(), 16); // both runs, not the current one
        // Three rows selected: the page asks, and saves what is chosen.
        page.table()->clearSelection();
        for (int r : {0, 2, 9})
            page.table()->selectionModel()->select(page.table()->model()->index(r, 0),
                                                   QItemSelectionModel::Select | QItemSelectionModel::Rows);
        QCOMPARE(page.selectedRows().size(), size_t(3));
        auto answer = [&page](const char *button) {
            QTimer::singleShot(0, &page, [&page, button] {
                auto *box = page.findChild<QMessageBox *>(QStringLiteral("saveScopeBox"));
                QVERIFY(box);
                auto *b = box->findChild<QPushButton *>(QString::fromLatin1(button));
                QVERIFY(b);
                b->click();
            });
        };
        answer("saveSelected");
        QCOMPARE(page.askSaveScope(), std::optional(ExplorerPage::SaveScope::Selected));
        answer("saveAll");
        QCOMPARE(page.askSaveScope(), std::optional(ExplorerPage::SaveScope::All));
        QVERIFY(page.saveResults(dir.filePath("some.csv"), &error, ExplorerPage::SaveScope::Selected));
        QFile csv(dir.filePath("some.csv"));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        QCOMPARE(csv.readAll().count('\n'), qsizetype(4)); // header + 3 rows
        page.table()->clearSelection();
        QVERIFY(!page.saveResults(dir.filePath("none.json"), &error, ExplorerPage::SaveScope::Selected));
        QVERIFY(error.endsWith('.'));
    }

    void stepTimeChartGoesLogWhenTheValuesSpanOver100x()
    {
        auto report = [](double slow, double fast) {
            lab::BenchReport r = syntheticReport(1);
            r.results[0].stats.medianMs = slow;
            r.results[0].stats.p5Ms = slow * 0.9;
            r.results[0].stats.p95Ms = slow * 1.1;
            r.results[1].stats.medianMs = fast;
            r.results[1].stats.p5Ms = fast * 0.9;
            r.results[1].stats.p95Ms = fast * 1.1;
            return r;
        };
        const lab::BenchReport wide = report(500.0, 1.0), narrow = report(50.0, 1.0);
        const lab::BenchPoint point = wide.results[0].point;
        QVERIFY(stepTimeSpansDecades(wide, point));
        QVERIFY(!stepTimeSpansDecades(narrow, point));
        auto yAxisIsLog = [](QChart *chart) {
            const auto axes = chart->axes(Qt::Vertical);
            return !axes.isEmpty() && qobject_cast<QLogValueAxis *>(axes.front()) != nullptr;
        };
        QString why;
        std::unique_ptr<QChart> chart(makeStepTimeChart(wide, point, &why));
        QVERIFY2(chart, qPrintable(why));
        QVERIFY(yAxisIsLog(chart.get()));
        chart.reset(makeStepTimeChart(narrow, point, &why));
        QVERIFY(!yAxisIsLog(chart.get()));
        chart.reset(makeStepTimeChart(wide, point, &why, false));
        QVERIFY(!yAxisIsLog(chart.get()));

        // The page's switch: on by default for a wide run, the user's choice holds.
        ExplorerPage page(m_lab);
        page.results()->addRun(narrow, "narrow");
        QTemporaryDir dir;
        QFile f(dir.filePath("wide.json"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray::fromStdString(lab::benchReportToJson(wide)));
        f.close();
        QString error;
        QVERIFY2(page.openResults(f.fileName(), &error), qPrintable(error));
        page.setChartKind(ExplorerPage::StepTimeChart);
        QVERIFY(page.logScaleBox()->isChecked());
        std::unique_ptr<QChart> shown(page.chart()->makeChart(&why));
        QVERIFY(shown && yAxisIsLog(shown.get()));
        page.logScaleBox()->setChecked(false);
        shown.reset(page.chart()->makeChart(&why));
        QVERIFY(shown && !yAxisIsLog(shown.get()));
    }


    void runsGoToTheLabThePageIsGiven()
    {
        const size_t before = m_lab.benchRequests().size();
        ExplorerPage page(m_lab);
        ParamsForm *form = page.params();
        form->setField("n", "2000");
        form->setVariantsChecked({"naive", "fused"});
        form->setIterations(1, 5);
        form->setSweep(SweepAxis::N, "1000", "100000", 3);
        QSignalSpy added(&page, &ExplorerPage::runAdded);
        QSignalSpy status(&page, &ExplorerPage::statusMessage);
        page.runSweep();
        QVERIFY(page.isBusy());
        QVERIFY(added.wait(30000));
        QVERIFY(!page.isBusy());
        // One request per point, each with the seed the whole request gives it
        // (what `syncscope-cli bench` measures with the same parameters).
        const std::vector<lab::BenchRequest> sent = m_lab.benchRequests();
        QCOMPARE(sent.size() - before, size_t(3));
        const auto sweep = form->sweepRequest(nullptr);
        QVERIFY(sweep);
        for (size_t i = 0; i < 3; ++i) {
            const lab::BenchRequest &r = sent[before + i];
            QCOMPARE(r.points.size(), size_t(1));
            QCOMPARE(r.points[0].n, sweep->points[i].n);
            QCOMPARE(r.seed, lab::pointSeed(sweep->seed, i));
            QCOMPARE(r.variants, (std::vector<std::string>{"naive", "fused"}));
            QCOMPARE(r.iters, 5);
        }
        // The table shows what the lab answered, point by point.
        QCOMPARE(page.results()->rowCount(), 6);
        for (int row = 0; row < 6; ++row) {
            const lab::BenchResult &x = page.results()->result(row);
            QCOMPARE(x.stats.medianMs, test::FakeLab::medianMs(x.variant, x.point));
        }
        bool said = false;
        for (const QList<QVariant> &m : status)
            said = said || m.front().toString().contains(QStringLiteral("2 variant(s) at 3 point(s)"));
        QVERIFY(said);
        QVERIFY(page.chart()->hasChart());
        // The run keeps its parameters: the warm-up, and the sweep's own seed
        // (each point ran with pointSeed of it).
        const lab::BenchReport run = page.results()->report(page.currentRun());
        QVERIFY(run.warmup && run.seed);
        QCOMPARE(*run.warmup, 1);
        QCOMPARE(*run.seed, sweep->seed);
    }

    void aRequestTheLabRefusesIsItsSentenceAndNoJob()
    {
        ExplorerPage page(m_lab);
        page.params()->setVariantsChecked({"naive"});
        m_lab.refuseBench = "the fake lab refuses this request";
        QSignalSpy status(&page, &ExplorerPage::statusMessage);
        const size_t before = m_lab.benchRequests().size();
        page.runPoint();
        m_lab.refuseBench.clear();
        QVERIFY(!page.isBusy());
        QCOMPARE(m_lab.benchRequests().size(), before);
        QVERIFY(!status.isEmpty());
        QVERIFY(status.last().front().toString().contains(QStringLiteral("the fake lab refuses this request")));
    }

    void cancelStopsTheWorkerAndKeepsTheFinishedPoints()
    {
        m_lab.slowFromN = 1'000'000;
        ExplorerPage page(m_lab);
        ParamsForm *form = page.params();
        form->setVariantsChecked({"fused"});
        form->setKIsRatio(true);
        form->setField("k", "0.01");
        form->setIterations(1, 400);
        // 1e3 and 3e4 finish at once; 1e6 runs until cancelled.
        form->setSweep(SweepAxis::N, "1000", "1000000", 3);
        QSignalSpy added(&page, &ExplorerPage::runAdded);
        QSignalSpy cancelled(page.jobs(), &JobRunner::cancelled);
        double fraction = 0;
        connect(page.jobs(), &JobRunner::progress, this,
                [&](quint64, double f, const QString &) { fraction = f; });
        page.runSweep();
        QTRY_VERIFY_WITH_TIMEOUT(fraction > 2.0 / 3.0 + 1e-9, 30000);
        QVERIFY(page.isBusy());
        page.cancel();
        QVERIFY(cancelled.count() == 1 || cancelled.wait(1000));
        QVERIFY(!page.isBusy());
        QCOMPARE(added.count(), 1);
        QCOMPARE(page.results()->rowCount(), 2);
        QCOMPARE(page.results()->result(0).point.n, int64_t(1000));
        QCOMPARE(page.results()->result(1).point.n, int64_t(31623));
        QVERIFY(page.results()->runLabel(page.currentRun()).contains("cancelled after 2 of 3 points"));
        // The worker itself stops: the fake polls the token every 2 ms and
        // would run 60 s otherwise.
        QElapsedTimer clock;
        clock.start();
        page.jobs()->waitForDone();
        QVERIFY2(clock.elapsed() < 5000, "the worker did not stop on cancel");
        QTest::qWait(50);
        QCOMPARE(added.count(), 1);
        QCOMPARE(page.results()->rowCount(), 2);
        m_lab.slowFromN = INT64_MAX;
    }

    void profileCapturesEveryCheckedVariantAsOneJob()
    {
        MainWindow window(m_lab);
        window.explorer()->params()->setField("n", "5000");
        window.explorer()->params()->setVariantsChecked({"naive", "static"});
        QSignalSpy loaded(window.timeline(), &TimelinePage::loadFinished);
        QSignalSpy loadFailed(window.timeline(), &TimelinePage::loadFailed);
        const size_t before = m_lab.captureRequests().size();
        window.explorer()->profileRun();
        QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty() || !loadFailed.isEmpty(), 60000);
        QVERIFY2(loadFailed.isEmpty(), loadFailed.isEmpty() ? "" : qPrintable(loadFailed.at(0).at(0).toString()));
        const std::vector<lab::CaptureRequest> sent = m_lab.captureRequests();
        QCOMPARE(sent.size() - before, size_t(2));
        QCOMPARE(sent[before].variant, std::string("naive"));
        QCOMPARE(sent[before + 1].variant, std::string("static"));
        QCOMPARE(sent[before].point.n, int64_t(5000));
        const QStringList files = loaded.at(0).at(0).toStringList();
        QCOMPARE(files.size(), 2);
        QCOMPARE(files[0], QString::fromStdString(sent[before].outPath));
        QVERIFY(files[0].contains("-naive-") && files[1].contains("-static-"));
        QCOMPARE(window.currentPage(), MainWindow::TimelinePageIndex);
        QCOMPARE(window.timeline()->data()->files().size(), size_t(2)); // two ranks of one job
        QCOMPARE(window.recentFiles().value(0), files.join('\n'));
    }

    // At 1600x1000 and at 1024x700, no chart of Distribution or Explore cuts
    // its legend or its title: the legend gets the width its markers' full
    // labels need, and every line of the title fits the chart.
    void legendsAndTitlesAreNotCut()
    {
        auto check = [](ChartPanel *panel, const QString &where) {
            QChart *chart = panel->shownChart();
            if (!chart || !panel->isVisible())
                return;
            QLegend *legend = chart->legend();
            if (legend->isVisible() && !legend->markers().isEmpty()) {
                const qreal need = legend->effectiveSizeHint(Qt::PreferredSize).width();
                QVERIFY2(legend->geometry().width() + 1 >= need,
                         qPrintable(QStringLiteral("%1: the legend has %2 px of the %3 it needs")
                                        .arg(where)
                                        .arg(legend->geometry().width())
                                        .arg(need)));
            }
            const QFontMetrics fm(chart->titleFont());
            QTextDocument doc;
            doc.setHtml(chart->title());
            const QStringList lines = doc.toPlainText().split(QChar::LineSeparator).join('\n').split('\n');
            for (const QString &line : lines)
                QVERIFY2(fm.horizontalAdvance(line) <= int(chart->size().width()),
                         qPrintable(QStringLiteral("%1: a title line of %2 px in a %3 px chart: %4")
                                        .arg(where)
                                        .arg(fm.horizontalAdvance(line))
                                        .arg(chart->size().width())
                                        .arg(line)));
        };
        for (QSize size : {QSize(1600, 1000), QSize(1024, 700)}) {
            const QString at = QStringLiteral("%1x%2").arg(size.width()).arg(size.height());
            MainWindow window(m_lab);
            window.resize(size);
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            window.showPage(MainWindow::ExplorePage);
            window.explorer()->params()->setVariantsChecked({"naive", "static", "fused"});
            QSignalSpy added(window.explorer(), &ExplorerPage::runAdded);
            window.explorer()->runPoint();
            QVERIFY(added.wait(10000));
            QCoreApplication::processEvents();
            check(window.explorer()->chart(), QStringLiteral("Explore at ") + at);
            window.showPage(MainWindow::DistributionPageIndex);
            lab::SampleRequest r;
            r.variant = "fused";
            r.input.n = 1000;
            r.input.batch = 4; // every chart has something to draw
            r.k = 100;
            window.distribution()->setRequest(r, 200);
            QSignalSpy fin(window.distribution(), &DistributionPage::finished);
            window.distribution()->run();
            QVERIFY(fin.wait(10000));
            QCoreApplication::processEvents();
            // Two columns only where they fit.
            QCOMPARE(window.distribution()->chartGrid()->columns(), size.width() >= 1600 ? 2 : 1);
            for (ChartPanel *c : window.distribution()->charts())
                check(c, QStringLiteral("Distribution at ") + at + QStringLiteral(", ") + c->suggestedName());
        }
    }

    void jobRunnerReportsFailure()
    {
        JobRunner runner;
        QSignalSpy failed(&runner, &JobRunner::failed);
        runner.start("fail", [](const ProgressFn &, const CancelToken *) { throw Error("N must be at least 1"); });
        QVERIFY(failed.wait(5000));
        QCOMPARE(failed.at(0).at(1).toString(), QString("N must be at least 1"));
    }

    void saveAndLoadRoundTrip()
    {
        QTemporaryDir dir;
        ExplorerPage page(m_lab);
        QString error;
        QVERIFY(!page.saveResults(dir.filePath("none.json"), &error));
        QVERIFY(!QFile::exists(dir.filePath("none.json")));
        const QString fixture = QStringLiteral(SYNCSCOPE_UI_TEST_DATA "/bench_cuda_sweep.json");
        QVERIFY2(page.openResults(fixture, &error), qPrintable(error));
        QCOMPARE(page.results()->rowCount(), 8);
        const lab::BenchReport loaded = page.results()->report(page.currentRun());
        QCOMPARE(loaded.device, std::string("cuda"));
        QVERIFY(loaded.results[0].syncsPerStep.has_value());
        QVERIFY(page.chart()->hasChart()); // a sweep from another machine plots
        QVERIFY(page.saveResults(dir.filePath("again.json"), &error));
        QVERIFY(page.openResults(dir.filePath("again.json"), &error));
        const lab::BenchReport again = page.results()->report(page.currentRun());
        QCOMPARE(again.results.size(), loaded.results.size());
        QCOMPARE(again.results[3].stats.medianMs, loaded.results[3].stats.medianMs);
        QCOMPARE(*again.results[0].peakBytes, *loaded.results[0].peakBytes);
        QVERIFY(page.saveResults(dir.filePath("again.csv"), &error));
        QFile csv(dir.filePath("again.csv"));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        // The whole table: the fixture and its reloaded copy, 8 rows each.
        QCOMPARE(csv.readAll().count('\n'), qsizetype(1 + 16));
    }

    // The chart shows the point of the row that is selected: opening a sweep
    // selects the row of the point charted, and a click on another row
    // charts that one.
    void theChartShowsTheSelectedRow()
    {
        ExplorerPage page(m_lab);
        QString error;
        QVERIFY2(page.openResults(QStringLiteral(SYNCSCOPE_UI_TEST_DATA "/bench_cuda_sweep.json"), &error),
                 qPrintable(error));
        page.setChartKind(ExplorerPage::StepTimeChart);
        auto chartedPoint = [&] {
            QString why;
            std::unique_ptr<QChart> chart(page.chart()->makeChart(&why));
            return chart ? chart->title() : why;
        };
        auto selectedPoint = [&] {
            const QModelIndex idx = page.table()->selectionModel()->currentIndex();
            const auto *proxy = static_cast<const QSortFilterProxyModel *>(page.table()->model());
            return describePoint(page.results()->result(proxy->mapToSource(idx).row()).point);
        };
        QVERIFY(page.table()->selectionModel()->currentIndex().isValid());
        QVERIFY2(chartedPoint().contains(selectedPoint()), qPrintable(chartedPoint() + " | " + selectedPoint()));
        // Another row: the chart follows it.
        const QString before = selectedPoint();
        for (int r = 0; r < page.table()->model()->rowCount(); ++r) {
            page.table()->selectionModel()->setCurrentIndex(page.table()->model()->index(r, 0),
                                                            QItemSelectionModel::ClearAndSelect |
                                                                QItemSelectionModel::Rows);
            if (selectedPoint() != before)
                break;
        }
        QVERIFY(selectedPoint() != before);
        QVERIFY2(chartedPoint().contains(selectedPoint()), qPrintable(chartedPoint() + " | " + selectedPoint()));
    }

    void loadRejectsBadFiles()
    {
        QTemporaryDir dir;
        QFile f(dir.filePath("trace.json"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"traceEvents\": []}");
        f.close();
        ExplorerPage page(m_lab);
        QString error;
        QVERIFY(!page.openResults(f.fileName(), &error));
        QVERIFY2(error.contains("trace.json"), qPrintable(error));
        QVERIFY(!page.openResults(dir.filePath("missing.json"), &error));
        QVERIFY(error.contains("missing.json"));
        QCOMPARE(page.results()->rowCount(), 0);
    }

    void windowRoutesFiles()
    {
        MainWindow window(m_lab);
        const QString fixture = QStringLiteral(SYNCSCOPE_UI_TEST_DATA "/bench_cuda_sweep.json");
        QVERIFY(MainWindow::isBenchResults(fixture));
        QString error;
        const QString demo = MainWindow::demoTracePath(&error);
        QVERIFY2(!demo.isEmpty(), qPrintable(error));
        QVERIFY(QFile(demo).size() > 1000);
        QVERIFY(!MainWindow::isBenchResults(demo));
        window.showPage(MainWindow::DistributionPageIndex);
        window.openPaths({fixture});
        // The kind of file is decided on a worker; routing follows.
        QTRY_COMPARE(window.currentPage(), MainWindow::ExplorePage);
        QCOMPARE(window.explorer()->results()->rowCount(), 8);
        QCOMPARE(window.recentFiles().value(0), QFileInfo(fixture).absoluteFilePath());
    }
};

QTEST_MAIN(TestExplorer)
#include "tst_explorer.moc"
