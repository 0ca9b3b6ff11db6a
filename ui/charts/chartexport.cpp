#include "charts/chartexport.h"

#include <QBuffer>
#include <QChart>
#include <QFileInfo>
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QTextDocumentFragment>

#include <algorithm>

namespace syncscope::ui {

std::optional<ChartFormat> chartFormatForPath(const QString &path)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("png"))
        return ChartFormat::Png;
    if (suffix == QLatin1String("svg"))
        return ChartFormat::Svg;
    if (suffix == QLatin1String("pdf"))
        return ChartFormat::Pdf;
    return std::nullopt;
}

QString chartFormatSuffix(ChartFormat format)
{
    switch (format) {
    case ChartFormat::Png: return QStringLiteral("png");
    case ChartFormat::Svg: return QStringLiteral("svg");
    case ChartFormat::Pdf: return QStringLiteral("pdf");
    }
    return QString();
}

std::optional<QSize> parseChartSize(const QString &text)
{
    static const QRegularExpression re(QStringLiteral("^\\s*(\\d{1,5})\\s*[xX×]\\s*(\\d{1,5})\\s*$"));
    const auto m = re.match(text);
    if (!m.hasMatch())
        return std::nullopt;
    const int w = m.captured(1).toInt(), h = m.captured(2).toInt();
    if (w < 64 || h < 64 || w > 16384 || h > 16384)
        return std::nullopt;
    return QSize(w, h);
}

bool writeFileAtomically(const QString &path, const QByteArray &data, QString *error)
{
    QSaveFile file(path);
    auto failed = [&](const QString &reason) {
        file.cancelWriting();
        if (error)
            *error = QStringLiteral("Cannot write '%1': %2.").arg(path, reason);
        return false;
    };
    if (!file.open(QIODevice::WriteOnly))
        return failed(file.errorString());
    if (file.write(data) != data.size())
        return failed(file.errorString());
    if (!file.commit())
        return failed(file.errorString());
    return true;
}

namespace {
// Lays the chart out at `size` in a scene of its own and paints it.
void paintChart(QChart *chart, const QSize &size, QPainter *painter, const QRectF &target)
{
    QGraphicsScene scene;
    scene.addItem(chart);
    chart->setMinimumSize(size);
    chart->setMaximumSize(size);
    chart->resize(size);
    chart->setGeometry(QRectF(QPointF(0, 0), size));
    if (chart->layout())
        chart->layout()->activate();
    scene.setSceneRect(QRectF(QPointF(0, 0), size));
    painter->setRenderHint(QPainter::Antialiasing);
    painter->setRenderHint(QPainter::TextAntialiasing);
    scene.render(painter, target, QRectF(QPointF(0, 0), size));
    scene.removeItem(chart);
}
} // namespace

namespace {
// Cell of chart i in a grid of `columns` over `size`.
QRectF cellRect(int i, int count, const QSize &size, int columns)
{
    columns = std::max(1, std::min(columns, count));
    const int rows = (count + columns - 1) / columns;
    const qreal w = qreal(size.width()) / columns, h = qreal(size.height()) / rows;
    return QRectF((i % columns) * w, (i / columns) * h, w, h);
}

void paintCharts(const QList<QChart *> &charts, const QSize &size, int columns, QPainter *painter)
{
    for (int i = 0; i < charts.size(); ++i) {
        const QRectF cell = cellRect(i, int(charts.size()), size, columns);
        paintChart(charts[i], cell.size().toSize(), painter, cell);
    }
}
} // namespace

QImage renderChartImage(QChart *chart, const QSize &size, qreal scale)
{
    return renderChartsImage({chart}, size, 1, scale);
}

QImage renderChartsImage(const QList<QChart *> &charts, const QSize &size, int columns, qreal scale)
{
    return renderPaintedImage([&](QPainter *painter,
                                  const QSize &sz) { paintCharts(charts, sz, columns, painter); },
                              size, scale);
}

QImage renderPaintedImage(const PaintFn &paint, const QSize &size, qreal scale)
{
    QImage image(size * scale, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(scale);
    image.fill(Qt::white);
    QPainter painter(&image);
    paint(&painter, size);
    painter.end();
    return image;
}

QByteArray renderChart(QChart *chart, const QSize &size, ChartFormat format, QString *error)
{
    return renderCharts({chart}, size, 1, format, error);
}

QByteArray renderCharts(const QList<QChart *> &charts, const QSize &size, int columns, ChartFormat format,
                        QString *error)
{
    if (charts.isEmpty()) {
        if (error)
            *error = QStringLiteral("There is no chart to export.");
        return {};
    }
    const QString title = charts.size() == 1 ? charts.front()->title() : QStringLiteral("syncscope charts");
    return renderPainted([&](QPainter *painter, const QSize &sz) { paintCharts(charts, sz, columns, painter); },
                         size, format, title, error);
}

QByteArray renderPainted(const PaintFn &paint, const QSize &size, ChartFormat format, const QString &title,
                         QString *error)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    // Chart titles are rich text; the files' metadata takes plain text (and
    // QSvgGenerator writes it into the XML as it is, so it is escaped here).
    const QString plainTitle = QTextDocumentFragment::fromHtml(title).toPlainText().simplified();
    switch (format) {
    case ChartFormat::Png: {
        const QImage image = renderPaintedImage(paint, size, 1.0);
        if (!image.save(&buffer, "PNG")) {
            if (error)
                *error = QStringLiteral("Cannot encode the chart as PNG.");
            return {};
        }
        break;
    }
    case ChartFormat::Svg: {
        QSvgGenerator svg;
        svg.setOutputDevice(&buffer);
        svg.setSize(size);
        svg.setViewBox(QRect(QPoint(0, 0), size));
        svg.setTitle(plainTitle.toHtmlEscaped());
        svg.setDescription(QStringLiteral("syncscope chart"));
        QPainter painter(&svg);
        painter.fillRect(QRect(QPoint(0, 0), size), Qt::white);
        paint(&painter, size);
        painter.end();
        break;
    }
    case ChartFormat::Pdf: {
        QPdfWriter pdf(&buffer);
        // One page exactly the chart's size, 1 px = 1 pt, so text stays vector.
        pdf.setResolution(72);
        pdf.setPageSize(QPageSize(QSizeF(size), QPageSize::Point, QString(), QPageSize::ExactMatch));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        pdf.setTitle(plainTitle);
        pdf.setCreator(QStringLiteral("syncscope"));
        QPainter painter(&pdf);
        paint(&painter, size);
        painter.end();
        break;
    }
    }
    buffer.close();
    if (bytes.isEmpty() && error)
        *error = QStringLiteral("Rendering the chart produced no data.");
    return bytes;
}

bool exportPainted(const PaintFn &paint, const QSize &size, const QString &path, const QString &title,
                   QString *error)
{
    const auto format = chartFormatForPath(path);
    if (!format) {
        if (error)
            *error =
                QStringLiteral("Cannot export to '%1': the file name must end in .png, .svg or .pdf.").arg(path);
        return false;
    }
    const QByteArray bytes = renderPainted(paint, size, *format, title, error);
    if (bytes.isEmpty())
        return false;
    return writeFileAtomically(path, bytes, error);
}

bool exportCharts(const QList<QChart *> &charts, const QSize &size, int columns, const QString &path,
                  QString *error)
{
    const auto format = chartFormatForPath(path);
    if (!format) {
        if (error)
            *error =
                QStringLiteral("Cannot export to '%1': the file name must end in .png, .svg or .pdf.").arg(path);
        return false;
    }
    const QByteArray bytes = renderCharts(charts, size, columns, *format, error);
    if (bytes.isEmpty())
        return false;
    return writeFileAtomically(path, bytes, error);
}

bool exportChart(QChart *chart, const QSize &size, const QString &path, QString *error)
{
    const auto format = chartFormatForPath(path);
    if (!format) {
        if (error)
            *error =
                QStringLiteral("Cannot export to '%1': the file name must end in .png, .svg or .pdf.").arg(path);
        return false;
    }
    const QByteArray bytes = renderChart(chart, size, *format, error);
    if (bytes.isEmpty())
        return false;
    return writeFileAtomically(path, bytes, error);
}

} // namespace syncscope::ui
