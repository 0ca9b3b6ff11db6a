#include "shared/countspinbox.h"

#include "common/numbers.h"

#include <QLocale>
#include <QRegularExpression>

#include <algorithm>

namespace syncscope::ui {

namespace {

// The text without prefix, suffix and the locale's group separators.
QString bare(const QString &text, const QString &prefix, const QString &suffix)
{
    QString t = text.trimmed();
    if (!prefix.isEmpty() && t.startsWith(prefix))
        t.remove(0, prefix.size());
    if (!suffix.isEmpty() && t.endsWith(suffix))
        t.chop(suffix.size());
    t.remove(QLocale().groupSeparator());
    return t.trimmed();
}

} // namespace

CountSpinBox::CountSpinBox(QWidget *parent) : QSpinBox(parent) {}

int CountSpinBox::valueFromText(const QString &text) const
{
    const auto v = parseCount(bare(text, prefix(), suffix()).toStdString());
    if (!v)
        return value();
    return int(std::clamp<int64_t>(*v, minimum(), maximum()));
}

QValidator::State CountSpinBox::validate(QString &text, int &) const
{
    const QString t = bare(text, prefix(), suffix());
    if (t.isEmpty())
        return QValidator::Intermediate;
    const auto v = parseCount(t.toStdString());
    if (!v)
        // A number being typed ("1e", "2.") may still become one.
        return t.contains(QRegularExpression(QStringLiteral("^[0-9.eE+_kKM]*$"))) ? QValidator::Intermediate
                                                                                  : QValidator::Invalid;
    return *v >= minimum() && *v <= maximum() ? QValidator::Acceptable : QValidator::Intermediate;
}

} // namespace syncscope::ui
