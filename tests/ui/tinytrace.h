#pragma once
// A trace file the QtTests that open the window write for themselves: two CPU
// ops (aten::mm, aten::add) of one process, in Chrome's JSON.
#include <QFile>
#include <QString>

namespace syncscope::test {

// Writes it to `path` with the process id `pid` (ranks of one job differ by
// it); returns the path, or "" when the file cannot be written.
inline QString writeTinyTrace(const QString &path, int pid = 1)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.write(QStringLiteral(
                R"({"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":%1,"tid":1,"ts":0,"dur":5},
{"ph":"X","cat":"cpu_op","name":"aten::add","pid":%1,"tid":1,"ts":10,"dur":5}]})")
                .arg(pid)
                .toUtf8());
    return f.fileName();
}

} // namespace syncscope::test
