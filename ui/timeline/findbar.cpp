#include "timeline/findbar.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QTimer>
#include <QToolButton>

namespace syncscope::ui {

FindBar::FindBar(QWidget *parent) : QWidget(parent)
{
    m_edit = new QLineEdit(this);
    m_edit->setPlaceholderText(tr("Find by name (Ctrl+F)"));
    m_edit->setClearButtonEnabled(true);
    m_edit->setMinimumWidth(220);
    m_regex = new QCheckBox(tr("Regex"), this);
    m_regex->setToolTip(tr("Match names with a regular expression instead of a substring"));
    m_case = new QToolButton(this);
    m_case->setText(QStringLiteral("Aa"));
    m_case->setCheckable(true);
    m_case->setToolTip(tr("Match case (plain text and regular expressions)"));
    auto *prev = new QToolButton(this);
    prev->setArrowType(Qt::UpArrow);
    prev->setToolTip(tr("Previous match (Shift+F3)"));
    auto *next = new QToolButton(this);
    next->setArrowType(Qt::DownArrow);
    next->setToolTip(tr("Next match (F3, Enter)"));
    m_status = new QLabel(this);
    m_status->setMinimumWidth(120);
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_edit);
    layout->addWidget(m_regex);
    layout->addWidget(m_case);
    layout->addWidget(prev);
    layout->addWidget(next);
    layout->addWidget(m_status);

    m_pause = new QTimer(this);
    m_pause->setSingleShot(true);
    m_pause->setInterval(250);
    connect(m_pause, &QTimer::timeout, this, &FindBar::queryChanged);
    const auto changed = [this] { m_pause->start(); };
    connect(m_edit, &QLineEdit::textChanged, this, changed);
    connect(m_regex, &QCheckBox::toggled, this, changed);
    connect(m_case, &QToolButton::toggled, this, changed);
    connect(m_edit, &QLineEdit::returnPressed, this, &FindBar::nextRequested);
    connect(next, &QToolButton::clicked, this, &FindBar::nextRequested);
    connect(prev, &QToolButton::clicked, this, &FindBar::previousRequested);
}

QString FindBar::text() const { return m_edit->text(); }
bool FindBar::isRegex() const { return m_regex->isChecked(); }
bool FindBar::matchCase() const { return m_case->isChecked(); }
bool FindBar::isChangePending() const { return m_pause->isActive(); }
void FindBar::settle() { m_pause->stop(); }
void FindBar::setStatus(const QString &text) { m_status->setText(text); }
void FindBar::clearStatus() { m_status->clear(); }
QString FindBar::status() const { return m_status->text(); }

void FindBar::focusText()
{
    m_edit->setFocus(Qt::ShortcutFocusReason);
    m_edit->selectAll();
}

} // namespace syncscope::ui
