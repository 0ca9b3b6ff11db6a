#pragma once
// An inline notice above a page's content: one sentence (a refusal, in red)
// with a close button, in place of a dialog that would stop the user. Long
// paths wrap; the text never widens the window.
#include <QFrame>

class QLabel;

namespace syncscope::ui {

class NoticeBar : public QFrame {
    Q_OBJECT
public:
    explicit NoticeBar(QWidget *parent = nullptr);
    // Shows the text (several refusals at once: one per line).
    void showRefusal(const QString &sentence);
    void clear();
    QString text() const;

private:
    QLabel *m_text = nullptr;
    QStringList m_lines;
};

} // namespace syncscope::ui
