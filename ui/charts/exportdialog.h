#pragma once
// Chooses format, size and file for a chart export; the write happens on OK and
// a failure is shown here, so the user can fix the path and try again.
#include <QDialog>

#include <functional>

QT_BEGIN_NAMESPACE
class QComboBox;
class QLineEdit;
class QSpinBox;
QT_END_NAMESPACE

namespace syncscope::ui {

class NoticeBar;

class ExportDialog : public QDialog {
    Q_OBJECT
public:
    using Renderer = std::function<bool(const QSize &size, const QString &path, QString *error)>;

    ExportDialog(QWidget *parent, const QString &baseName);
    void setRenderer(Renderer renderer) { m_renderer = std::move(renderer); }
    QString path() const;
    QSize chartSize() const;

    void accept() override;
    // Says in the main window's status bar where an export went.
    static void announce(QWidget *from, const QString &path);

private:
    void browse();
    void syncSuffix();

    Renderer m_renderer;
    QComboBox *m_format = nullptr;
    QSpinBox *m_width = nullptr;
    QSpinBox *m_height = nullptr;
    QLineEdit *m_path = nullptr;
    NoticeBar *m_error = nullptr; // why the export failed
};

} // namespace syncscope::ui
