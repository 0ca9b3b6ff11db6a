#include "shared/savefolder.h"

#include "trace/atomicfile.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
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

QString defaultSavePath(const QString &fileName) { return QDir(defaultSaveFolder()).filePath(fileName); }

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

QString exportTableWithDialog(QWidget *parent, const QString &title, const QString &suggested, bool json,
                              const std::function<bool(const QString &path, QString *error)> &write)
{
    const auto tr = [](const char *text) { return QCoreApplication::translate("syncscope::ui::Export", text); };
    QString path = QFileDialog::getSaveFileName(parent, title, suggested,
                                                json ? tr("JSON (*.json)") : tr("CSV (*.csv)"));
    if (path.isEmpty())
        return {};
    const QString suffix = json ? QStringLiteral(".json") : QStringLiteral(".csv");
    if (!path.endsWith(suffix, Qt::CaseInsensitive))
        path += suffix;
    QString error;
    if (!write(path, &error)) {
        QMessageBox::warning(parent, title, error);
        return {};
    }
    rememberSaveFolder(path);
    return path;
}

} // namespace syncscope::ui
