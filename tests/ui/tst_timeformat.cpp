// One time format across the app (shared/timeformat.h): every table model's
// time columns each in one unit with one number of decimals (Compare's
// before, after and change of a figure in one unit together), Compare's
// headline in the unit of its table, and a ruler whose unit never changes
// with a pan or a zoom, its labels never on top of each other.
#include "analysis/jobscale.h"
#include "compare/comparedata.h"
#include "compare/compareview.h"
#include "compare/difftablemodel.h"
#include "explorer/resultsmodel.h"
#include "job/jobtablemodels.h"
#include "loadandwait.h"
#include "shared/timeformat.h"
#include "timeline/devicetablemodel.h"
#include "timeline/rangestatsmodel.h"
#include "timeline/syncgapmodel.h"
#include "timeline/syncsourcemodel.h"
#include "timeline/timelinedata.h"
#include "timeline/timelineview.h"
#include "trace/tracebuilder.h"
#include "trace/traceloader.h"

#include <QRegularExpression>
#include <QtTest>

#include <cstring>
#include <map>
#include <set>

using namespace syncscope;
using namespace syncscope::ui;

namespace {

QString testData(const char *name) { return QStringLiteral(SYNCSCOPE_TEST_DATA_DIR "/") + QLatin1String(name); }

// "146.930 ms" -> {"ms", 3}; a clock spread "-2.000 µs … 1.000 µs" gives its two ends.
struct Reading {
    QString unit;
    int decimals = 0;
};
std::vector<Reading> readings(const QString &text)
{
    static const QRegularExpression time(QStringLiteral("^-?\\d+(?:\\.(\\d+))? (ns|µs|ms|s)$"));
    std::vector<Reading> out;
    for (const QString &part : text.split(QStringLiteral(" … "))) {
        const QRegularExpressionMatch m = time.match(part);
        if (!m.hasMatch())
            return {};
        out.push_back({m.captured(2), int(m.captured(1).size())});
    }
    return out;
}

bool isPlaceholder(const QString &text)
{
    return text.isEmpty() || text == QStringLiteral("—") || text == QStringLiteral("absent");
}

// Every column that shows a time: each of its cells in one unit with one
// number of decimals, and no other text than a placeholder. Returns the
// time columns' units by column.
std::map<int, QString> checkColumns(const QAbstractItemModel &model, const QString &what)
{
    std::map<int, QString> units;
    for (int c = 0; c < model.columnCount(); ++c) {
        std::set<QString> seen;
        std::set<int> decimals;
        QStringList other;
        for (int r = 0; r < model.rowCount(); ++r) {
            const QString text = model.index(r, c).data().toString();
            const std::vector<Reading> rs = readings(text);
            if (rs.empty()) {
                if (!isPlaceholder(text))
                    other << text;
                continue;
            }
            for (const Reading &x : rs) {
                seen.insert(x.unit);
                decimals.insert(x.decimals);
            }
        }
        if (seen.empty())
            continue;
        const QString column = model.headerData(c, Qt::Horizontal).toString();
        if (seen.size() != 1 || decimals.size() != 1 || !other.isEmpty()) {
            QStringList cells;
            for (int r = 0; r < model.rowCount(); ++r)
                cells << model.index(r, c).data().toString();
            QTest::qFail(qPrintable(QStringLiteral("%1, column '%2' reads: %3")
                                        .arg(what, column, cells.join(QStringLiteral(" | ")))),
                         __FILE__, __LINE__);
            return {};
        }
        units[c] = *seen.begin();
    }
    return units;
}

// A trace of two events, `span` ns apart: what the ruler spans.
TraceModelPtr twoEvents(TimeNs span)
{
    TraceInfo info;
    info.path = "span.json";
    info.format = "json";
    TraceBuilder b(info);
    const IdValue pid = b.id(int64_t(1));
    const uint32_t t = b.track(pid, b.id(int64_t(1)));
    const StrId cat = b.internCategory("cpu_op"), name = b.intern("aten::mm");
    b.addComplete(t, 1'700'000'000'000'000'000, 10'000, name, cat, {}, {});
    b.addComplete(t, 1'700'000'000'000'000'000 + span - 10'000, 10'000, name, cat, {}, {});
    return b.finish();
}

lab::BenchResult result(const char *variant, double medianMs)
{
    lab::BenchResult r;
    r.variant = variant;
    r.device = "cpu";
    r.stats.medianMs = medianMs;
    r.stats.p5Ms = medianMs * 0.9;
    r.stats.p95Ms = medianMs * 1.25;
    r.stats.meanMs = medianMs * 1.01;
    r.stats.stdevMs = medianMs / 50;
    r.floorMs = medianMs / 7;
    r.iters = 30;
    return r;
}

} // namespace

class TstTimeFormat : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    // The Timeline's tables, the Job view's and Explore's, on data whose
    // times run from ns to s within a column.
    void everyTableColumnReadsInOneUnit()
    {
        std::vector<std::string> files;
        for (const char *f : {"job_straggler_rank0.json", "job_straggler_rank1.json", "job_straggler_rank2.json"})
            files.push_back(testData(f).toStdString());
        const auto data = TimelineData::build(loadTraces(files));
        QVERIFY(!data->gaps().empty());

        SyncGapModel gaps;
        gaps.setTimelineData(data);
        QVERIFY(checkColumns(gaps, QStringLiteral("Sync gaps")).size() >= 4);
        SyncSourceModel sources;
        sources.setTimelineData(data);
        QVERIFY(checkColumns(sources, QStringLiteral("Sync sources")).size() >= 2);
        DeviceTableModel devices;
        devices.setTimelineData(data);
        QVERIFY(checkColumns(devices, QStringLiteral("Devices")).size() >= 3);
        RangeStatsModel range;
        range.setRows(RangeStatsModel::compute(*data, data->minTime(), data->maxTime()));
        QVERIFY(checkColumns(range, QStringLiteral("Range statistics")).size() >= 3);

        std::vector<RankInput> inputs;
        for (const TimelineFile &f : data->files())
            inputs.push_back(makeRankInput(*f.model, f.sync));
        const auto job = std::make_shared<const JobScale>(analyzeJobScale(inputs));
        JobRankModel ranks;
        ranks.setJob(job);
        QVERIFY(checkColumns(ranks, QStringLiteral("Ranks")).size() >= 4);
        CollectiveBlameModel blame;
        blame.setJob(job);
        QVERIFY(checkColumns(blame, QStringLiteral("Collectives' blame")).size() >= 1);

        // Explore's results: step times of 300 ns to 2 s, as the lab measures
        // them (double ms), each column in one unit.
        lab::BenchReport report;
        report.device = "cpu";
        report.results = {result("fused", 0.0003), result("static", 0.0451), result("naive", 3.2),
                          result("naive", 2000.0)};
        lab::BenchReport failed;
        failed.device = "cpu";
        failed.results = {result("naive", 1.0)};
        failed.results[0].error = "out of memory";
        ResultsModel results;
        results.addRun(report, QStringLiteral("sweep"));
        results.addRun(failed, QStringLiteral("failed"));
        const std::map<int, QString> units = checkColumns(results, QStringLiteral("Explore results"));
        for (int c : {ResultsModel::MedianColumn, ResultsModel::P5Column, ResultsModel::P95Column,
                      ResultsModel::MeanColumn, ResultsModel::StdevColumn, ResultsModel::FloorColumn})
            QVERIFY2(units.count(c), qPrintable(results.headerData(c, Qt::Horizontal).toString()));
        QCOMPARE(units.at(ResultsModel::MedianColumn), QStringLiteral("s"));
        // s for the 2 s; 8 decimals, so 300 ns still shows 2 digits
        QCOMPARE(results.index(0, ResultsModel::MedianColumn).data().toString(), QStringLiteral("0.00000030 s"));
        QCOMPARE(results.index(3, ResultsModel::MedianColumn).data().toString(), QStringLiteral("2.00000000 s"));
        QCOMPARE(results.index(3, ResultsModel::MedianColumn).data(Qt::ToolTipRole).toString(),
                 QStringLiteral("2.00000000 s (2000000000 ns)"));
        QCOMPARE(results.headerData(ResultsModel::MedianColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Median"));
        // A run that changes a column's unit rewrites the rows before it.
        ResultsModel two;
        lab::BenchReport small;
        small.device = "cpu";
        small.results = {result("fused", 0.0451)};
        two.addRun(small, QStringLiteral("small"));
        QCOMPARE(two.index(0, ResultsModel::MedianColumn).data().toString(), QStringLiteral("45.10 µs"));
        QSignalSpy changed(&two, &QAbstractItemModel::dataChanged);
        two.addRun(report, QStringLiteral("sweep"));
        QVERIFY(!changed.isEmpty());
        QCOMPARE(two.index(0, ResultsModel::MedianColumn).data().toString(), QStringLiteral("0.00004510 s"));
        checkColumns(two, QStringLiteral("Explore results, two runs"));
    }

    // Compare: each table column in one unit, a figure's before, after and
    // change in the same one; the headline in one unit per figure.
    void compareReadsInOneUnitPerFigure()
    {
        const auto data = CompareData::build(testData("diff_before.json"), testData("diff_after.json"));
        for (DiffTableModel::Section s :
             {DiffTableModel::Sources, DiffTableModel::Steps, DiffTableModel::Ops, DiffTableModel::Kernels}) {
            DiffTableModel model(s);
            model.setData(data);
            const std::map<int, QString> units = checkColumns(model,
                                                              QStringLiteral("Compare section %1").arg(int(s)));
            QVERIFY(!units.empty());
            // Columns of one figure ("self_before_us", "self_after_us", "self_delta_us"): one unit.
            const std::vector<std::string> keys = model.columnKeys();
            std::map<std::string, std::set<QString>> byFigure;
            for (const auto &[c, unit] : units) {
                std::string key = keys[size_t(c)];
                for (const char *side : {"_before_us", "_after_us", "_delta_us"})
                    if (const size_t at = key.rfind(side);
                        at != std::string::npos && at + std::strlen(side) == key.size())
                        key.resize(at);
                byFigure[key].insert(unit);
            }
            for (const auto &[figure, set] : byFigure)
                QVERIFY2(set.size() == 1, (std::to_string(int(s)) + ": " + figure).c_str());
        }
        // Each step's time (two steps a side), read as the Steps table reads it.
        CompareView view;
        QVERIFY(test::loadAndWait(&view, &CompareView::loaded, &CompareView::loadFailed, [&] {
            view.openFiles(testData("diff_before.json"), testData("diff_after.json"));
        }));
        const QString h = view.headerText();
        QVERIFY2(h.contains(QStringLiteral("#0 500.0 µs → 300.0 µs (-200.0 µs, -40.0%)")), qPrintable(h));
        QVERIFY2(h.contains(QStringLiteral("140.0 µs → 40.0 µs (-100.0 µs, -71.4%)")), qPrintable(h));
        QVERIFY2(!h.contains(QStringLiteral(" ms")), qPrintable(h));
    }

    // The ruler: one unit at every pan and zoom of a 1.2 s trace (even where
    // the labels cross 1 s), exact labels, and no two labels overlap.
    void rulerKeepsItsUnitAcrossPansAndZooms()
    {
        const auto data = TimelineData::build({twoEvents(1'200'000'000)});
        TimelineView view;
        view.resize(1000, 300);
        view.setData(data);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const TimeNs origin = data->minTime();
        std::set<QString> units;
        int checked = 0;
        for (TimeNs span : {TimeNs(2'000), TimeNs(80'000), TimeNs(3'000'000), TimeNs(40'000'000),
                            TimeNs(700'000'000), TimeNs(1'200'000'000)}) {
            for (TimeNs start = origin + 1'000'000'000 - 3 * span / 2; start < origin + 1'000'000'000 + span;
                 start += span / 4) {
                view.setVisibleRange(start, start + span);
                const auto ticks = view.rulerTicks();
                QVERIFY(ticks.size() >= 2);
                for (size_t i = 0; i < ticks.size(); ++i) {
                    const std::vector<Reading> r = readings(ticks[i].label);
                    QVERIFY2(r.size() == 1, qPrintable(ticks[i].label));
                    units.insert(r.front().unit);
                    if (i > 0) { // room for the label before it
                        const int need = view.fontMetrics().horizontalAdvance(ticks[i - 1].label) + 6;
                        QVERIFY2(ticks[i].x - ticks[i - 1].x >= need,
                                 qPrintable(ticks[i - 1].label + QStringLiteral(" / ") + ticks[i].label));
                    }
                    ++checked;
                }
            }
        }
        QVERIFY(checked > 100);
        QCOMPARE(units, std::set<QString>{QStringLiteral("s")});
        // Exact, from the integers: a 200 ns step just past 1 s.
        view.setVisibleRange(origin + 1'000'000'000, origin + 1'000'002'000);
        bool found = false;
        for (const auto &t : view.rulerTicks())
            found |= t.label == QStringLiteral("1.0000010 s") || t.label == QStringLiteral("1.000001 s") ||
                     t.label == QStringLiteral("1.0000012 s") || t.label == QStringLiteral("1.0000008 s");
        QVERIFY(found);
        // A short trace keeps its own unit.
        const auto shortData = TimelineData::build({twoEvents(30'000'000)});
        view.setData(shortData);
        view.setVisibleRange(shortData->minTime(), shortData->minTime() + 1'000'000);
        for (const auto &t : view.rulerTicks())
            QVERIFY2(t.label.endsWith(QStringLiteral(" ms")), qPrintable(t.label));
    }
};

QTEST_MAIN(TstTimeFormat)
#include "tst_timeformat.moc"
