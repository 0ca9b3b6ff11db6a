// A huge event name is capped before it is converted, measured or shaped.
#include "timeline/timelinedata.h"
#include "timeline/passes/boxes.h"
#include "trace/tracebuilder.h"

#include <QFontMetrics>
#include <QGuiApplication>
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
};

QTEST_MAIN(TestTimelineLabels)
#include "tst_timelinelabels.moc"
