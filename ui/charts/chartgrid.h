#pragma once
// Chart panels in a grid that reflows with its width: two columns where each
// gets at least kMinCellWidth pixels, else one, and every cell at least
// kMinCellHeight tall. Inside a QScrollArea, a small window scrolls instead
// of cutting the charts' titles, axes and legends.
#include <QWidget>

#include <vector>

QT_BEGIN_NAMESPACE
class QGridLayout;
QT_END_NAMESPACE

namespace syncscope::ui {

class ChartGrid : public QWidget {
    Q_OBJECT
public:
    static constexpr int kMinCellWidth = 460;
    static constexpr int kMinCellHeight = 300;

    explicit ChartGrid(QWidget *parent = nullptr);
    // Cells fill the grid row by row, in the order added.
    void addCell(QWidget *cell);
    int columns() const { return m_columns; }

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    QGridLayout *m_grid = nullptr;
    std::vector<QWidget *> m_cells;
    int m_columns = 0;
    void reflow(int width);
};

} // namespace syncscope::ui
