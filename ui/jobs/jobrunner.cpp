#include "jobs/jobrunner.h"

#include "common/error.h"

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

#include <atomic>
#include <new>
#include <mutex>

namespace syncscope::ui {

struct JobRunner::Job {
    quint64 id = 0;
    QString title;
    CancelToken cancel;
    std::atomic<double> fraction{0.0};
    std::mutex mutex;
    QString message;
    bool messageDirty = false;
    double lastSentFraction = -1;
    // outcome, written by the worker before the future finishes
    std::shared_ptr<void> result; // the work's result, read only by `deliver`
    QString error;
    bool wasCancelled = false;
    ErasedWork work;       // until launched
    Deliver deliver;       // hands `result` to the caller's onDone; empty: dropped
    bool launched = false; // false while a cancelled job still unwinds
    QFutureWatcher<void> watcher;
};

JobRunner::JobRunner(QObject *parent) : QObject(parent)
{
    m_timer.setInterval(50);
    connect(&m_timer, &QTimer::timeout, this, &JobRunner::poll);
}

JobRunner::~JobRunner()
{
    cancel();
    waitForDone();
}

quint64 JobRunner::currentId() const { return m_current ? m_current->id : 0; }
QString JobRunner::currentTitle() const { return m_current ? m_current->title : QString(); }

quint64 JobRunner::startErased(const QString &title, ErasedWork work, Deliver deliver)
{
    cancel();
    auto job = std::make_shared<Job>();
    job->id = m_nextId++;
    job->title = title;
    job->work = std::move(work);
    job->deliver = std::move(deliver);
    m_current = job;
    std::weak_ptr<Job> weak = job;
    connect(&job->watcher, &QFutureWatcher<void>::finished, this, [this, weak] {
        if (auto j = weak.lock())
            complete(j);
    });
    m_timer.start();
    Q_EMIT started(job->id, title);
    // Never two jobs at once: a cancelled job still unwinding (it may hold
    // memory, files or the kernels' threads) is waited for; complete() then
    // launches this one.
    if (m_orphans.empty())
        launch(job);
    return job->id;
}

void JobRunner::launch(const std::shared_ptr<Job> &job)
{
    job->launched = true;
    Job *raw = job.get();
    job->watcher.setFuture(QtConcurrent::run([raw, work = std::move(job->work)] {
        const ProgressFn progress = [raw](double f, const char *msg) {
            raw->fraction.store(f, std::memory_order_relaxed);
            std::lock_guard<std::mutex> lock(raw->mutex);
            raw->message = QString::fromUtf8(msg ? msg : "");
            raw->messageDirty = true;
        };
        try {
            raw->result = work(progress, &raw->cancel);
            if (raw->cancel.cancelled())
                raw->wasCancelled = true;
        } catch (const Cancelled &) {
            raw->wasCancelled = true;
        } catch (const std::bad_alloc &) {
            raw->error = QStringLiteral("%1: ran out of memory; close other traces or free memory and try again")
                             .arg(raw->title);
        } catch (const std::exception &e) {
            raw->error = QString::fromUtf8(e.what());
        } catch (...) {
            raw->error = QStringLiteral("the job failed with an unknown error");
        }
    }));
}

void JobRunner::cancel()
{
    if (!m_current)
        return;
    m_current->cancel.cancel();
    // Keep it alive until its thread returns; its result will be dropped. A
    // job still waiting for its turn never ran: it is simply dropped.
    if (m_current->launched)
        m_orphans.push_back(m_current);
    const quint64 id = m_current->id;
    m_current.reset();
    Q_EMIT cancelled(id);
    Q_EMIT idle();
}

void JobRunner::waitForDone()
{
    for (auto &o : m_orphans)
        o->watcher.waitForFinished();
    m_orphans.clear();
    if (m_current && !m_current->launched)
        launch(m_current);
    if (m_current)
        m_current->watcher.waitForFinished();
}

void JobRunner::poll()
{
    if (!m_current) {
        m_timer.stop();
        return;
    }
    Job &j = *m_current;
    const double f = j.fraction.load(std::memory_order_relaxed);
    QString msg;
    bool dirty = false;
    {
        std::lock_guard<std::mutex> lock(j.mutex);
        dirty = j.messageDirty;
        j.messageDirty = false;
        msg = j.message;
    }
    if (dirty || f != j.lastSentFraction) {
        j.lastSentFraction = f;
        Q_EMIT progress(j.id, f, msg);
    }
}

void JobRunner::complete(const std::shared_ptr<Job> &job)
{
    // We are inside the job's QFutureWatcher::finished: let the last reference
    // go from the event loop, not from under the emitting watcher.
    QMetaObject::invokeMethod(
        this, [job] {}, Qt::QueuedConnection);
    // Superseded or cancelled jobs end silently (cancelled() was already sent).
    for (auto it = m_orphans.begin(); it != m_orphans.end(); ++it)
        if (*it == job) {
            m_orphans.erase(it);
            if (m_orphans.empty() && m_current && !m_current->launched)
                launch(m_current); // the job that waited for this one
            Q_EMIT orphanEnded(job->id);
            return;
        }
    if (job != m_current)
        return;
    m_current.reset();
    m_timer.stop();
    if (job->wasCancelled)
        Q_EMIT cancelled(job->id);
    else if (!job->error.isEmpty())
        Q_EMIT failed(job->id, job->error);
    else {
        if (job->deliver)
            job->deliver(job->result.get());
        Q_EMIT finished(job->id);
    }
    Q_EMIT idle();
}

} // namespace syncscope::ui
