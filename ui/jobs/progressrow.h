#pragma once
// The row a page shows while its job runs: the job's title, a bar with the
// work's own words ("Parsing events — 40%") and Cancel. Bound to one
// JobRunner: it shows when a job starts, follows its progress, and hides when
// the job fails, or when no job runs any more (a page may hide it sooner, as
// it takes the result). Cancel cancels the running job.
#include <QWidget>

class QLabel;
class QProgressBar;
class QPushButton;

namespace syncscope::ui {

class JobRunner;

class ProgressRow : public QWidget {
    Q_OBJECT
public:
    struct Style {
        // The job's title left of the bar (elided in its middle to half the
        // page, at least 200 px; the tooltip has all).
        bool title = true;
        // The work's message inside the bar, before the percentage.
        bool message = true;
        // A Cancel button right of the bar (a page whose own button row has
        // Cancel leaves it out).
        bool cancel = true;
        // A thin bar (10 px) of no text, under a page's own controls.
        bool thin = false;
    };
    // The look of a bar under a page's buttons: thin, no title, no text, no Cancel.
    static Style thinBar()
    {
        Style s;
        s.title = s.message = s.cancel = false;
        s.thin = true;
        return s;
    }
    ProgressRow(JobRunner *runner, QWidget *parent) : ProgressRow(runner, Style{}, parent) {}
    ProgressRow(JobRunner *runner, Style style, QWidget *parent);

    QPushButton *cancelButton() const { return m_cancel; } // null without Style::cancel
    QProgressBar *bar() const { return m_bar; }

private:
    void onStarted(const QString &title);

    JobRunner *m_runner = nullptr;
    Style m_style;
    QLabel *m_title = nullptr;
    QProgressBar *m_bar = nullptr;
    QPushButton *m_cancel = nullptr;
};

} // namespace syncscope::ui
