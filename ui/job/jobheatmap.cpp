#include "job/jobheatmap.h"

#include "shared/timeformat.h"

#include <QCoreApplication>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPaintEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace syncscope::ui {

namespace {
constexpr int kLegendHeight = 44;
constexpr int kMinCellWidth = 3;

QColor mix(const QColor &a, const QColor &b, int num, int den)
{
    auto ch = [&](int x, int y) { return x + (y - x) * num / den; };
    return QColor(ch(a.red(), b.red()), ch(a.green(), b.green()), ch(a.blue(), b.blue()));
}
} // namespace

JobHeatMap::JobHeatMap(QWidget *parent) : QWidget(parent)
{
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

void JobHeatMap::setJob(std::shared_ptr<const JobScale> job)
{
    const RankOrder order = m_data.order();
    m_data = JobHeatMapData(std::move(job));
    m_data.setOrder(order);
    m_hover = {-1, -1};
    updateGeometry();
    update();
}

void JobHeatMap::setMetric(HeatMetric metric)
{
    m_metric = metric;
    update();
}

void JobHeatMap::setOrder(RankOrder order)
{
    m_data.setOrder(order);
    update();
}

QString JobHeatMap::title() const { return tr("%1 per rank and step").arg(heatMetricName(m_metric)); }

QColor JobHeatMap::colorOf(TimeNs value, TimeNs max)
{
    // Three stops of a sequential scale (ColorBrewer OrRd), placed by an
    // integer level in [0, 1000] so that equal values always look equal.
    static const QColor low(255, 247, 236), mid(252, 141, 89), high(127, 0, 0);
    int level = 0;
    if (max > 0 && value > 0)
        level = int(std::min<__int128>(1000, __int128(value) * 1000 / max));
    return level <= 500 ? mix(low, mid, level, 500) : mix(mid, high, level - 500, 500);
}

int JobHeatMap::rowHeight() const
{
    const int rows = m_data.rows();
    return rows <= 0 ? 0 : std::clamp(560 / rows, 4, 28);
}

JobHeatMap::Geometry JobHeatMap::geometryFor(const QRect &area, const QFontMetrics &fm) const
{
    Geometry g;
    int64_t widest = 0;
    if (m_data.job())
        for (const JobRank &r : m_data.job()->rankRows)
            widest = std::max<int64_t>(widest, r.rank < 0 ? -r.rank * 10 : r.rank);
    g.labelW = fm.horizontalAdvance(tr("rank %1").arg(widest)) + 12;
    g.headerH = fm.height() + 6;
    g.grid = QRectF(area.left() + g.labelW, area.top() + g.headerH, std::max(1, area.width() - g.labelW - 4),
                    std::max(1, area.height() - g.headerH));
    g.cellW = m_data.columns() > 0 ? g.grid.width() / m_data.columns() : 0;
    g.rowH = m_data.rows() > 0 ? g.grid.height() / m_data.rows() : 0;
    return g;
}

QSize JobHeatMap::sizeHint() const
{
    const QFontMetrics fm(font());
    const int label = fm.horizontalAdvance(QStringLiteral("rank 00000")) + 12;
    return QSize(label + std::max(m_data.columns() * 12, 480), fm.height() + 6 + m_data.rows() * rowHeight() + 2);
}

QSize JobHeatMap::minimumSizeHint() const
{
    const QFontMetrics fm(font());
    const int label = fm.horizontalAdvance(QStringLiteral("rank 00000")) + 12;
    return QSize(label + std::max(m_data.columns() * kMinCellWidth, 120),
                 fm.height() + 6 + m_data.rows() * rowHeight() + 2);
}

QRect JobHeatMap::widgetArea() const
{
    const QFontMetrics fm(font());
    return QRect(0, 0, width(), fm.height() + 6 + m_data.rows() * rowHeight());
}

std::pair<int, int> JobHeatMap::cellAt(const QPoint &pos) const
{
    if (m_data.rows() == 0 || m_data.columns() == 0)
        return {-1, -1};
    const Geometry g = geometryFor(widgetArea(), QFontMetrics(font()));
    if (!g.grid.contains(QPointF(pos)))
        return {-1, -1};
    const int col = std::min(m_data.columns() - 1, int((pos.x() - g.grid.left()) / g.cellW));
    const int row = std::min(m_data.rows() - 1, int((pos.y() - g.grid.top()) / g.rowH));
    return {row, col};
}

namespace {
QRect cellRectIn(const QRectF &grid, qreal cellW, qreal rowH, int row, int column)
{
    const int x0 = int(std::lround(grid.left() + column * cellW)),
              x1 = int(std::lround(grid.left() + (column + 1) * cellW));
    const int y0 = int(std::lround(grid.top() + row * rowH)), y1 = int(std::lround(grid.top() + (row + 1) * rowH));
    return QRect(QPoint(x0, y0), QPoint(std::max(x0, x1 - 1), std::max(y0, y1 - 1)));
}
} // namespace

QRect JobHeatMap::cellRect(int row, int column) const
{
    if (row < 0 || row >= m_data.rows() || column < 0 || column >= m_data.columns())
        return {};
    const Geometry g = geometryFor(widgetArea(), QFontMetrics(font()));
    return cellRectIn(g.grid, g.cellW, g.rowH, row, column);
}

QString JobHeatMap::toolTipAt(const QPoint &pos) const
{
    const auto [row, col] = cellAt(pos);
    return row < 0 ? QString() : m_data.cellText(row, col, m_metric);
}

void JobHeatMap::paintGrid(QPainter *p, const Geometry &g, const QRect &clip, bool hover) const
{
    const int rows = m_data.rows(), cols = m_data.columns();
    if (rows == 0 || cols == 0 || g.rowH <= 0 || g.cellW <= 0)
        return;
    const QFontMetrics fm = p->fontMetrics();
    const TimeNs max = m_data.maxValue(m_metric);
    const int r0 = std::clamp(int((clip.top() - g.grid.top()) / g.rowH), 0, rows - 1);
    const int r1 = std::clamp(int(std::ceil((clip.bottom() + 1 - g.grid.top()) / g.rowH)), 0, rows);
    const bool gaps = g.cellW >= 6 && g.rowH >= 6; // a white line between cells when they are big enough
    const QBrush missing(QColor(200, 200, 200), Qt::BDiagPattern);
    for (int r = r0; r < r1; ++r)
        for (int c = 0; c < cols; ++c) {
            QRect cell = cellRectIn(g.grid, g.cellW, g.rowH, r, c);
            if (gaps)
                cell.adjust(0, 0, -1, -1);
            const auto v = m_data.value(r, c, m_metric);
            if (v)
                p->fillRect(cell, colorOf(*v, max));
            else
                p->fillRect(cell, missing);
        }
    // Rank labels: every row when they fit, else every k-th.
    p->setPen(palette().color(QPalette::Text));
    const int every = std::max(1, int(std::ceil((fm.height() - 2) / g.rowH)));
    for (int r = r0; r < r1; ++r) {
        if (r % every != 0)
            continue;
        const QRect label(int(g.grid.left()) - g.labelW, int(std::lround(g.grid.top() + r * g.rowH)), g.labelW - 6,
                          std::max(int(std::lround(g.rowH)), fm.height()));
        const JobRank &rank = m_data.job()->rankRows[size_t(m_data.rankRowAt(r))];
        p->drawText(label, Qt::AlignRight | (g.rowH >= fm.height() ? Qt::AlignVCenter : Qt::AlignTop),
                    tr("rank %1").arg(rank.rank));
    }
    // What the columns are, in the corner above the rank labels.
    p->drawText(QRect(int(g.grid.left()) - g.labelW, int(g.grid.top()) - g.headerH, g.labelW - 6, g.headerH - 2),
                Qt::AlignRight | Qt::AlignBottom, tr("step"));
    // Step labels above the grid, as many as fit.
    int widest = 0;
    for (int c = 0; c < cols; ++c)
        widest = std::max(widest, fm.horizontalAdvance(m_data.columnShortName(c)));
    const int stride = std::max(1, int(std::ceil((widest + 8) / g.cellW)));
    for (int c = 0; c < cols; c += stride) {
        const QRect cell = cellRectIn(g.grid, g.cellW, g.rowH, 0, c);
        const QRect label(cell.center().x() - widest / 2 - 4, int(g.grid.top()) - g.headerH, widest + 8,
                          g.headerH - 2);
        p->drawText(label, Qt::AlignHCenter | Qt::AlignBottom, m_data.columnShortName(c));
    }
    if (hover && m_hover.first >= 0) {
        p->setPen(QPen(palette().color(QPalette::Text), 2));
        p->setBrush(Qt::NoBrush);
        p->drawRect(cellRectIn(g.grid, g.cellW, g.rowH, m_hover.first, m_hover.second).adjusted(1, 1, -1, -1));
    }
}

void JobHeatMap::paintLegend(QPainter *p, const QRect &rect, HeatMetric metric, TimeNs max)
{
    const QFontMetrics fm = p->fontMetrics();
    const QString low = formatDuration(0), high = formatDuration(max);
    const int barW = std::clamp(rect.width() / 3, 80, 320), barH = std::max(8, fm.height() - 4);
    int x = rect.left();
    const int y = rect.top() + 2;
    p->setPen(Qt::black);
    const QString name =
        QCoreApplication::translate("JobHeatMap", "%1 per step (time):").arg(heatMetricName(metric));
    p->drawText(QRect(x, y, fm.horizontalAdvance(name) + 4, fm.height()), Qt::AlignLeft | Qt::AlignVCenter, name);
    x += fm.horizontalAdvance(name) + 10;
    p->drawText(QRect(x, y, fm.horizontalAdvance(low) + 4, fm.height()), Qt::AlignLeft | Qt::AlignVCenter, low);
    x += fm.horizontalAdvance(low) + 8;
    // The bar goes through colorOf itself, so it is the scale the cells use.
    const int barY = y + (fm.height() - barH) / 2;
    for (int i = 0; i < barW; ++i) {
        const TimeNs v = TimeNs(__int128(max) * i / std::max(1, barW - 1));
        p->fillRect(QRect(x + i, barY, 1, barH), colorOf(v, max));
    }
    p->setPen(QColor(120, 120, 120));
    p->setBrush(Qt::NoBrush);
    p->drawRect(QRect(x, barY, barW, barH).adjusted(0, 0, -1, -1));
    x += barW + 8;
    p->setPen(Qt::black);
    p->drawText(QRect(x, y, fm.horizontalAdvance(high) + 4, fm.height()), Qt::AlignLeft | Qt::AlignVCenter, high);
    x += fm.horizontalAdvance(high) + 18;
    p->fillRect(QRect(x, barY, barH, barH), QBrush(QColor(200, 200, 200), Qt::BDiagPattern));
    x += barH + 4;
    const QString none = QCoreApplication::translate("JobHeatMap", "no such step on that rank");
    p->drawText(QRect(x, y, rect.right() - x, fm.height()), Qt::AlignLeft | Qt::AlignVCenter, none);
    p->setPen(QColor(80, 80, 80));
    p->drawText(QRect(rect.left(), y + fm.height() + 2, rect.width(), fm.height()),
                Qt::AlignLeft | Qt::AlignVCenter,
                fm.elidedText(heatMetricDefinition(metric) + QLatin1Char('.'), Qt::ElideRight, rect.width()));
}

void JobHeatMap::paintAll(QPainter *p, const QSize &size) const
{
    p->fillRect(QRect(QPoint(0, 0), size), Qt::white);
    p->setRenderHint(QPainter::TextAntialiasing);
    QFont bold = p->font();
    bold.setBold(true);
    const QFont normal = p->font();
    p->setFont(bold);
    const QFontMetrics fm = p->fontMetrics();
    p->setPen(Qt::black);
    const int margin = 12;
    p->drawText(QRect(margin, margin, size.width() - 2 * margin, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                title() + tr(" — ranks by %1, steps left to right").arg(rankOrderName(m_data.order()).toLower()));
    p->setFont(normal);
    const int top = margin + fm.height() + 8;
    const QRect area(margin, top, size.width() - 2 * margin, size.height() - top - kLegendHeight - margin);
    const Geometry g = geometryFor(area, p->fontMetrics());
    paintGrid(p, g, area, false);
    paintLegend(p,
                QRect(margin, size.height() - margin - kLegendHeight + 6, size.width() - 2 * margin,
                      kLegendHeight - 6),
                m_metric, m_data.maxValue(m_metric));
}

void JobHeatMap::paintEvent(QPaintEvent *event)
{
    QPainter p(this);
    p.fillRect(event->rect(), palette().color(QPalette::Base));
    if (m_data.rows() == 0 || m_data.columns() == 0) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter,
                   m_data.job() ? tr("No steps in this job: nothing to map") : tr("No job analysed yet"));
        return;
    }
    paintGrid(&p, geometryFor(widgetArea(), p.fontMetrics()), event->rect(), true);
}

void JobHeatMap::mouseMoveEvent(QMouseEvent *event)
{
    const auto cell = cellAt(event->position().toPoint());
    if (cell != m_hover) {
        m_hover = cell;
        update();
        Q_EMIT hovered(cell.first, cell.second);
    }
    QWidget::mouseMoveEvent(event);
}

void JobHeatMap::mousePressEvent(QMouseEvent *event)
{
    if (event->button() == Qt::LeftButton) {
        const auto [row, col] = cellAt(event->position().toPoint());
        const int step = m_data.stepAt(row, col);
        if (step >= 0) {
            Q_EMIT cellClicked(m_data.rankRowAt(row), step);
            event->accept();
            return;
        }
    }
    QWidget::mousePressEvent(event);
}

void JobHeatMap::leaveEvent(QEvent *event)
{
    if (m_hover.first >= 0) {
        m_hover = {-1, -1};
        update();
    }
    QWidget::leaveEvent(event);
}

bool JobHeatMap::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

} // namespace syncscope::ui
