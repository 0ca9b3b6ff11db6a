// The Distribution page's charts as one picture: Export Chart… (PNG, SVG, PDF,
// through the export dialog) and Copy Chart (an image on the clipboard).
#include "distribution/distributionpage.h"

#include "charts/chartexport.h"
#include "charts/chartpanel.h"
#include "charts/exportdialog.h"

#include <QAction>
#include <QApplication>
#include <QChart>
#include <QClipboard>
#include <QDir>
#include <QFileInfo>
#include <QImage>

#include <memory>
#include <vector>

namespace syncscope::ui {

namespace {
constexpr int kColumns = 2; // as the page lays them out

// Fresh charts for the drawn panels, owned by the returned vector.
std::vector<std::unique_ptr<QChart>> makeCharts(const QList<ChartPanel *> &panels)
{
    std::vector<std::unique_ptr<QChart>> out;
    for (ChartPanel *p : panels)
        if (QChart *c = p->makeChart(nullptr))
            out.emplace_back(c);
    return out;
}

QList<QChart *> raw(const std::vector<std::unique_ptr<QChart>> &charts)
{
    QList<QChart *> out;
    for (const auto &c : charts)
        out << c.get();
    return out;
}
} // namespace

QList<ChartPanel *> DistributionPage::drawnCharts() const
{
    QList<ChartPanel *> out;
    for (ChartPanel *c : charts())
        if (c->hasChart())
            out << c;
    return out;
}

void DistributionPage::updateChartActions()
{
    const bool any = !drawnCharts().isEmpty();
    const QString why = tr("Run a sampling test first: there is no chart yet");
    m_exportChartsAction->setEnabled(any);
    m_copyChartsAction->setEnabled(any);
    m_exportChartsAction->setStatusTip(any ? QString() : why);
    m_copyChartsAction->setStatusTip(any ? QString() : why);
}

bool DistributionPage::exportCharts(const QSize &size, const QString &path, QString *error) const
{
    const auto charts = makeCharts(drawnCharts());
    if (charts.empty()) {
        if (error)
            *error = tr("There is no chart to export: run a sampling test first.");
        return false;
    }
    return syncscope::ui::exportCharts(raw(charts), size, kColumns, path, error);
}

QImage DistributionPage::chartsImage(const QSize &size, qreal scale) const
{
    const auto charts = makeCharts(drawnCharts());
    if (charts.empty())
        return {};
    return renderChartsImage(raw(charts), size, kColumns, scale);
}

void DistributionPage::exportChartsWithDialog()
{
    if (drawnCharts().isEmpty())
        return;
    ExportDialog dialog(this, QStringLiteral("distribution"));
    dialog.setRenderer([this](const QSize &size, const QString &path, QString *error) {
        return exportCharts(size, path, error);
    });
    if (dialog.exec() != QDialog::Accepted)
        return;
    Q_EMIT statusMessage(
        tr("Wrote %1").arg(QDir::toNativeSeparators(QFileInfo(dialog.path()).absoluteFilePath())));
    Q_EMIT chartsExported(dialog.path());
}

void DistributionPage::copyCharts()
{
    const QImage image = chartsImage(QSize(1200, 800), devicePixelRatioF());
    if (image.isNull())
        return;
    QApplication::clipboard()->setImage(image);
    Q_EMIT statusMessage(tr("Copied the charts to the clipboard"));
}

} // namespace syncscope::ui
