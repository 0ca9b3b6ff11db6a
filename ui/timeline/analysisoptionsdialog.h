#pragma once
// The Timeline's analysis options: extra library prefixes (Python frames whose
// name starts with one are library code, so the user frame skips them) and a
// step pattern (events whose name matches it are steps too). The page keeps
// them in QSettings and re-analyses the open trace when they change.
#include "analysis/syncanalysis.h"

#include <QDialog>
#include <QStringList>

class QLineEdit;
class QPlainTextEdit;
class QPushButton;

namespace syncscope::ui {

class NoticeBar;

class AnalysisOptionsDialog : public QDialog {
    Q_OBJECT
public:
    explicit AnalysisOptionsDialog(QWidget *parent = nullptr);

    void setOptions(const AnalysisOptions &options);
    // What the dialog holds now: prefixes one per non-blank line, trimmed.
    AnalysisOptions options() const;

    QPlainTextEdit *prefixEdit() const { return m_prefixes; }
    QLineEdit *stepEdit() const { return m_step; }
    // Why the step pattern is not valid (one sentence), or "" when it is.
    QString stepPatternError() const;

    // QSettings keys and their round trip.
    static AnalysisOptions loadSettings();
    static void saveSettings(const AnalysisOptions &options);

private:
    void validate();
    QPlainTextEdit *m_prefixes = nullptr;
    QLineEdit *m_step = nullptr;
    NoticeBar *m_stepError = nullptr;
    QPushButton *m_ok = nullptr;
};

} // namespace syncscope::ui
