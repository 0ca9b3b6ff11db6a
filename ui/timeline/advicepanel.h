#pragma once
// What to write instead, for the selected sync source: its advice rule's
// title, class, why, the rewrite with its before/after snippet (the "after"
// one copyable), the PyTorch release it needs and its references
// (docs/analysis.md "What to change").
#include <QWidget>

class QLabel;
class QPushButton;
class QTextBrowser;

namespace syncscope::ui {

class AdvicePanel : public QWidget {
    Q_OBJECT
public:
    explicit AdvicePanel(QWidget *parent = nullptr);

    // A source's advice: `rule` indexes builtinAdviceRules() (-1: no known
    // rewrite); `matching` of its `calls` match it; `torchVersion` is what the
    // trace states (empty: unknown).
    void showAdvice(const QString &source, int rule, uint64_t matching, uint64_t calls,
                    const QString &torchVersion);
    void clear();

    int rule() const { return m_rule; }
    // The shown text, as plain text (for tests and screen readers).
    QString text() const;
    // Copies the rule's "after" snippet to the clipboard; false with no rule.
    bool copyRewrite();
    QPushButton *copyButton() const { return m_copy; }

private:
    QTextBrowser *m_text = nullptr;
    QPushButton *m_copy = nullptr;
    int m_rule = -1;
};

} // namespace syncscope::ui
