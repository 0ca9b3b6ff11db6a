// The Compare view on the hand-made pair tests/data/diff_before.json and
// diff_after.json: loading, the default alignment at the second step of each,
// zoom and pan locked together, a row click selecting the matching events in
// both timelines, and the table, comparison and chart exports.
#include "compare/comparedata.h"
#include "compare/compareview.h"
#include "compare/difftablemodel.h"
#include "loadandwait.h"
#include "timeline/timelinedata.h"
#include "timeline/timelineview.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QHeaderView>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

using namespace syncscope;
using namespace syncscope::ui;

namespace {

constexpr TimeNs us = 1000;

QString data(const char *name) { return QStringLiteral(SYNCSCOPE_DIFF_TEST_DATA "/") + QLatin1String(name); }

std::string selectedName(const TimelineView *v)
{
    const TimelineEvent e = v->selectedEvent();
    return e.valid() ? std::string(v->data()->name(e)) : std::string();
}

} // namespace

class TstCompare : public QObject {
    Q_OBJECT
private:
    std::unique_ptr<CompareView> m_view;

    bool load(CompareView &v, const QString &before, const QString &after, QString *error = nullptr)
    {
        return test::loadAndWait(
            &v, &CompareView::loaded, &CompareView::loadFailed, [&] { v.openFiles(before, after); }, error, 30000);
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_view = std::make_unique<CompareView>();
        m_view->resize(1200, 900);
        m_view->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
        QVERIFY(load(*m_view, data("diff_before.json"), data("diff_after.json")));
        for (int s = 0; s < 4; ++s)
            new QAbstractItemModelTester(m_view->model(DiffTableModel::Section(s)),
                                         QAbstractItemModelTester::FailureReportingMode::QtTest, this);
    }

    void headline()
    {
        const QString h = m_view->headerText();
        // Two steps a side: each step's change, never a median that hides one.
        QVERIFY2(h.contains(QStringLiteral("(each of 2 → 2 steps): #0 500.0 µs → 300.0 µs (-200.0 µs, -40.0%), "
                                           "#1 400.0 µs → 400.0 µs (0.0 µs, +0.0%)")),
                 qPrintable(h));
        QVERIFY2(!h.contains(QStringLiteral("median")), qPrintable(h));
        QVERIFY2(h.contains(QStringLiteral("66.7% → 92.6%")), qPrintable(h));
        QVERIFY2(h.contains(QStringLiteral("140.0 µs → 40.0 µs")), qPrintable(h));
    }

    void defaultAlignmentIsTheSecondStep()
    {
        // ProfilerStep#1 starts at 500 us before and at 300 us after.
        QCOMPARE(m_view->alignStep(0), 1);
        QCOMPARE(m_view->alignStep(1), 1);
        QCOMPARE(m_view->anchor(0), 500 * us);
        QCOMPARE(m_view->anchor(1), 300 * us);
        QCOMPARE(m_view->alignCombo(1)->currentData().toInt(), 1);
        const TimeMapping &a = m_view->view(0)->mapping(), &b = m_view->view(1)->mapping();
        QCOMPARE(b.span(), a.span());
    }

    void zoomAndPanAreLocked()
    {
        TimelineView *a = m_view->view(0), *b = m_view->view(1);
        // Show [450, 650] us before: after must show [250, 450] us.
        a->setVisibleRange(450 * us, 650 * us);
        QCOMPARE(a->mapping().start(), 450 * us);
        QCOMPARE(b->mapping().start(), 250 * us);
        QCOMPARE(b->mapping().span(), 200 * us);
        a->zoomBy(2.0, a->plotRect().width() / 2.0);
        QCOMPARE(b->mapping().span(), a->mapping().span());
        QCOMPARE(b->mapping().start() - 300 * us, a->mapping().start() - 500 * us);
        // Driving the lower one moves the upper one too.
        b->panBy(-40);
        QCOMPARE(a->mapping().start() - 500 * us, b->mapping().start() - 300 * us);
        QCOMPARE(a->mapping().span(), b->mapping().span());
    }

    void choosingAnotherStepRealigns()
    {
        TimelineView *a = m_view->view(0), *b = m_view->view(1);
        m_view->setAlignStep(1, 0); // after's ProfilerStep#0 at 0 us
        QCOMPARE(m_view->anchor(1), 0 * us);
        a->setVisibleRange(520 * us, 620 * us);
        QCOMPARE(b->mapping().start(), 20 * us);
        m_view->setAlignStep(1, 1);
        QCOMPARE(b->mapping().start(), 320 * us);
        QCOMPARE(a->mapping().start(), 520 * us); // the side that did not change stays
    }

    void rowClickSelectsInBoth()
    {
        // Sync sources, row 0 of the model: cudaStreamSynchronize, only before.
        m_view->activateRow(DiffTableModel::Sources, 0);
        QCOMPARE(selectedName(m_view->view(0)), std::string("cudaStreamSynchronize"));
        QCOMPARE(selectedName(m_view->view(1)), std::string());
        // Steps, row 0: ProfilerStep#0 in both, and both align at it.
        m_view->activateRow(DiffTableModel::Steps, 0);
        QCOMPARE(selectedName(m_view->view(0)), std::string("ProfilerStep#0"));
        QCOMPARE(selectedName(m_view->view(1)), std::string("ProfilerStep#0"));
        QCOMPARE(m_view->alignStep(0), 0);
        QCOMPARE(m_view->alignStep(1), 0);
        QCOMPARE(m_view->view(0)->mapping().start(), m_view->view(1)->mapping().start());
        // Kernels: K2 exists in both; the first instance of each side.
        DiffTableModel *k = m_view->model(DiffTableModel::Kernels);
        QCOMPARE(k->index(0, 0).data().toString(), QStringLiteral("K2"));
        m_view->activateRow(DiffTableModel::Kernels, 0);
        const TimelineView *a = m_view->view(0), *b = m_view->view(1);
        QCOMPARE(selectedName(a), std::string("K2"));
        QCOMPARE(selectedName(b), std::string("K2"));
        QCOMPARE(a->data()->start(a->selectedEvent()), 290 * us);
        QCOMPARE(b->data()->start(b->selectedEvent()), 240 * us);
        // A click in the sorted table goes through the proxy to the same row.
        QTableView *t = m_view->table(DiffTableModel::Ops);
        t->sortByColumn(0, Qt::AscendingOrder); // by name, case-sensitive: ProfilerStep#0 first
        const QModelIndex first = t->model()->index(0, 0);
        QCOMPARE(first.data().toString(), QStringLiteral("ProfilerStep#0"));
        QTest::mouseClick(t->viewport(), Qt::LeftButton, {}, t->visualRect(first).center());
        QCOMPARE(selectedName(m_view->view(0)), std::string("ProfilerStep#0"));
    }

    void tablesSortAndExport()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        QTableView *t = m_view->table(DiffTableModel::Steps);
        t->sortByColumn(3, Qt::DescendingOrder); // step time before: 500 us (step 0) first
        QCOMPARE(t->model()->index(0, 0).data().toString(), QStringLiteral("0"));
        QString error;
        const QString csv = tmp.filePath(QStringLiteral("steps.csv"));
        QVERIFY2(m_view->exportTable(DiffTableModel::Steps, csv, &error), qPrintable(error));
        QFile f(csv);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = f.readAll().split('\n');
        QVERIFY(lines[0].startsWith("index,step_before,step_after,dur_before_us,dur_after_us,dur_delta_us"));
        QCOMPARE(lines[1],
                 QByteArray("0,ProfilerStep#0,ProfilerStep#0,500.000,300.000,-200.000,300.000,260.000,1,0,"
                            "140.000,0.000"));
        const QString json = tmp.filePath(QStringLiteral("sources.json"));
        QVERIFY2(m_view->exportTable(DiffTableModel::Sources, json, &error), qPrintable(error));
        QFile j(json);
        QVERIFY(j.open(QIODevice::ReadOnly));
        const QJsonArray rows = QJsonDocument::fromJson(j.readAll()).array();
        QCOMPARE(rows.size(), 2);
        QCOMPARE(rows[0].toObject()[QStringLiteral("status")].toString(), QStringLiteral("disappeared"));
        QVERIFY(rows[0].toObject()[QStringLiteral("count_after")].isNull());
        QCOMPARE(rows[0].toObject()[QStringLiteral("avoidable_before_us")].toDouble(), 140.0);

        const QString all = tmp.filePath(QStringLiteral("diff.json"));
        QVERIFY2(m_view->exportComparison(all, &error), qPrintable(error));
        QFile d(all);
        QVERIFY(d.open(QIODevice::ReadOnly));
        QCOMPARE(QJsonDocument::fromJson(d.readAll())
                     .object()[QStringLiteral("step_time")]
                     .toObject()[QStringLiteral("after")]
                     .toObject()[QStringLiteral("median_us")]
                     .toDouble(),
                 350.0); // 300 and 400 us: their mean
        QVERIFY(!m_view->exportTable(DiffTableModel::Steps, tmp.filePath(QStringLiteral("x.txt")), &error));
        QVERIFY(error.contains(QStringLiteral("x.txt")));
        QCOMPARE(QDir(tmp.path()).entryList(QDir::Files).size(), 3); // no temporary left behind
    }

    // Tables read like the rest of the app: times in one format (exact µs in the
    // tooltip and the exports), names elided in the middle; Ctrl+W and Esc close.
    void tablesReadAndTheWindowCloses()
    {
        QTableView *t = m_view->table(DiffTableModel::Steps);
        t->sortByColumn(3, Qt::DescendingOrder); // step 0 first: 500 us before, 300 after
        QCOMPARE(t->model()->index(0, 3).data().toString(), QStringLiteral("500.0 µs"));
        QCOMPARE(t->model()->index(0, 3).data(Qt::ToolTipRole).toString(), QStringLiteral("500.000 µs exactly"));
        QCOMPARE(t->model()->index(0, 3).data(Qt::TextAlignmentRole).toInt(),
                 int(Qt::AlignRight | Qt::AlignVCenter));
        QCOMPARE(t->textElideMode(), Qt::ElideMiddle);
        QCOMPARE(t->model()->headerData(3, Qt::Horizontal).toString(), QStringLiteral("Step time\nbefore"));
        for (const QKeySequence &keys : {QKeySequence(QKeySequence::Close), QKeySequence(Qt::Key_Escape)}) {
            CompareView v;
            v.show();
            QVERIFY(QTest::qWaitForWindowExposed(&v));
            QVERIFY(v.isVisible());
            QTest::keySequence(&v, keys);
            QVERIFY2(!v.isVisible(), qPrintable(keys.toString()));
        }
    }

    // At the size it opens (1280 x 900), with long names, every figure of
    // every table shows whole, the change at the right end too: the name
    // columns give up the width and elide in the middle.
    void tablesFitAtTheSizeTheyOpen()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString frame = QStringLiteral("/home/someone/projects/recommendation/models/deep_learning_"
                                             "recommendation_model/training/train.py");
        const QString kernel =
            QStringLiteral("void at::native::vectorized_elementwise_kernel<4, "
                           "at::native::CUDAFunctorOnSelf_add<float>, at::detail::Array<char*, 2> >");
        QStringList paths;
        for (const char *side : {"diff_before.json", "diff_after.json"}) {
            QFile in(data(side));
            QVERIFY(in.open(QIODevice::ReadOnly));
            QString text = QString::fromUtf8(in.readAll());
            text.replace(QStringLiteral("\"train.py("), QLatin1Char('"') + frame + QLatin1Char('('));
            text.replace(QStringLiteral("\"K1\""), QLatin1Char('"') + kernel + QLatin1Char('"'));
            text.replace(QStringLiteral("aten::"), QStringLiteral("aten::_long_operator_name_from_an_extension_"));
            QFile out(tmp.filePath(QLatin1String(side)));
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(text.toUtf8());
            paths << out.fileName();
        }
        CompareView v;
        QCOMPARE(v.size(), QSize(1280, 900));
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        QVERIFY(load(v, paths[0], paths[1]));
        auto *tabs = v.findChild<QTabWidget *>();
        QVERIFY(tabs);
        for (int s = 0; s < 4; ++s) {
            tabs->setCurrentIndex(s);
            QCoreApplication::processEvents();
            QTableView *t = v.table(DiffTableModel::Section(s));
            const DiffTableModel *m = v.model(DiffTableModel::Section(s));
            QVERIFY(t->isVisible() && m->rowCount() > 0);
            QStringList cut;
            for (int c = 0; c < m->columnCount(); ++c) {
                if (m->isNameColumn(c))
                    continue;
                const int x = t->columnViewportPosition(c), w = t->columnWidth(c);
                if (x < 0 || x + w > t->viewport()->width() ||
                    w < static_cast<const QAbstractItemView *>(t)->sizeHintForColumn(c) ||
                    w < t->horizontalHeader()->sectionSizeHint(c))
                    cut << m->headerData(c, Qt::Horizontal).toString();
            }
            QVERIFY2(cut.isEmpty(),
                     qPrintable(QStringLiteral("section %1: %2").arg(s).arg(cut.join(QStringLiteral(", ")))));
            QCOMPARE(t->horizontalScrollBar()->maximum(), 0);
        }
        // The long names elide: the whole name is in the tooltip.
        const QModelIndex op = v.model(DiffTableModel::Sources)->index(0, 2);
        QVERIFY(op.data(Qt::ToolTipRole).toString().startsWith(QStringLiteral("aten::_long_operator_name")));
    }

    void stepChartExports()
    {
        QTemporaryDir tmp;
        QString error;
        for (const char *ext : {"png", "svg", "pdf"}) {
            const QString path = tmp.filePath(QStringLiteral("steps.") + QLatin1String(ext));
            m_view->setStepMetric(StepMetric::Avoidable);
            QVERIFY2(m_view->exportStepChart(path, QSize(800, 500), &error), qPrintable(error));
            QVERIFY(QFileInfo(path).size() > 500);
        }
    }

    void badFileNamesIt()
    {
        CompareView v;
        QString error;
        QVERIFY(!load(v, data("diff_before.json"), data("malformed.json"), &error));
        QVERIFY2(error.contains(QStringLiteral("malformed.json")) && error.contains(QStringLiteral("after")),
                 qPrintable(error));
    }
};

QTEST_MAIN(TstCompare)
#include "tst_compare.moc"
