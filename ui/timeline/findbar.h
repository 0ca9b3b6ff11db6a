#pragma once
// The Timeline page's find row: the text, Regex, "Aa" (match case), previous
// and next, and what the find says ("n of m", "m matches", or why nothing
// matches). It says when the query changed, once typing pauses (250 ms); the
// page builds the matcher and moves between matches.
#include <QWidget>

class QCheckBox;
class QLabel;
class QLineEdit;
class QTimer;
class QToolButton;

namespace syncscope::ui {

class FindBar : public QWidget {
    Q_OBJECT
public:
    explicit FindBar(QWidget *parent = nullptr);

    QString text() const;
    bool isRegex() const;
    bool matchCase() const;
    // The query changed and its pause has not yet passed.
    bool isChangePending() const;
    // The pause is over: no queryChanged() for what was typed before.
    void settle();
    void setStatus(const QString &text);
    void clearStatus();
    QString status() const;
    // Focus on the text, all of it selected.
    void focusText();

    QLineEdit *edit() const { return m_edit; }
    QCheckBox *regexBox() const { return m_regex; }
    QToolButton *caseButton() const { return m_case; }

Q_SIGNALS:
    // The text, Regex or match case changed, and typing has paused.
    void queryChanged();
    // Next: the down arrow or Enter; previous: the up arrow.
    void nextRequested();
    void previousRequested();

private:
    QLineEdit *m_edit = nullptr;
    QCheckBox *m_regex = nullptr;
    QToolButton *m_case = nullptr;
    QLabel *m_status = nullptr;
    QTimer *m_pause = nullptr;
};

} // namespace syncscope::ui
