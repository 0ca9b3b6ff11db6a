// A huge event name is capped before it is converted, measured or shaped;
// the names panel's headers keep what tells them apart (the rank of a GPU
// device pinned at the top); a process whose pid is a name reads as it.
#include "timeline/timelinedata.h"
#include "timeline/timelineview.h"
#include "timeline/passes/boxes.h"
#include "trace/traceloader.h"
#include "trace/tracebuilder.h"

#include <QFontMetrics>
#include <QGuiApplication>
#include <QSet>
#include <QtTest>

using namespace syncscope;
using namespace syncscope::ui;

class TestTimelineLabels : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void hugeNameIsCappedBeforeItIsMeasured()
    {
        TraceInfo info;
        info.path = "huge.json";
        info.format = "json";
        TraceBuilder b(info);
        const uint32_t track = b.track(b.id(int64_t(1)), b.id(int64_t(1)));
        const std::string huge(4u << 20, 'n'); // 4 MB; the cap does not depend on the size
        const StrId name = b.intern(huge);
        b.addComplete(track, 0, 1000, name, b.internCategory("cpu_op"));
        const auto data = TimelineData::build({b.finish()});
        NameCache cache;
        const QFontMetrics fm(QGuiApplication::font());
        const NameCache::Entry &e = cache.get(*data, 0, name, fm);
        QVERIFY2(e.text.size() <= int(kMaxLabelBytes) + 1, qPrintable(QString::number(e.text.size())));
        QVERIFY(e.text.endsWith(QChar(0x2026)));
        QCOMPARE(e.width, fm.horizontalAdvance(e.text));
    }

    void capKeepsWholeCharacters()
    {
        // 'é' is two UTF-8 bytes: the cut never splits one.
        std::string s;
        while (s.size() < kMaxLabelBytes + 10)
            s += "\xC3\xA9";
        s = "x" + s; // shift so that byte kMaxLabelBytes falls inside a character
        const QString t = labelText(s);
        QVERIFY(!t.contains(QChar(0xFFFD)));
        QVERIFY(t.endsWith(QChar(0x2026)));
        QCOMPARE(labelText("aten::mm"), QStringLiteral("aten::mm"));
    }

    // Three ranks, each with its GPU pinned at the top as "Rank N · GPU N
    // (pid N)": however narrow the names panel, each header names its rank.
    void pinnedGpuHeadersKeepTheirRank()
    {
        std::vector<std::string> files;
        for (int r = 0; r < 3; ++r)
            files.push_back(std::string(SYNCSCOPE_TEST_DATA_DIR) + "/job_straggler_rank" + std::to_string(r) +
                            ".json");
        const auto data = TimelineData::build(loadTraces(files));
        TimelineView view;
        view.resize(900, 500);
        view.setData(data);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QFont bold = view.font();
        bold.setBold(true);
        const QFontMetrics fm(bold);
        for (int width : {TimelineView::kMinLabelWidth, 110, 150, TimelineView::kLabelWidth}) {
            view.setLabelWidth(width);
            QCOMPARE(view.labelWidth(), width);
            QSet<QString> seen;
            int headers = 0;
            for (int r = 0; r < int(view.layout().pinnedRows().size()); ++r) {
                const LayoutRow &row = view.layout().pinnedRows()[size_t(r)];
                if (row.kind != LayoutRow::Kind::GroupHeader)
                    continue;
                ++headers;
                const QString label = view.rowLabel(true, r, fm);
                const int64_t rank = data->files()[size_t(row.file)].model->info().rank;
                QVERIFY2(label.startsWith(QStringLiteral("Rank %1").arg(rank)), qPrintable(label));
                QVERIFY2(fm.horizontalAdvance(label) <= width - 24, qPrintable(label));
                seen.insert(label);
            }
            QCOMPARE(headers, 3);
            QCOMPARE(seen.size(), headers);
        }
        // Wide enough, the whole title (rank r's device is GPU r).
        view.setLabelWidth(400);
        for (int r = 0; r < int(view.layout().pinnedRows().size()); ++r) {
            const LayoutRow &row = view.layout().pinnedRows()[size_t(r)];
            if (row.kind == LayoutRow::Kind::GroupHeader)
                QCOMPARE(view.rowLabel(true, r, fm), QStringLiteral("Rank %1 · GPU %1 (pid %1)")
                                                         .arg(data->files()[size_t(row.file)].model->info().rank));
        }
    }

    // The legacy profiler's "CPU Functions" pid is the process's name, not
    // "Process (pid CPU Functions)", whose middle a narrow panel cut.
    void aProcessNamedByItsPidReadsAsIt()
    {
        const auto data = TimelineData::build({loadTrace(SYNCSCOPE_TEST_DATA_DIR
                                                         "/legacy_autograd_profiler.json")});
        QStringList titles;
        for (const TimelineGroup &g : data->groups())
            titles << g.title;
        QVERIFY2(titles.contains(QStringLiteral("CPU Functions")), qPrintable(titles.join(QStringLiteral(" | "))));
        QVERIFY2(titles.contains(QStringLiteral("Process (pid 7)")),
                 qPrintable(titles.join(QStringLiteral(" | "))));
        TimelineView view;
        view.resize(900, 400);
        view.setData(data);
        QFont bold = view.font();
        bold.setBold(true);
        for (int r = 0; r < int(view.layout().rows().size()); ++r)
            if (view.layout().rows()[size_t(r)].kind == LayoutRow::Kind::GroupHeader &&
                view.layout().rows()[size_t(r)].group == int(titles.indexOf(QStringLiteral("CPU Functions"))))
                QCOMPARE(view.rowLabel(false, r, QFontMetrics(bold)), QStringLiteral("CPU Functions"));
    }
};

QTEST_MAIN(TestTimelineLabels)
#include "tst_timelinelabels.moc"
