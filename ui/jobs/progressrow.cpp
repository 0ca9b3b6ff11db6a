#include "progressrow.h"

#include "jobrunner.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>

#include <algorithm>

namespace syncscope::ui {

ProgressRow::ProgressRow(JobRunner *runner, Style style, QWidget *parent)
    : QWidget(parent), m_runner(runner), m_style(style)
{
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    if (m_style.title) {
        m_title = new QLabel(this);
        layout->addWidget(m_title);
    }
    m_bar = new QProgressBar(this);
    m_bar->setRange(0, 1000);
    if (m_style.thin) {
        m_bar->setTextVisible(false);
        m_bar->setMaximumHeight(10);
    }
    layout->addWidget(m_bar, 1);
    if (m_style.cancel) {
        m_cancel = new QPushButton(tr("Cancel"), this);
        layout->addWidget(m_cancel);
        connect(m_cancel, &QPushButton::clicked, m_runner, [this] {
            if (m_runner->isRunning())
                m_runner->cancel();
        });
    }
    hide();

    connect(m_runner, &JobRunner::started, this, [this](quint64, const QString &title) { onStarted(title); });
    connect(m_runner, &JobRunner::progress, this, [this](quint64, double f, const QString &msg) {
        m_bar->setValue(int(f * 1000));
        if (m_style.message)
            m_bar->setFormat(msg.isEmpty() ? QStringLiteral("%p%") : msg + QStringLiteral(" — %p%"));
    });
    connect(m_runner, &JobRunner::failed, this, [this] { hide(); });
    connect(m_runner, &JobRunner::cancelled, this, [this] {
        if (!m_runner->isRunning())
            hide();
    });
    connect(m_runner, &JobRunner::idle, this, [this] {
        if (!m_runner->isRunning())
            hide();
    });
}

void ProgressRow::onStarted(const QString &title)
{
    if (m_title) {
        // A long file name loses its middle, not the window its width.
        const int room = std::max(200, (parentWidget() ? parentWidget()->width() : width()) / 2);
        m_title->setText(m_title->fontMetrics().elidedText(title, Qt::ElideMiddle, room));
        m_title->setToolTip(title);
    }
    m_bar->setValue(0);
    show();
}

} // namespace syncscope::ui
