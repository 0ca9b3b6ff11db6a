// Charts and export: decimation, the chart factories' numbers, PNG/SVG/PDF
// files that parse, atomic writes, and the Distribution page end to end.
#include "lab/api/labloader.h"
#include "charts/benchcharts.h"
#include "charts/chartexport.h"
#include "charts/chartpanel.h"
#include "charts/decimate.h"
#include "distribution/distributioncharts.h"
#include "distribution/distributionpage.h"
#include "jobs/jobrunner.h"
#include "shared/countspinbox.h"

#include <QAction>
#include <QBarSet>
#include <QDir>
#include <QChart>
#include <QFile>
#include <QImage>
#include <QLineSeries>
#include <QScatterSeries>
#include <QSignalSpy>
#include <QLogValueAxis>
#include <QStackedBarSeries>
#include <QStandardPaths>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <memory>

using namespace syncscope;
using namespace syncscope::ui;

namespace {
lab::BenchReport loadFixture()
{
    QFile f(QStringLiteral(SYNCSCOPE_UI_TEST_DATA "/bench_cuda_sweep.json"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return lab::benchReportFromJson(f.readAll().toStdString());
}

lab::BenchReport onePoint()
{
    lab::BenchReport r;
    r.device = "cpu";
    for (auto [v, ms] : {std::pair<const char *, double>{"naive", 8.0}, {"fused", 2.0}}) {
        lab::BenchResult x;
        x.variant = v;
        x.stats.medianMs = ms;
        x.stats.p5Ms = ms * 0.5;
        x.stats.p95Ms = ms * 2;
        x.floorMs = 0.5;
        r.results.push_back(x);
    }
    return r;
}
} // namespace

class TestCharts : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void decimationKeepsExtremes()
    {
        QList<QPointF> pts;
        for (int i = 0; i < 100000; ++i)
            pts.push_back(QPointF(i, (i % 7) * 0.1));
        pts[54321].setY(42); // a spike
        pts[777].setY(-5);   // a dip
        const auto out = decimateMinMax(pts, 1000);
        QVERIFY(out.size() <= 1000);
        QVERIFY(out.size() >= 500);
        double lo = 1e9, hi = -1e9, lastX = -1;
        for (const auto &p : out) {
            lo = std::min(lo, p.y());
            hi = std::max(hi, p.y());
            QVERIFY(p.x() > lastX); // x order kept
            lastX = p.x();
        }
        QCOMPARE(hi, 42.0);
        QCOMPARE(lo, -5.0);
        QCOMPARE(decimateMinMax(pts.mid(0, 10), 1000).size(), qsizetype(10));
    }

    void sweepDetection()
    {
        const lab::BenchReport r = loadFixture();
        QCOMPARE(r.results.size(), size_t(8));
        QCOMPARE(detectSweepAxis(r), SweepAxis::N);
        QCOMPARE(detectSweepAxis(onePoint()), SweepAxis::None);
        QCOMPARE(defaultBaseline(r), std::string("naive"));
        QCOMPARE(defaultPoint(r).n, int64_t(1000000));
    }

    void chartsSayWhyWhenTheyCannotDraw()
    {
        QString why;
        QVERIFY(!makeSweepChart(onePoint(), &why));
        QVERIFY(why.contains("single point"));
        QVERIFY(!makeSyncsChart(onePoint(), onePoint().results[0].point, &why));
        QCOMPARE(why, QString("Syncs per step: not measured on CPU."));
        QVERIFY(!makeSpeedupChart(onePoint(), "nope", &why));
        QVERIFY(why.contains("nope"));
    }

    void speedupBarsAreMedianRatios()
    {
        QString why;
        std::unique_ptr<QChart> chart(makeSpeedupChart(onePoint(), "naive", &why));
        QVERIFY2(chart, qPrintable(why));
        QStackedBarSeries *bars = nullptr;
        for (auto *s : chart->series())
            if (auto *b = qobject_cast<QStackedBarSeries *>(s))
                bars = b;
        QVERIFY(bars);
        QCOMPARE(bars->barSets().size(), 2);
        QCOMPARE(bars->barSets()[0]->at(0), 1.0); // naive vs itself
        QCOMPARE(bars->barSets()[1]->at(1), 4.0); // 8 ms / 2 ms
    }

    void measuredChartsFromAGpuReport()
    {
        const lab::BenchReport r = loadFixture();
        QString why;
        std::unique_ptr<QChart> syncs(makeSyncsChart(r, defaultPoint(r), &why));
        QVERIFY2(syncs, qPrintable(why));
        std::unique_ptr<QChart> mem(makeMemoryChart(r, defaultPoint(r), &why));
        QVERIFY2(mem, qPrintable(why));
        std::unique_ptr<QChart> sweep(makeSweepChart(r, &why));
        QVERIFY(sweep);
        // naive, static, the floor; each variant also has its p5-p95 band.
        int named = 0;
        for (auto *s : sweep->series())
            if (qobject_cast<QLineSeries *>(s) && !s->name().isEmpty())
                ++named;
        QCOMPARE(named, 3);
    }

    // An exported chart says what it measured: the point or the swept range,
    // threads, device and LibTorch, on a line of its own under the title; the
    // end markers of a log axis are not at the plot edge.
    void chartsDescribeTheirRun()
    {
        lab::BenchReport r;
        r.device = "cpu";
        r.threads = 2;
        r.torchVersion = "1.13.1";
        for (int64_t n : {1000, 1000000}) {
            lab::BenchResult x;
            x.variant = "fused";
            x.point.n = n;
            x.point.k = 10;
            x.stats.medianMs = x.stats.p5Ms = x.stats.p95Ms = 1e-3 * static_cast<double>(n);
            r.results.push_back(x);
        }
        QString why;
        std::unique_ptr<QChart> sweep(makeSweepChart(r, &why));
        QVERIFY2(sweep, qPrintable(why));
        const QString t = sweep->title();
        QVERIFY2(t.contains(QStringLiteral("<br><span style=\"font-weight:normal\">N (items per row) from 1000 to "
                                           "1000000, D=")) &&
                     t.contains(QStringLiteral(" · 2 thread(s) · cpu · LibTorch 1.13.1</span>")),
                 qPrintable(t));
        auto *x = qobject_cast<QLogValueAxis *>(sweep->axes(Qt::Horizontal).value(0));
        QVERIFY(x);
        QVERIFY2(x->max() > 1000000 && x->min() < 1000,
                 qPrintable(QStringLiteral("%1..%2").arg(x->min()).arg(x->max())));
        // Plain numbers on every tick, never "1e+06" among them.
        for (double tick : {1000.0, 1e6, 1e7})
            QCOMPARE(QString::asprintf(qPrintable(x->labelFormat()), tick), QString::number(qint64(tick)));
        std::unique_ptr<QChart> step(makeStepTimeChart(r, r.results[1].point, &why));
        QVERIFY2(step, qPrintable(why));
        QVERIFY2(step->title().contains(describePoint(r.results[1].point).toHtmlEscaped() +
                                        QStringLiteral(" · K/N=1e-05 · 2 thread(s) · cpu · LibTorch 1.13.1")),
                 qPrintable(step->title()));
        // Every run parameter: K/N, warm-up and timed steps, and the seed.
        r.warmup = 5;
        r.seed = 18446744073709551557ull;
        for (auto &x : r.results) {
            x.point.k = x.point.n / 10;
            x.iters = 50;
        }
        const QString parts =
            QStringLiteral(" · K/N=0.1 · 5 warm-up + 50 timed steps · seed 18446744073709551557 · "
                           "2 thread(s) · cpu · LibTorch 1.13.1");
        QCOMPARE(runCaption(r, &r.results[0].point), describePoint(r.results[0].point) + parts);
        QVERIFY2(runCaption(r, nullptr).endsWith(parts), qPrintable(runCaption(r, nullptr)));
        r.results[0].point.k = 101; // K = N x K/N rounded: still the run's K/N
        QVERIFY2(runCaption(r, nullptr).endsWith(parts), qPrintable(runCaption(r, nullptr)));
        r.results[0].point.k = 100;
        r.results[1].point.k = 7; // K/N differs between points: not stated for the run
        QVERIFY(!runCaption(r, nullptr).contains(QStringLiteral("K/N")));
        r.results[1].point.k = r.results[1].point.n / 10;
        r.threads = 0;
        QVERIFY(runCaption(r, nullptr).contains(QStringLiteral("all cores")));
    }

    // Distribution's counts read the one grammar: 10k, 1e6, 1_000_000.
    void countSpinBoxReadsTheNumberGrammar()
    {
        CountSpinBox box;
        box.setRange(1, 10'000'000);
        box.setValue(1000);
        auto type = [&](const QString &text) {
            box.selectAll();
            QTest::keyClicks(&box, text);
            box.interpretText();
            return box.value();
        };
        QCOMPARE(type(QStringLiteral("10k")), 10000);
        QCOMPARE(type(QStringLiteral("1e6")), 1000000);
        QCOMPARE(type(QStringLiteral("2_500")), 2500);
        QCOMPARE(type(QStringLiteral("2M")), 2000000);
        // Letters outside the grammar are refused as typed; the value stays.
        QCOMPARE(type(QStringLiteral("abc")), 2000000);
        QString bad = QStringLiteral("12x");
        int pos = 0;
        QCOMPARE(static_cast<const QAbstractSpinBox &>(box).validate(bad, pos), QValidator::Invalid);
    }

    void sweepDrawsTheGatherFloor()
    {
        lab::BenchReport r;
        r.device = "cpu";
        for (int64_t n : {1000, 100000}) {
            lab::BenchResult x;
            x.variant = "fused";
            x.point.n = n;
            x.stats.medianMs = 1e-3 * static_cast<double>(n);
            x.stats.p5Ms = x.stats.p95Ms = x.stats.medianMs;
            x.floorMs = 1e-5 * static_cast<double>(n);
            x.gatherFloorMs = 7e-4 * static_cast<double>(n);
            r.results.push_back(x);
        }
        QString why;
        std::unique_ptr<QChart> sweep(makeSweepChart(r, &why));
        QVERIFY2(sweep, qPrintable(why));
        QLineSeries *gather = nullptr;
        for (auto *s : sweep->series())
            if (s->name().startsWith(QStringLiteral("gather floor")))
                gather = qobject_cast<QLineSeries *>(s);
        QVERIFY(gather);
        QCOMPARE(gather->count(), 2);
        QCOMPARE(gather->at(0), QPointF(1000, 0.7));
        QCOMPARE(gather->at(1), QPointF(100000, 70.0));
    }

    void stepSamplesShowEveryStep()
    {
        lab::BenchReport r = onePoint();
        QString why;
        QVERIFY(!makeStepSamplesChart(r, defaultPoint(r), &why));
        QVERIFY(why.contains(QStringLiteral("samples_ms")));
        r.results[0].samplesMs = {8.0, 7.5, 30.0, 8.2};
        r.results[1].samplesMs = {2.0, 2.1, 1.9};
        std::unique_ptr<QChart> chart(makeStepSamplesChart(r, defaultPoint(r), &why));
        QVERIFY2(chart, qPrintable(why));
        std::map<QString, QList<QPointF>> dots;
        for (auto *s : chart->series())
            if (auto *sc = qobject_cast<QScatterSeries *>(s))
                dots[sc->name()] = sc->points();
        QCOMPARE(dots.size(), size_t(2));
        QCOMPARE(dots["naive"].size(), 4);
        QCOMPARE(dots["fused"].size(), 3);
        QList<double> ys;
        for (const auto &p : dots["naive"]) {
            ys << p.y();
            QVERIFY(std::abs(p.x() - 0.0) <= 0.31);
        }
        std::sort(ys.begin(), ys.end());
        QCOMPARE(ys, (QList<double>{7.5, 8.0, 8.2, 30.0}));
        for (const auto &p : dots["fused"])
            QVERIFY(std::abs(p.x() - 1.0) <= 0.31);
    }

    void exportFormats_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("png") << "chart.png";
        QTest::newRow("svg") << "chart.svg";
        QTest::newRow("pdf") << "chart.pdf";
    }

    void exportFormats()
    {
        QFETCH(QString, file);
        QTemporaryDir dir;
        const QString path = dir.filePath(file);
        const lab::BenchReport r = loadFixture();
        QString why;
        std::unique_ptr<QChart> chart(makeSweepChart(r, &why));
        QVERIFY(chart);
        QVERIFY2(exportChart(chart.get(), QSize(900, 500), path, &why), qPrintable(why));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray bytes = f.readAll();
        if (file.endsWith("png")) {
            QVERIFY(bytes.startsWith("\x89PNG\r\n\x1a\n"));
            QImage image;
            QVERIFY(image.loadFromData(bytes, "PNG"));
            QCOMPARE(image.size(), QSize(900, 500));
            // Real pixels: more than one colour, i.e. the chart was drawn.
            QSet<QRgb> colours;
            for (int y = 0; y < image.height(); y += 7)
                for (int x = 0; x < image.width(); x += 7)
                    colours.insert(image.pixel(x, y));
            QVERIFY(colours.size() > 10);
        } else if (file.endsWith("svg")) {
            QVERIFY(bytes.contains("<svg"));
            QSvgRenderer svg(bytes);
            QVERIFY(svg.isValid());
            QVERIFY(bytes.contains("naive"));
        } else {
            QVERIFY(bytes.startsWith("%PDF-"));
            QVERIFY(bytes.trimmed().endsWith("%%EOF"));
            QVERIFY(bytes.contains("/MediaBox"));
        }
    }

    void failedWriteLeavesNoFile()
    {
        QTemporaryDir dir;
        // The parent is a regular file, so no write can succeed (even as root).
        QFile blocker(dir.filePath("blocker"));
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.close();
        const QString path = dir.filePath("blocker/chart.png");
        QString error;
        QVERIFY(!writeFileAtomically(path, QByteArray("data"), &error));
        QVERIFY2(error.startsWith("Cannot write '" + path + "'"), qPrintable(error));
        QVERIFY(!QFile::exists(path));
        std::unique_ptr<QChart> chart(makeStepTimeChart(onePoint(), onePoint().results[0].point, &error));
        QVERIFY(!exportChart(chart.get(), QSize(300, 200), path, &error));
        QVERIFY(!exportChart(chart.get(), QSize(300, 200), dir.filePath("chart.bmp"), &error));
        QVERIFY(error.contains(".png, .svg or .pdf"));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::NoDotAndDotDot), QStringList{"blocker"});
    }

    void sizes()
    {
        QCOMPARE(parseChartSize("1200x700").value(), QSize(1200, 700));
        QCOMPARE(parseChartSize(" 800 X 600 ").value(), QSize(800, 600));
        QVERIFY(!parseChartSize("10x10"));
        QVERIFY(!parseChartSize("1200"));
        QVERIFY(!parseChartSize("axb"));
    }

    void panelShowsMessageOrChart()
    {
        ChartPanel panel;
        QVERIFY(!panel.hasChart());
        panel.setFactory([](QString *why) { return makeSweepChart(onePoint(), why); });
        QVERIFY(!panel.hasChart());
        QVERIFY(panel.message().contains("single point"));
        panel.setFactory([](QString *why) {
            return makeStepTimeChart(onePoint(), onePoint().results[0].point, why);
        });
        QVERIFY(panel.hasChart());
    }

    void distributionVerdicts()
    {
        lab::SampleRequest req;
        lab::DistributionStats st;
        st.runs = 1000;
        st.batch = 1;
        st.n = 10;
        st.k = 4;
        st.selectionDof = 9;
        st.selectionP = 1e-6;
        st.orderDof = 3;
        st.orderP = 0.4;
        const QString text = describeDistribution(req, st);
        QVERIFY(text.contains("1,000 runs") || text.contains("1000 runs"));
        QVERIFY(text.contains("bias detected"));
        QVERIFY(text.contains("no bias detected"));
        QVERIFY(text.contains("chi-square"));
    }

    void distributionPageRuns()
    {
        DistributionPage page(lab::requireLab());
        lab::SampleRequest r;
        r.variant = "fused";
        r.input.n = 300;
        r.input.batch = 3;
        r.input.posFrac = 0.2;
        r.k = 30;
        page.setRequest(r, 200);
        QSignalSpy finished(&page, &DistributionPage::finished);
        page.run();
        QVERIFY(page.isBusy());
        QVERIFY(finished.wait(120000));
        QCOMPARE(page.stats().runs, int64_t(200));
        QCOMPARE(page.stats().obtainedPos.size(), size_t(3));
        for (ChartPanel *c : page.charts())
            QVERIFY2(c->hasChart(), qPrintable(c->message()));
        QVERIFY(page.summaryText().contains("200 runs"));
        // A fair sampler fails this 0.001-level test with probability 0.001 (fixed seeds: deterministic).
        QVERIFY(page.stats().selectionP > 0.001);
    }

    void distributionValidation()
    {
        DistributionPage page(lab::requireLab());
        lab::SampleRequest r;
        r.input.posFrac = 0.7;
        r.input.ignoreFrac = 0.5;
        page.setRequest(r, 100);
        QString error;
        QVERIFY(!page.request(&error));
        QVERIFY(error.contains("more than 1"));
        QVERIFY(!page.runAction()->isEnabled());
    }

    void distributionCancel()
    {
        DistributionPage page(lab::requireLab());
        lab::SampleRequest r;
        r.input.n = 100000;
        r.k = 1000;
        page.setRequest(r, 40000);
        QSignalSpy cancelled(page.jobs(), &JobRunner::cancelled);
        page.run();
        QVERIFY(page.isBusy());
        QTest::qWait(100);
        page.cancel();
        QVERIFY(cancelled.count() == 1 || cancelled.wait(200));
        QVERIFY(!page.isBusy());
        QVERIFY(!page.hasResult());
    }
};

QTEST_MAIN(TestCharts)
#include "tst_charts.moc"
