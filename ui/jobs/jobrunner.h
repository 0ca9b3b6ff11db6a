#pragma once
// The one way the UI runs long core work: on QThreadPool via QtConcurrent,
// progress polled every 50 ms on the GUI thread (heaptrack's throttle), results
// of superseded jobs dropped by id (hotspot's JobTracker). As in hotspot's
// JobTracker, start() is templated on the work: the result type is deduced
// from it and the completion callback is checked against it at compile time.
#include "common/progress.h"

#include <QObject>
#include <QPointer>
#include <QString>
#include <QTimer>

#include <functional>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace syncscope::ui {

// What a job's work returns: the work is called as work(progress, cancel).
template <typename Work>
using JobResult = std::invoke_result_t<std::decay_t<Work> &, const ProgressFn &, const CancelToken *>;

namespace detail {
template <typename OnDone, typename Result> struct JobDeliversTo : std::is_invocable<OnDone &, Result &&> {
};
template <typename OnDone> struct JobDeliversTo<OnDone, void> : std::is_invocable<OnDone &> {
};
} // namespace detail

// Whether `onDone` can take the result of `work` (onDone() when the work
// returns nothing). JobRunner::start() refuses to compile otherwise.
template <typename Work, typename OnDone>
inline constexpr bool jobDeliversTo =
    detail::JobDeliversTo<std::decay_t<OnDone>, std::remove_cv_t<JobResult<Work>>>::value;

class JobRunner : public QObject {
    Q_OBJECT
public:
    explicit JobRunner(QObject *parent = nullptr);
    ~JobRunner() override;

    // Starts a job, cancelling and dropping any job still running. Returns its
    // id. The new work begins only once every cancelled job has returned: two
    // jobs never run at once.
    //
    // The work runs on a pool thread as work(progress, cancel). It reports
    // through `progress`, polls `cancel` (the core functions do both), throws
    // syncscope::Error for a one-sentence failure and syncscope::Cancelled when
    // cancelled; it returns its result by value (or nothing).
    //
    // When the job succeeds, onDone(result) runs on the runner's thread, just
    // before finished(id), unless `context` has been destroyed by then (a null
    // context: the runner alone). A cancelled, superseded or failed job never
    // calls it. The result's type is the work's; onDone must accept it.
    template <typename Work, typename OnDone>
    quint64 start(const QString &title, Work &&work, const QObject *context, OnDone &&onDone)
    {
        checkWork<Work>();
        static_assert(jobDeliversTo<Work, OnDone>, "onDone does not take the result the work returns");
        using Result = std::remove_cv_t<JobResult<Work>>;
        Deliver deliver = [guard = QPointer<const QObject>(context), guarded = context != nullptr,
                           onDone = std::forward<OnDone>(onDone)]([[maybe_unused]] void *result) mutable {
            if (guarded && !guard)
                return;
            if constexpr (std::is_void_v<Result>)
                onDone();
            else
                onDone(std::move(*static_cast<Result *>(result)));
        };
        return startErased(title, erase(std::forward<Work>(work)), std::move(deliver));
    }

    // A job whose result nobody takes: only the signals report its end.
    template <typename Work> quint64 start(const QString &title, Work &&work)
    {
        checkWork<Work>();
        return startErased(title, erase(std::forward<Work>(work)), {});
    }

    void cancel();
    bool isRunning() const { return m_current != nullptr; }
    quint64 currentId() const;
    QString currentTitle() const;
    // Blocks until no job runs (tests, shutdown).
    void waitForDone();

Q_SIGNALS:
    void started(quint64 id, const QString &title);
    void progress(quint64 id, double fraction, const QString &message);
    // The job succeeded; its onDone, if any, has had the result.
    void finished(quint64 id);
    void failed(quint64 id, const QString &error);
    void cancelled(quint64 id);
    void idle();
    // A cancelled or superseded job's worker has returned; its result was dropped.
    void orphanEnded(quint64 id);

private:
    // The work with its result type erased: the result comes back in a
    // shared_ptr<void> (null for void work) that only the matching Deliver,
    // made by the same start(), reads.
    using ErasedWork = std::function<std::shared_ptr<void>(const ProgressFn &, const CancelToken *)>;
    using Deliver = std::function<void(void *result)>;

    template <typename Work> static constexpr void checkWork()
    {
        static_assert(std::is_invocable_v<std::decay_t<Work> &, const ProgressFn &, const CancelToken *>,
                      "a job's work is called as work(progress, cancel)");
        static_assert(!std::is_reference_v<JobResult<Work>>, "a job's work returns its result by value");
    }

    template <typename Work> static ErasedWork erase(Work &&work)
    {
        using Result = std::remove_cv_t<JobResult<Work>>;
        return [work = std::forward<Work>(work)](const ProgressFn &progress,
                                                 const CancelToken *cancel) mutable -> std::shared_ptr<void> {
            if constexpr (std::is_void_v<Result>) {
                work(progress, cancel);
                return nullptr;
            } else {
                return std::make_shared<Result>(work(progress, cancel));
            }
        };
    }

    struct Job;
    quint64 startErased(const QString &title, ErasedWork work, Deliver deliver);
    void poll();
    void launch(const std::shared_ptr<Job> &job);
    void complete(const std::shared_ptr<Job> &job);

    std::shared_ptr<Job> m_current;
    std::vector<std::shared_ptr<Job>> m_orphans; // cancelled, still unwinding
    QTimer m_timer;
    quint64 m_nextId = 1;
};

} // namespace syncscope::ui
