// The Timeline's sync verdict: the header's avoidable figure, the gap table
// sorted by avoidable, the sync-sources table and its click, the step band and
// the per-step chart, the library-prefix option, the red marks of pageable
// copies and the CSV exports. On a hand-made Kineto-style trace whose figures are
// worked out by hand below, compared with the core's SyncAnalysis of the same
// file, and on the synthetic trace.
#include "analysis/advice.h"
#include "analysis/jsonwriter.h"
#include "loadandwait.h"
#include "shared/timeformat.h"
#include "synthetictrace.h"
#include "timeline/advicepanel.h"
#include "timeline/analysisoptionsdialog.h"
#include "timeline/devicetablemodel.h"
#include "timeline/eventdetailspanel.h"
#include "timeline/passes/blockingcallspass.h"
#include "timeline/stepchart.h"
#include "timeline/syncgapmodel.h"
#include "timeline/syncsourcemodel.h"
#include "timeline/timelinedata.h"
#include "timeline/timelinepage.h"
#include "timeline/timelineview.h"
#include "trace/traceloader.h"
#include "trace/tracewriter.h"

#include <QAbstractItemModelTester>
#include <QCategoryAxis>
#include <QChartView>
#include <QClipboard>
#include <QElapsedTimer>
#include <QPushButton>
#include <QHeaderView>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QLineSeries>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QtTest>

using namespace syncscope;
using namespace syncscope::ui;

namespace {

// Times in µs after B = 1712195495519000.000 (16 integer digits, as Kineto writes).
// Host thread 100/1:
//   python_function "train.py(10): main" [0, 1000], "mylib/util.py(5): fetch" [8.5, 200],
//   "train.py(20): log" [900.047, 901.047] (encloses no call: only its start is read)
//   ProfilerStep#0 [0, 500], ProfilerStep#1 [500, 1000] (user_annotation)
//   aten::mm [1, 8]      cudaLaunchKernel [2, 7] corr 1      -> K1 [7, 17]
//   aten::item [9, 25]   cudaStreamSynchronize [10, 20.25]   (blocked 10.25)
//   aten::mm [310, 318]  cudaLaunchKernel [311, 316] corr 2  -> K2 [316, 416]
//   aten::to [520, 560]  cudaMemcpyAsync [521, 555] corr 3   -> Memcpy DtoH (Device -> Pageable) [530, 550]
//   aten::mm [699, 707]  cudaLaunchKernel [700, 705] corr 4  -> K4 [705, 805]
// GPU 0 stream 7 idles [17, 316] (the sync returns at 20.25: cause, blocked
// 10.25) and [550, 705] (the pageable copy returns at 555: cause, blocked 34).
// [416, 530] has no blocking call returning in it.
//
// The replay (head start S of the thread; an activity starts at
// min(old start, max(old start - S, previous new end on its stream))):
//  - without every blocking call: K1 7..17; sync: S = 10.25; K2 305.75..405.75;
//    copy 519.75..539.75, then S = 44.25; K4 660.75..760.75: 805 - 760.75 = 44.25.
//  - without the sync alone: K2 305.75..405.75, copy 519.75..539.75; the copy
//    re-synchronizes: old 550, new 539.75, wait 29, ret 5, new_end =
//    max(521 - 10.25 + 5, 544.75) = 544.75, S = 555 - 544.75 = 10.25; K4 694.75..794.75:
//    10.25.
//  - without the copy alone: the sync re-synchronizes to S = 0; K2 316..416, copy
//    530..550, S = 34; K4 671..771: 34.
// So: device 44.250 µs; gap [17, 316] avoidable 10.250, gap [550, 705] 34.000;
// source (cudaMemcpyAsync, aten::to, train.py(10): main) 34.000 and
// (cudaStreamSynchronize, aten::item, mylib/util.py(5): fetch) 10.250;
// step 0 avoidable 10.250, step 1 34.000.
const char kTrace[] = R"json({"schemaVersion": 1, "traceEvents": [
{"ph":"X","cat":"python_function","name":"train.py(10): main","pid":100,"tid":1,"ts":1712195495519000.000,"dur":1000},
{"ph":"X","cat":"python_function","name":"mylib/util.py(5): fetch","pid":100,"tid":1,"ts":1712195495519008.500,"dur":191.5},
{"ph":"X","cat":"python_function","name":"train.py(20): log","pid":100,"tid":1,"ts":1712195495519900.047,"dur":1},
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#0","pid":100,"tid":1,"ts":1712195495519000.000,"dur":500},
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":100,"tid":1,"ts":1712195495519500.000,"dur":500},
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":100,"tid":1,"ts":1712195495519001.000,"dur":7},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":1,"ts":1712195495519002.000,"dur":5,"args":{"correlation":1}},
{"ph":"X","cat":"cpu_op","name":"aten::item","pid":100,"tid":1,"ts":1712195495519009.000,"dur":16},
{"ph":"X","cat":"cuda_runtime","name":"cudaStreamSynchronize","pid":100,"tid":1,"ts":1712195495519010.000,"dur":10.250},
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":100,"tid":1,"ts":1712195495519310.000,"dur":8},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":1,"ts":1712195495519311.000,"dur":5,"args":{"correlation":2}},
{"ph":"X","cat":"cpu_op","name":"aten::to","pid":100,"tid":1,"ts":1712195495519520.000,"dur":40},
{"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":100,"tid":1,"ts":1712195495519521.000,"dur":34,"args":{"correlation":3}},
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":100,"tid":1,"ts":1712195495519699.000,"dur":8},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":1,"ts":1712195495519700.000,"dur":5,"args":{"correlation":4}},
{"ph":"X","cat":"kernel","name":"K1","pid":0,"tid":7,"ts":1712195495519007.000,"dur":10,"args":{"device":0,"stream":7,"correlation":1}},
{"ph":"X","cat":"kernel","name":"K2","pid":0,"tid":7,"ts":1712195495519316.000,"dur":100,"args":{"device":0,"stream":7,"correlation":2}},
{"ph":"X","cat":"gpu_memcpy","name":"Memcpy DtoH (Device -> Pageable)","pid":0,"tid":7,"ts":1712195495519530.000,"dur":20,"args":{"device":0,"stream":7,"correlation":3}},
{"ph":"X","cat":"kernel","name":"K4","pid":0,"tid":7,"ts":1712195495519705.000,"dur":100,"args":{"device":0,"stream":7,"correlation":4}}
]})json";

constexpr TimeNs kBase = 1'712'195'495'519'000'000;

bool load(TimelinePage &page, const QStringList &paths, QString *error = nullptr)
{
    return test::loadAndWait(
        &page, &TimelinePage::loadFinished, &TimelinePage::loadFailed, [&] { page.openFiles(paths); }, error,
        30000);
}

void clickRow(QTableView *table, int proxyRow)
{
    const QModelIndex i = table->model()->index(proxyRow, 0);
    table->scrollTo(i);
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(i).center());
}

QStringList readLines(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

} // namespace

class TstTimelineSync : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_tmp;
    QString m_hand, m_synthetic;

    // The source model row whose sync name is `sync`, else -1.
    static int sourceRow(const TimelinePage &page, const QString &sync)
    {
        const SyncSourceModel *m = page.syncSourceModel();
        for (int r = 0; r < m->rowCount(); ++r)
            if (m->data(m->index(r, SyncSourceModel::Sync)).toString() == sync)
                return r;
        return -1;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // QSettings away from the user's
        QCoreApplication::setOrganizationName(QStringLiteral("syncscope-test"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_timelinesync"));
        QSettings().clear();
        QVERIFY(m_tmp.isValid());
        m_hand = m_tmp.filePath(QStringLiteral("hand.json"));
        QFile f(m_hand);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(kTrace);
        f.close();
        test::SyntheticTrace t;
        t.steps = 6;
        t.kernelsPerStep = 8;
        m_synthetic = m_tmp.filePath(QStringLiteral("synthetic.json"));
        writeTrace(*t.build(), m_synthetic.toStdString());
    }

    // The core on the hand-made trace agrees with the figures worked out by hand;
    // the other tests compare the Timeline with this analysis.
    void coreMatchesHandWork()
    {
        const TraceModelPtr model = loadTrace(m_hand.toStdString());
        const SyncAnalysis sa = analyzeSyncs(*model);
        QCOMPARE(sa.devices.size(), size_t(1));
        QCOMPARE(sa.devices[0].avoidable, TimeNs(44'250));
        QCOMPARE(sa.syncGaps.size(), size_t(2));
        QCOMPARE(sa.syncGaps[0].interval.start, kBase + 17'000);
        QCOMPARE(sa.syncGaps[0].avoidable, TimeNs(10'250));
        QCOMPARE(sa.syncGaps[1].avoidable, TimeNs(34'000));
        QCOMPARE(sa.syncGaps[1].blocked, TimeNs(34'000));
        QCOMPARE(sa.steps.size(), size_t(2));
        QCOMPARE(sa.sources.size(), size_t(2));
        QCOMPARE(sa.sources[0].avoidable, TimeNs(34'000));
    }

    // A handoff between host threads (the autograd engine's backward) is drawn
    // as two arrows when an event of either thread at the wake is selected: the
    // main thread's last event to the engine thread's first, and the engine
    // thread's last to the main thread's event at its resume.
    void handoffsAreLinks()
    {
        TimelinePage page;
        page.resize(1200, 700);
        page.show();
        QVERIFY(load(page, {QStringLiteral(SYNCSCOPE_TEST_DATA_DIR "/backward_handoff.json")}));
        const auto data = page.data();
        QCOMPARE(data->files()[0].sync.replay.handoffs.size(), size_t(1));
        TimelineEvent engine;
        for (int t = 0; t < int(data->tracks().size()) && !engine.valid(); ++t) {
            const TimelineTrack &tt = data->tracks()[size_t(t)];
            if (!tt.gpu && !tt.levels.empty() && !tt.levels[0].events.empty()) {
                const TimelineEvent e{t, tt.levels[0].events[0]};
                if (data->name(e) == "autograd::engine::evaluate_function: MulBackward0")
                    engine = e;
            }
        }
        QVERIFY(engine.valid());
        std::vector<std::pair<std::string, std::string>> links;
        for (const auto &l : data->linkedEvents(engine))
            links.push_back({std::string(data->name(l.first)), std::string(data->name(l.second))});
        const std::vector<std::pair<std::string, std::string>> want = {
            {"aten::ones_like", "autograd::engine::evaluate_function: MulBackward0"},
            {"autograd::engine::evaluate_function: MulBackward0", "aten::add_"}};
        QCOMPARE(links, want);
        // and the header says where the head start stopped
        QVERIFY2(page.headerText().contains(
                     QStringLiteral("limited by: the head start carried to the end of the trace")),
                 qPrintable(page.headerText()));
    }

    void headerLeadsWithAvoidable()
    {
        TimelinePage page;
        page.resize(1400, 800);
        page.show();
        QVERIFY(load(page, {m_hand}));
        const SyncAnalysis sa = analyzeSyncs(*loadTrace(m_hand.toStdString()));
        const QString header = page.headerText();
        // the core's figure, printed from its integer ns
        QVERIFY2(header.startsWith(QStringLiteral("GPU 0 would finish up to <b>%1</b> earlier without host waits")
                                       .arg(formatDuration(sa.devices[0].avoidable))),
                 qPrintable(header));
        // and by hand: 44.250 µs to 4 significant digits (a double could print
        // 44.2 at 3); 44.25 of a 798 µs span is 5.5%
        QVERIFY2(header.contains(QStringLiteral("<b>44.25 µs</b> earlier without host waits (5.5% of its span)")),
                 qPrintable(header));
        QVERIFY2(header.contains(QStringLiteral("sync-gap time <b>%1</b> in 2 gap(s)")
                                     .arg(formatDuration(sa.devices[0].syncGap))),
                 qPrintable(header));
        QVERIFY2(header.contains(QStringLiteral("sync-gap time <b>454.0 µs</b>")), qPrintable(header));
        // the largest single source on GPU 0: the pageable copy, 34 µs
        QVERIFY2(header.contains(QStringLiteral("largest single source <b>34.00 µs</b>: cudaMemcpyAsync in "
                                                "aten::to at train.py(10): main")),
                 qPrintable(header));
        QCOMPARE(formatDuration(sa.sources[0].avoidableByDevice[0]), QStringLiteral("34.00 µs"));
    }

    void gapTableSortedByAvoidable()
    {
        TimelinePage page;
        page.resize(1400, 800);
        page.show();
        QAbstractItemModelTester tester(page.syncGapModel(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(load(page, {m_hand}));
        const QAbstractItemModel *shown = page.gapTable()->model();
        QCOMPARE(shown->rowCount(), 2);
        // The later, shorter gap first: its cause saves 34 µs, the other's 10.25.
        // Neither start nor length order puts it first.
        QCOMPARE(page.gapTable()->horizontalHeader()->sortIndicatorSection(), int(SyncGapModel::Avoidable));
        // One unit and precision per column: {34, 10.25} µs need 2 decimals.
        QCOMPARE(shown->data(shown->index(0, SyncGapModel::Avoidable)).toString(), QStringLiteral("34.00 µs"));
        QCOMPARE(shown->data(shown->index(0, SyncGapModel::Blocked)).toString(),
                 QStringLiteral("34.00 µs")); // {34, 10.25}
        QCOMPARE(shown->data(shown->index(0, SyncGapModel::Duration)).toString(), QStringLiteral("155.0 µs"));
        QCOMPARE(shown->data(shown->index(0, SyncGapModel::Call)).toString(), QStringLiteral("cudaMemcpyAsync"));
        QCOMPARE(shown->data(shown->index(0, SyncGapModel::Step)).toString(), QStringLiteral("ProfilerStep#1"));
        QCOMPARE(shown->data(shown->index(1, SyncGapModel::Avoidable)).toString(), QStringLiteral("10.25 µs"));
        QVERIFY(shown->data(shown->index(1, SyncGapModel::Avoidable), Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("would finish 10.25 µs (10250 ns) earlier")));
        QCOMPARE(shown->data(shown->index(1, SyncGapModel::Duration)).toString(), QStringLiteral("299.0 µs"));
        QCOMPARE(shown->data(shown->index(1, SyncGapModel::UserFrame)).toString(),
                 QStringLiteral("mylib/util.py(5): fetch"));
        QCOMPARE(shown->data(shown->index(1, SyncGapModel::PyFrame)).toString(),
                 QStringLiteral("mylib/util.py(5): fetch"));
        // the same against the core, row by row through the sort role
        const auto data = page.data();
        for (int r = 0; r < shown->rowCount(); ++r) {
            const int gap = shown->data(shown->index(r, 0), SyncGapModel::GapRole).toInt();
            const TimelineGap &g = data->gaps()[size_t(gap)];
            const SyncGap &sg = data->files()[g.file].sync.syncGaps[g.gap];
            QCOMPARE(shown->data(shown->index(r, SyncGapModel::Avoidable), SyncGapModel::SortRole).toLongLong(),
                     qlonglong(sg.avoidable));
            QCOMPARE(shown->data(shown->index(r, SyncGapModel::Blocked), SyncGapModel::SortRole).toLongLong(),
                     qlonglong(sg.blocked));
        }
        // and on the synthetic trace: non-increasing avoidable down the table
        QVERIFY(load(page, {m_synthetic}));
        QCOMPARE(shown->rowCount(), 5);
        for (int r = 1; r < shown->rowCount(); ++r)
            QVERIFY(
                shown->data(shown->index(r - 1, SyncGapModel::Avoidable), SyncGapModel::SortRole).toLongLong() >=
                shown->data(shown->index(r, SyncGapModel::Avoidable), SyncGapModel::SortRole).toLongLong());
        // no Python events: the user frame column shows the op
        QCOMPARE(shown->data(shown->index(0, SyncGapModel::UserFrame)).toString(), QStringLiteral("aten::item"));
        QCOMPARE(shown->data(shown->index(0, SyncGapModel::PyFrame)).toString(), QStringLiteral("—"));
        // equal avoidable times list the longer gap first (a real trace has many ties)
        const QString real = QStringLiteral(SYNCSCOPE_SHARED_DIR "/traces/hta_16rank_job_rank0.json.gz");
        if (QFile::exists(real)) {
            QVERIFY(load(page, {real}));
            int ties = 0;
            for (int r = 1; r < shown->rowCount(); ++r) {
                const qlonglong a0 =
                    shown->data(shown->index(r - 1, SyncGapModel::Avoidable), SyncGapModel::SortRole).toLongLong();
                const qlonglong a1 =
                    shown->data(shown->index(r, SyncGapModel::Avoidable), SyncGapModel::SortRole).toLongLong();
                QVERIFY(a0 >= a1);
                if (a0 == a1) {
                    ++ties;
                    QVERIFY(
                        shown->data(shown->index(r - 1, SyncGapModel::Duration), SyncGapModel::SortRole)
                            .toLongLong() >=
                        shown->data(shown->index(r, SyncGapModel::Duration), SyncGapModel::SortRole).toLongLong());
                }
            }
            QVERIFY(ties > 0);
        }
    }

    void sourceClickSelectsItsGaps()
    {
        TimelinePage page;
        page.resize(1400, 900);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        QAbstractItemModelTester tester(page.syncSourceModel(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(load(page, {m_hand}));
        const auto data = page.data();
        QTableView *table = page.sourceTable();
        const QAbstractItemModel *shown = table->model();
        QCOMPARE(shown->rowCount(), 2);
        // sorted by avoidable: the copy's source first
        QCOMPARE(shown->data(shown->index(0, SyncSourceModel::Sync)).toString(),
                 QStringLiteral("cudaMemcpyAsync"));
        QCOMPARE(shown->data(shown->index(0, SyncSourceModel::Avoidable)).toString(), QStringLiteral("34.00 µs"));
        QCOMPARE(shown->data(shown->index(0, SyncSourceModel::UserFrame)).toString(),
                 QStringLiteral("train.py(10): main"));
        QCOMPARE(shown->data(shown->index(1, SyncSourceModel::GapTime)).toString(), QStringLiteral("299.0 µs"));

        // clicking the sync's source (second row) selects its one gap, the first in time
        clickRow(table, 1);
        const SyncAnalysis &sa = data->files()[0].sync;
        std::vector<int> expected;
        for (size_t g = 0; g < sa.syncGaps.size(); ++g)
            if (data->text(0, sa.syncCalls[sa.syncGaps[g].syncCall].event) ==
                QStringLiteral("cudaStreamSynchronize"))
                expected.push_back(int(data->files()[0].gapRow[g]));
        QCOMPARE(expected.size(), size_t(1));
        QCOMPARE(page.selectedGaps(), expected);
        QCOMPARE(page.view()->markedGaps(), expected);
        QCOMPARE(page.view()->highlightedGap(), expected.front());
        const Interval iv = sa.syncGaps[data->gaps()[size_t(expected.front())].gap].interval;
        QVERIFY(page.view()->mapping().start() <= iv.start && page.view()->mapping().end() >= iv.end);

        // on the synthetic trace one source causes every gap: all five selected
        QVERIFY(load(page, {m_synthetic}));
        QCOMPARE(shown->rowCount(), 1);
        // no Python events: the user frame falls back to the op
        QCOMPARE(shown->data(shown->index(0, SyncSourceModel::UserFrame)).toString(),
                 QStringLiteral("aten::item"));
        QCOMPARE(shown->data(shown->index(0, SyncSourceModel::Gaps)).toString(), QStringLiteral("5"));
        clickRow(table, 0);
        QCOMPARE(page.selectedGaps(), (std::vector<int>{0, 1, 2, 3, 4}));
        QCOMPARE(page.view()->highlightedGap(), 0); // the first in time
        QCOMPARE(page.view()->markedGaps().size(), size_t(5));
        page.view()->viewport()->grab(); // paints the marks
        // a gap click afterwards selects that gap alone
        clickRow(page.gapTable(), 2);
        QCOMPARE(page.selectedGaps().size(), size_t(1));
        QVERIFY(page.view()->markedGaps().empty());
    }

    void stepBandClickZooms()
    {
        TimelinePage page;
        page.resize(1400, 800);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        QVERIFY(load(page, {m_synthetic}));
        TimelineView *view = page.view();
        const auto data = page.data();
        QCOMPARE(data->steps().size(), size_t(6));
        const QRect band = view->stepBandRect();
        QVERIFY(!band.isEmpty());
        QCOMPARE(view->plotRect().top(), band.bottom() + 1);
        view->fitAll();
        view->viewport()->grab();
        // the middle of ProfilerStep#3 on the band
        const Step &st = data->step(data->steps()[3]);
        QCOMPARE(data->text(0, st.name), QStringLiteral("ProfilerStep#3"));
        const int x = band.left() + int(view->mapping().toPixel(st.start + (st.end - st.start) / 2));
        QSignalSpy activated(view, &TimelineView::stepActivated);
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, QPoint(x, band.center().y()));
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated.front().front().toInt(), 3);
        // zoomed to exactly the step's window (to a pixel's rounding)
        const TimeNs tol = std::max<TimeNs>(1, view->mapping().toDuration(1.0));
        QVERIFY(std::abs(view->mapping().start() - st.start) <= tol);
        QVERIFY(std::abs(view->mapping().end() - st.end) <= tol);
        // a click on the ruler does not zoom to a step
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, QPoint(x, TimelineView::kRulerHeight / 2));
        QCOMPARE(activated.count(), 1);
    }

    void stepChartShowsTheCoresSteps()
    {
        TimelinePage page;
        page.resize(1400, 800);
        page.show();
        QVERIFY(load(page, {m_hand}));
        const SyncAnalysis sa = analyzeSyncs(*loadTrace(m_hand.toStdString()));
        StepChart *chart = page.stepChart();
        QCOMPARE(chart->deviceCount(), 1);
        QVERIFY(chart->series(2));
        const QList<QPointF> busy = chart->series(0)->points(), gap = chart->series(1)->points(),
                             avoid = chart->series(2)->points();
        QCOMPARE(avoid.size(), 2);
        // Each axis in the unit of its largest value: this trace's steps are
        // hundreds of µs, so both read µs.
        for (const StepDeviceStats &s : sa.stepStats) {
            QCOMPARE(busy[int(s.step)].y(), double(s.gpuBusy) / 1e3);
            QCOMPARE(gap[int(s.step)].y(), double(s.syncGapTime) / 1e3);
            QCOMPARE(avoid[int(s.step)].y(), double(s.avoidable) / 1e3);
        }
        QCOMPARE(avoid[0].y(), 10.25); // by hand: step 0 without its sync
        QCOMPARE(avoid[1].y(), 34.0);  // step 1 without its copy
        // In the side panel the series name their units, the axes have no
        // titles to cut, and the steps read by what tells them apart.
        QCOMPARE(chart->series(0)->name(), QStringLiteral("GPU busy (µs)"));
        QCOMPARE(chart->series(1)->name(), QStringLiteral("sync gaps (µs)"));
        QCOMPARE(chart->series(2)->name(), QStringLiteral("avoidable (µs)"));
        auto titles = [](StepChart *c) {
            QStringList out;
            for (QAbstractAxis *a : c->series(0)->attachedAxes() + c->series(2)->attachedAxes())
                out << a->titleText();
            return out;
        };
        QCOMPARE(titles(chart), (QStringList{QString(), QString(), QString(), QString()}));
        auto *x = qobject_cast<QCategoryAxis *>(chart->series(0)->attachedAxes().value(0));
        QVERIFY(x);
        QCOMPARE(x->categoriesLabels(), (QStringList{QStringLiteral("0"), QStringLiteral("1")}));
        // Hovering a point shows its step's exact figures.
        qobject_cast<QTabWidget *>(page.detailsPanel()->parentWidget()->parentWidget())->setCurrentWidget(chart);
        QCoreApplication::processEvents();
        const QPoint p1 = chart->pointPosition(2, 1);
        QVERIFY(chart->chartView()->viewport()->rect().contains(p1));
        const QString tip = chart->toolTipAt(p1);
        QVERIFY2(tip.startsWith(QStringLiteral("ProfilerStep#1")) &&
                     tip.contains(QStringLiteral("avoidable ") + formatDuration(sa.stepStats[1].avoidable)),
                 qPrintable(tip));
        QCOMPARE(chart->toolTipAt(p1 + QPoint(0, 40)), QString());
        // The chart opens in a window of its own, with titles there.
        StepChart *big = chart->openInWindow();
        QVERIFY(big && big->isVisible() && big->window() != chart->window());
        QCOMPARE(big->series(2)->points(), avoid);
        QVERIFY(big->window()->width() >= 900);
        QVERIFY2(titles(big).contains(QStringLiteral("GPU busy (µs)")) &&
                     titles(big).contains(QStringLiteral("gaps, avoidable (µs)")) &&
                     titles(big).contains(QStringLiteral("ProfilerStep#")),
                 qPrintable(titles(big).join(QStringLiteral(" | "))));
        QSignalSpy fromWindow(page.view(), &TimelineView::stepActivated);
        Q_EMIT big->series(2)->clicked(avoid[0]);
        QCOMPARE(fromWindow.count(), 1); // a click there zooms the Timeline too
        big->window()->close();
        // a click on a point zooms to its step
        QSignalSpy activated(page.view(), &TimelineView::stepActivated);
        QTest::mouseClick(chart->chartView()->viewport(), Qt::LeftButton, {}, p1);
        QCOMPARE(activated.count(), 1);
        const Step &st = sa.steps[1];
        const TimeNs tol = std::max<TimeNs>(1, page.view()->mapping().toDuration(1.0));
        QVERIFY(std::abs(page.view()->mapping().start() - st.start) <= tol);
        // no steps: one sentence instead of a chart
        const QString plain = m_tmp.filePath(QStringLiteral("nosteps.json"));
        QString text = QString::fromUtf8(kTrace);
        text.replace(QStringLiteral("ProfilerStep#"), QStringLiteral("Iteration "));
        QFile f(plain);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(text.toUtf8());
        f.close();
        QVERIFY(load(page, {plain}));
        QVERIFY(!chart->series(0));
        QVERIFY(chart->message().contains(QStringLiteral("No steps")));
        QVERIFY(page.view()->stepBandRect().isEmpty());
        // a step pattern makes them steps again
        AnalysisOptions o;
        o.stepRegex = "^Iteration [0-9]+$";
        QSignalSpy done(&page, &TimelinePage::loadFinished);
        page.setAnalysisOptions(o);
        QVERIFY(done.wait(10000));
        QCOMPARE(page.data()->steps().size(), size_t(2));
        QVERIFY(chart->series(2));
        QCOMPARE(chart->series(2)->points().size(), 2);
        QVERIFY(!page.view()->stepBandRect().isEmpty());
        page.setAnalysisOptions({});
        QVERIFY(done.wait(10000));
    }

    // What to write instead: the column, the panel that follows the current
    // source (its snippet copyable), and each blocking call's rule in its details.
    void adviceColumnPanelAndDetails()
    {
        TimelinePage page;
        page.resize(1400, 800);
        page.show();
        QVERIFY(load(page, {m_hand}));
        const SyncSourceModel *sources = page.syncSourceModel();
        const int copyRow = sourceRow(page, QStringLiteral("cudaMemcpyAsync"));
        const int itemRow = sourceRow(page, QStringLiteral("cudaStreamSynchronize"));
        QVERIFY(copyRow >= 0 && itemRow >= 0);
        const AdviceRules &rules = builtinAdviceRules();
        const AdviceRule &toHost = rules.rules[size_t(rules.find("to-host"))];
        const AdviceRule &item = rules.rules[size_t(rules.find("item"))];
        QCOMPARE(sources->data(sources->index(copyRow, SyncSourceModel::Advice)).toString(),
                 QString::fromStdString(toHost.title));
        QCOMPARE(sources->data(sources->index(itemRow, SyncSourceModel::Advice)).toString(),
                 QString::fromStdString(item.title));
        QVERIFY(sources->data(sources->index(itemRow, SyncSourceModel::Advice), Qt::ToolTipRole)
                    .toString()
                    .contains(QString::fromStdString(item.why)));
        QCOMPARE(sources->headerData(SyncSourceModel::Advice, Qt::Horizontal, Qt::DisplayRole).toString(),
                 QStringLiteral("What to change"));

        // Nothing selected: the panel says how to get advice, and copies nothing.
        AdvicePanel *panel = page.advicePanel();
        QCOMPARE(panel->rule(), -1);
        QVERIFY(!panel->copyButton()->isEnabled());
        QVERIFY(!panel->copyRewrite());

        // A click on the item source: the full advice, the snippet copied by the button.
        auto *proxy = qobject_cast<QSortFilterProxyModel *>(page.sourceTable()->model());
        QVERIFY(proxy);
        const QModelIndex proxyItem = proxy->mapFromSource(sources->index(itemRow, 0));
        clickRow(page.sourceTable(), proxyItem.row());
        QCOMPARE(panel->rule(), rules.find("item"));
        QVERIFY2(panel->isVisible(), "a source click shows the Advice tab");
        const QString text = panel->text();
        QVERIFY2(text.contains(QString::fromStdString(item.title)), qPrintable(text));
        QVERIFY(text.contains(QString::fromStdString(item.rewrite)));
        QVERIFY(text.contains(QStringLiteral("cudaStreamSynchronize in aten::item at mylib/util.py(5): fetch")));
        // The snippets are shown as written (multi-line code, not reflowed).
        QVERIFY(text.contains(QString::fromStdString(item.after)));
        QVERIFY(panel->copyButton()->isEnabled());
        QApplication::clipboard()->clear();
        QTest::mouseClick(panel->copyButton(), Qt::LeftButton);
        QCOMPARE(QApplication::clipboard()->text(), QString::fromStdString(item.after));

        // The keyboard moves the current source; the panel follows.
        const QModelIndex proxyCopy = proxy->mapFromSource(sources->index(copyRow, 0));
        page.sourceTable()->setCurrentIndex(proxyCopy);
        QCOMPARE(panel->rule(), rules.find("to-host"));
        QVERIFY(panel->text().contains(QString::fromStdString(toHost.title)));

        // Each blocking call's details name its own rule.
        const auto data = page.data();
        for (const SyncCall &c : data->files()[0].sync.syncCalls) {
            page.view()->selectEvent(data->eventOf(0, c.event), true);
            const QString field = page.detailsPanel()->field(QStringLiteral("What to change"));
            const AdviceRule &want = c.pageableCopy ? toHost : item;
            QVERIFY2(field.startsWith(QString::fromStdString(want.title + " [" + want.id + "]")),
                     qPrintable(field));
        }

        // A new load clears the panel.
        QVERIFY(load(page, {m_hand}));
        QCOMPARE(panel->rule(), -1);
    }

    // What-if in the app: checked sources are removed together on a worker and
    // the header leads with what that saves. Figures worked out by hand: the
    // copy alone 34.0 µs, both sources (every call) 44.25 µs; on the straggler
    // job (tests/analysis/job_cases_test.py) rank 2's nonzero sync alone saves the
    // job 80 µs.
    void whatIfOfCheckedSources()
    {
        TimelinePage page;
        page.resize(1400, 800);
        page.show();
        QVERIFY(load(page, {m_hand}));
        SyncSourceModel *sources = page.syncSourceModel();
        auto *proxy = qobject_cast<QSortFilterProxyModel *>(page.sourceTable()->model());
        QVERIFY(proxy);
        const int copyRow = sourceRow(page, QStringLiteral("cudaMemcpyAsync"));
        const int itemRow = sourceRow(page, QStringLiteral("cudaStreamSynchronize"));
        QVERIFY(sources->flags(sources->index(copyRow, SyncSourceModel::Avoidable)) & Qt::ItemIsUserCheckable);
        QVERIFY(!page.whatIf());
        // Each source's figure says where its saving stopped, in its tooltip.
        for (int row = 0; row < sources->rowCount(); ++row) {
            const QString tip =
                sources->data(sources->index(row, SyncSourceModel::Avoidable), Qt::ToolTipRole).toString();
            QVERIFY2(tip.contains(QStringLiteral("\nLimited by (GPU 0): ")), qPrintable(tip));
            QVERIFY2(!tip.endsWith(QStringLiteral(": ")), qPrintable(tip));
        }
        QVERIFY(
            sources->data(sources->index(copyRow, SyncSourceModel::Avoidable), Qt::ToolTipRole)
                .toString()
                .endsWith(QStringLiteral("\nLimited by (GPU 0): the head start carried to the end of the trace: "
                                         "nothing re-synchronized it")));
        QSignalSpy ready(&page, &TimelinePage::whatIfReady);
        // As the view does for a click on the check box: setData through the proxy.
        QVERIFY(proxy->setData(proxy->mapFromSource(sources->index(copyRow, SyncSourceModel::Avoidable)),
                               Qt::Checked, Qt::CheckStateRole));
        QVERIFY(ready.wait(10000));
        QVERIFY(page.whatIf());
        QCOMPARE(page.whatIf()->byFile.size(), size_t(1));
        QCOMPARE(page.whatIf()->byFile[0], std::vector<TimeNs>{34'000});
        QCOMPARE(page.whatIf()->calls, size_t(1));
        QVERIFY(!page.whatIf()->hasJob);
        QVERIFY2(page.headerText().startsWith(QStringLiteral("1 checked source(s) (1 call(s)) removed together: "
                                                             "GPU 0 would finish <b>34.00 µs</b> earlier")),
                 qPrintable(page.headerText()));
        // Where that replay's head start stopped, beside its figure.
        QCOMPARE(page.whatIf()->limitByFile.size(), size_t(1));
        QCOMPARE(page.whatIf()->limitByFile[0].size(), size_t(1));
        const QString limit = QString::fromStdString(page.whatIf()->limitByFile[0][0]);
        QVERIFY(!limit.isEmpty());
        QVERIFY2(page.headerText().contains(QStringLiteral(" (limited by: %1)").arg(limit.toHtmlEscaped())),
                 qPrintable(page.headerText()));
        ready.clear();
        sources->setChecked(itemRow, true);
        QVERIFY(ready.wait(10000));
        QCOMPARE(page.whatIf()->byFile[0], std::vector<TimeNs>{44'250});
        QVERIFY2(page.headerText().contains(
                     QStringLiteral("would finish <b>%1</b> earlier").arg(formatDuration(44'250))),
                 qPrintable(page.headerText()));
        QVERIFY(!page.headerText().contains(QStringLiteral("all ranks")));
        // Unchecked: the header is as before.
        ready.clear();
        sources->clearChecks();
        QVERIFY(ready.count() == 1 || ready.wait(10000));
        QVERIFY(!page.whatIf());
        QVERIFY(!page.headerText().contains(QStringLiteral("checked")));

        // A job: rank 2's nonzero sync made it the straggler.
        const QString d = QStringLiteral(SYNCSCOPE_TEST_DATA_DIR);
        QVERIFY(load(page, {d + QStringLiteral("/job_straggler_rank0.json"),
                            d + QStringLiteral("/job_straggler_rank1.json"),
                            d + QStringLiteral("/job_straggler_rank2.json")}));
        // Job-wide figures name their scope.
        QVERIFY2(page.headerText().contains(QStringLiteral("gap(s) (all ranks)")) &&
                     page.headerText().contains(QStringLiteral("sync call(s) (all ranks)")),
                 qPrintable(page.headerText()));
        int nonzero = -1;
        for (int r = 0; r < sources->rowCount(); ++r)
            if (sources->data(sources->index(r, SyncSourceModel::Op)).toString() ==
                QStringLiteral("aten::nonzero"))
                nonzero = r;
        QVERIFY(nonzero >= 0);
        ready.clear();
        sources->setChecked(nonzero, true);
        QVERIFY(ready.wait(10000));
        QVERIFY(page.whatIf()->hasJob);
        QCOMPARE(page.whatIf()->job, TimeNs(80'000));
        QVERIFY2(
            page.headerText().contains(QStringLiteral("the job would finish <b>80.00 µs</b> earlier (all ranks)")),
            qPrintable(page.headerText()));
        // A new load drops the checks and the figure.
        QVERIFY(load(page, {m_hand}));
        QVERIFY(!page.whatIf());
        QVERIFY(sources->checkedRows().empty());
    }

    // Every (rank, device) is a row of the Devices tab, named by its rank: the
    // per-rank figures are in a table, not only in the header's tooltip.
    void devicesTableNamesEveryRankAndDevice()
    {
        TimelinePage page;
        page.resize(1600, 900);
        page.show();
        QAbstractItemModelTester tester(page.deviceModel(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        const QString d = QStringLiteral(SYNCSCOPE_TEST_DATA_DIR);
        QVERIFY(load(page, {d + QStringLiteral("/job_straggler_rank0.json"),
                            d + QStringLiteral("/job_straggler_rank1.json"),
                            d + QStringLiteral("/job_straggler_rank2.json")}));
        const QAbstractItemModel *shown = page.deviceTable()->model();
        QCOMPARE(shown->rowCount(), 3);
        // By avoidable time, largest first: rank 2's GPU 2, whose nonzero sync
        // holds 120 us of its work (worked out with the fixture).
        QCOMPARE(shown->data(shown->index(0, DeviceTableModel::Rank)).toString(), QStringLiteral("2"));
        QCOMPARE(shown->data(shown->index(0, DeviceTableModel::Device)).toString(), QStringLiteral("GPU 2"));
        QCOMPARE(
            shown->data(shown->index(0, DeviceTableModel::Avoidable), DeviceTableModel::SortRole).toLongLong(),
            qlonglong(120'000));
        QCOMPARE(shown->data(shown->index(0, DeviceTableModel::Avoidable)).toString(), QStringLiteral("120.0 µs"));
        QVERIFY(shown->data(shown->index(0, DeviceTableModel::Avoidable), Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("120.0 µs (120000 ns)")));
        QSet<QString> ranks;
        for (int r = 0; r < 3; ++r)
            ranks << shown->data(shown->index(r, DeviceTableModel::Rank)).toString();
        QCOMPARE(ranks, (QSet<QString>{"0", "1", "2"}));
        // A click shows that device's track, expanding its rank.
        const auto data = page.view()->data();
        page.view()->setFileCollapsed(2, true);
        QTest::mouseClick(page.deviceTable()->viewport(), Qt::LeftButton, {},
                          page.deviceTable()->visualRect(shown->index(0, DeviceTableModel::Device)).center());
        QVERIFY(!page.view()->layout().fileCollapsed(2));
        QCOMPARE(page.deviceModel()->entries()[2].file, uint32_t(2)); // rows in file order
        const int track = page.deviceModel()->trackOf(2);
        QVERIFY(track >= 0);
        QCOMPARE(data->tracks()[size_t(track)].file, uint32_t(2));
        QVERIFY(data->tracks()[size_t(track)].gpu);
        // Exports: the shown order, exact us and integer ns.
        QTemporaryDir dir;
        QString error;
        QVERIFY2(page.exportTable(TimelinePage::Table::Devices, dir.filePath("devices.csv"), &error),
                 qPrintable(error));
        QFile csv(dir.filePath("devices.csv"));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = csv.readAll().split('\n');
        QCOMPARE(lines.front(), QByteArray("rank,file,device,span_us,busy_percent,sync_gap_us,gaps,avoidable_us"));
        QVERIFY2(lines.at(1).startsWith("2,") && lines.at(1).endsWith(",120.000"), lines.at(1).constData());
        QVERIFY(page.exportTable(TimelinePage::Table::Devices, dir.filePath("devices.json"), &error));
        QFile json(dir.filePath("devices.json"));
        QVERIFY(json.open(QIODevice::ReadOnly));
        const QJsonArray rows = QJsonDocument::fromJson(json.readAll()).object().value("devices").toArray();
        QCOMPARE(rows.size(), 3);
        QCOMPARE(rows.at(0).toObject().value("avoidable_ns").toInteger(), qint64(120'000));
        QCOMPARE(rows.at(0).toObject().value("rank").toInteger(), qint64(2));
    }

    // The what-if of every source of the 26 MB shared trace: it arrives, equals
    // the header's avoidable (every call removed), and its time is printed.
    void whatIfOnTheSharedTrace()
    {
        const QString path = QStringLiteral(SYNCSCOPE_SHARED_DIR "/traces/hta_16rank_job_rank0.json.gz");
        if (!QFile::exists(path)) {
            if (qEnvironmentVariableIsSet("CI"))
                QFAIL("shared trace missing under CI");
            QSKIP("shared trace not present");
        }
        TimelinePage page;
        QVERIFY(load(page, {path}));
        SyncSourceModel *sources = page.syncSourceModel();
        QSignalSpy ready(&page, &TimelinePage::whatIfReady);
        QElapsedTimer clock;
        clock.start();
        for (int r = 0; r < sources->rowCount(); ++r)
            sources->setChecked(r, true);
        while (!page.whatIf() || page.whatIf()->sources != size_t(sources->rowCount()))
            QVERIFY(ready.wait(30000));
        qInfo("what-if of all %d sources of the 26 MB trace: %lld ms from the first check", sources->rowCount(),
              static_cast<long long>(clock.elapsed()));
        const SyncAnalysis &sa = page.data()->files()[0].sync;
        for (size_t d = 0; d < sa.devices.size(); ++d)
            QCOMPARE(page.whatIf()->byFile[0][d], sa.devices[d].avoidable);
    }

    // The avoidable time explains itself: no single source near the total says
    // so; a 0 avoidable gap says why (tests/data/resync.json: two syncs in
    // different ops wait for the same kernel; alone they save 3 and 2 µs,
    // together 12 µs).
    void avoidableExplainsItself()
    {
        TimelinePage page;
        QVERIFY(load(page, {QStringLiteral(SYNCSCOPE_TEST_DATA_DIR "/resync.json")}));
        const QString h = page.headerText();
        QVERIFY2(h.contains(QStringLiteral("no single source saves much: the syncs re-synchronize each other; "
                                           "removing all 2 blocking call(s) together saves 12.00 µs")),
                 qPrintable(h));
        QVERIFY(![&] {
            TimelinePage other;
            return load(other, {m_hand}) && other.headerText().contains(QStringLiteral("no single source"));
        }());

        SyncAnalysis a;
        a.devices.resize(1);
        a.devices[0].device = 3;
        a.devices[0].avoidable = 5;
        QVERIFY(
            whyNothingAvoidable(a, 3).startsWith(QStringLiteral("another blocking call waits for the same work")));
        a.devices[0].avoidable = 0;
        QVERIFY(whyNothingAvoidable(a, 3).startsWith(
            QStringLiteral("removing every blocking call saves this device nothing")));

        // On a real trace every gap saves 0 alone and in total: the details say why.
        const QString shared = QStringLiteral(SYNCSCOPE_SHARED_DIR "/traces/hta_16rank_job_rank0.json.gz");
        if (!QFile::exists(shared)) {
            if (qEnvironmentVariableIsSet("CI"))
                QFAIL("shared trace missing under CI");
            return;
        }
        QVERIFY(load(page, {shared}));
        const auto data = page.data();
        const SyncAnalysis &sa = data->files()[0].sync;
        QVERIFY(!sa.syncGaps.empty());
        page.view()->selectEvent(data->eventOf(0, sa.syncCalls[sa.syncGaps[0].syncCall].event), true);
        QVERIFY2(page.detailsPanel()
                     ->field(QStringLiteral("Why 0"))
                     .startsWith(QStringLiteral("removing every blocking call")),
                 qPrintable(page.detailsPanel()->field(QStringLiteral("Why 0"))));
        const SyncGapModel *gaps = page.syncGapModel();
        QVERIFY(gaps->data(gaps->index(0, SyncGapModel::Avoidable), Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral(
                        "would finish no earlier without this gap's blocking call alone: removing every")));
    }

    // Names that tell the files apart: ranks by their number and the part of
    // the name that differs, captures by variant and N.
    void fileLabelsTellFilesApart()
    {
        std::vector<QString> names;
        std::vector<int64_t> ranks;
        for (int r = 0; r < 8; ++r) {
            names.push_back(QStringLiteral("worker%1_step_12.16941282015%2.pt.trace.json").arg(r).arg(40 + r));
            ranks.push_back(r);
        }
        const std::vector<QString> dlrm = fileLabels(names, ranks);
        QCOMPARE(dlrm[0], QStringLiteral("Rank 0 · worker0"));
        QCOMPARE(dlrm[7], QStringLiteral("Rank 7 · worker7"));
        QCOMPARE(fileLabels({QStringLiteral("sampled_rank-0.json.gz"), QStringLiteral("sampled_rank-1.json.gz")},
                            {0, 1}),
                 (std::vector<QString>{QStringLiteral("Rank 0 · rank-0"), QStringLiteral("Rank 1 · rank-1")}));
        // Captures: variant, N and device; the same run twice keeps its time to tell them apart.
        const std::vector<QString> caps =
            fileLabels({QStringLiteral("20261201-101500-123-naive-cpu-n100000.json.gz"),
                        QStringLiteral("20261201-101512-004-static-cpu-n100000.json.gz"),
                        QStringLiteral("20261201-101530-777-static-cpu-n100000.json.gz")},
                       {kNoValue, kNoValue, kNoValue});
        QCOMPARE(caps[0], QStringLiteral("naive, N=100000 (cpu)"));
        QVERIFY2(caps[1].startsWith(QStringLiteral("static, N=100000 (cpu) · ")) && caps[1] != caps[2],
                 qPrintable(caps[1]));
        QCOMPARE(fileLabels({QStringLiteral("20261201-101500-123-fused-cuda-n1000.json.gz")}, {kNoValue})[0],
                 QStringLiteral("fused, N=1000 (cuda)"));
        // One plain file: its name.
        QCOMPARE(fileLabels({QStringLiteral("trace.json")}, {kNoValue})[0], QStringLiteral("trace.json"));
        // Every label unique even when names share all but one token.
        const std::vector<QString> two = fileLabels({QStringLiteral("a.x.json"), QStringLiteral("a.y.json")},
                                                    {kNoValue, kNoValue});
        QCOMPARE(two, (std::vector<QString>{QStringLiteral("x"), QStringLiteral("y")}));
    }

    // An unknown runtime is named, never "0 sync call(s)".
    void unknownRuntimeIsNamed()
    {
        const QString path = m_tmp.filePath(QStringLiteral("unknown_runtime.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"traceEvents": [
            {"ph":"X","cat":"cuda_runtime","name":"mluLaunchKernel","pid":1,"tid":1,"ts":1,"dur":1},
            {"ph":"X","cat":"cuda_runtime","name":"mluQueueSync","pid":1,"tid":1,"ts":3,"dur":5},
            {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":2,"dur":4,"args":{"device":0,"stream":7}}]})");
        f.close();
        TimelinePage page;
        QVERIFY(load(page, {path}));
        const QString h = page.headerText();
        QVERIFY2(h.contains(QStringLiteral(
                     "no runtime calls syncscope knows (names seen: mluLaunchKernel, mluQueueSync): "
                     "sync analysis unavailable")),
                 qPrintable(h));
        QVERIFY2(!h.contains(QStringLiteral("sync call(s)")), qPrintable(h));
        // It leads, and no figure that would read as a verdict follows.
        QVERIFY2(h.startsWith(QStringLiteral("no runtime calls syncscope knows")), qPrintable(h));
        QVERIFY2(!h.contains(QStringLiteral("gap(s)")) && !h.contains(QStringLiteral("earlier")), qPrintable(h));
        QVERIFY(load(page, {m_hand}));
        QVERIFY(page.headerText().contains(QStringLiteral("2 sync call(s)")));
    }

    // Long host calls that are not syncs: under the sync sources, in the details, never in the figures.
    void longHostCallsAreShown()
    {
        TimelinePage page;
        page.resize(1400, 800);
        page.show();
        QVERIFY(load(page, {QStringLiteral(SYNCSCOPE_TEST_DATA_DIR "/long_host_calls.json")}));
        const QString t = page.longCallsText();
        QVERIFY2(t.startsWith(QStringLiteral("<b>1 long host call(s)</b> that are not syncs, 2.000 ms in all")),
                 qPrintable(t));
        QVERIFY2(t.contains(QStringLiteral("cudaLaunchKernel in aten::mm, 2.000 ms")), qPrintable(t));
        QVERIFY(load(page, {m_hand}));
        QVERIFY(page.longCallsText().isEmpty());
    }

    // A saving with no sync gap says in words where it comes from.
    void aSavingWithNoGapSaysSo()
    {
        const QString shared = QStringLiteral(SYNCSCOPE_SHARED_DIR
                                              "/traces/tracelens_vllm_hip_graph_execution.json.gz");
        if (!QFile::exists(shared)) {
            if (qEnvironmentVariableIsSet("CI"))
                QFAIL("the shared traces are missing");
            QSKIP("no shared traces");
        }
        TimelinePage page;
        QVERIFY(load(page, {shared}));
        const QString h = page.headerText();
        QVERIFY2(h.contains(QStringLiteral("would finish up to <b>4.070 µs</b> earlier")), qPrintable(h));
        QVERIFY2(h.contains(QStringLiteral("in 0 gap(s) (the saving comes from no gap")), qPrintable(h));
        QVERIFY(load(page, {m_hand}));
        QVERIFY(!page.headerText().contains(QStringLiteral("the saving comes from no gap")));
    }

    // At 1600 px the side panel opens wide enough for every number of the gap,
    // source and range tables; names elide in the middle; the handle is visible.
    void sidePanelShowsEveryNumber()
    {
        TimelinePage page;
        page.resize(1600, 1000);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        const QString shared = QStringLiteral(SYNCSCOPE_SHARED_DIR "/traces/hta_16rank_job_rank0.json.gz");
        QVERIFY(load(page, {QFile::exists(shared) ? shared : m_hand}));
        QCoreApplication::processEvents();
        auto shows = [](QTableView *t, std::initializer_list<int> cols) {
            QStringList cut;
            for (int c : cols)
                if (!t->isColumnHidden(c) &&
                    t->columnViewportPosition(c) + t->columnWidth(c) > t->viewport()->width())
                    cut << t->model()->headerData(c, Qt::Horizontal).toString();
            return cut.join(QStringLiteral(", "));
        };
        QCOMPARE(shows(page.gapTable(), {SyncGapModel::Avoidable, SyncGapModel::Blocked, SyncGapModel::Duration,
                                         SyncGapModel::Start, SyncGapModel::Device}),
                 QString());
        QCOMPARE(shows(page.sourceTable(), {SyncSourceModel::Avoidable, SyncSourceModel::Count,
                                            SyncSourceModel::Gaps, SyncSourceModel::GapTime}),
                 QString());
        QCOMPARE(page.gapTable()->textElideMode(), Qt::ElideMiddle);
        QCOMPARE(page.sourceTable()->textElideMode(), Qt::ElideMiddle);
        QSplitter *split = nullptr;
        for (QSplitter *sp : page.findChildren<QSplitter *>())
            if (sp->orientation() == Qt::Horizontal)
                split = sp;
        QVERIFY(split);
        QCOMPARE(split->handleWidth(), 6);
        QVERIFY2(split->sizes().value(1) >= 360, qPrintable(QString::number(split->sizes().value(1))));
    }

    // A file that ends early says so first, never "no GPU activity in this trace".
    void truncatedTraceSaysWhatItCovers()
    {
        TimelinePage page;
        QVERIFY(load(page, {QStringLiteral(SYNCSCOPE_TEST_DATA_DIR "/truncated.json")}));
        const QString h = page.headerText();
        QVERIFY2(h.startsWith(QStringLiteral("<b>the file ends early at byte 227: the analysis covers its first "
                                             "0.003 ms (2 events)</b>")),
                 qPrintable(h));
        QVERIFY2(h.contains(QStringLiteral("no GPU activity in the part read")), qPrintable(h));
        QVERIFY(!h.contains(QStringLiteral("no GPU activity in this trace")));
        QVERIFY(load(page, {m_hand}));
        QVERIFY(!page.headerText().contains(QStringLiteral("ends early")));
    }

    // A file cut inside its kinds of events says what is missing and states no finding.
    void aFileCutByKindIsIncomplete()
    {
        TimelinePage page;
        QVERIFY(load(page, {QStringLiteral(SYNCSCOPE_TEST_DATA_DIR "/truncated_by_kind.json")}));
        const QString h = page.headerText();
        QVERIFY2(
            h.startsWith(QStringLiteral("<b>the file ends early at byte 1801: the analysis covers its first "
                                        "0.990 ms (18 events)</b> · <b>events stop early by kind (runtime calls "
                                        "at 0.086 ms, GPU activity at 0.058 ms, of the 0.990 ms read)")),
            qPrintable(h));
        for (const char *verdict : {"GPU busy", "sync call(s)", "earlier", "gap(s)"})
            QVERIFY2(!h.contains(QLatin1String(verdict)), qPrintable(h));
        // One event count: the header's is the sentence's.
        QVERIFY2(h.endsWith(QStringLiteral("18 events")), qPrintable(h));
    }

    // File ▸ Export Report…: the open trace as HTML or Markdown, on a worker.
    void exportReport()
    {
        TimelinePage page;
        QVERIFY(!page.exportReportAction()->isEnabled());
        QSignalSpy failed(&page, &TimelinePage::reportFailed);
        page.startReport(m_tmp.filePath(QStringLiteral("none.html")));
        QCOMPARE(failed.count(), 1);
        QVERIFY(!QFile::exists(m_tmp.filePath(QStringLiteral("none.html"))));
        QVERIFY(load(page, {m_hand}));
        QVERIFY(page.exportReportAction()->isEnabled());
        QCOMPARE(page.exportReportAction()->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
        for (const QString name : {QStringLiteral("report.html"), QStringLiteral("report.md")}) {
            QSignalSpy written(&page, &TimelinePage::reportWritten);
            const QString path = m_tmp.filePath(name);
            page.startReport(path);
            QVERIFY(written.wait(10000));
            QCOMPARE(written.front().front().toString(), path);
            const QString text = readLines(path).join(QLatin1Char('\n'));
            // The header's figure (44.25 µs, to the µs in ms) and the sources' rules.
            QVERIFY2(text.contains(QStringLiteral("would finish up to ")), qPrintable(text.left(400)));
            QVERIFY(text.contains(QStringLiteral("0.044 ms")));
            QVERIFY(text.contains(QStringLiteral("A tensor copied to the host")));
            QVERIFY(text.contains(QStringLiteral("A scalar read back to the host")));
            QCOMPARE(text.startsWith(QStringLiteral("<!DOCTYPE html>")), name.endsWith(QLatin1String(".html")));
        }
        // An unwritable place: one sentence, the program stays up.
        page.startReport(m_tmp.filePath(QStringLiteral("no/such/dir/r.html")));
        QVERIFY(failed.wait(10000));
        QVERIFY(!failed.back().front().toString().isEmpty());
    }

    void libraryPrefixChangesUserFrame()
    {
        TimelinePage page;
        page.resize(1400, 800);
        page.show();
        QVERIFY(load(page, {m_hand}));
        QCOMPARE(page.analysisOptions().libPrefixes.size(), size_t(0));
        const int row = sourceRow(page, QStringLiteral("cudaStreamSynchronize"));
        QVERIFY(row >= 0);
        const SyncSourceModel *sources = page.syncSourceModel();
        QCOMPARE(sources->data(sources->index(row, SyncSourceModel::UserFrame)).toString(),
                 QStringLiteral("mylib/util.py(5): fetch"));
        page.view()->setVisibleRange(kBase + 100'000, kBase + 400'000);
        const TimeMapping before = page.view()->mapping();

        AnalysisOptions o;
        o.libPrefixes = {"mylib/"};
        QSignalSpy done(&page, &TimelinePage::loadFinished);
        page.setAnalysisOptions(o);
        QVERIFY(done.wait(10000));
        // the sync's user frame is now the caller of the library
        const int row2 = sourceRow(page, QStringLiteral("cudaStreamSynchronize"));
        QCOMPARE(sources->data(sources->index(row2, SyncSourceModel::UserFrame)).toString(),
                 QStringLiteral("train.py(10): main"));
        const SyncGapModel *gaps = page.syncGapModel();
        bool found = false;
        for (int r = 0; r < gaps->rowCount(); ++r)
            if (gaps->callName(r) == QStringLiteral("cudaStreamSynchronize")) {
                QCOMPARE(gaps->data(gaps->index(r, SyncGapModel::UserFrame)).toString(),
                         QStringLiteral("train.py(10): main"));
                QCOMPARE(gaps->data(gaps->index(r, SyncGapModel::PyFrame)).toString(),
                         QStringLiteral("mylib/util.py(5): fetch"));
                found = true;
            }
        QVERIFY(found);
        // the same as the core with the same option
        const SyncAnalysis sa = analyzeSyncs(*loadTrace(m_hand.toStdString()), o);
        for (const SyncCall &c : sa.syncCalls)
            QVERIFY(!c.userFrame.valid() ||
                    page.data()->text(0, c.userFrame) == QStringLiteral("train.py(10): main"));
        // a re-analysis keeps the place in the trace
        QCOMPARE(page.view()->mapping().start(), before.start());
        QCOMPARE(page.view()->mapping().end(), before.end());
        // the setting persists for the next page
        TimelinePage next;
        QCOMPARE(next.analysisOptions().libPrefixes, std::vector<std::string>{"mylib/"});
        page.setAnalysisOptions({});
        QVERIFY(done.wait(10000));
        QCOMPARE(TimelinePage().analysisOptions().libPrefixes.size(), size_t(0));
    }

    void optionsDialog()
    {
        AnalysisOptionsDialog dialog;
        AnalysisOptions o;
        o.libPrefixes = {"a/", "b/c/"};
        o.stepRegex = "^step";
        dialog.setOptions(o);
        QCOMPARE(dialog.options().libPrefixes, o.libPrefixes);
        QCOMPARE(dialog.options().stepRegex, o.stepRegex);
        dialog.prefixEdit()->setPlainText(QStringLiteral("  x/ \n\n y/\n"));
        QCOMPARE(dialog.options().libPrefixes, (std::vector<std::string>{"x/", "y/"}));
        dialog.stepEdit()->setText(QStringLiteral("(unclosed"));
        QVERIFY(dialog.stepPatternError().contains(QStringLiteral("not a valid regular expression")));
        dialog.stepEdit()->setText(QStringLiteral("ok"));
        QVERIFY(dialog.stepPatternError().isEmpty());
    }

    // The red marks come from the blocking calls the core found, the pageable
    // copy among them, not from a list of names.
    void pageableCopyIsMarkedRed()
    {
        const auto data = TimelineData::build({loadTrace(m_hand.toStdString())});
        const TimelineFile &f = data->files()[0];
        int copyCall = -1;
        for (size_t c = 0; c < f.sync.syncCalls.size(); ++c)
            if (f.sync.syncCalls[c].pageableCopy)
                copyCall = int(c);
        QVERIFY(copyCall >= 0);
        const TimelineEvent e = data->eventOf(0, f.sync.syncCalls[size_t(copyCall)].event);
        QVERIFY(e.valid());
        const TimelineTrack &host = data->tracks()[size_t(e.track)];
        QVERIFY(std::find(host.gapCalls.begin(), host.gapCalls.end(), uint32_t(copyCall)) != host.gapCalls.end());
        TimelineView view;
        view.resize(1200, 500);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setData(data);
        view.viewport()->grab();
        QCOMPARE(view.frame().state<BlockingCallsPass::State>(false).gapCalls.size(),
                 size_t(2)); // the sync and the copy
        const QRect copyRect = view.eventRect(e);
        bool marked = false;
        for (const QRect &r : view.frame().state<BlockingCallsPass::State>(false).gapCalls)
            marked |= r.intersects(copyRect);
        QVERIFY(marked);
    }

    void detailsOfABlockingCall()
    {
        TimelinePage page;
        page.resize(1400, 800);
        page.show();
        QVERIFY(load(page, {m_hand}));
        const auto data = page.data();
        const SyncAnalysis &sa = data->files()[0].sync;
        for (const SyncCall &c : sa.syncCalls) {
            page.view()->selectEvent(data->eventOf(0, c.event), true);
            EventDetailsPanel *d = page.detailsPanel();
            QVERIFY(
                d->field(QStringLiteral("Avoidable")).startsWith(formatDuration(c.avoidable) + QLatin1Char(' ')));
            if (c.pageableCopy) {
                QVERIFY(!d->field(QStringLiteral("Hidden sync")).isEmpty());
                QVERIFY(d->field(QStringLiteral("Avoidable")).startsWith(QStringLiteral("34.00 µs ")));
                QCOMPARE(d->field(QStringLiteral("User frame")), QStringLiteral("train.py(10): main"));
                QCOMPARE(d->field(QStringLiteral("Step")), QStringLiteral("ProfilerStep#1"));
            } else {
                QVERIFY(d->field(QStringLiteral("Hidden sync")).isEmpty());
                QCOMPARE(d->field(QStringLiteral("Python frame")), QStringLiteral("mylib/util.py(5): fetch"));
                QCOMPARE(d->field(QStringLiteral("Step")), QStringLiteral("ProfilerStep#0"));
            }
        }
    }

    // A synchronous HIP copy under torch.tensor(...): its rule's rewrite, and a
    // 493 ms wait while the GPU ran 5 us is said to be outside the trace
    // (tests/data/hip_sync_copy.json).
    void aSynchronousHipCopyGetsItsRewriteAndItsWait()
    {
        TimelinePage page;
        page.resize(1400, 800);
        page.show();
        QVERIFY(load(page, {QStringLiteral(SYNCSCOPE_TEST_DATA_DIR "/hip_sync_copy.json")}));
        const auto data = page.data();
        const SyncAnalysis &sa = data->files()[0].sync;
        QCOMPARE(sa.syncCalls.size(), size_t(1));
        page.view()->selectEvent(data->eventOf(0, sa.syncCalls[0].event), true);
        EventDetailsPanel *d = page.detailsPanel();
        QVERIFY2(d->field(QStringLiteral("What to change")).contains(QStringLiteral("[hip-to-device-sync]")),
                 qPrintable(d->field(QStringLiteral("What to change"))));
        QCOMPARE(
            d->field(QStringLiteral("Waited outside the trace")),
            QStringLiteral("the GPU ran work for %1 of this call's %2: the rest of the wait was for something "
                           "the trace does not show (the runtime's or driver's set-up, lazy code loading, or "
                           "another process on the GPU)")
                .arg(formatDuration(5'000), formatDuration(493'000'000)));
        QCOMPARE(gpuBusyWithin(sa, 0, 493'500'000), TimeNs(75'000)); // 30 + 5 + 40 us of work
        QCOMPARE(gpuBusyWithin(sa, 25'000, 493'102'000), TimeNs(27'000));
        // A short blocking call is not explained this way.
        QVERIFY(load(page, {m_hand}));
        for (const SyncCall &c : page.data()->files()[0].sync.syncCalls) {
            page.view()->selectEvent(page.data()->eventOf(0, c.event), true);
            QVERIFY(page.detailsPanel()->field(QStringLiteral("Waited outside the trace")).isEmpty());
        }
    }

    // The runtime in the header, the device's name on its GPU tracks, and a graph
    // launch's kernels in its details (tests/data: hip_item_sync.json, graph_launch.json).
    void runtimeDeviceNamesAndGraphLaunches()
    {
        TimelinePage page;
        page.resize(1400, 800);
        page.show();
        QVERIFY(load(page, {QStringLiteral(SYNCSCOPE_TEST_DATA_DIR "/hip_item_sync.json")}));
        QVERIFY2(page.headerText().contains(QStringLiteral("runtime HIP (ROCm)")), qPrintable(page.headerText()));
        bool named = false;
        for (const TimelineGroup &g : page.data()->groups())
            named |= g.kind == TimelineGroup::Kind::Gpu &&
                     g.title.contains(QStringLiteral(" · AMD Instinct MI300X"));
        QVERIFY(named);

        QVERIFY(load(page, {QStringLiteral(SYNCSCOPE_TEST_DATA_DIR "/graph_launch.json")}));
        QVERIFY2(page.headerText().contains(QStringLiteral("runtime CUDA")), qPrintable(page.headerText()));
        page.findEdit()->setText(QStringLiteral("cudaGraphLaunch"));
        page.findNext();
        QVERIFY(page.view()->selectedEvent().valid());
        // five kernels of 10 us each
        QCOMPARE(page.detailsPanel()->field(QStringLiteral("Graph")),
                 QStringLiteral("5 kernel(s), GPU time %1").arg(formatDuration(50'000)));
        // One flow, to the graph's first kernel (graph_k1 at 95 us), not five.
        const auto &links = page.view()->links();
        QCOMPARE(int(links.size()), 1);
        QCOMPARE(QString::fromUtf8(page.data()->name(links[0].second).data(),
                                   int(page.data()->name(links[0].second).size())),
                 QStringLiteral("graph_k1"));
        page.findEdit()->setText(QStringLiteral("graph_k4"));
        page.findNext();
        QVERIFY2(page.detailsPanel()
                     ->field(QStringLiteral("Graph"))
                     .startsWith(QStringLiteral("part of a graph launched by cudaGraphLaunch: 5 activity(ies)")),
                 qPrintable(page.detailsPanel()->field(QStringLiteral("Graph"))));
        page.findEdit()->setText(QStringLiteral("cudaLaunchKernel"));
        page.findNext();
        QVERIFY(page.detailsPanel()->field(QStringLiteral("Graph")).isEmpty());
    }

    // A Stream Wait Event pair: the waiting kernel links back to what it waited
    // for, and the record names its host call.
    void streamWaitFlows()
    {
        TimelinePage page;
        page.resize(1400, 800);
        page.show();
        QVERIFY(load(page, {QStringLiteral(SYNCSCOPE_TEST_DATA_DIR "/stream_wait_event.json")}));
        page.findEdit()->setText(QStringLiteral("side_B"));
        page.findNext();
        QVERIFY(page.view()->selectedEvent().valid());
        bool fromA = false;
        for (const auto &[from, to] : page.view()->links())
            fromA |= page.data()->name(from) == std::string_view("compute_A") &&
                     to == page.view()->selectedEvent();
        QVERIFY(fromA);
        QVERIFY2(page.detailsPanel()
                     ->field(QStringLiteral("Stream wait"))
                     .contains(QStringLiteral("Stream Wait Event")),
                 qPrintable(page.detailsPanel()->field(QStringLiteral("Stream wait"))));
        page.findEdit()->setText(QStringLiteral("compute_A"));
        page.findNext();
        QVERIFY(page.detailsPanel()->field(QStringLiteral("Awaited by")).startsWith(QStringLiteral("1 activity")));
        page.findEdit()->setText(QStringLiteral("Stream Wait Event"));
        page.findNext();
        QVERIFY2(page.detailsPanel()
                     ->field(QStringLiteral("Host call"))
                     .startsWith(QStringLiteral("cudaStreamWaitEvent")),
                 qPrintable(page.detailsPanel()->field(QStringLiteral("Host call"))));
    }

    // The details' absolute start keeps all 16 integer digits and the ns (a
    // double holds multiples of 0.25 µs there and would print .000).
    void detailsStartIsExact()
    {
        TimelinePage page;
        page.resize(1400, 800);
        page.show();
        QVERIFY(load(page, {m_hand}));
        page.findEdit()->setText(QStringLiteral("train.py(20): log"));
        page.findNext();
        QVERIFY(page.view()->selectedEvent().valid());
        QCOMPARE(page.detailsPanel()->field(QStringLiteral("Start")),
                 QStringLiteral("900.0 µs after trace start (ts 1712195495519900.047 µs)"));
    }

    void csvExportsAreExact()
    {
        TimelinePage page;
        page.resize(1400, 800);
        QVERIFY(load(page, {m_hand}));
        const QString gapsPath = m_tmp.filePath(QStringLiteral("gaps.csv"));
        QString error;
        QVERIFY2(page.exportGapsCsv(gapsPath, &error), qPrintable(error));
        QStringList lines = readLines(gapsPath);
        QCOMPARE(lines.size(), 3);
        QCOMPARE(lines[0], QStringLiteral("file,rank,device,start_us,gap_us,blocked_us,avoidable_us,sync,op,"
                                          "user_frame,step,root_op,py_frame"));
        // in the table's order (avoidable first), 16 integer digits of µs kept
        QCOMPARE(lines[1], m_hand + QStringLiteral(",,0,1712195495519550.000,155.000,34.000,34.000,"
                                                   "cudaMemcpyAsync,aten::to,train.py(10): main,ProfilerStep#1,"
                                                   "ProfilerStep#1,train.py(10): main"));
        QVERIFY2(lines[2].startsWith(m_hand +
                                     QStringLiteral(",,0,1712195495519017.000,299.000,10.250,10.250,"
                                                    "cudaStreamSynchronize,aten::item,mylib/util.py(5): fetch,")),
                 qPrintable(lines[2]));
        const SyncAnalysis sa = analyzeSyncs(*loadTrace(m_hand.toStdString()));
        QVERIFY(lines[2].contains(QString::fromStdString("," + formatMicros(sa.syncGaps[0].avoidable) + ",")));

        const QString sourcesPath = m_tmp.filePath(QStringLiteral("sources.csv"));
        QVERIFY2(page.exportSourcesCsv(sourcesPath, &error), qPrintable(error));
        lines = readLines(sourcesPath);
        QCOMPARE(lines.size(), 3);
        QCOMPARE(lines[0], QStringLiteral("file,rank,sync,op,user_frame,count,gaps,gap_us,avoidable_us,advice"));
        QCOMPARE(lines[1],
                 m_hand +
                     QStringLiteral(",,cudaMemcpyAsync,aten::to,train.py(10): main,1,1,155.000,34.000,to-host"));
        QCOMPARE(lines[2],
                 m_hand + QStringLiteral(",,cudaStreamSynchronize,aten::item,mylib/util.py(5): fetch,1,1,"
                                         "299.000,10.250,item"));
        // an unwritable place: one sentence, no file
        QVERIFY(!page.exportGapsCsv(m_tmp.filePath(QStringLiteral("no/such/dir/gaps.csv")), &error));
        QVERIFY2(!error.isEmpty(), "no reason given");
        QVERIFY(!QFile::exists(m_tmp.filePath(QStringLiteral("no/such/dir/gaps.csv"))));
    }
};

QTEST_MAIN(TstTimelineSync)
#include "tst_timelinesync.moc"
