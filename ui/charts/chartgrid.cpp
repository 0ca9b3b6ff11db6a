#include "charts/chartgrid.h"

#include <QGridLayout>
#include <QResizeEvent>

namespace syncscope::ui {

ChartGrid::ChartGrid(QWidget *parent) : QWidget(parent)
{
    m_grid = new QGridLayout(this);
    m_grid->setContentsMargins(0, 0, 0, 0);
}

void ChartGrid::addCell(QWidget *cell)
{
    cell->setParent(this);
    cell->setMinimumHeight(kMinCellHeight);
    m_cells.push_back(cell);
    m_columns = 0; // place it on the next reflow
    reflow(width());
}

void ChartGrid::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    reflow(event->size().width());
}

void ChartGrid::reflow(int width)
{
    const int columns = width >= 2 * kMinCellWidth + m_grid->horizontalSpacing() ? 2 : 1;
    if (columns == m_columns)
        return;
    m_columns = columns;
    for (QWidget *c : m_cells)
        m_grid->removeWidget(c);
    for (size_t i = 0; i < m_cells.size(); ++i)
        m_grid->addWidget(m_cells[i], int(i) / columns, int(i) % columns);
    for (int c = 0; c < 2; ++c)
        m_grid->setColumnStretch(c, c < columns ? 1 : 0);
    const int rows = int((m_cells.size() + size_t(columns) - 1) / size_t(columns));
    for (int r = 0; r < int(m_cells.size()); ++r) // rows share the height alike
        m_grid->setRowStretch(r, r < rows ? 1 : 0);
    setMinimumHeight(rows * kMinCellHeight + std::max(0, rows - 1) * m_grid->verticalSpacing());
}

} // namespace syncscope::ui
