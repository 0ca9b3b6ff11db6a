#pragma once
// The Job page: the Job view of the job open in the Timeline. When the
// Timeline holds several files (the ranks of one job), it makes each rank's
// RankInput from the file's model and sync analysis and runs analyzeJobScale
// on the job runner, with progress and a working cancel; one file, or none,
// leaves a note that says what to open.
#include "analysis/jobscale.h"

#include <QStringList>
#include <QWidget>

#include <memory>
#include <vector>

class QAction;
class QLabel;

namespace syncscope::ui {

class JobRunner;
class JobView;
class NoticeBar;
class ProgressRow;
class TimelineData;

class JobPage : public QWidget {
    Q_OBJECT
public:
    explicit JobPage(QWidget *parent = nullptr);
    ~JobPage() override;

    // Analyses the job shown in the Timeline (null: nothing open). The worker
    // holds `data` only while it runs; the page keeps the JobScale alone.
    void setTimelineData(std::shared_ptr<const TimelineData> data);
    // Cancels the analysis, waits for its worker and drops the job (before
    // the Timeline reopens, so the old trace is freed first).
    void clear();
    void cancel();
    bool isRunning() const;
    JobView *view() const { return m_view; }
    // Why there is no job to show ("" while one is shown or computing).
    QString noteText() const;
    // Export and copy of the heat map, cancel; shortcuts while focus is inside.
    QList<QAction *> pageActions() const;

Q_SIGNALS:
    // A cell or a blame row was clicked: file is an index into the Timeline's
    // TimelineData::files(); [start, end) in that rank's own clock.
    void showRankWindow(int file, TimeNs start, TimeNs end);
    // A blame row was clicked: the same, with the blame (in that rank's clock).
    void showBlame(int file, TimeNs start, TimeNs end, const syncscope::CollectiveBlame &blame);
    void statusMessage(const QString &text);
    void jobReady();
    void jobFailed(const QString &error);

private:
    // The constructor's parts, in the order it calls them.
    void buildContent();
    void createActions();
    void connectRunner();
    void connectView();
    void showNote(const QString &text);
    // The analysis's result, on the GUI thread.
    void showJob(const std::shared_ptr<const JobScale> &job);

    JobRunner *m_runner = nullptr;
    JobView *m_view = nullptr;
    QLabel *m_note = nullptr;
    NoticeBar *m_error = nullptr;
    ProgressRow *m_progressRow = nullptr;
    QAction *m_cancelAction = nullptr;
    size_t m_files = 0;               // files of the job being (or last) analysed
    std::vector<int> m_fileOfRankRow; // JobScale::rankRows index -> file index
};

} // namespace syncscope::ui
