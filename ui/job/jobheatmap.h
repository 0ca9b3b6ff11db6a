#pragma once
// The rank x step heat map of the Job view: a row per rank, a column per step,
// each cell coloured by one RankStep figure (avoidable, lateness or wait) on a
// linear scale from 0 to the largest cell. Hovering a cell shows its exact
// value; clicking it asks to show that rank's step in the Timeline. The same
// painting serves the screen and the exports (paintAll), so a PNG, SVG or PDF
// shows what the view shows, with its title and legend.
#include "job/jobheatmapdata.h"

#include <QWidget>

namespace syncscope::ui {

class JobHeatMap : public QWidget {
    Q_OBJECT
public:
    explicit JobHeatMap(QWidget *parent = nullptr);

    void setJob(std::shared_ptr<const JobScale> job);
    const JobHeatMapData &data() const { return m_data; }
    void setMetric(HeatMetric metric);
    HeatMetric metric() const { return m_metric; }
    void setOrder(RankOrder order);
    RankOrder order() const { return m_data.order(); }

    // The cell under a widget point: {row, column}, -1s outside the grid.
    std::pair<int, int> cellAt(const QPoint &pos) const;
    // Widget rect of a cell (for tests and hover).
    QRect cellRect(int row, int column) const;
    QString toolTipAt(const QPoint &pos) const;

    // The colour of a value on the scale [0, max]: light for 0, dark red for max.
    static QColor colorOf(TimeNs value, TimeNs max);
    // The title of the picture: "Avoidable per rank and step".
    QString title() const;
    // The whole picture at `size`: title, step axis, cells, rank labels and the
    // legend (the exports and the clipboard).
    void paintAll(QPainter *painter, const QSize &size) const;
    // The legend alone: the colour bar from 0 to the largest cell, with units.
    static void paintLegend(QPainter *painter, const QRect &rect, HeatMetric metric, TimeNs max);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

Q_SIGNALS:
    // rankRow: an index into JobScale::rankRows; step: into JobScale::rankSteps.
    void cellClicked(int rankRow, int step);
    void hovered(int row, int column);

protected:
    void paintEvent(QPaintEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void leaveEvent(QEvent *event) override;
    bool event(QEvent *event) override;

private:
    struct Geometry {
        QRectF grid; // the cells
        qreal cellW = 0, rowH = 0;
        int labelW = 0;  // rank labels, left of the grid
        int headerH = 0; // step labels, above the grid
    };
    Geometry geometryFor(const QRect &area, const QFontMetrics &fm) const;
    void paintGrid(QPainter *painter, const Geometry &g, const QRect &clip, bool hover) const;
    int rowHeight() const;
    QRect widgetArea() const; // the grid with its labels, in widget coordinates

    JobHeatMapData m_data;
    HeatMetric m_metric = HeatMetric::Avoidable;
    std::pair<int, int> m_hover{-1, -1};
};

} // namespace syncscope::ui
