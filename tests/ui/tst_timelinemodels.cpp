// The timeline's data and models: layout, sync gaps, the gap table, range
// statistics and find, on a synthetic trace whose answers are known.
#include "shared/timeformat.h"
#include "synthetictrace.h"
#include "timeline/namematcher.h"
#include "timeline/rangestatsmodel.h"
#include "timeline/syncgapmodel.h"
#include "timeline/timelinedata.h"
#include "trace/traceloader.h"

#include <QAbstractItemModelTester>
#include <QSortFilterProxyModel>
#include <QtTest>

using namespace syncscope;
using namespace syncscope::ui;

class TstTimelineModels : public QObject {
    Q_OBJECT
private:
    std::shared_ptr<const TimelineData> make(size_t steps = 4, size_t kernels = 10)
    {
        test::SyntheticTrace t;
        t.steps = steps;
        t.kernelsPerStep = kernels;
        return TimelineData::build({t.build()});
    }

private Q_SLOTS:
    // One percentage everywhere: the app's is the CLI's and the report's.
    void percentIsTheCoresEverywhere()
    {
        QCOMPARE(ui::formatPercent(-15, 10'000), QStringLiteral("-0.2%")); // -0.15 %: half away from zero
        QCOMPARE(ui::formatPercent(15, 10'000), QStringLiteral("0.2%"));
        QCOMPARE(ui::formatPercent(-4, 10'000), QStringLiteral(">-0.1%")); // not zero: never "0.0%"
        QCOMPARE(ui::formatPercent(3, 10'000), QStringLiteral("<0.1%"));
        QCOMPARE(ui::formatPercent(300'000, 4'000'000'000), QStringLiteral("<0.1%")); // 300 us of 4 s
        QCOMPARE(ui::formatPercent(0, 10'000), QStringLiteral("0.0%"));
        QCOMPARE(ui::formatPercent(1, 3), QStringLiteral("33.3%"));
        QCOMPARE(ui::formatPercent(5, 0), QStringLiteral("-")); // no whole, no share
        for (const auto &[part, whole] : std::vector<std::pair<int64_t, int64_t>>{
                 {-15, 10'000}, {2, 3}, {-1, 2'000}, {INT64_MAX, INT64_MAX}, {INT64_MIN + 1, 7}, {0, -1}})
            QCOMPARE(ui::formatPercent(part, whole),
                     QString::fromStdString(syncscope::formatPercent(part, whole)));
    }

    void layoutOrdersCpuBeforeGpu()
    {
        const auto d = make();
        QCOMPARE(d->tracks().size(), size_t(4));
        QCOMPARE(d->tracks()[0].name, QStringLiteral("main thread"));
        QCOMPARE(d->tracks()[1].name, QStringLiteral("data loader"));
        QVERIFY(!d->tracks()[0].gpu && !d->tracks()[1].gpu);
        QCOMPARE(d->tracks()[2].name, QStringLiteral("stream 7"));
        QCOMPARE(d->tracks()[3].name, QStringLiteral("stream 8"));
        QVERIFY(d->tracks()[2].gpu && d->tracks()[3].gpu);
        QCOMPARE(d->tracks()[2].device, int64_t(0));
        // main thread: step > op > launch, so three rows
        QCOMPARE(d->tracks()[0].levels.size(), size_t(3));
        // two processes, the host one first
        QCOMPARE(d->groups().size(), size_t(2));
        QCOMPARE(d->groups().front().title, QStringLiteral("python train.py (pid 4242)"));
        QCOMPARE(d->groups().front().tracks, (std::vector<int>{0, 1}));
    }

    void legacyStreamTidsAreNotDoubled()
    {
        const std::string text = R"({"traceEvents": [
            {"ph": "X", "cat": "Kernel", "name": "k", "pid": 0, "tid": "stream 7", "ts": 1, "dur": 2,
             "args": {"device": 0, "stream": 7}},
            {"ph": "X", "cat": "Kernel", "name": "k", "pid": 0, "tid": 8, "ts": 1, "dur": 2,
             "args": {"device": 0, "stream": 8}}]})";
        const auto d = TimelineData::build({loadTraceFromMemory(text, "legacy.json")});
        QStringList names;
        for (const auto &t : d->tracks())
            names << t.name;
        QVERIFY2(names.contains(QStringLiteral("stream 7")), qPrintable(names.join(", ")));
        QVERIFY2(names.contains(QStringLiteral("stream 8")), qPrintable(names.join(", ")));
        QVERIFY(!names.contains(QStringLiteral("stream stream 7")));
    }

    void syncGapsAndSummary()
    {
        const auto d = make(5, 8);
        QCOMPARE(d->gaps().size(), size_t(4));
        const TimelineFile &f = d->files()[0];
        for (const TimelineGap &g : d->gaps()) {
            const SyncGap &sg = f.sync.syncGaps[g.gap];
            QCOMPARE(sg.interval.length(), test::SyntheticTrace::gapNs());
            QCOMPARE(f.model->str(f.model->tracks()[f.sync.syncCalls[sg.syncCall].event.track]
                                      .name[f.sync.syncCalls[sg.syncCall].event.index]),
                     std::string_view("cudaStreamSynchronize"));
        }
        QCOMPARE(d->summary().syncCalls, uint64_t(5));
        QCOMPARE(d->summary().syncGaps, uint64_t(4));
        QCOMPARE(d->summary().syncGapTime, 4 * test::SyntheticTrace::gapNs());
        QVERIFY(d->summary().busyPercent() > 0 && d->summary().busyPercent() < 100);
        // gap bands are drawn on both GPU streams of device 0
        QCOMPARE(f.deviceGaps.size(), size_t(1));
        QCOMPARE(f.deviceGaps[0].tracks.size(), size_t(2));
    }

    void widestAndLevels()
    {
        const auto d = make(40, 50);
        for (int ti = 0; ti < int(d->tracks().size()); ++ti) {
            const Track &mt = d->modelTrack(ti);
            for (const TimelineLevel &lvl : d->tracks()[size_t(ti)].levels) {
                // ends sorted within a level: what the level of detail relies on
                for (size_t i = 1; i < lvl.events.size(); ++i)
                    QVERIFY(mt.end(lvl.events[i - 1]) <= mt.start[lvl.events[i]]);
                // block maxima agree with a plain scan on many ranges
                for (size_t from = 0; from < lvl.events.size(); from += 37)
                    for (size_t to = from + 1; to <= lvl.events.size(); to += 611) {
                        TimeNs best = -1;
                        for (size_t p = from; p < to; ++p)
                            best = std::max(best, mt.dur[lvl.events[p]]);
                        QCOMPARE(mt.dur[lvl.events[TimelineData::widest(mt, lvl, from, to)]], best);
                    }
            }
        }
    }

    void linkedByFlowsAndCorrelation()
    {
        const auto d = make();
        // the first launch on the main thread
        const TimelineTrack &main = d->tracks()[0];
        const Track &mt = d->modelTrack(0);
        const TimelineLevel &launches = main.levels[2];
        const TimelineEvent launch{0, launches.events[0]};
        QCOMPARE(d->name(launch), std::string_view("cudaLaunchKernel"));
        auto links = d->linkedEvents(launch);
        QCOMPARE(links.size(), size_t(1));
        QCOMPARE(links[0].first, launch);
        QVERIFY(d->tracks()[size_t(links[0].second.track)].gpu);
        QCOMPARE(d->modelTrack(links[0].second.track).correlation[links[0].second.index],
                 mt.correlation[launch.index]);
        // and the kernel points back at its launch
        const auto back = d->linkedEvents(links[0].second);
        QCOMPARE(back.size(), size_t(1));
        QCOMPARE(back[0].first, launch);

        // without flows the correlation id links them, launch first
        test::SyntheticTrace t;
        t.flows = false;
        const auto nf = TimelineData::build({t.build()});
        const TimelineEvent l2{0, nf->tracks()[0].levels[2].events[0]};
        const auto links2 = nf->linkedEvents(l2);
        QCOMPARE(links2.size(), size_t(1));
        QCOMPARE(links2[0].first, l2);
        QCOMPARE(nf->category(links2[0].second), std::string_view("kernel"));
    }

    void gapModel()
    {
        const auto d = make(6, 5);
        SyncGapModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        model.setTimelineData(d);
        QCOMPARE(model.rowCount(), 5);
        QCOMPARE(model.columnCount(), int(SyncGapModel::ColumnCount));
        QCOMPARE(model.data(model.index(0, SyncGapModel::Call)).toString(),
                 QStringLiteral("cudaStreamSynchronize"));
        QCOMPARE(model.data(model.index(0, SyncGapModel::Op)).toString(), QStringLiteral("aten::item"));
        QCOMPARE(model.data(model.index(0, SyncGapModel::RootOp)).toString(), QStringLiteral("ProfilerStep#0"));
        QCOMPARE(model.data(model.index(2, SyncGapModel::Duration), SyncGapModel::SortRole).toLongLong(),
                 qlonglong(test::SyntheticTrace::gapNs()));
        QCOMPARE(model.data(model.index(0, SyncGapModel::Device)).toString(), QStringLiteral("0"));
        QSortFilterProxyModel proxy;
        QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setSourceModel(&model);
        proxy.setSortRole(SyncGapModel::SortRole);
        proxy.sort(SyncGapModel::Start, Qt::DescendingOrder);
        QCOMPARE(proxy.mapToSource(proxy.index(0, 0)).row(), 4);
        model.setTimelineData(nullptr);
        QCOMPARE(model.rowCount(), 0);
    }

    void rangeStats()
    {
        const auto d = make(3, 4);
        const Track &mt = d->modelTrack(0);
        // the second step exactly: ProfilerStep#1 on depth 0 of the main thread
        const TimelineEvent step{0, d->tracks()[0].levels[0].events[1]};
        QCOMPARE(d->name(step), std::string_view("ProfilerStep#1"));
        const TimeNs t0 = mt.start[step.index], t1 = mt.end(step.index);
        auto rows = RangeStatsModel::compute(*d, t0, t1);
        QVERIFY(!rows.empty());
        auto find = [&](const QString &name) -> const RangeStatsModel::Row * {
            for (const auto &r : rows)
                if (r.name == name)
                    return &r;
            return nullptr;
        };
        const auto *launch = find(QStringLiteral("cudaLaunchKernel"));
        QVERIFY(launch);
        QCOMPARE(launch->count, uint64_t(4));
        QCOMPARE(launch->total, TimeNs(4 * 5'000));
        const auto *s = find(QStringLiteral("ProfilerStep#1"));
        QVERIFY(s);
        QCOMPARE(s->count, uint64_t(1));
        QCOMPARE(s->total, t1 - t0);
        QVERIFY(s->self < s->total);
        QVERIFY(!find(QStringLiteral("ProfilerStep#0")));
        // longest first
        for (size_t i = 1; i < rows.size(); ++i)
            QVERIFY(rows[i - 1].total >= rows[i].total);

        RangeStatsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRows(rows);
        QCOMPARE(model.rowCount(), int(rows.size()));
        QCOMPARE(model.data(model.index(0, RangeStatsModel::Name)).toString(), rows[0].name);
        QCOMPARE(model.data(model.index(0, RangeStatsModel::Total), RangeStatsModel::SortRole).toLongLong(),
                 qlonglong(rows[0].total));
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    void findByName()
    {
        const auto d = make(3, 4);
        NameMatcher sub(*d, QStringLiteral("KERNEL"), false); // case-insensitive substring
        QVERIFY(sub.isValid());
        // every launch and every kernel whose name contains "kernel"
        uint64_t expected = 0;
        for (int ti = 0; ti < int(d->tracks().size()); ++ti)
            for (size_t i = 0; i < d->modelTrack(ti).size(); ++i) {
                const std::string_view n = d->name({ti, uint32_t(i)});
                expected += QString::fromUtf8(n.data(), int(n.size()))
                                .contains(QStringLiteral("kernel"), Qt::CaseInsensitive);
            }
        QCOMPARE(sub.eventCount(), expected);
        QVERIFY(expected > 0);

        NameMatcher re(*d, QStringLiteral("^ProfilerStep#[12]$"), true);
        QCOMPARE(re.eventCount(), uint64_t(2));
        bool wrapped = true;
        const TimelineEvent a = re.next({}, d->minTime(), &wrapped);
        QVERIFY(!wrapped);
        QCOMPARE(d->name(a), std::string_view("ProfilerStep#1"));
        const TimelineEvent b = re.next(a, 0, &wrapped);
        QCOMPARE(d->name(b), std::string_view("ProfilerStep#2"));
        const TimelineEvent c = re.next(b, 0, &wrapped);
        QVERIFY(wrapped);
        QCOMPARE(c, a);
        QCOMPARE(re.previous(b, 0, &wrapped), a);
        QVERIFY(!wrapped);
        QCOMPARE(re.previous(a, 0, &wrapped), b);
        QVERIFY(wrapped);

        NameMatcher bad(*d, QStringLiteral("(unclosed"), true);
        QVERIFY(!bad.isValid());
        QVERIFY(!bad.error().isEmpty());
        QVERIFY(!bad.next({}, 0).valid());
        NameMatcher none(*d, QStringLiteral("no such op"), false);
        QCOMPARE(none.eventCount(), uint64_t(0));
        QVERIFY(!none.next({}, 0).valid());
    }
};

QTEST_MAIN(TstTimelineModels)
#include "tst_timelinemodels.moc"
