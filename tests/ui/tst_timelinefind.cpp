// Find, range statistics and the table exports of the Timeline page: find zooms
// to the match and says "n of m", outlines the other matches, follows the case
// switch in plain and regex mode (also when the matcher builds on a worker);
// range statistics count nested same-name events once and filter by category;
// every table writes CSV and JSON whose numbers are the model's integers; save
// dialogs start in a folder that exists.
#include "loadandwait.h"
#include "synthetictrace.h"
#include "timeline/namematcher.h"
#include "timeline/rangestatsmodel.h"
#include "shared/savefolder.h"
#include "timeline/syncgapmodel.h"
#include "timeline/syncsourcemodel.h"
#include "timeline/timelinedata.h"
#include "timeline/timelinepage.h"
#include "timeline/timelineview.h"
#include "trace/tracebuilder.h"
#include "trace/tracewriter.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>
#include <QToolButton>
#include <QtTest>

using namespace syncscope;
using namespace syncscope::ui;

namespace {

// "12.345" (exact microseconds) -> 12345 ns, by integer arithmetic only.
int64_t microsToNs(const QString &text)
{
    const QStringList parts = text.split(QLatin1Char('.'));
    if (parts.size() != 2 || parts[1].size() != 3)
        return INT64_MIN;
    const bool negative = parts[0].startsWith(QLatin1Char('-'));
    const int64_t whole = parts[0].toLongLong(), frac = parts[1].toLongLong();
    return whole * 1000 + (negative ? -frac : frac);
}

// RFC 4180 lines: quoted fields may hold commas, doubled quotes and line breaks.
QList<QStringList> parseCsv(const QString &text)
{
    QList<QStringList> rows;
    QStringList row;
    QString field;
    bool quoted = false;
    for (int i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        if (quoted) {
            if (c == QLatin1Char('"') && i + 1 < text.size() && text[i + 1] == QLatin1Char('"')) {
                field += c;
                ++i;
            } else if (c == QLatin1Char('"')) {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == QLatin1Char('"')) {
            quoted = true;
        } else if (c == QLatin1Char(',')) {
            row << field;
            field.clear();
        } else if (c == QLatin1Char('\n')) {
            row << field;
            field.clear();
            rows << row;
            row.clear();
        } else {
            field += c;
        }
    }
    return rows;
}

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TstTimelineFind : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_tmp;
    QString m_small, m_large, m_nested;

    static bool load(TimelinePage &page, const QStringList &paths)
    {
        return test::loadAndWait(&page, &TimelinePage::loadFinished, &TimelinePage::loadFailed,
                                 [&] { page.openFiles(paths); });
    }

    // Matching events by brute force over every drawn event: the reference.
    static uint64_t countMatches(const TimelineData &d, const QString &needle, Qt::CaseSensitivity cs)
    {
        uint64_t n = 0;
        for (int ti = 0; ti < int(d.tracks().size()); ++ti)
            for (size_t i = 0; i < d.modelTrack(ti).size(); ++i) {
                const std::string_view s = d.name({ti, uint32_t(i)});
                n += QString::fromUtf8(s.data(), int(s.size())).contains(needle, cs);
            }
        return n;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_tmp.isValid());
        test::SyntheticTrace small;
        small.steps = 6;
        small.kernelsPerStep = 8;
        m_small = m_tmp.filePath(QStringLiteral("small.json"));
        writeTrace(*small.build(), m_small.toStdString());
        // more than one 4096-event block per track, so "n of m" crosses blocks
        test::SyntheticTrace large;
        large.steps = 150;
        large.kernelsPerStep = 20;
        m_large = m_tmp.filePath(QStringLiteral("large.json"));
        writeTrace(*large.build(), m_large.toStdString());

        // Recursive frames: "forward" nested three deep, each almost 500 ms,
        // plus a kernel launch inside; a 125 ms selection in the middle.
        TraceInfo info;
        info.path = "nested.json";
        info.format = "json";
        TraceBuilder b(info);
        const uint32_t t = b.track(b.id(int64_t(1)), b.id(int64_t(1)));
        const StrId py = b.internCategory("python_function"), rt = b.internCategory("cuda_runtime");
        const StrId fwd = b.intern("forward"), launch = b.intern("cudaLaunchKernel");
        const TimeNs ms = 1'000'000;
        b.addComplete(t, 0, 500 * ms, fwd, py, {}, {});
        b.addComplete(t, 1 * ms, 499 * ms, fwd, py, {}, {});
        b.addComplete(t, 2 * ms, 497 * ms, fwd, py, {}, {});
        b.addComplete(t, 150 * ms, 10 * ms, launch, rt, {}, {});
        m_nested = m_tmp.filePath(QStringLiteral("nested.json"));
        writeTrace(*b.finish(), m_nested.toStdString());
    }

    void findZoomsToTheMatchAndCounts()
    {
        TimelinePage page;
        page.resize(1400, 800);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        QVERIFY(load(page, {m_large}));
        const auto data = page.data();
        page.view()->fitAll();
        const TimeNs fullSpan = page.view()->mapping().span();

        page.findEdit()->setText(QStringLiteral("relu_kernel"));
        page.findNext();
        const TimelineEvent e = page.view()->selectedEvent();
        QVERIFY(e.valid());
        QCOMPARE(data->name(e), std::string_view("relu_kernel"));
        // zoomed in, the match inside the view, centred, and wide enough to read
        const TimeMapping &map = page.view()->mapping();
        QVERIFY(map.span() < fullSpan / 100);
        QVERIFY(map.start() <= data->start(e) && data->end(e) <= map.end());
        const TimeNs mid = data->start(e) + (data->end(e) - data->start(e)) / 2;
        QVERIFY(std::abs(map.start() + map.span() / 2 - mid) <= map.span() / 50);
        const QRect r = page.view()->eventRect(e);
        QVERIFY2(r.width() >= page.view()->plotRect().width() / 8, qPrintable(QString::number(r.width())));
        QVERIFY(page.view()->plotRect().intersects(r));

        const uint64_t m = countMatches(*data, QStringLiteral("relu_kernel"), Qt::CaseInsensitive);
        QVERIFY(m > 100);
        QCOMPARE(page.matcher()->eventCount(), m);
        QCOMPARE(page.findStatusText(), QStringLiteral("1 of %1").arg(QLocale().toString(qulonglong(m))));
        page.findNext();
        QCOMPARE(page.findStatusText(), QStringLiteral("2 of %1").arg(QLocale().toString(qulonglong(m))));
        page.findPrevious();
        page.findPrevious(); // wraps to the last
        QCOMPARE(
            page.findStatusText(),
            QStringLiteral("%1 of %2").arg(QLocale().toString(qulonglong(m)), QLocale().toString(qulonglong(m))));
        // a match selected otherwise (a click, the details panel) gets its place too
        page.view()->selectEvent(e, false);
        QCOMPARE(page.findStatusText(), QStringLiteral("1 of %1").arg(QLocale().toString(qulonglong(m))));

        // ordinal() agrees with the walk order over every match of a name with
        // matches on several tracks (launches on the main thread, kernels on two streams)
        // and where matches on two tracks start at the same time (each step and
        // the data loader's first event of the step): the track decides
        for (const auto &[pattern, regex] :
             {std::pair(QStringLiteral("kernel"), false),
              std::pair(QStringLiteral("^(ProfilerStep#\\d+|DataLoader::next)$"), true)}) {
            NameMatcher all(*data, pattern, regex);
            QVERIFY(all.eventCount() > 4096); // more than one block
            TimelineEvent cur;
            bool wrapped = false;
            for (uint64_t k = 1; k <= all.eventCount(); ++k) {
                cur = all.next(cur, data->minTime(), &wrapped);
                QVERIFY(!wrapped);
                QCOMPARE(all.ordinal(cur), k);
            }
        }
        NameMatcher kernels(*data, QStringLiteral("kernel"), false);
        QCOMPARE(kernels.eventCount(), countMatches(*data, QStringLiteral("kernel"), Qt::CaseInsensitive));
        QCOMPARE(kernels.ordinal({0, 0}) == 0, !kernels.matches(TimelineEvent{0, 0}));
    }

    void otherMatchesAreOutlined()
    {
        TimelinePage page;
        page.resize(1400, 800);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        QVERIFY(load(page, {m_small}));
        QVERIFY(!page.view()->hasHighlightedNames());
        page.findEdit()->setText(QStringLiteral("ProfilerStep"));
        page.findNext();
        QVERIFY(page.view()->hasHighlightedNames());
        page.view()->fitAll();
        page.view()->grab(); // paints
        // all six steps are in view and wide: six outlines
        QCOMPARE(page.view()->highlightsPainted(), 6);
        // a narrower view: only the steps it shows
        const auto data = page.data();
        const TimelineEvent e = page.view()->selectedEvent();
        page.view()->setVisibleRange(data->start(e) + 1, data->end(e) - 1);
        page.view()->grab();
        QCOMPARE(page.view()->highlightsPainted(), 1);
        page.findEdit()->clear();
        QTest::qWait(400); // the debounce
        QVERIFY(!page.view()->hasHighlightedNames());
        page.view()->grab();
        QCOMPARE(page.view()->highlightsPainted(), 0);
    }

    void caseSwitchInPlainAndRegexMode()
    {
        TimelinePage page;
        page.resize(1200, 700);
        QVERIFY(load(page, {m_small}));
        const auto data = page.data();
        const uint64_t relu = countMatches(*data, QStringLiteral("relu_kernel"), Qt::CaseSensitive);
        QVERIFY(relu > 0);
        auto findWith = [&](const QString &text, bool regex, bool matchCase) {
            page.findRegexBox()->setChecked(regex);
            page.findCaseButton()->setChecked(matchCase);
            page.findEdit()->setText(text);
            page.findNext(); // builds the matcher at once (debounce cut short)
            return page.matcher() ? page.matcher()->eventCount() : uint64_t(~0ull);
        };
        QCOMPARE(findWith(QStringLiteral("RELU_KERNEL"), false, false), relu);
        QCOMPARE(findWith(QStringLiteral("RELU_KERNEL"), false, true), uint64_t(0));
        QCOMPARE(page.findStatusText(), QStringLiteral("0 matches"));
        QCOMPARE(TimelinePage::matchCountText(1), QStringLiteral("1 match"));
        QCOMPARE(TimelinePage::matchCountText(2), QStringLiteral("2 matches"));
        QCOMPARE(findWith(QStringLiteral("relu_kernel"), false, true), relu);
        QCOMPARE(findWith(QStringLiteral("^RELU_kernel$"), true, false), relu);
        QCOMPARE(findWith(QStringLiteral("^RELU_kernel$"), true, true), uint64_t(0));
        QCOMPARE(findWith(QStringLiteral("^relu_kernel$"), true, true), relu);
        QVERIFY(page.matcher()->regex() && page.matcher()->caseSensitive());
        // the toggle alone re-matches
        page.findCaseButton()->setChecked(false);
        page.findEdit()->setText(QStringLiteral("^RELU_KERNEL$"));
        page.findNext();
        QCOMPARE(page.matcher()->eventCount(), relu);
        QVERIFY(!page.matcher()->caseSensitive());
    }

    void findOnAWorkerKeepsTheGuiResponsive()
    {
        TimelinePage page;
        page.resize(1200, 700);
        QVERIFY(load(page, {m_large}));
        page.setFindSyncLimit(0); // every job counts as large
        QSignalSpy ready(&page, &TimelinePage::findReady);
        page.findEdit()->setText(QStringLiteral("cudaStreamSynchronize"));
        page.findNext();
        // nothing selected until the worker is done; then the pending find runs
        if (ready.isEmpty())
            QVERIFY(ready.wait(10000));
        QVERIFY(page.view()->selectedEvent().valid());
        QCOMPARE(page.data()->name(page.view()->selectedEvent()), std::string_view("cudaStreamSynchronize"));
        QCOMPARE(page.findStatusText(), QStringLiteral("1 of 150"));
    }

    void rangeStatisticsCountNestedFramesOnce()
    {
        TimelinePage page;
        page.resize(1400, 800);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        QVERIFY(load(page, {m_nested}));
        QSignalSpy stats(&page, &TimelinePage::rangeStatsReady);
        const TimeNs ms = 1'000'000;
        page.view()->setRangeSelection(100 * ms, 225 * ms);
        QVERIFY(stats.wait(10000));
        RangeStatsModel *model = page.rangeStatsModel();
        QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const RangeStatsModel::Row *forward = nullptr;
        for (const auto &r : model->rows())
            if (r.name == QStringLiteral("forward"))
                forward = &r;
        QVERIFY(forward);
        QCOMPARE(forward->count, uint64_t(3));      // every instance overlapping
        QCOMPARE(forward->total, TimeNs(125 * ms)); // not 3 x 125 ms
        QCOMPARE(forward->self, TimeNs(115 * ms));  // innermost minus the launch; the outer two 0
        QCOMPARE(model->range(), std::make_pair(TimeNs(100 * ms), TimeNs(225 * ms)));

        // the name column is the user's to size, and starts readable
        QCOMPARE(page.rangeTable()->horizontalHeader()->sectionResizeMode(RangeStatsModel::Name),
                 QHeaderView::Interactive);
        QVERIFY(page.rangeTable()->columnWidth(RangeStatsModel::Name) >= 150);

        // filter by category
        QComboBox *cats = page.rangeCategoryBox();
        QCOMPARE(cats->count(), 3); // all, cuda_runtime, python_function
        QCOMPARE(page.rangeTable()->model()->rowCount(), 2);
        cats->setCurrentIndex(cats->findData(QStringLiteral("cuda_runtime")));
        QCOMPARE(page.rangeTable()->model()->rowCount(), 1);
        QCOMPARE(page.rangeTable()->model()->index(0, RangeStatsModel::Name).data().toString(),
                 QStringLiteral("cudaLaunchKernel"));
        // the filtered table is what exports
        const QString json = m_tmp.filePath(QStringLiteral("range.json"));
        QString error;
        QVERIFY2(page.exportTable(TimelinePage::Table::RangeStats, json, &error), qPrintable(error));
        const QJsonObject doc = QJsonDocument::fromJson(readAll(json)).object();
        QCOMPARE(doc[QStringLiteral("range")].toObject()[QStringLiteral("dur_ns")].toInteger(), 125 * ms);
        const QJsonArray ops = doc[QStringLiteral("ops")].toArray();
        QCOMPARE(ops.size(), 1);
        QCOMPARE(ops[0].toObject()[QStringLiteral("total_ns")].toInteger(), 10 * ms);
        QCOMPARE(ops[0].toObject()[QStringLiteral("total_us")].toDouble(), 10000.0);
        // a new selection keeps the filter while its category is there
        page.view()->setRangeSelection(0, 400 * ms);
        QVERIFY(stats.wait(10000));
        QCOMPARE(cats->currentData().toString(), QStringLiteral("cuda_runtime"));
        QCOMPARE(page.rangeTable()->model()->rowCount(), 1);
        cats->setCurrentIndex(0);
        QCOMPARE(page.rangeTable()->model()->rowCount(), 2);
        // and the nested frames still add up to the selection at most
        for (const auto &r : model->rows())
            if (r.name == QStringLiteral("forward"))
                QCOMPARE(r.total, TimeNs(400 * ms));
    }

    void tablesExportCsvAndJson()
    {
        TimelinePage page;
        page.resize(1400, 800);
        QVERIFY(load(page, {m_small}));
        QSignalSpy stats(&page, &TimelinePage::rangeStatsReady);
        page.view()->setRangeSelection(page.data()->minTime(), page.data()->maxTime());
        QVERIFY(stats.wait(10000));

        struct Case {
            TimelinePage::Table table;
            QTableView *view;
            const char *array;
            // (JSON key of an ns field, CSV column of its microseconds, model column, sort role)
            const char *nsKey;
            const char *csvColumn;
            int column;
            int role;
        };
        const Case cases[] = {
            {TimelinePage::Table::Gaps, page.gapTable(), "sync_gaps", "avoidable_ns", "avoidable_us",
             SyncGapModel::Avoidable, SyncGapModel::SortRole},
            {TimelinePage::Table::Gaps, page.gapTable(), "sync_gaps", "dur_ns", "gap_us", SyncGapModel::Duration,
             SyncGapModel::SortRole},
            {TimelinePage::Table::Sources, page.sourceTable(), "sync_sources", "gap_time_ns", "gap_us",
             SyncSourceModel::GapTime, SyncSourceModel::SortRole},
            {TimelinePage::Table::RangeStats, page.rangeTable(), "ops", "total_ns", "total_us",
             RangeStatsModel::Total, RangeStatsModel::SortRole},
            {TimelinePage::Table::RangeStats, page.rangeTable(), "ops", "self_ns", "self_us",
             RangeStatsModel::Self, RangeStatsModel::SortRole},
        };
        for (const Case &c : cases) {
            QAbstractItemModel *shown = c.view->model();
            const int rows = shown->rowCount();
            QVERIFY(rows > 0);
            const QString base = m_tmp.filePath(QStringLiteral("table-%1").arg(QLatin1String(c.array)));
            QString error;
            QVERIFY2(page.exportTable(c.table, base + QStringLiteral(".json"), &error), qPrintable(error));
            QVERIFY2(page.exportTable(c.table, base + QStringLiteral(".csv"), &error), qPrintable(error));

            QJsonParseError perr;
            const QJsonDocument doc = QJsonDocument::fromJson(readAll(base + QStringLiteral(".json")), &perr);
            QVERIFY2(perr.error == QJsonParseError::NoError, qPrintable(perr.errorString()));
            const QJsonArray arr = doc.object()[QLatin1String(c.array)].toArray();
            QCOMPARE(arr.size(), rows);
            const QList<QStringList> csv = parseCsv(QString::fromUtf8(readAll(base + QStringLiteral(".csv"))));
            QCOMPARE(csv.size(), rows + 1);
            const int col = int(csv[0].indexOf(QLatin1String(c.csvColumn)));
            QVERIFY2(col >= 0, c.csvColumn);
            for (int r = 0; r < rows; ++r) {
                const qint64 expected = shown->index(r, c.column).data(c.role).toLongLong();
                QCOMPARE(arr[r].toObject()[QLatin1String(c.nsKey)].toInteger(), expected);
                QCOMPARE(microsToNs(csv[r + 1][col]), expected);
            }
        }
        // a write that cannot happen says so and leaves nothing
        QString error;
        const QString bad = m_tmp.filePath(QStringLiteral("no-such-dir/gaps.json"));
        QVERIFY(!page.exportTable(TimelinePage::Table::Gaps, bad, &error));
        QVERIFY(error.contains(QStringLiteral("no-such-dir")));
        QVERIFY(!QFile::exists(bad));
    }

    void saveDialogsStartInAFolderThatExists()
    {
        QSettings().setValue("export/dir", m_tmp.filePath(QStringLiteral("gone")));
        QCOMPARE(defaultSaveFolder(), QDir::homePath());
        rememberSaveFolder(m_tmp.filePath(QStringLiteral("x.csv")));
        QCOMPARE(defaultSaveFolder(), QDir::cleanPath(m_tmp.path()));
        QSettings().remove("export/dir");
        QCOMPARE(defaultSaveFolder(), QDir::homePath());

        // the dialog of a table export: suggested in the last folder; the status
        // bar then says where the file went, and the folder is remembered
        TimelinePage page;
        QVERIFY(load(page, {m_small}));
        const QString sub = m_tmp.filePath(QStringLiteral("exports"));
        QVERIFY(QDir().mkpath(sub));
        QSettings().setValue("export/dir", sub);
        const QString suggested = page.suggestedExportPath(TimelinePage::Table::Sources, true);
        QCOMPARE(suggested, QDir(sub).filePath(QStringLiteral("small-sync-sources.json")));
        QSignalSpy status(&page, &TimelinePage::statusMessage);
        const QString target = QDir(sub).filePath(QStringLiteral("chosen"));
        QTimer::singleShot(300, [&] {
            auto *dialog = qobject_cast<QFileDialog *>(QApplication::activeModalWidget());
            QVERIFY(dialog);
            QCOMPARE(dialog->directory().absolutePath(), QDir(sub).absolutePath());
            // no suffix: the export adds it
            auto *name = dialog->findChild<QLineEdit *>(QStringLiteral("fileNameEdit"));
            QVERIFY(name);
            name->setText(QStringLiteral("chosen"));
            QMetaObject::invokeMethod(dialog, "accept");
        });
        page.exportTableWithDialog(TimelinePage::Table::Sources, true);
        QVERIFY(!status.isEmpty());
        QVERIFY(QFile::exists(target + QStringLiteral(".json")));
        QCOMPARE(status.last().front().toString(),
                 QStringLiteral("Wrote %1").arg(QDir::toNativeSeparators(target + QStringLiteral(".json"))));
        QCOMPARE(defaultSaveFolder(), QDir::cleanPath(sub));
    }
};

QTEST_MAIN(TstTimelineFind)
#include "tst_timelinefind.moc"
