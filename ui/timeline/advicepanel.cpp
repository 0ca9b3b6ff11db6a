#include "timeline/advicepanel.h"

#include "analysis/advice.h"

#include <QApplication>
#include <QClipboard>
#include <QHBoxLayout>
#include <QPushButton>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace syncscope::ui {

namespace {

QString html(const std::string &s) { return QString::fromStdString(s).toHtmlEscaped(); }

// A PyTorch docs URL, or "owner/repo#N" as a GitHub link; else plain text.
QString refLink(const std::string &ref)
{
    const QString r = QString::fromStdString(ref);
    QString url;
    if (r.startsWith(QLatin1String("https://")))
        url = r;
    else if (const int hash = r.indexOf(QLatin1Char('#')); hash > 0 && r.left(hash).count(QLatin1Char('/')) == 1)
        url = QStringLiteral("https://github.com/%1/issues/%2").arg(r.left(hash), r.mid(hash + 1));
    if (url.isEmpty())
        return r.toHtmlEscaped();
    return QStringLiteral("<a href=\"%1\">%2</a>").arg(url.toHtmlEscaped(), r.toHtmlEscaped());
}

} // namespace

AdvicePanel::AdvicePanel(QWidget *parent) : QWidget(parent)
{
    m_text = new QTextBrowser(this);
    m_text->setOpenExternalLinks(true);
    m_text->setAccessibleName(tr("What to change"));
    m_copy = new QPushButton(tr("Copy the Rewrite"), this);
    m_copy->setToolTip(tr("Copy the rule's \"after\" snippet to the clipboard"));
    connect(m_copy, &QPushButton::clicked, this, [this] { copyRewrite(); });
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_text, 1);
    auto *row = new QHBoxLayout;
    row->addStretch(1);
    row->addWidget(m_copy);
    layout->addLayout(row);
    clear();
}

void AdvicePanel::clear()
{
    m_rule = -1;
    m_text->setHtml(tr("<i>Select a sync source to see what to write instead.</i>"));
    m_copy->setEnabled(false);
}

void AdvicePanel::showAdvice(const QString &source, int rule, uint64_t matching, uint64_t calls,
                             const QString &torchVersion)
{
    const AdviceRules &rules = builtinAdviceRules();
    m_rule = rule >= 0 && size_t(rule) < rules.rules.size() ? rule : -1;
    m_copy->setEnabled(m_rule >= 0);
    QString h = QStringLiteral("<p><b>%1</b></p>").arg(source.toHtmlEscaped());
    if (m_rule < 0) {
        h += tr("<p>No known rewrite: no advice rule matches these calls. syncscope does not guess.</p>");
        if (matching < calls)
            h += tr("<p>%1 of its %2 calls match no rule; the others match other rules (see each call's "
                    "details).</p>")
                     .arg(matching)
                     .arg(calls);
        m_text->setHtml(h);
        return;
    }
    const AdviceRule &r = rules.rules[size_t(m_rule)];
    h += QStringLiteral("<p><b>%1</b> <small>[%2, %3]</small></p>")
             .arg(html(r.title), html(r.id),
                  html(std::string(adviceClassName(r.cls))).replace(QLatin1Char('_'), QLatin1Char(' ')));
    if (matching < calls)
        h += tr("<p><i>For %1 of its %2 calls; the others match other rules or none (see each call's "
                "details).</i></p>")
                 .arg(matching)
                 .arg(calls);
    h += QStringLiteral("<p>%1</p><p>%2</p>").arg(html(r.why), html(r.rewrite));
    h += tr("<p>Before:</p>") + QStringLiteral("<pre>%1</pre>").arg(html(r.before));
    h += tr("<p>After:</p>") + QStringLiteral("<pre>%1</pre>").arg(html(r.after));
    if (!r.minTorch.empty()) {
        const QString need = html(torchNeedSentence(r, torchVersion.toStdString())) + QLatin1Char('.');
        h += torchOlderThan(torchVersion.toStdString(), r.minTorch) ? QStringLiteral("<p><b>%1</b></p>").arg(need)
                                                                    : QStringLiteral("<p>%1</p>").arg(need);
    }
    QStringList refs;
    for (const std::string &ref : r.refs)
        refs << refLink(ref);
    h += tr("<p>References: %1</p>").arg(refs.join(QStringLiteral(", ")));
    m_text->setHtml(h);
}

QString AdvicePanel::text() const { return m_text->toPlainText(); }

bool AdvicePanel::copyRewrite()
{
    if (m_rule < 0)
        return false;
    QApplication::clipboard()->setText(QString::fromStdString(builtinAdviceRules().rules[size_t(m_rule)].after));
    return true;
}

} // namespace syncscope::ui
