#include "sentence.h"

namespace syncscope::ui {

QString refusalSentence(const QString &error)
{
    QString text = error.trimmed();
    if (text.isEmpty())
        return text;
    // A leading path (no space before its ": ") names the file the reason is about.
    const qsizetype colon = text.indexOf(QStringLiteral(": "));
    if (colon > 0) {
        const QString head = text.left(colon);
        const bool path = !head.contains(QLatin1Char(' ')) &&
                          (head.contains(QLatin1Char('/')) || head.contains(QLatin1Char('.')));
        if (path)
            text = QStringLiteral("Cannot open '%1': %2").arg(head, text.mid(colon + 2));
    }
    if (text.at(0).isLower())
        text[0] = text.at(0).toUpper();
    if (!text.endsWith(QLatin1Char('.')) && !text.endsWith(QLatin1Char('?')) && !text.endsWith(QLatin1Char('!')))
        text += QLatin1Char('.');
    return text;
}

QString wrappablePaths(const QString &text)
{
    QString out = text;
    out.replace(QLatin1Char('/'), QStringLiteral("/\u200b"));
    return out;
}

} // namespace syncscope::ui
