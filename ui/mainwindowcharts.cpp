// The window's Export Chart… and Copy Chart: they act on the page shown, the
// Explore chart on Explore, the Distribution charts on Distribution and the
// heat map on Job, and
// are greyed out with the reason elsewhere. The pages keep their own actions
// (and Ctrl+E / Ctrl+Shift+C while focus is in them); these forward to them.
#include "mainwindow.h"

#include "distribution/distributionpage.h"
#include "explorer/explorerpage.h"
#include "job/jobpage.h"
#include "job/jobview.h"

#include <QAction>
#include <QTabWidget>

namespace syncscope::ui {

void MainWindow::createChartActions()
{
    m_exportChart = new QAction(tr("&Export Chart…"), this);
    m_copyChart = new QAction(tr("Cop&y Chart"), this);
    // Shown in the menu; the keys themselves belong to the page's own actions,
    // so that the two never make the shortcut ambiguous.
    m_exportChart->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    m_copyChart->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    for (QAction *a : {m_exportChart, m_copyChart})
        a->setShortcutContext(Qt::WidgetShortcut);
    auto pageAction = [this](bool exportIt) -> QAction * {
        switch (currentPage()) {
        case ExplorePage:
            if (!m_explorer)
                return nullptr;
            return exportIt ? m_explorer->exportChartAction() : m_explorer->copyChartAction();
        case DistributionPageIndex:
            if (!m_distribution)
                return nullptr;
            return exportIt ? m_distribution->exportChartsAction() : m_distribution->copyChartsAction();
        case JobPageIndex:
            return exportIt ? m_job->view()->exportHeatMapAction() : m_job->view()->copyHeatMapAction();
        default: return nullptr;
        }
    };
    connect(m_exportChart, &QAction::triggered, this, [pageAction] {
        if (QAction *a = pageAction(true); a && a->isEnabled())
            a->trigger();
    });
    connect(m_copyChart, &QAction::triggered, this, [pageAction] {
        if (QAction *a = pageAction(false); a && a->isEnabled())
            a->trigger();
    });
    connect(m_tabs, &QTabWidget::currentChanged, this, &MainWindow::updateChartActions);
    for (QAction *a : {m_job->view()->exportHeatMapAction(), m_job->view()->copyHeatMapAction()})
        connect(a, &QAction::changed, this, &MainWindow::updateChartActions);
    updateChartActions();
}

void MainWindow::connectChartActions()
{
    for (QAction *a : {m_explorer->exportChartAction(), m_explorer->copyChartAction(),
                       m_distribution->exportChartsAction(), m_distribution->copyChartsAction()})
        connect(a, &QAction::changed, this, &MainWindow::updateChartActions);
    updateChartActions();
}

void MainWindow::updateChartActions()
{
    if (!m_exportChart)
        return;
    QAction *exportIt = nullptr, *copyIt = nullptr;
    QString why;
    const QString noLab = m_labError.isEmpty() ? tr("The lab (LibTorch) is still loading")
                                               : tr("The lab could not be loaded: %1").arg(m_labError);
    switch (currentPage()) {
    case ExplorePage:
        if (!m_explorer) {
            why = noLab;
            break;
        }
        exportIt = m_explorer->exportChartAction();
        copyIt = m_explorer->copyChartAction();
        why = tr("Run a benchmark first: there is no chart yet");
        break;
    case DistributionPageIndex:
        if (!m_distribution) {
            why = noLab;
            break;
        }
        exportIt = m_distribution->exportChartsAction();
        copyIt = m_distribution->copyChartsAction();
        why = tr("Run a sampling test first: there is no chart yet");
        break;
    case JobPageIndex:
        exportIt = m_job->view()->exportHeatMapAction();
        copyIt = m_job->view()->copyHeatMapAction();
        why = tr("Open several ranks of one job in the Timeline first: there is no heat map yet");
        break;
    default: why = tr("The Timeline has no chart to export; its tables export from their context menus"); break;
    }
    const bool canExport = exportIt && exportIt->isEnabled(), canCopy = copyIt && copyIt->isEnabled();
    m_exportChart->setEnabled(canExport);
    m_copyChart->setEnabled(canCopy);
    m_exportChart->setToolTip(canExport ? tr("Save the chart of this page as PNG, SVG or PDF (Ctrl+E)") : why);
    m_copyChart->setToolTip(canCopy ? tr("Copy the chart of this page as an image (Ctrl+Shift+C)") : why);
}

} // namespace syncscope::ui
