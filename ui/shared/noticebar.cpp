#include "noticebar.h"

#include "elide.h"
#include "sentence.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QResizeEvent>
#include <QStyle>
#include <QToolButton>

#include <algorithm>

namespace syncscope::ui {

NoticeBar::NoticeBar(QWidget *parent, Look look) : QFrame(parent), m_look(look)
{
    setObjectName(QStringLiteral("noticeBar"));
    setFrameShape(look == Look::Bar ? QFrame::StyledPanel : QFrame::NoFrame);
    auto *layout = new QHBoxLayout(this);
    if (look == Look::Bar)
        layout->setContentsMargins(8, 4, 4, 4);
    else
        layout->setContentsMargins(0, 0, 0, 0);
    m_text = new QLabel(this);
    m_text->setObjectName(QStringLiteral("noticeText"));
    m_text->setWordWrap(true);
    m_text->setTextFormat(Qt::PlainText);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
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
    close->setVisible(look == Look::Bar);
    setTone(Tone::Refusal);
    hide();
}

void NoticeBar::setTone(Tone tone)
{
    m_tone = tone;
    const bool refusal = tone == Tone::Refusal;
    // A bar is framed in the tone's pale colour (found by the name it has now); a
    // line is its text alone.
    if (m_look == Look::Bar)
        setStyleSheet(
            refusal ? QStringLiteral("#%1 { background: #fbeaea; border: 1px solid #e0b4b4; }").arg(objectName())
                    : QStringLiteral("#%1 { background: #fdf6e3; border: 1px solid #e5d3a1; }").arg(objectName()));
    m_text->setStyleSheet(refusal ? QStringLiteral("QLabel { color: #a00000; }")
                                  : QStringLiteral("QLabel { color: #8a5a00; }"));
}

void NoticeBar::showRefusal(const QString &sentence)
{
    if (m_tone != Tone::Refusal) {
        m_lines.clear();
        setTone(Tone::Refusal);
    }
    m_lines << sentence;
    render();
    show();
}

void NoticeBar::showMessage(const QString &text, Tone tone)
{
    setTone(tone);
    m_lines = QStringList{text};
    render();
    show();
}

void NoticeBar::setElideLongWords(bool elide)
{
    m_elide = elide;
    if (!m_lines.isEmpty())
        render();
}

void NoticeBar::render()
{
    const QString all = m_lines.join(QLatin1Char('\n'));
    if (!m_elide) {
        m_text->setText(wrappablePaths(all));
        m_text->setToolTip(all);
        return;
    }
    // The parent's width less its margins and the bar's own (the text's own
    // width is not laid out yet when it first shows).
    const QMargins m = contentsMargins() + layout()->contentsMargins();
    const int chrome = m.left() + m.right() + (m_look == Look::Bar ? layout()->spacing() + 24 : 0);
    const int room = (parentWidget() ? parentWidget()->width() : width()) - 16 - chrome;
    const QString shown = elideLongWords(all, m_text->fontMetrics(), std::max(120, room));
    m_text->setText(shown);
    m_text->setToolTip(shown == all ? QString() : all);
}

void NoticeBar::resizeEvent(QResizeEvent *event)
{
    QFrame::resizeEvent(event);
    if (m_elide && !m_lines.isEmpty())
        render();
}

void NoticeBar::clear()
{
    m_lines.clear();
    m_text->clear();
    m_text->setToolTip(QString());
    hide();
}

QString NoticeBar::text() const { return m_lines.join(QLatin1Char('\n')); }

} // namespace syncscope::ui
