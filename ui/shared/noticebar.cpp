#include "noticebar.h"

#include "sentence.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>
#include <QToolButton>

namespace syncscope::ui {

NoticeBar::NoticeBar(QWidget *parent) : QFrame(parent)
{
    setObjectName(QStringLiteral("noticeBar"));
    setFrameShape(QFrame::StyledPanel);
    setStyleSheet(QStringLiteral("#noticeBar { background: #fbeaea; border: 1px solid #e0b4b4; }"));
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 4, 4, 4);
    m_text = new QLabel(this);
    m_text->setObjectName(QStringLiteral("noticeText"));
    m_text->setWordWrap(true);
    m_text->setTextFormat(Qt::PlainText);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_text->setStyleSheet(QStringLiteral("QLabel { color: #a00000; }"));
    // The label follows the window's width, never sets it.
    m_text->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_text->setMinimumWidth(0);
    layout->addWidget(m_text, 1);
    auto *close = new QToolButton(this);
    close->setObjectName(QStringLiteral("noticeClose"));
    close->setAutoRaise(true);
    close->setIcon(style()->standardIcon(QStyle::SP_TitleBarCloseButton));
    close->setToolTip(tr("Hide this message"));
    layout->addWidget(close, 0, Qt::AlignTop);
    connect(close, &QToolButton::clicked, this, &NoticeBar::clear);
    hide();
}

void NoticeBar::showRefusal(const QString &sentence)
{
    m_lines << sentence;
    const QString all = m_lines.join(QLatin1Char('\n'));
    m_text->setText(wrappablePaths(all));
    m_text->setToolTip(all);
    show();
}

void NoticeBar::clear()
{
    m_lines.clear();
    m_text->clear();
    hide();
}

QString NoticeBar::text() const { return m_lines.join(QLatin1Char('\n')); }

} // namespace syncscope::ui
