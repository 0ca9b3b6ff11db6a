#include "apptour.h"

#include "charts/chartexport.h"
#include "distribution/distributionpage.h"
#include "explorer/explorerpage.h"
#include "explorer/paramsform.h"
#include "jobs/jobrunner.h"
#include "mainwindow.h"
#include "timeline/timelinepage.h"

#include <QApplication>
#include <QBuffer>
#include <QDir>
#include <QPixmap>
#include <QTimer>

#include <memory>

namespace syncscope::ui {

AppTour::AppTour(MainWindow *window, Options options, QObject *parent)
    : QObject(parent), m_window(window), m_options(std::move(options))
{
}

template <typename Sender, typename Signal>
void AppTour::waitFor(Sender *sender, Signal signal, std::function<void()> next, const QString &what)
{
    auto fired = std::make_shared<bool>(false);
    auto conn = std::make_shared<QMetaObject::Connection>();
    *conn = connect(sender, signal, this, [this, fired, conn, next] {
        if (*fired || m_done)
            return;
        *fired = true;
        disconnect(*conn);
        // Let the page lay out and paint what it just received before the next step.
        QTimer::singleShot(300, this, next);
    });
    QTimer::singleShot(m_options.stepTimeoutMs, this, [this, fired, conn, what] {
        if (*fired || m_done)
            return;
        disconnect(*conn);
        fail(tr("Timed out waiting for %1.").arg(what));
    });
}

void AppTour::start() { QTimer::singleShot(0, this, &AppTour::openTrace); }

void AppTour::fail(const QString &message)
{
    if (m_done)
        return;
    m_done = true;
    Q_EMIT done(1, message);
}

void AppTour::finish()
{
    if (m_done)
        return;
    m_done = true;
    Q_EMIT done(
        0, m_options.screenshotDir.isEmpty()
               ? tr("Smoke check passed: the demo trace, a CPU sweep and a sampling test rendered on every page.")
               : tr("Saved %1 screenshots to %2.").arg(m_grabbed.size()).arg(m_options.screenshotDir));
}

bool AppTour::grab(const QString &name)
{
    QApplication::processEvents();
    const QPixmap pixels = m_window->grab();
    if (pixels.isNull() || pixels.width() < 100) {
        fail(tr("Rendering the %1 page produced no image.").arg(name));
        return false;
    }
    m_grabbed << name;
    if (m_options.screenshotDir.isEmpty())
        return true;
    QByteArray png;
    QBuffer buffer(&png);
    buffer.open(QIODevice::WriteOnly);
    pixels.save(&buffer, "PNG");
    QString error;
    if (!writeFileAtomically(QDir(m_options.screenshotDir).filePath(name + QStringLiteral(".png")), png, &error)) {
        fail(error);
        return false;
    }
    return true;
}

void AppTour::openTrace()
{
    TimelinePage *timeline = m_window->timeline();
    connect(timeline, &TimelinePage::loadFailed, this,
            [this](const QString &error) { fail(tr("The demo trace did not load: %1").arg(error)); });
    waitFor(
        timeline, &TimelinePage::loadFinished,
        [this] {
            // What a first launch shows: Explore, ready for its one-click sweep.
            m_window->showPage(MainWindow::ExplorePage);
            QTimer::singleShot(300, this, [this] {
                if (grab(QStringLiteral("explore-welcome")))
                    runSweep();
            });
        },
        tr("the demo trace to load"));
    QString error;
    if (!m_window->openDemo(&error))
        fail(error);
}

void AppTour::runSweep()
{
    m_window->showPage(MainWindow::ExplorePage);
    ExplorerPage *explore = m_window->explorer();
    ParamsForm *params = explore->params();
    params->setDevice(QStringLiteral("cpu"));
    params->setVariantsChecked({QStringLiteral("naive"), QStringLiteral("static"), QStringLiteral("fused")});
    params->setKIsRatio(true);
    params->setField("k", "0.1");
    params->setField("batch", "1");
    params->setField("dim", "16");
    params->setField("posFrac", "0.5");
    params->setField("ignoreFrac", "0");
    params->setField("targetFrac", "0.5");
    if (m_options.quick) {
        params->setIterations(1, 5);
        params->setSweep(SweepAxis::N, "1000", "10000", 2);
    } else {
        params->setIterations(3, 30);
        params->setSweep(SweepAxis::N, "1000", "1000000", 7);
    }
    connect(explore->jobs(), &JobRunner::failed, this,
            [this](quint64, const QString &error) { fail(tr("The sweep failed: %1").arg(error)); });
    waitFor(
        explore, &ExplorerPage::runAdded,
        [this] {
            if (!grab(QStringLiteral("explore-sweep")))
                return;
            ExplorerPage *explore = m_window->explorer();
            explore->setChartKind(ExplorerPage::SpeedupChart);
            QTimer::singleShot(300, this, [this] {
                if (!grab(QStringLiteral("explore-speedup")))
                    return;
                m_window->explorer()->setChartKind(ExplorerPage::StepTimeChart);
                QTimer::singleShot(300, this, [this] {
                    if (grab(QStringLiteral("explore-steptime")))
                        showTimeline();
                });
            });
        },
        tr("the CPU sweep"));
    explore->runSweep();
    if (!explore->isBusy())
        fail(tr("The sweep did not start: %1").arg(params->errors().value(0)));
}

void AppTour::showTimeline()
{
    m_window->showPage(MainWindow::TimelinePageIndex);
    // Select the first sync gap, as a user clicking its row would.
    m_window->timeline()->showGap(0);
    QTimer::singleShot(500, this, [this] {
        if (grab(QStringLiteral("timeline")))
            runDistribution();
    });
}

void AppTour::runDistribution()
{
    m_window->showPage(MainWindow::DistributionPageIndex);
    DistributionPage *page = m_window->distribution();
    lab::SampleRequest r;
    r.variant = "fused";
    r.input.n = m_options.quick ? 200 : 2000;
    r.input.batch = 4;
    r.input.posFrac = 0.1;
    r.k = m_options.quick ? 20 : 200;
    r.seed = 1;
    page->setRequest(r, m_options.quick ? 50 : 2000);
    connect(page->jobs(), &JobRunner::failed, this,
            [this](quint64, const QString &error) { fail(tr("The sampling test failed: %1").arg(error)); });
    waitFor(
        page, &DistributionPage::finished,
        [this] {
            if (grab(QStringLiteral("distribution")))
                runOrderComparison(QStringLiteral("article-static"), QStringLiteral("static"));
        },
        tr("the sampling test"));
    page->run();
    if (!page->isBusy())
        fail(tr("The sampling test did not start."));
}

void AppTour::runOrderComparison(const QString &variant, const QString &next)
{
    DistributionPage *page = m_window->distribution();
    lab::SampleRequest r;
    r.variant = variant.toStdString();
    r.input.n = m_options.quick ? 1000 : 10000;
    r.input.batch = 1;
    r.input.posFrac = 0.01;
    r.k = m_options.quick ? 100 : 1000;
    r.seed = 1;
    page->setRequest(r, m_options.quick ? 20 : 300);
    waitFor(
        page, &DistributionPage::finished,
        [this, variant, next] {
            if (!grab(QStringLiteral("distribution-order-") + variant))
                return;
            if (next.isEmpty())
                finish();
            else
                runOrderComparison(next, QString());
        },
        tr("the order test of %1").arg(variant));
    page->run();
    if (!page->isBusy())
        fail(tr("The order test of %1 did not start.").arg(variant));
}

} // namespace syncscope::ui
