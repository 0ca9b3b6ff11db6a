#pragma once
// Where every save dialog of the app starts, and the one way exports write:
// the folder the user last saved an export to, when it still exists, else the
// home folder (QSettings "export/dir"); files are written atomically.
#include <QString>

#include <functional>
#include <string>

class QWidget;

namespace syncscope::ui {

QString defaultSaveFolder();
// defaultSaveFolder() joined with a file name.
QString defaultSavePath(const QString &fileName);
// Remembers the folder of a file just written.
void rememberSaveFolder(const QString &writtenFile);
// Writes `text` to `path` atomically (core/trace/atomicfile.h): the file is
// complete or absent. False with one sentence naming the file in *error.
bool writeTextAtomically(const QString &path, const std::string &text, QString *error);

// A table's export: asks for a path (starting at `suggested`, CSV or JSON),
// adds the suffix when missing, calls write(path, &error), shows a failure in
// a message box and remembers the folder on success. The path written, or
// empty when the user cancelled or the write failed.
QString exportTableWithDialog(QWidget *parent, const QString &title, const QString &suggested, bool json,
                              const std::function<bool(const QString &path, QString *error)> &write);

} // namespace syncscope::ui
