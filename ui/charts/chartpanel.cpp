#include "charts/chartpanel.h"

#include "charts/chartexport.h"
#include "charts/exportdialog.h"

#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QLabel>
#include <QMenu>
#include <QStackedLayout>

#include <memory>

namespace syncscope::ui {

namespace {
class MenuChartView : public QChartView {
public:
    MenuChartView(ChartPanel *panel) : m_panel(panel) { setRenderHint(QPainter::Antialiasing); }

protected:
    void contextMenuEvent(QContextMenuEvent *event) override
    {
        QMenu menu(this);
        menu.addAction(tr("Export Chart…"), m_panel, &ChartPanel::exportWithDialog);
        menu.addAction(tr("Copy Chart"), m_panel, &ChartPanel::copyToClipboard);
        menu.exec(event->globalPos());
    }

private:
    ChartPanel *m_panel;
};
} // namespace

ChartPanel::ChartPanel(QWidget *parent) : QWidget(parent)
{
    m_stack = new QStackedLayout(this);
    m_view = new MenuChartView(this);
    m_view->setMinimumSize(320, 220);
    m_message = new QLabel(this);
    m_message->setAlignment(Qt::AlignCenter);
    m_message->setWordWrap(true);
    m_message->setMargin(24);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont f = m_message->font();
    f.setPointSizeF(f.pointSizeF() * 1.1);
    m_message->setFont(f);
    m_stack->addWidget(m_view);
    m_stack->addWidget(m_message);
    clear(tr("No results yet."));
}

void ChartPanel::setFactory(Factory factory)
{
    m_factory = std::move(factory);
    refresh();
}

void ChartPanel::clear(const QString &message)
{
    m_factory = nullptr;
    m_hasChart = false;
    m_message->setText(message);
    m_stack->setCurrentWidget(m_message);
    QChart *old = m_view->chart();
    m_view->setChart(new QChart);
    delete old;
}

QString ChartPanel::message() const { return m_hasChart ? QString() : m_message->text(); }

void ChartPanel::refresh()
{
    if (!m_factory)
        return;
    QString why;
    QChart *chart = m_factory(&why);
    if (!chart) {
        Factory keep = m_factory;
        clear(why);
        m_factory = std::move(keep);
        return;
    }
    QChart *old = m_view->chart();
    m_view->setChart(chart);
    delete old;
    m_hasChart = true;
    m_stack->setCurrentWidget(m_view);
}

QChart *ChartPanel::makeChart(QString *why) const
{
    if (!m_factory) {
        if (why)
            *why = m_message->text();
        return nullptr;
    }
    return m_factory(why);
}

void ChartPanel::exportWithDialog()
{
    if (!m_hasChart)
        return;
    ExportDialog dialog(this, m_name);
    dialog.setRenderer([this](const QSize &size, const QString &path, QString *error) {
        QString why;
        std::unique_ptr<QChart> chart(makeChart(&why));
        if (!chart) {
            *error = why;
            return false;
        }
        return exportChart(chart.get(), size, path, error);
    });
    if (dialog.exec() != QDialog::Accepted)
        return;
    ExportDialog::announce(this, dialog.path());
    Q_EMIT exported(dialog.path());
}

void ChartPanel::copyToClipboard()
{
    QString why;
    std::unique_ptr<QChart> chart(makeChart(&why));
    if (!chart)
        return;
    const qreal dpr = devicePixelRatioF();
    QApplication::clipboard()->setImage(renderChartImage(chart.get(), m_view->size(), dpr));
}

} // namespace syncscope::ui
