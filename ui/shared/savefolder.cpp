#include "shared/savefolder.h"

#include "trace/atomicfile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSettings>

#include <exception>

namespace syncscope::ui {

namespace {
const char *const kKey = "export/dir";
}

QString defaultSaveFolder()
{
    const QString last = QSettings().value(kKey).toString();
    if (!last.isEmpty() && QFileInfo(last).isDir())
        return QDir::cleanPath(last);
    return QDir::homePath();
}

QString defaultSavePath(const QString &fileName)
{
    return QDir(defaultSaveFolder()).filePath(fileName);
}

void rememberSaveFolder(const QString &writtenFile)
{
    QSettings().setValue(kKey, QFileInfo(writtenFile).absolutePath());
}

bool writeTextAtomically(const QString &path, const std::string &text, QString *error)
{
    try {
        writeFileAtomically(QFile::encodeName(path).toStdString(), text);
        return true;
    } catch (const std::exception &e) {
        if (error)
            *error = QString::fromUtf8(e.what());
        return false;
    }
}

} // namespace syncscope::ui
