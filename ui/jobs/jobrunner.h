#pragma once
// The one way the UI runs long core work: on QThreadPool via QtConcurrent,
// progress polled every 50 ms on the GUI thread (heaptrack's throttle), results
// of superseded jobs dropped by id (hotspot's JobTracker).
#include "common/progress.h"

#include <QObject>
#include <QString>
#include <QTimer>

#include <any>
#include <functional>
#include <memory>

namespace syncscope::ui {

class JobRunner : public QObject {
    Q_OBJECT
public:
    // The work runs on a pool thread. It reports through `progress`, polls
    // `cancel` (the core functions do both), throws syncscope::Error for a
    // one-sentence failure and syncscope::Cancelled when cancelled.
    using Work = std::function<std::any(const ProgressFn &progress, const CancelToken *cancel)>;

    explicit JobRunner(QObject *parent = nullptr);
    ~JobRunner() override;

    // Starts a job, cancelling and dropping any job still running. Returns its
    // id. The new work begins only once every cancelled job has returned: two
    // jobs never run at once.
    quint64 start(const QString &title, Work work);
    void cancel();
    bool isRunning() const { return m_current != nullptr; }
    quint64 currentId() const;
    QString currentTitle() const;
    // Blocks until no job runs (tests, shutdown).
    void waitForDone();

Q_SIGNALS:
    void started(quint64 id, const QString &title);
    void progress(quint64 id, double fraction, const QString &message);
    void finished(quint64 id, const std::any &result);
    void failed(quint64 id, const QString &error);
    void cancelled(quint64 id);
    void idle();

private:
    struct Job;
    void poll();
    void launch(const std::shared_ptr<Job> &job);
    void complete(const std::shared_ptr<Job> &job);

    std::shared_ptr<Job> m_current;
    std::vector<std::shared_ptr<Job>> m_orphans; // cancelled, still unwinding
    QTimer m_timer;
    quint64 m_nextId = 1;
};

} // namespace syncscope::ui
