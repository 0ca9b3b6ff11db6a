#pragma once
// Waits for a load started in the UI: on the signals, with QSignalSpy::wait,
// never by polling. Either signal ends the wait.
#include <QObject>
#include <QSignalSpy>
#include <QString>
#include <QVariant>

namespace syncscope::test {

// Runs start() (which begins a load on `source`) and waits up to timeoutMs for
// `finished` or `failed`. True when it finished; *error gets the failure's
// sentence (its first argument).
template <class Source, class Finished, class Failed, class Start>
bool loadAndWait(Source *source, Finished finished, Failed failed, Start &&start, QString *error = nullptr,
                 int timeoutMs = 60000)
{
    // One object whose name the first of the two signals sets: a spy on it
    // wakes on either.
    QObject settled;
    QObject::connect(source, finished, &settled,
                     [&settled] { settled.setObjectName(QStringLiteral("finished")); });
    QObject::connect(source, failed, &settled, [&settled] { settled.setObjectName(QStringLiteral("failed")); });
    QSignalSpy done(source, finished);
    QSignalSpy broke(source, failed);
    QSignalSpy either(&settled, &QObject::objectNameChanged);
    start();
    if (done.isEmpty() && broke.isEmpty())
        either.wait(timeoutMs);
    if (error && !broke.isEmpty())
        *error = broke.front().front().toString();
    return !done.isEmpty();
}

} // namespace syncscope::test
