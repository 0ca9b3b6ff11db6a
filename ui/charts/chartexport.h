#pragma once
// Rendering charts to PNG, SVG and PDF, and atomic file writes: a file is
// complete or absent, and a failure is one sentence that names the file.
#include <QByteArray>
#include <QImage>
#include <QList>
#include <QSize>
#include <QString>

#include <functional>
#include <optional>

QT_BEGIN_NAMESPACE
class QChart;
class QPainter;
QT_END_NAMESPACE

namespace syncscope::ui {

enum class ChartFormat { Png, Svg, Pdf };

// From the file's extension (.png, .svg, .pdf), case-insensitive.
std::optional<ChartFormat> chartFormatForPath(const QString &path);
QString chartFormatSuffix(ChartFormat format);

// "1200x800" -> QSize; nullopt unless both sides are in [64, 16384].
std::optional<QSize> parseChartSize(const QString &text);

// Writes `data` to `path` through QSaveFile. On failure returns false, leaves
// no file behind and puts one sentence in *error.
bool writeFileAtomically(const QString &path, const QByteArray &data, QString *error);

// Renders `chart` (which must not be shown in a view) at `size` logical
// pixels. PNG and the clipboard image use `scale` device pixels per pixel.
QImage renderChartImage(QChart *chart, const QSize &size, qreal scale = 1.0);
QByteArray renderChart(QChart *chart, const QSize &size, ChartFormat format, QString *error);
bool exportChart(QChart *chart, const QSize &size, const QString &path, QString *error);

// Several charts in one picture of `size`: a grid of `columns` equal cells,
// filled row by row (a page of charts, such as Distribution's).
QImage renderChartsImage(const QList<QChart *> &charts, const QSize &size, int columns, qreal scale = 1.0);
QByteArray renderCharts(const QList<QChart *> &charts, const QSize &size, int columns, ChartFormat format,
                        QString *error);
bool exportCharts(const QList<QChart *> &charts, const QSize &size, int columns, const QString &path,
                  QString *error);

// Any picture drawn with a QPainter (a chart that is not a QChart, such as a
// heat map), on the same targets as the charts: `paint` draws into a painter
// whose logical size is `size`, on a white background.
using PaintFn = std::function<void(QPainter *painter, const QSize &size)>;
QImage renderPaintedImage(const PaintFn &paint, const QSize &size, qreal scale = 1.0);
QByteArray renderPainted(const PaintFn &paint, const QSize &size, ChartFormat format, const QString &title,
                         QString *error);
bool exportPainted(const PaintFn &paint, const QSize &size, const QString &path, const QString &title,
                   QString *error);

} // namespace syncscope::ui
