#pragma once
// An inline notice above a page's content: one sentence (a refusal, in red; a
// warning, in amber), in place of a dialog that would stop the user. Long
// paths wrap, or lose their middle (setElideLongWords); the text never widens
// the window. The window's refusals are a bar (framed, with a close button);
// a page's error or warning is a line of the same text in the page's flow,
// which the page clears.
#include <QFrame>
#include <QStringList>

class QLabel;

namespace syncscope::ui {

class NoticeBar : public QFrame {
    Q_OBJECT
public:
    enum class Tone { Refusal, Warning };
    enum class Look { Bar, Line };

    explicit NoticeBar(QWidget *parent = nullptr, Look look = Look::Bar);
    // Adds the sentence to what the bar shows (several refusals at once: one per line).
    void showRefusal(const QString &sentence);
    // Shows this text alone, in the tone given (a page's failed job, a form's problem).
    void showMessage(const QString &text, Tone tone = Tone::Refusal);
    // A word wider than the bar (a path) loses its middle instead of wrapping;
    // the tooltip then has the whole text.
    void setElideLongWords(bool elide);
    void clear();
    QString text() const;
    Tone tone() const { return m_tone; }

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void setTone(Tone tone);
    void render();

    QLabel *m_text = nullptr;
    Look m_look = Look::Bar;
    QStringList m_lines;
    Tone m_tone = Tone::Refusal;
    bool m_elide = false;
};

} // namespace syncscope::ui
