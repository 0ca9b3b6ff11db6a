// The Job view on a hand-made job (a JobScale written here, so these tests do
// not depend on the job analysis): the heat map's cells and their values per
// metric, the rank orders, what a click asks the Timeline to show, the
// tables' sorting and exports, and the jump into the Timeline itself. Then
// the Job page on a real 8-rank job (../shared/traces/param_dlrm_8ranks): it
// shows what the job analysis computes, maps a click to the right file, and
// cancels.
#include "job/jobheatmap.h"
#include "job/jobpage.h"
#include "job/jobtablemodels.h"
#include "job/jobview.h"
#include "job/showintimeline.h"
#include "shared/savefolder.h"
#include "shared/timeformat.h"
#include "synthetictrace.h"
#include "timeline/eventdetailspanel.h"
#include "timeline/timelinedata.h"
#include "timeline/timelineview.h"
#include "trace/traceloader.h"

#include <QAbstractItemModelTester>
#include <QClipboard>
#include <QComboBox>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

using namespace syncscope;
using namespace syncscope::ui;

namespace {

constexpr TimeNs kOffset2 = 1'000'000'000; // rank 2's clock runs 1 s ahead of rank 0's

RankStep step(int64_t rank, const char *name, TimeNs start, TimeNs avoidable, TimeNs lateness, TimeNs wait)
{
    RankStep s;
    s.rank = rank;
    s.step = name;
    s.start = start;
    s.end = start + 10'000'000;
    s.dur = s.end - s.start;
    s.avoidable = avoidable;
    s.lateness = lateness;
    s.wait = wait;
    return s;
}

JobRank rank(int64_t r, TimeNs jobAvoidable, uint64_t lastArrivals, TimeNs wait, TimeNs offset)
{
    JobRank j;
    j.rank = r;
    j.file = "/traces/rank" + std::to_string(r) + ".json";
    j.device = r;
    j.hasClockOffset = true;
    j.clockOffset = offset;
    j.clockOffsetP5 = offset - 2'000;
    j.clockOffsetP95 = offset + 3'000;
    j.analysedOffset = offset; // as analysed by the CLI: each rank in its file's clock
    j.localAvoidable = 5'000'000 + r;
    j.jobAvoidable = jobAvoidable;
    j.lastArrivals = lastArrivals;
    j.wait = wait;
    return j;
}

// Three ranks. Steps: rank 0 has #10..#12, rank 1 #9 and #10, rank 2 #10..#12,
// so the columns are #9, #10, #11, #12 (by number, though #9 first appears
// last) and four cells are empty.
std::shared_ptr<const JobScale> fakeJob()
{
    auto j = std::make_shared<JobScale>();
    j->ranks = 3;
    j->collectives = 7;
    j->unmatched = 2;
    j->span = 40'000'000;
    j->avoidable = 1'234'567;
    // job avoidable: rank 1 most, ranks 0 and 2 tie; last arrivals: rank 2
    // most; wait: rank 0 most.
    j->rankRows = {rank(0, 100, 1, 9'000, 0), rank(1, 700'000, 2, 4'000, -500), rank(2, 100, 4, 1'000, kOffset2)};
    j->rankSteps = {
        step(0, "ProfilerStep#10", 10'000'000, 1'500'000, 0, 2'000'000),
        step(0, "ProfilerStep#11", 20'000'000, 0, 0, 3'000'000),
        step(0, "ProfilerStep#12", 30'000'000, 250'000, 0, 4'000'000),
        step(1, "ProfilerStep#9", 5'000'000, 400'000, 600'000, 0),
        step(1, "ProfilerStep#10", 15'000'000, 3'000'000, 700'000, 10),
        step(2, "ProfilerStep#10", kOffset2 + 10'000'000, 20, 30, 40),
        step(2, "ProfilerStep#11", kOffset2 + 20'000'000, 50, 60, 70),
        step(2, "ProfilerStep#12", kOffset2 + 30'000'000, 80, 90, 100),
    };
    CollectiveBlame a;
    a.group = "0";
    a.seq = 3;
    a.name = "ncclKernel_AllReduce_RING_LL_Sum_float";
    a.lastRank = 2;
    a.lateness = 800'000;
    a.start = 21'000'000; // aligned clock
    a.end = 22'000'000;
    a.hasCause = true;
    a.cause.sync = "cudaStreamSynchronize";
    a.cause.op = "aten::item";
    a.cause.hasOp = true;
    a.cause.userFrame = "train.py(42): step";
    a.cause.hasUserFrame = true;
    a.saves = 650'000;
    CollectiveBlame b;
    b.group = "stream 7";
    b.seq = 0;
    b.name = "ncclKernel_SendRecv";
    b.lastRank = 1;
    b.lateness = 5'000;
    b.start = 4'000'000; // before every step of rank 1 (its clock: 3.9995 ms)
    b.end = 4'100'000;
    j->blame = {a, b};
    j->warnings = {"rank 1: collective stream 7 #5 is missing on rank 0; it is not coupled.",
                   "rank 2: 3 collectives have kernel names that differ across ranks."};
    return j;
}

QStringList rankLabels(const JobHeatMap *map)
{
    QStringList out;
    for (int r = 0; r < map->data().rows(); ++r)
        out << QString::number(map->data().job()->rankRows[size_t(map->data().rankRowAt(r))].rank);
    return out;
}

QString readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

std::shared_ptr<const TimelineData> dlrmJob()
{
    const QDir dir(QStringLiteral(SYNCSCOPE_SHARED_DIR "/traces/param_dlrm_8ranks"));
    const QStringList names = dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
    if (names.size() != 8)
        return nullptr;
    std::vector<std::string> files;
    for (const QString &n : names)
        files.push_back(QFile::encodeName(dir.filePath(n)).toStdString());
    return TimelineData::build(loadTraces(files));
}

} // namespace

class TstJobView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void headlineAndWarnings()
    {
        JobView view;
        QCOMPARE(view.headlineText(), QStringLiteral("No job analysed"));
        view.setJob(fakeJob());
        const QString h = view.headlineText();
        QVERIFY2(h.contains(QStringLiteral("The job would finish up to 1.235 ms earlier without host waits")),
                 qPrintable(h));
        QVERIFY2(h.contains(QStringLiteral("3.1%")), qPrintable(h)); // 1234567 / 40000000 = 3.086%
        QVERIFY2(h.contains(QStringLiteral("40.00 ms")), qPrintable(h));
        QVERIFY2(h.contains(QStringLiteral("<br>3 ranks · ")), qPrintable(h));
        QVERIFY2(h.contains(QStringLiteral("7 collectives matched")) && h.contains(QStringLiteral("2 unmatched")),
                 qPrintable(h));
        QVERIFY(view.warningsText().startsWith(QStringLiteral("2 warnings")));
        QVERIFY(view.warningsText().contains(QStringLiteral("missing on rank 0")));
        QVERIFY(view.warningsText().contains(QStringLiteral("differ across ranks")));
    }

    // The Ranks table's two costs and the headline's third are told apart by
    // a key beside the table, in the figures the table shows for its current
    // row (the top row first).
    void costKeyBesideTheRanks()
    {
        JobView view;
        view.resize(1200, 800);
        view.setJob(fakeJob());
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QLabel *key = view.costKey();
        QTableView *t = view.rankTable();
        QVERIFY(key->isVisible());
        // Just above the table, within its width.
        const QRect k(key->mapTo(&view, QPoint(0, 0)), key->size()),
            table(t->mapTo(&view, QPoint(0, 0)), t->size());
        QVERIFY2(k.bottom() < table.top() && table.top() - k.bottom() < 20 && k.left() >= table.left() - 4 &&
                     k.right() <= table.right() + 4,
                 qPrintable(QStringLiteral("key %1,%2 %3x%4; table %5,%6")
                                .arg(k.x())
                                .arg(k.y())
                                .arg(k.width())
                                .arg(k.height())
                                .arg(table.x())
                                .arg(table.y())));
        QVERIFY(key->height() >= key->heightForWidth(key->width())); // not cut
        auto cell = [&](int row, int column) { return t->model()->index(row, column).data().toString(); };
        auto says = [&](int row) {
            const QString text = key->text();
            return text.contains(QStringLiteral("<b>Local avoidable</b> ") +
                                 cell(row, JobRankModel::LocalAvoidable)) &&
                   text.contains(QStringLiteral("<b>Job avoidable</b> ") +
                                 cell(row, JobRankModel::JobAvoidable)) &&
                   text.contains(QStringLiteral("rank %1's").arg(cell(row, JobRankModel::Rank))) &&
                   text.contains(QStringLiteral("<b>Headline</b> 1.235 ms"));
        };
        QCOMPARE(cell(0, JobRankModel::Rank), QStringLiteral("1")); // job avoidable, largest first
        QVERIFY2(says(0), qPrintable(key->text()));
        QVERIFY(view.headlineText().contains(QStringLiteral("1.235 ms")));
        t->setCurrentIndex(t->model()->index(2, JobRankModel::Rank));
        QVERIFY(cell(2, JobRankModel::Rank) != QStringLiteral("1"));
        QVERIFY2(says(2), qPrintable(key->text()));
        view.setJob(nullptr);
        QVERIFY(key->isHidden());
    }

    void columnsByStepNumberWithEmptyCells()
    {
        JobHeatMapData d(fakeJob());
        QCOMPARE(d.rows(), 3);
        QCOMPARE(d.columns(), 4);
        QCOMPARE(d.columnName(0), QStringLiteral("ProfilerStep#9"));
        QCOMPARE(d.columnName(1), QStringLiteral("ProfilerStep#10"));
        QCOMPARE(d.columnName(3), QStringLiteral("ProfilerStep#12"));
        QCOMPARE(d.columnShortName(3), QStringLiteral("12"));
        // rank 0 has no #9, rank 1 no #11 or #12, rank 2 no #9
        QCOMPARE(d.stepAt(0, 0), -1);
        QCOMPARE(d.stepAt(0, 1), 0);
        QCOMPARE(d.stepAt(1, 0), 3);
        QCOMPARE(d.stepAt(1, 1), 4);
        QCOMPARE(d.stepAt(1, 2), -1);
        QCOMPARE(d.stepAt(1, 3), -1);
        QCOMPARE(d.stepAt(2, 0), -1);
        QCOMPARE(d.stepAt(2, 3), 7);
        QVERIFY(!d.value(1, 2, HeatMetric::Wait).has_value());
        // the tops of the colour scales, worked by hand from the steps
        QCOMPARE(d.maxValue(HeatMetric::Avoidable), TimeNs(3'000'000));
        QCOMPARE(d.maxValue(HeatMetric::Lateness), TimeNs(700'000));
        QCOMPARE(d.maxValue(HeatMetric::Wait), TimeNs(4'000'000));
    }

    void metricSwitchChangesTheValuesShown()
    {
        JobView view;
        view.resize(1200, 800);
        view.setJob(fakeJob());
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        JobHeatMap *map = view.heatMap();
        const QPoint cell = map->cellRect(0, 1).center(); // rank 0, ProfilerStep#10
        QCOMPARE(map->metric(), HeatMetric::Avoidable);
        QVERIFY2(map->toolTipAt(cell).contains(QStringLiteral("Avoidable: 1.500 ms (1500000 ns)")),
                 qPrintable(map->toolTipAt(cell)));
        QCOMPARE(*map->data().value(0, 1, map->metric()), TimeNs(1'500'000));
        view.metricBox()->setCurrentIndex(view.metricBox()->findData(int(HeatMetric::Wait)));
        QCOMPARE(map->metric(), HeatMetric::Wait);
        QVERIFY2(map->toolTipAt(cell).contains(QStringLiteral("Wait: 2.000 ms (2000000 ns)")),
                 qPrintable(map->toolTipAt(cell)));
        QCOMPARE(*map->data().value(0, 1, map->metric()), TimeNs(2'000'000));
        view.metricBox()->setCurrentIndex(view.metricBox()->findData(int(HeatMetric::Lateness)));
        const QPoint late = map->cellRect(1, 1).center(); // rank 1, #10
        QVERIFY2(map->toolTipAt(late).contains(QStringLiteral("Lateness: 700.0 µs (700000 ns)")),
                 qPrintable(map->toolTipAt(late)));
        // the colours follow the metric: the largest lateness is the darkest
        QCOMPARE(JobHeatMap::colorOf(700'000, map->data().maxValue(HeatMetric::Lateness)), QColor(127, 0, 0));
        QCOMPARE(JobHeatMap::colorOf(0, 700'000), QColor(255, 247, 236));
        QVERIFY(map->toolTipAt(map->cellRect(1, 2).center()).contains(QStringLiteral("has no step")));
    }

    void rankOrders()
    {
        JobView view;
        view.setJob(fakeJob());
        JobHeatMap *map = view.heatMap();
        QCOMPARE(rankLabels(map), (QStringList{"0", "1", "2"}));
        auto order = [&](RankOrder o) {
            view.orderBox()->setCurrentIndex(view.orderBox()->findData(int(o)));
            return map->order() == o ? rankLabels(map) : QStringList{QStringLiteral("order not set")};
        };
        QCOMPARE(order(RankOrder::JobAvoidable), (QStringList{"1", "0", "2"})); // 0 and 2 tie: by rank
        QCOMPARE(order(RankOrder::LastArrivals), (QStringList{"2", "1", "0"}));
        QCOMPARE(order(RankOrder::Wait), (QStringList{"0", "1", "2"}));
        QCOMPARE(order(RankOrder::Rank), (QStringList{"0", "1", "2"}));
        // the order survives a new job
        order(RankOrder::LastArrivals);
        view.setJob(fakeJob());
        QCOMPARE(rankLabels(map), (QStringList{"2", "1", "0"}));
    }

    void cellClickEmitsTheRankAndItsWindow()
    {
        JobView view;
        view.resize(1200, 800);
        view.setJob(fakeJob());
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        JobHeatMap *map = view.heatMap();
        QSignalSpy spy(&view, &JobView::showRankWindow);
        // rank 2, ProfilerStep#11: the window in rank 2's own clock, offset kept
        QTest::mouseClick(map, Qt::LeftButton, {}, map->cellRect(2, 2).center());
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).toInt(), 2);
        QCOMPARE(spy.at(0).at(1).value<TimeNs>(), kOffset2 + 20'000'000);
        QCOMPARE(spy.at(0).at(2).value<TimeNs>(), kOffset2 + 30'000'000);
        // an empty cell asks for nothing
        QTest::mouseClick(map, Qt::LeftButton, {}, map->cellRect(1, 3).center());
        QCOMPARE(spy.count(), 1);
        // sorted by last arrivals, row 1 is rank 1: its #9
        view.orderBox()->setCurrentIndex(view.orderBox()->findData(int(RankOrder::LastArrivals)));
        QTest::mouseClick(map, Qt::LeftButton, {}, map->cellRect(1, 0).center());
        QCOMPARE(spy.count(), 2);
        QCOMPARE(spy.at(1).at(0).toInt(), 1);
        QCOMPARE(spy.at(1).at(1).value<TimeNs>(), TimeNs(5'000'000));
        QCOMPARE(spy.at(1).at(2).value<TimeNs>(), TimeNs(15'000'000));
    }

    void blameRowShowsTheLateRankInItsClock()
    {
        JobView view;
        view.setJob(fakeJob());
        QSignalSpy spy(&view, &JobView::showBlameWindow);
        // collective 0 #3 on rank 2: aligned [21, 22] ms is [1 s + 21 ms, 1 s + 22 ms]
        // in rank 2's clock; the latest step begun by then is #11 at 1 s + 20 ms,
        // which ends at 1 s + 30 ms.
        view.showBlame(0);
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).toInt(), 2);
        QCOMPARE(spy.at(0).at(1).value<TimeNs>(), kOffset2 + 20'000'000);
        QCOMPARE(spy.at(0).at(2).value<TimeNs>(), kOffset2 + 30'000'000);
        // the blame itself, in rank 2's clock: what the Timeline selects
        const auto blame = spy.at(0).at(3).value<CollectiveBlame>();
        QCOMPARE(blame.start, kOffset2 + 21'000'000);
        QCOMPARE(blame.end, kOffset2 + 22'000'000);
        QCOMPARE(blame.name, std::string("ncclKernel_AllReduce_RING_LL_Sum_float"));
        // before any step of rank 1 (offset -500 ns): the collective alone
        view.showBlame(1);
        QCOMPARE(spy.at(1).at(0).toInt(), 1);
        QCOMPARE(spy.at(1).at(1).value<TimeNs>(), TimeNs(3'999'500));
        QCOMPARE(spy.at(1).at(2).value<TimeNs>(), TimeNs(4'099'500));
        // a click on the table's top row (longest lateness first) does the same as showBlame(0)
        QTableView *t = view.blameTable();
        Q_EMIT t->clicked(t->model()->index(0, CollectiveBlameModel::Cause));
        QCOMPARE(spy.count(), 3);
        QCOMPARE(spy.at(2).at(0).toInt(), 2);
    }

    void tableModelsAndSorting()
    {
        JobView view;
        QAbstractItemModelTester ranks(view.rankModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester blame(view.blameModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester rankProxy(view.rankTable()->model(),
                                           QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester blameProxy(view.blameTable()->model(),
                                            QAbstractItemModelTester::FailureReportingMode::QtTest);
        view.setJob(fakeJob());
        view.setJob(nullptr);
        view.setJob(fakeJob());
        QAbstractItemModel *rp = view.rankTable()->model();
        QCOMPARE(rp->rowCount(), 3);
        QCOMPARE(rp->columnCount(), int(JobRankModel::ColumnCount));
        auto column = [](QAbstractItemModel *m, int col) {
            QStringList out;
            for (int r = 0; r < m->rowCount(); ++r)
                out << m->index(r, col).data().toString();
            return out;
        };
        // by job avoidable, largest first (a stable sort keeps 0 before 2)
        QCOMPARE(column(rp, JobRankModel::Rank).front(), QStringLiteral("1"));
        // One unit per column, and decimals for the smallest (100 ns) to show 2 digits.
        QCOMPARE(column(rp, JobRankModel::JobAvoidable), (QStringList{"700.00 µs", "0.10 µs", "0.10 µs"}));
        view.rankTable()->sortByColumn(JobRankModel::Wait, Qt::AscendingOrder);
        QCOMPARE(column(rp, JobRankModel::Rank), (QStringList{"2", "1", "0"}));
        view.rankTable()->sortByColumn(JobRankModel::ClockOffset, Qt::AscendingOrder);
        QCOMPARE(column(rp, JobRankModel::Rank), (QStringList{"1", "0", "2"}));
        // Offsets from -500 ns to 1 s: seconds, to 2 digits of 500 ns.
        QCOMPARE(column(rp, JobRankModel::ClockOffset),
                 (QStringList{"-0.00000050 s", "0.00000000 s", "1.00000000 s"}));
        QCOMPARE(rp->index(0, JobRankModel::ClockSpread).data().toString(),
                 QStringLiteral("-0.00000250 s … 0.00000250 s"));
        QCOMPARE(rp->index(0, JobRankModel::File).data().toString(), QStringLiteral("rank1.json"));
        QAbstractItemModel *bp = view.blameTable()->model();
        QCOMPARE(column(bp, CollectiveBlameModel::Lateness), (QStringList{"800.0 µs", "5.0 µs"}));
        QCOMPARE(bp->index(0, CollectiveBlameModel::Cause).data().toString(),
                 QStringLiteral("cudaStreamSynchronize in aten::item at train.py(42): step"));
        QCOMPARE(bp->index(1, CollectiveBlameModel::Cause).data().toString(), QStringLiteral("—"));
        view.blameTable()->sortByColumn(CollectiveBlameModel::Lateness, Qt::AscendingOrder);
        QCOMPARE(column(bp, CollectiveBlameModel::LastRank), (QStringList{"1", "2"}));
    }

    void tableExportsInTheShownOrder()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        JobView view;
        view.setJob(fakeJob());
        // ranks, by job avoidable: 1, 0, 2
        const QString csv = dir.filePath(QStringLiteral("ranks.csv"));
        QString error;
        QVERIFY2(view.exportTable(JobView::Table::Ranks, csv, &error), qPrintable(error));
        const QStringList lines = readAll(csv).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 4);
        QVERIFY(lines[0].startsWith(QStringLiteral("rank,file,device,clock_offset_ns,clock_offset_us,")));
        QCOMPARE(lines[1],
                 QStringLiteral("1,/traces/rank1.json,1,-500,-0.500,-2500,-2.500,2500,2.500,5000001,5000.001,"
                                "700000,700.000,2,4000,4.000"));
        QVERIFY(lines[3].startsWith(QStringLiteral("2,/traces/rank2.json,2,1000000000,1000000.000,")));

        const QString json = dir.filePath(QStringLiteral("ranks.json"));
        QVERIFY2(view.exportTable(JobView::Table::Ranks, json, &error), qPrintable(error));
        const QString jsonText = readAll(json);
        QVERIFY(jsonText.contains(QStringLiteral("\"job_avoidable_us\": 700.000")));
        const QJsonArray ranks = QJsonDocument::fromJson(jsonText.toUtf8()).object().value("ranks").toArray();
        QCOMPARE(ranks.size(), 3);
        QCOMPARE(ranks[0].toObject().value("rank").toInt(), 1);
        QCOMPARE(ranks[0].toObject().value("job_avoidable_ns").toInteger(), qint64(700'000));
        QCOMPARE(ranks[2].toObject().value("clock_offset_ns").toInteger(), qint64(kOffset2));
        for (const char *key : {"file", "device", "clock_offset_p5_ns", "clock_offset_p95_us",
                                "local_avoidable_ns", "last_arrivals", "wait_ns", "wait_us"})
            QVERIFY2(ranks[0].toObject().contains(QLatin1String(key)), key);

        const QString blameJson = dir.filePath(QStringLiteral("blame.json"));
        QVERIFY2(view.exportTable(JobView::Table::Blame, blameJson, &error), qPrintable(error));
        const QJsonArray blame =
            QJsonDocument::fromJson(readAll(blameJson).toUtf8()).object().value("collective_blame").toArray();
        QCOMPARE(blame.size(), 2);
        const QJsonObject top = blame[0].toObject();
        QCOMPARE(top.value("last_rank").toInt(), 2);
        QCOMPARE(top.value("lateness_ns").toInteger(), qint64(800'000));
        QCOMPARE(top.value("cause").toObject().value("user_frame").toString(),
                 QStringLiteral("train.py(42): step"));
        QCOMPARE(top.value("cause").toObject().value("saves_ns").toInteger(), qint64(650'000));
        QVERIFY(blame[1].toObject().value("cause").isNull());
        const QString blameCsv = dir.filePath(QStringLiteral("blame.csv"));
        QVERIFY(view.exportTable(JobView::Table::Blame, blameCsv, &error));
        const QStringList b = readAll(blameCsv).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(b.size(), 3);
        QCOMPARE(b[2], QStringLiteral("stream 7,0,ncclKernel_SendRecv,1,5000,5.000,,,,,"));

        // a file that cannot be written: one sentence naming it, nothing left
        const QString bad = dir.filePath(QStringLiteral("no-such-dir/ranks.csv"));
        QVERIFY(!view.exportTable(JobView::Table::Ranks, bad, &error));
        QVERIFY2(error.contains(QStringLiteral("ranks.csv")), qPrintable(error));
        QVERIFY(!QFile::exists(bad));

        // the dialogs start in the last export folder
        rememberSaveFolder(csv);
        QCOMPARE(QFileInfo(view.suggestedExportPath(JobView::Table::Blame, true)).absolutePath(),
                 QFileInfo(csv).absolutePath());
        QVERIFY(view.suggestedExportPath(JobView::Table::Blame, true)
                    .endsWith(QStringLiteral("rank0-job-collective-blame.json")));
    }

    void heatMapExports()
    {
        QTemporaryDir dir;
        JobView view;
        QString error;
        QVERIFY(!view.exportHeatMap(dir.filePath(QStringLiteral("none.png")), QSize(800, 400), &error));
        QVERIFY(!error.isEmpty());
        view.setJob(fakeJob());
        QVERIFY(view.exportHeatMapAction()->isEnabled());
        const QString png = dir.filePath(QStringLiteral("heat.png"));
        QVERIFY2(view.exportHeatMap(png, QSize(900, 420), &error), qPrintable(error));
        QImage image(png);
        QCOMPARE(image.size(), QSize(900, 420));
        // the largest avoidable cell (rank 1, #10) is drawn in the top colour of the scale
        bool top = false;
        const QRgb dark = QColor(127, 0, 0).rgb();
        for (int y = 0; y < image.height() && !top; ++y)
            for (int x = 0; x < image.width() && !top; ++x)
                top = image.pixel(x, y) == dark;
        QVERIFY(top);
        const QString svg = dir.filePath(QStringLiteral("heat.svg"));
        QVERIFY2(view.exportHeatMap(svg, QSize(900, 420), &error), qPrintable(error));
        const QString svgText = readAll(svg);
        QVERIFY(svgText.contains(QStringLiteral("<svg")));
        QVERIFY(svgText.contains(QStringLiteral("Avoidable per rank and step")));
        const QString pdf = dir.filePath(QStringLiteral("heat.pdf"));
        QVERIFY2(view.exportHeatMap(pdf, QSize(900, 420), &error), qPrintable(error));
        QVERIFY(readAll(pdf).startsWith(QStringLiteral("%PDF")));
        QVERIFY(!view.exportHeatMap(dir.filePath(QStringLiteral("heat.bmp")), QSize(900, 420), &error));
        QVERIFY(error.contains(QStringLiteral(".png, .svg or .pdf")));
        view.copyHeatMap();
        QVERIFY(!QApplication::clipboard()->image().isNull());
    }

    void showRankWindowInTheTimeline()
    {
        test::SyntheticTrace t;
        const auto data = TimelineData::build({t.build("rank0.json"), t.build("rank1.json")});
        QCOMPARE(data->files().size(), size_t(2));
        TimelineView view;
        view.resize(1000, 220);
        view.setData(data);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        // the second step of rank 1, well inside the trace
        TimeNs t0 = 0, t1 = 0;
        int seen = 0;
        for (const TimelineStep &s : data->steps())
            if (s.file == 1 && seen++ == 1) {
                t0 = data->step(s).start;
                t1 = data->step(s).end;
            }
        QVERIFY(t1 > t0 && t0 > data->minTime() && t1 < data->maxTime());
        QVERIFY(!showRankWindowInTimeline(view, 2, t0, t1));
        view.setFileCollapsed(1, true);
        QVERIFY(showRankWindowInTimeline(view, 1, t0, t1));
        QCOMPARE(view.mapping().start(), t0);
        QCOMPARE(view.mapping().end(), t1);
        QVERIFY(!view.layout().fileCollapsed(1));
        int headerY = -1;
        for (const LayoutRow &r : view.layout().rows())
            if (r.kind == LayoutRow::Kind::RankHeader && r.file == 1)
                headerY = r.y;
        QVERIFY(headerY > 0);
        QCOMPARE(view.verticalScrollBar()->value(), std::min(headerY, view.verticalScrollBar()->maximum()));
        QVERIFY(view.verticalScrollBar()->value() > 0);
    }

    void ranksAreDrawnOnTheJobsClock()
    {
        // Three ranks whose clocks are +1 s and -1 s off rank 0's.
        std::vector<std::string> files;
        for (const char *n : {"job_straggler_rank0.json", "job_straggler_rank1.json", "job_straggler_rank2.json"})
            files.push_back(std::string(SYNCSCOPE_TEST_DATA_DIR "/") + n);
        const auto data = TimelineData::build(loadTraces(files));
        QCOMPARE(data->files().size(), size_t(3));
        // The same ranks as loaded, each in its file's clock (what the CLI analyses).
        std::vector<RankInput> plain;
        std::vector<TraceModelPtr> own;
        for (const std::string &f : files) {
            own.push_back(loadTrace(f));
            plain.push_back(makeRankInput(*own.back(), analyzeSyncs(*own.back())));
        }
        const JobScale expected = analyzeJobScale(plain);
        QCOMPARE(expected.rankRows[1].clockOffset, TimeNs(1'000'000'000));
        QCOMPARE(expected.rankRows[2].clockOffset, TimeNs(-1'000'000'000));
        for (size_t f = 0; f < 3; ++f) {
            const TraceModel &m = *data->files()[f].model;
            QCOMPARE(m.info().clockShift, -expected.rankRows[f].clockOffset);
            QCOMPARE(m.minTime(), own[f]->minTime() + m.info().clockShift);
            QCOMPARE(m.maxTime(), own[f]->maxTime() + m.info().clockShift);
            // the figures of each rank do not depend on its clock
            QCOMPARE(data->files()[f].sync.devices.size(), size_t(1));
            const SyncAnalysis mine = analyzeSyncs(*own[f]);
            QCOMPARE(data->files()[f].sync.devices[0].avoidable, mine.devices[0].avoidable);
            QCOMPARE(data->files()[f].sync.syncGaps.size(), mine.syncGaps.size());
            for (size_t g = 0; g < mine.syncGaps.size(); ++g)
                QCOMPARE(data->files()[f].sync.syncGaps[g].interval.start,
                         mine.syncGaps[g].interval.start + m.info().clockShift);
        }
        // One time axis: the job spans what it spans on the aligned clock, not 2 s.
        QCOMPARE(data->maxTime() - data->minTime() < 1'000'000'000, true);

        // The job analysis of the moved ranks: the same figures and offsets on
        // the files' clocks, and nothing left to convert for the Timeline.
        std::vector<RankInput> moved;
        for (const TimelineFile &f : data->files())
            moved.push_back(makeRankInput(*f.model, f.sync));
        const JobScale job = analyzeJobScale(moved);
        QCOMPARE(job.avoidable, expected.avoidable);
        QCOMPARE(job.span, expected.span);
        QCOMPARE(job.blame.size(), expected.blame.size());
        for (size_t b = 0; b < job.blame.size(); ++b) {
            QCOMPARE(job.blame[b].start, expected.blame[b].start);
            QCOMPARE(job.blame[b].saves, expected.blame[b].saves);
        }
        for (size_t r = 0; r < 3; ++r) {
            const JobRank &a = job.rankRows[r], &e = expected.rankRows[r];
            QCOMPARE(a.clockOffset, e.clockOffset);
            QCOMPARE(a.clockOffsetP5, e.clockOffsetP5);
            QCOMPARE(a.clockOffsetP95, e.clockOffsetP95);
            QCOMPARE(a.jobAvoidable, e.jobAvoidable);
            QCOMPARE(a.analysedOffset, TimeNs(0));
            QCOMPARE(e.analysedOffset, e.clockOffset);
            QCOMPARE(a.clockShift, -e.clockOffset);
        }
        QCOMPARE(job.rankSteps.size(), expected.rankSteps.size());
        for (size_t s = 0; s < job.rankSteps.size(); ++s)
            QCOMPARE(job.rankSteps[s].start,
                     expected.rankSteps[s].start - expected.rankRows[size_t(job.rankSteps[s].rank)].clockOffset);

        // A re-analysis of the models on screen keeps them where they are.
        const auto again = TimelineData::build(data->models());
        for (size_t f = 0; f < 3; ++f)
            QCOMPARE(again->files()[f].model->info().clockShift, data->files()[f].model->info().clockShift);

        // The details name the file's own time next to the job's.
        int track = -1;
        for (size_t t = 0; t < data->tracks().size() && track < 0; ++t)
            if (data->tracks()[t].file == 1 && data->modelTrack(int(t)).size() > 0)
                track = int(t);
        QVERIFY(track >= 0);
        EventDetailsPanel details;
        details.setEvent(data, {track, 0}, {});
        const TimeNs fileTs = data->modelTrack(track).start[0] - data->files()[1].model->info().clockShift;
        const QString start = details.field(QStringLiteral("Start"));
        QVERIFY2(start.contains(QStringLiteral("ts %1 µs in the file").arg(formatScaled(fileTs, 3, 3))),
                 qPrintable(start));
        QVERIFY2(start.contains(QStringLiteral("1.000 s ahead")) || start.contains(QStringLiteral("1 s ahead")),
                 qPrintable(start));
    }

    void jobPageOnARealJob();
};

void TstJobView::jobPageOnARealJob()
{
    const auto data = dlrmJob();
    if (!data)
        QSKIP("../shared/traces/param_dlrm_8ranks is not here");
    // What the page must show: the job analysis of the same ranks, run here.
    std::vector<RankInput> inputs;
    for (const TimelineFile &f : data->files())
        inputs.push_back(makeRankInput(*f.model, f.sync));
    const JobScale expected = analyzeJobScale(inputs);
    QCOMPARE(expected.ranks, size_t(8));

    JobPage page;
    page.resize(1400, 900);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    QSignalSpy ready(&page, &JobPage::jobReady);
    page.setTimelineData(data);
    QVERIFY(page.isRunning());
    QVERIFY(ready.wait(60000));
    const auto job = page.view()->job();
    QVERIFY(job);
    QCOMPARE(job->avoidable, expected.avoidable);
    QCOMPARE(job->collectives, expected.collectives);
    QCOMPARE(job->rankRows.size(), expected.rankRows.size());
    for (size_t r = 0; r < expected.rankRows.size(); ++r) {
        QCOMPARE(job->rankRows[r].rank, expected.rankRows[r].rank);
        QCOMPARE(job->rankRows[r].jobAvoidable, expected.rankRows[r].jobAvoidable);
    }
    QVERIFY(page.view()->headlineText().contains(formatDuration(expected.avoidable) + QStringLiteral(" earlier")));
    QCOMPARE(page.view()->rankModel()->rowCount(), 8);
    QVERIFY(page.noteText().isEmpty());

    // A click on the last row's first step: the file of that rank, its step's window.
    JobHeatMap *map = page.view()->heatMap();
    QVERIFY(map->data().columns() > 0);
    const int row = map->data().rows() - 1;
    const int step = map->data().stepAt(row, 0);
    QVERIFY(step >= 0);
    const RankStep &rs = job->rankSteps[size_t(step)];
    QSignalSpy shown(&page, &JobPage::showRankWindow);
    QTest::mouseClick(map, Qt::LeftButton, {}, map->cellRect(row, 0).center());
    QCOMPARE(shown.count(), 1);
    const int file = shown.at(0).at(0).toInt();
    QVERIFY(file >= 0 && file < 8);
    QCOMPARE(data->files()[size_t(file)].model->info().rank, rs.rank);
    QCOMPARE(shown.at(0).at(1).value<TimeNs>(), rs.start);
    QCOMPARE(shown.at(0).at(2).value<TimeNs>(), rs.end);
    TimelineView view;
    view.resize(1200, 500);
    view.setData(data);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(showRankWindowInTimeline(view, file, rs.start, rs.end));
    QCOMPARE(view.mapping().start(), rs.start);
    QCOMPARE(view.mapping().end(), rs.end);

    // Cancelled at once: no job, and the note says so.
    page.setTimelineData(data);
    page.cancel();
    QVERIFY(!page.isRunning());
    QVERIFY(!ready.wait(300));
    QCOMPARE(ready.count(), 1);
    QVERIFY2(page.noteText().contains(QStringLiteral("cancelled")), qPrintable(page.noteText()));
    QVERIFY(!page.view()->job());

    // One file is not a job.
    page.setTimelineData(TimelineData::build({data->files()[0].model}));
    QVERIFY(!page.isRunning());
    QVERIFY(page.noteText().contains(QStringLiteral("shows one file")));
    page.clear();
    QVERIFY(!page.view()->job());
}

QTEST_MAIN(TstJobView)
#include "tst_jobview.moc"
