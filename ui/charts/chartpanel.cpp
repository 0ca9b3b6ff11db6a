#include "charts/chartpanel.h"

#include "charts/chartexport.h"
#include "charts/exportdialog.h"

#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QLabel>
#include <algorithm>
#include <QFontMetrics>
#include <QRegularExpression>
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
    m_fullTitle = chart->title();
    fitTitle();
    m_stack->setCurrentWidget(m_view);
}

QChart *ChartPanel::shownChart() const { return m_hasChart ? m_view->chart() : nullptr; }

void ChartPanel::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    fitTitle();
}

void ChartPanel::fitTitle()
{
    QChart *chart = m_hasChart ? m_view->chart() : nullptr;
    if (!chart || m_fullTitle.isEmpty())
        return;
    // The chart's own margins and a little air either side.
    const int width = std::max(80, m_view->width() - 40);
    const QString fitted = wrapTitle(m_fullTitle, chart->titleFont(), width);
    if (chart->title() != fitted)
        chart->setTitle(fitted);
}

QString ChartPanel::wrapTitle(const QString &title, const QFont &font, int width)
{
    const QFontMetrics fm(font);
    // The text of a piece of rich text, as drawn: tags dropped, the few
    // entities the titles use decoded.
    auto plain = [](QString s) {
        static const QRegularExpression tag(QStringLiteral("<[^>]*>"));
        s.remove(tag);
        s.replace(QLatin1String("&lt;"), QLatin1String("<")).replace(QLatin1String("&gt;"), QLatin1String(">"));
        s.replace(QLatin1String("&quot;"), QLatin1String("\""))
            .replace(QLatin1String("&amp;"), QLatin1String("&"));
        return s;
    };
    // A plain title becomes rich text, so its lines break the same way.
    const QString html = title.contains(QLatin1Char('<'))
                             ? title
                             : title.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>"));
    const QString br = QStringLiteral("<br>");
    const QStringList lines = html.split(br);
    QStringList out;
    for (const QString &line : lines) {
        // Break points: spaces outside tags.
        std::vector<qsizetype> spaces;
        int depth = 0;
        for (qsizetype i = 0; i < line.size(); ++i) {
            if (line[i] == QLatin1Char('<'))
                ++depth;
            else if (line[i] == QLatin1Char('>'))
                depth = std::max(0, depth - 1);
            else if (line[i] == QLatin1Char(' ') && depth == 0)
                spaces.push_back(i);
        }
        std::vector<QString> words;
        qsizetype from = 0;
        for (qsizetype sp : spaces) {
            words.push_back(line.mid(from, sp - from));
            from = sp + 1;
        }
        words.push_back(line.mid(from));
        // Greedy: as many words per line as fit; a word wider than the line
        // stands alone.
        QString wrapped, current;
        bool any = false;
        for (const QString &w : words) {
            const QString candidate = any ? current + QLatin1Char(' ') + w : w;
            if (any && fm.horizontalAdvance(plain(candidate)) > width) {
                wrapped += current + br;
                current = w;
            } else {
                current = candidate;
            }
            any = true;
        }
        wrapped += current;
        out << wrapped;
    }
    return out.join(br);
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
