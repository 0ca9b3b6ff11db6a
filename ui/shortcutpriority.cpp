#include "shortcutpriority.h"

#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QKeyEvent>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QTextEdit>
#include <QWidget>

namespace syncscope::ui {
namespace {

bool isTextField(QObject *o)
{
    return qobject_cast<QLineEdit *>(o) || qobject_cast<QAbstractSpinBox *>(o) || qobject_cast<QTextEdit *>(o) ||
           qobject_cast<QPlainTextEdit *>(o);
}

bool isEditingKey(const QKeyEvent *e)
{
    const Qt::KeyboardModifiers mods = e->modifiers() & ~(Qt::KeypadModifier | Qt::GroupSwitchModifier);
    // Plain and shifted keys type text or move the cursor.
    if ((mods & ~Qt::ShiftModifier) == Qt::NoModifier)
        return true;
    static const QKeySequence::StandardKey editing[] = {QKeySequence::Copy,
                                                        QKeySequence::Cut,
                                                        QKeySequence::Paste,
                                                        QKeySequence::Undo,
                                                        QKeySequence::Redo,
                                                        QKeySequence::SelectAll,
                                                        QKeySequence::Delete,
                                                        QKeySequence::Backspace,
                                                        QKeySequence::DeleteStartOfWord,
                                                        QKeySequence::DeleteEndOfWord,
                                                        QKeySequence::MoveToNextWord,
                                                        QKeySequence::MoveToPreviousWord,
                                                        QKeySequence::SelectNextWord,
                                                        QKeySequence::SelectPreviousWord,
                                                        QKeySequence::SelectStartOfLine,
                                                        QKeySequence::SelectEndOfLine};
    for (QKeySequence::StandardKey k : editing)
        if (e->matches(k))
            return true;
    switch (e->key()) {
    case Qt::Key_Home:
    case Qt::Key_End:
    case Qt::Key_Left:
    case Qt::Key_Right:
    case Qt::Key_Up:
    case Qt::Key_Down:
    case Qt::Key_Backspace:
    case Qt::Key_Delete: return true;
    default: return false;
    }
}

// Whether an enabled action of the field's window (or of a window above it)
// has this key.
bool windowUsesKey(QWidget *field, const QKeySequence &key)
{
    for (QWidget *w = field->window(); w; w = w->parentWidget() ? w->parentWidget()->window() : nullptr) {
        for (QAction *a : w->findChildren<QAction *>())
            if (a->isEnabled() && a->shortcuts().contains(key))
                return true;
    }
    return false;
}

class ShortcutPriority : public QObject {
public:
    explicit ShortcutPriority(QWidget *window) : QObject(window), m_window(window) {}

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() != QEvent::ShortcutOverride || !isTextField(watched))
            return false;
        auto *field = static_cast<QWidget *>(watched);
        if (!m_window->isAncestorOf(field) && field->window() != m_window &&
            !m_window->isAncestorOf(field->window()))
            return false;
        auto *key = static_cast<QKeyEvent *>(event);
        if (isEditingKey(key))
            return false;
        const QKeySequence seq(key->keyCombination());
        if (!windowUsesKey(field, seq))
            return false;
        // Left unaccepted, the key goes to the shortcut; filtered, the field
        // never claims it.
        event->ignore();
        return true;
    }

private:
    QWidget *m_window;
};

} // namespace

void installShortcutPriority(QWidget *window) { qApp->installEventFilter(new ShortcutPriority(window)); }

} // namespace syncscope::ui
