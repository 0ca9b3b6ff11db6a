#pragma once
// Where every save dialog of the app starts, and the one way exports write:
// the folder the user last saved an export to, when it still exists, else the
// home folder (QSettings "export/dir"); files are written atomically.
#include <QString>

#include <string>

namespace syncscope::ui {

QString defaultSaveFolder();
// defaultSaveFolder() joined with a file name.
QString defaultSavePath(const QString &fileName);
// Remembers the folder of a file just written.
void rememberSaveFolder(const QString &writtenFile);
// Writes `text` to `path` atomically (core/trace/atomicfile.h): the file is
// complete or absent. False with one sentence naming the file in *error.
bool writeTextAtomically(const QString &path, const std::string &text, QString *error);

} // namespace syncscope::ui
