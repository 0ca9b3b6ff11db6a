// The headless `syncscope --export-chart` and `--smoke` as a user runs them:
// no display, exit 0 with a valid file, or non-zero with one sentence and no file.
#include <QDir>
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QProcessEnvironment>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>

class TestExportCli : public QObject {
    Q_OBJECT

    struct Result {
        int code = -1;
        QString out, err;
    };

    Result run(const QStringList &args, int timeoutMs = 60000)
    {
        QProcess p;
        // No display at all: the app must choose offscreen itself.
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const char *v : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
            env.remove(QString::fromLatin1(v));
        env.insert("XDG_CONFIG_HOME", m_home.filePath("config"));
        env.insert("XDG_DATA_HOME", m_home.filePath("data"));
        env.insert("XDG_CACHE_HOME", m_home.filePath("cache"));
        // Qt warns on stderr without a runtime dir; give it one so stderr is ours alone.
        QDir().mkpath(m_home.filePath("runtime"));
        QFile::setPermissions(m_home.filePath("runtime"),
                              QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
        env.insert("XDG_RUNTIME_DIR", m_home.filePath("runtime"));
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(SYNCSCOPE_GUI_BINARY), args);
        if (!p.waitForFinished(timeoutMs)) {
            p.kill();
            p.waitForFinished();
            return {};
        }
        return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
                QString::fromUtf8(p.readAllStandardOutput()), QString::fromUtf8(p.readAllStandardError())};
    }

    QTemporaryDir m_home;
    const QString m_fixture = QStringLiteral(SYNCSCOPE_UI_TEST_DATA "/bench_cuda_sweep.json");

private Q_SLOTS:
    void exportsEveryChartAndFormat_data()
    {
        QTest::addColumn<QString>("chart");
        QTest::addColumn<QString>("file");
        for (const char *c : {"steptime", "sweep", "speedup"})
            for (const char *f : {"png", "svg", "pdf"})
                QTest::newRow(qPrintable(QString("%1.%2").arg(c, f))) << c << QString("%1.%2").arg(c, f);
    }

    void exportsEveryChartAndFormat()
    {
        QFETCH(QString, chart);
        QFETCH(QString, file);
        QTemporaryDir dir;
        const QString out = dir.filePath(file);
        const Result r = run({"--export-chart", m_fixture, "--chart", chart, "--out", out, "--size", "800x450"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QFile f(out);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray bytes = f.readAll();
        if (file.endsWith("png")) {
            QImage image;
            QVERIFY(image.loadFromData(bytes, "PNG"));
            QCOMPARE(image.size(), QSize(800, 450));
        } else if (file.endsWith("svg")) {
            QVERIFY(QSvgRenderer(bytes).isValid());
        } else {
            QVERIFY(bytes.startsWith("%PDF-"));
            QVERIFY(bytes.trimmed().endsWith("%%EOF"));
        }
    }

    void failsWithOneSentence_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("needle");
        QTest::newRow("no --out") << QStringList{"--export-chart", m_fixture} << "--out";
        QTest::newRow("bad format") << QStringList{"--export-chart", m_fixture, "--out", "x.bmp"}
                                    << ".png, .svg or .pdf";
        QTest::newRow("bad chart") << QStringList{"--export-chart", m_fixture, "--chart", "pie", "--out", "x.png"}
                                   << "steptime, sweep or speedup";
        QTest::newRow("bad size") << QStringList{"--export-chart", m_fixture, "--size", "9x9", "--out", "x.png"}
                                  << "--size";
        QTest::newRow("missing input") << QStringList{"--export-chart", "/nonexistent/r.json", "--out", "x.png"}
                                       << "/nonexistent/r.json";
        QTest::newRow("not results") << QStringList{"--export-chart",
                                                    QStringLiteral(SYNCSCOPE_UI_TEST_DATA "/README.md"), "--out",
                                                    "x.png"}
                                     << "not a bench result";
        QTest::newRow("unknown baseline") << QStringList{"--export-chart", m_fixture, "--chart", "speedup",
                                                         "--baseline",     "zzz",     "--out",   "x.png"}
                                          << "zzz";
    }

    void failsWithOneSentence()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, needle);
        QTemporaryDir dir;
        const int outAt = args.indexOf("--out");
        if (outAt >= 0)
            args[outAt + 1] = dir.filePath(args[outAt + 1]);
        const Result r = run(args);
        QVERIFY(r.code > 0);
        const QString err = r.err.trimmed();
        QVERIFY2(err.contains(needle), qPrintable(err));
        QVERIFY2(err.startsWith("syncscope: ") && !err.contains('\n'), qPrintable(err));
        QVERIFY(QDir(dir.path()).isEmpty());
    }

    void versionAndHelpNeedNoDisplay()
    {
        const Result v = run({"--version"});
        QCOMPARE(v.code, 0);
        QVERIFY(v.out.startsWith("syncscope "));
        const Result h = run({"--help"});
        QCOMPARE(h.code, 0);
        QVERIFY(h.out.contains("--export-chart"));
    }

    void smokeCheckPasses()
    {
        const Result r = run({"--smoke"}, 280000);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(r.out.contains("Smoke check passed"));
    }
};

QTEST_MAIN(TestExportCli)
#include "tst_exportcli.moc"
