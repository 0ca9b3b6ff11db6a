#include "timeline/analysisoptionsdialog.h"

#include "shared/noticebar.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QVBoxLayout>

#include <regex>

namespace syncscope::ui {

namespace {
const char *const kPrefixesKey = "timeline/libPrefixes";
const char *const kStepRegexKey = "timeline/stepRegex";
} // namespace

AnalysisOptionsDialog::AnalysisOptionsDialog(QWidget *parent) : QDialog(parent)
{
    setWindowTitle(tr("Analysis Options"));
    auto *intro = new QLabel(tr("A blocking call's <i>user frame</i> is the innermost Python frame that is "
                                "not library code: not under torch/, site-packages/, dist-packages/ or "
                                "pythonX.Y/, not &lt;built-in…, threading.py or multiprocessing/. "
                                "Add the prefixes of your own libraries here, one per line, so the user "
                                "frame points at the line that calls them."),
                             this);
    intro->setWordWrap(true);
    m_prefixes = new QPlainTextEdit(this);
    m_prefixes->setPlaceholderText(tr("e.g. /home/me/venv/src/mylib/\nmytools/"));
    m_prefixes->setTabChangesFocus(true);
    m_step = new QLineEdit(this);
    m_step->setPlaceholderText(tr("e.g. ^train_step$ (ECMAScript regular expression)"));
    m_step->setToolTip(tr("Events whose name matches this pattern are steps too, besides ProfilerStep#N"));
    m_stepError = new NoticeBar(this, NoticeBar::Look::Line);
    m_stepError->setObjectName(QStringLiteral("stepPatternError"));
    auto *form = new QFormLayout;
    form->addRow(tr("Library prefixes:"), m_prefixes);
    form->addRow(tr("Step pattern:"), m_step);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_ok = buttons->button(QDialogButtonBox::Ok);
    m_ok->setText(tr("Re-analyse"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_step, &QLineEdit::textChanged, this, &AnalysisOptionsDialog::validate);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addLayout(form);
    layout->addWidget(m_stepError);
    layout->addWidget(buttons);
    resize(560, 360);
}

void AnalysisOptionsDialog::setOptions(const AnalysisOptions &options)
{
    QStringList lines;
    for (const std::string &p : options.libPrefixes)
        lines << QString::fromStdString(p);
    m_prefixes->setPlainText(lines.join(QLatin1Char('\n')));
    m_step->setText(QString::fromStdString(options.stepRegex));
    validate();
}

AnalysisOptions AnalysisOptionsDialog::options() const
{
    AnalysisOptions o;
    for (const QString &line : m_prefixes->toPlainText().split(QLatin1Char('\n'))) {
        const QString t = line.trimmed();
        if (!t.isEmpty())
            o.libPrefixes.push_back(t.toStdString());
    }
    o.stepRegex = m_step->text().toStdString();
    return o;
}

QString AnalysisOptionsDialog::stepPatternError() const
{
    // The analysis compiles it as std::regex ECMAScript: check it the same way.
    const std::string re = m_step->text().toStdString();
    if (re.empty())
        return {};
    try {
        std::regex check(re, std::regex::ECMAScript);
    } catch (const std::regex_error &e) {
        return tr("The step pattern is not a valid regular expression (%1).").arg(QString::fromUtf8(e.what()));
    }
    return {};
}

void AnalysisOptionsDialog::validate()
{
    const QString error = stepPatternError();
    if (error.isEmpty())
        m_stepError->clear();
    else
        m_stepError->showMessage(error);
    m_ok->setEnabled(error.isEmpty());
}

AnalysisOptions AnalysisOptionsDialog::loadSettings()
{
    QSettings s;
    AnalysisOptions o;
    for (const QString &p : s.value(QLatin1String(kPrefixesKey)).toStringList())
        if (!p.trimmed().isEmpty())
            o.libPrefixes.push_back(p.trimmed().toStdString());
    o.stepRegex = s.value(QLatin1String(kStepRegexKey)).toString().toStdString();
    return o;
}

void AnalysisOptionsDialog::saveSettings(const AnalysisOptions &options)
{
    QStringList prefixes;
    for (const std::string &p : options.libPrefixes)
        prefixes << QString::fromStdString(p);
    QSettings s;
    s.setValue(QLatin1String(kPrefixesKey), prefixes);
    s.setValue(QLatin1String(kStepRegexKey), QString::fromStdString(options.stepRegex));
}

} // namespace syncscope::ui
