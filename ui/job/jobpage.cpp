#include "job/jobpage.h"

#include "analysis/syncanalysis.h"
#include "common/error.h"
#include "job/jobview.h"
#include "jobs/jobrunner.h"
#include "jobs/progressrow.h"
#include "shared/noticebar.h"
#include "timeline/timelinedata.h"

#include <QAction>
#include <QLabel>
#include <QVBoxLayout>

#include <string>

namespace syncscope::ui {

JobPage::JobPage(QWidget *parent) : QWidget(parent)
{
    m_runner = new JobRunner(this);
    buildContent();
    createActions();
    connectRunner();
    connectView();
    showNote(tr("Open several trace files of one job (the ranks, e.g. File ▸ Open with all of them "
                "selected) to see "
                "what a sync on one rank costs the whole job."));
}

// The analysis's progress and error over the view, or a note in its place.
void JobPage::buildContent()
{
    m_view = new JobView(this);
    m_note = new QLabel(this);
    m_note->setWordWrap(true);
    m_note->setAlignment(Qt::AlignCenter);
    m_error = new NoticeBar(this, NoticeBar::Look::Line);
    m_error->setObjectName(QStringLiteral("jobError"));
    m_progressRow = new ProgressRow(m_runner, this);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_progressRow);
    layout->addWidget(m_error);
    layout->addWidget(m_note, 1);
    layout->addWidget(m_view, 100);
}

void JobPage::createActions()
{
    m_cancelAction = new QAction(tr("Cancel Job Analysis"), this);
    m_cancelAction->setShortcut(QKeySequence(Qt::Key_Escape));
    m_cancelAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_cancelAction->setEnabled(false);
    addAction(m_cancelAction);
    connect(m_cancelAction, &QAction::triggered, this, &JobPage::cancel);
}

// The progress row follows the runner on its own; the page says how the analysis ended.
void JobPage::connectRunner()
{
    connect(m_runner, &JobRunner::started, this, [this] { m_cancelAction->setEnabled(true); });
    connect(m_runner, &JobRunner::idle, this, [this] {
        if (!m_runner->isRunning())
            m_cancelAction->setEnabled(false);
    });
    connect(m_runner, &JobRunner::failed, this, [this](quint64, const QString &error) {
        m_error->showMessage(error);
        showNote(tr("The job could not be analysed."));
        Q_EMIT statusMessage(error);
        Q_EMIT jobFailed(error);
    });
    connect(m_runner, &JobRunner::cancelled, this, [this](quint64) {
        if (!m_runner->isRunning() && !m_view->job())
            showNote(tr("The job analysis was cancelled. Reopen the ranks in the Timeline to run "
                        "it again."));
    });
}

// A rank or a blame row of the view, shown in the Timeline.
void JobPage::connectView()
{
    connect(m_view, &JobView::statusMessage, this, &JobPage::statusMessage);
    connect(m_view, &JobView::showRankWindow, this, [this](int rankRow, TimeNs start, TimeNs end) {
        if (rankRow >= 0 && rankRow < int(m_fileOfRankRow.size()) && m_fileOfRankRow[size_t(rankRow)] >= 0)
            Q_EMIT showRankWindow(m_fileOfRankRow[size_t(rankRow)], start, end);
    });
    connect(m_view, &JobView::showBlameWindow, this,
            [this](int rankRow, TimeNs start, TimeNs end, const CollectiveBlame &blame) {
                if (rankRow >= 0 && rankRow < int(m_fileOfRankRow.size()) && m_fileOfRankRow[size_t(rankRow)] >= 0)
                    Q_EMIT showBlame(m_fileOfRankRow[size_t(rankRow)], start, end, blame);
            });
}

void JobPage::showJob(const std::shared_ptr<const JobScale> &job)
{
    if (!job)
        return;
    // The inputs are made in the Timeline's file order, so a rank's input
    // position is its file there.
    m_fileOfRankRow.clear();
    for (const JobRank &jr : job->rankRows)
        m_fileOfRankRow.push_back(jr.fileIndex < m_files ? int(jr.fileIndex) : -1);
    m_note->hide();
    m_view->setJob(job);
    m_view->show();
    Q_EMIT statusMessage(tr("Job analysed: %1 ranks").arg(job->ranks));
    Q_EMIT jobReady();
}

JobPage::~JobPage()
{
    m_runner->cancel();
    m_runner->waitForDone();
}

void JobPage::showNote(const QString &text)
{
    m_view->setJob(nullptr);
    m_view->hide();
    m_note->setText(text);
    m_note->show();
}

QString JobPage::noteText() const { return m_note->isHidden() ? QString() : m_note->text(); }
bool JobPage::isRunning() const { return m_runner->isRunning(); }

QList<QAction *> JobPage::pageActions() const
{
    return {m_view->exportHeatMapAction(), m_view->copyHeatMapAction(), m_cancelAction};
}

void JobPage::cancel()
{
    if (m_runner->isRunning())
        m_runner->cancel();
}

void JobPage::clear()
{
    m_runner->cancel();
    m_runner->waitForDone();
    m_error->clear();
    m_files = 0;
    m_fileOfRankRow.clear();
    showNote(tr("Loading the job…"));
}

void JobPage::setTimelineData(std::shared_ptr<const TimelineData> data)
{
    m_runner->cancel();
    m_error->clear();
    m_files = 0;
    m_fileOfRankRow.clear();
    if (!data || data->files().size() < 2) {
        showNote(data ? tr("The Timeline shows one file. Open several trace files of one job (the "
                           "ranks) to see what "
                           "a sync on one rank costs the whole job.")
                      : tr("Open several trace files of one job (the ranks) to see what a sync on "
                           "one rank costs "
                           "the whole job."));
        return;
    }
    m_files = data->files().size();
    showNote(tr("Analysing the job…"));
    const int n = int(data->files().size());
    m_runner->start(
        tr("Analysing %n ranks", nullptr, n),
        [data](const ProgressFn &progress, const CancelToken *cancel) {
            // Summaries first (a small fraction of each trace), then the job.
            const size_t count = data->files().size();
            std::vector<RankInput> inputs;
            inputs.reserve(count);
            for (size_t i = 0; i < count; ++i) {
                checkCancel(cancel);
                const TimelineFile &f = data->files()[i];
                inputs.push_back(makeRankInput(*f.model, f.sync));
                progress(0.2 * double(i + 1) / double(count), "Summarising the ranks");
            }
            const ProgressFn job = [&](double f, const char *msg) { progress(0.2 + 0.8 * f, msg); };
            return std::make_shared<const JobScale>(analyzeJobScale(inputs, job, cancel));
        },
        this, [this](const std::shared_ptr<const JobScale> &job) { showJob(job); });
}

} // namespace syncscope::ui
