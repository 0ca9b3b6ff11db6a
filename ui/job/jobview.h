#pragma once
// The Job view: what host waits cost a job of several ranks, from its
// JobScale. The headline ("the job would finish up to X earlier without host
// waits"), the span, ranks and collectives, the warnings; a rank x step heat
// map (avoidable, lateness or wait; rows sortable); the ranks table and the
// collectives' blame table. A click on a cell or a blame row asks to show
// that rank's window in the Timeline. The heat map exports as PNG, SVG, PDF
// or to the clipboard, the tables as CSV or JSON (atomic writes, dialogs that
// start in the last export folder). Given its data; computes nothing itself.
#include "analysis/jobscale.h"

#include <QImage>
#include <QWidget>

#include <memory>

class QAction;
class QComboBox;
class QLabel;
class QScrollArea;
class QSortFilterProxyModel;
class QSplitter;
class QTableView;

namespace syncscope::ui {

class CollectiveBlameModel;
class JobHeatMap;
class JobRankModel;

class JobView : public QWidget {
    Q_OBJECT
public:
    explicit JobView(QWidget *parent = nullptr);

    void setJob(std::shared_ptr<const JobScale> job);
    const std::shared_ptr<const JobScale> &job() const { return m_job; }

    QString headlineText() const;
    QString warningsText() const;
    // The key of the three costs beside the Ranks table, for its current row
    // (the top row until one is picked): local, job and all-ranks avoidable.
    QLabel *costKey() const { return m_costKey; }
    JobHeatMap *heatMap() const { return m_heatMap; }
    QComboBox *metricBox() const { return m_metric; }
    QComboBox *orderBox() const { return m_order; }
    JobRankModel *rankModel() const { return m_rankModel; }
    CollectiveBlameModel *blameModel() const { return m_blameModel; }
    QTableView *rankTable() const { return m_rankTable; }
    QTableView *blameTable() const { return m_blameTable; }

    enum class Table { Ranks, Blame };
    // The table in its shown order as JSON when the path ends in .json, else
    // CSV; atomic. False with one sentence in *error.
    bool exportTable(Table table, const QString &path, QString *error = nullptr) const;
    QString suggestedExportPath(Table table, bool json) const;
    void exportTableWithDialog(Table table, bool json);
    // The heat map with its title and legend, as the path's suffix says
    // (.png, .svg, .pdf); atomic.
    bool exportHeatMap(const QString &path, const QSize &size, QString *error = nullptr) const;
    QImage heatMapImage(const QSize &size, qreal scale = 1.0) const;
    // A size that shows every rank row at its on-screen height.
    QSize heatMapExportSize() const;
    void exportHeatMapWithDialog();
    void copyHeatMap();
    QAction *exportHeatMapAction() const { return m_exportAction; }
    QAction *copyHeatMapAction() const { return m_copyAction; }

    // What a click does: a cell (rankRow into rankRows, step into rankSteps)
    // shows that step's host window (showRankWindow); a blame row (into
    // blame) shows the last rank from the start of its step that holds the
    // collective to the collective's end, with what it blames
    // (showBlameWindow). Both in the rank's own clock.
    void showCell(int rankRow, int step);
    void showBlame(int blameRow);

Q_SIGNALS:
    // rankRow: an index into JobScale::rankRows; [start, end) in that rank's
    // own clock (the times of its trace file).
    void showRankWindow(int rankRow, TimeNs start, TimeNs end);
    // The same for a blame row, with the blame (its start and end moved into
    // the rank's clock) whose collective and late sync call to select.
    void showBlameWindow(int rankRow, TimeNs start, TimeNs end, const syncscope::CollectiveBlame &blame);
    void statusMessage(const QString &text);

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void updateHeadline();
    void updateCostKey();
    void fitSplitter();
    void tableMenu(QTableView *table, const QPoint &pos);
    QString exportBaseName() const;

    std::shared_ptr<const JobScale> m_job;
    QLabel *m_headline = nullptr;
    QLabel *m_warnings = nullptr;
    QLabel *m_costKey = nullptr;
    QComboBox *m_metric = nullptr;
    QComboBox *m_order = nullptr;
    QWidget *m_legend = nullptr;
    JobHeatMap *m_heatMap = nullptr;
    QScrollArea *m_heatScroll = nullptr;
    QWidget *m_heatPanel = nullptr;
    QSplitter *m_split = nullptr;
    bool m_sized = false;
    JobRankModel *m_rankModel = nullptr;
    QSortFilterProxyModel *m_rankProxy = nullptr;
    QTableView *m_rankTable = nullptr;
    CollectiveBlameModel *m_blameModel = nullptr;
    QSortFilterProxyModel *m_blameProxy = nullptr;
    QTableView *m_blameTable = nullptr;
    QAction *m_exportAction = nullptr;
    QAction *m_copyAction = nullptr;
};

} // namespace syncscope::ui
