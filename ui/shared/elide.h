#pragma once
// Long paths in text on screen: they lose their middle, so a message never
// widens its window ("/home/me/runs/…/rank3.json: not a Chrome trace").
#include <QFontMetrics>
#include <QString>
#include <QStringList>

namespace syncscope::ui {

// Each word of `text` (a path, a file name) wider than `width` in `fm` loses
// its middle, so the text wraps within `width` instead of asking for more.
inline QString elideLongWords(const QString &text, const QFontMetrics &fm, int width)
{
    QStringList words = text.split(QLatin1Char(' '));
    for (QString &w : words)
        if (fm.horizontalAdvance(w) > width)
            w = fm.elidedText(w, Qt::ElideMiddle, width);
    return words.join(QLatin1Char(' '));
}

} // namespace syncscope::ui
