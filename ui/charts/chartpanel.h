#pragma once
// A chart view that rebuilds its chart from a factory, says why when there is
// nothing to draw, and exports or copies the same chart at any size.
#include <QFont>
#include <QWidget>

#include <functional>

QT_BEGIN_NAMESPACE
class QChart;
class QChartView;
class QLabel;
class QStackedLayout;
QT_END_NAMESPACE

namespace syncscope::ui {

class ChartPanel : public QWidget {
    Q_OBJECT
public:
    // Returns a new chart, or nullptr with one sentence in *why.
    using Factory = std::function<QChart *(QString *why)>;

    explicit ChartPanel(QWidget *parent = nullptr);

    void setFactory(Factory factory);
    void clear(const QString &message);
    void refresh();
    bool hasChart() const { return m_hasChart; }
    QString message() const;
    // A fresh chart for export, owned by the caller; nullptr when there is none.
    QChart *makeChart(QString *why) const;
    QString suggestedName() const { return m_name; }
    void setSuggestedName(const QString &name) { m_name = name; }
    // The chart on screen (nullptr when none), for tests.
    QChart *shownChart() const;

    // A chart title (plain or rich text, lines split at <br>) with each line
    // broken at spaces so that none is wider than `width` pixels in `font`:
    // a title is wrapped, never cut. Spaces inside tags are kept.
    static QString wrapTitle(const QString &title, const QFont &font, int width);

protected:
    void resizeEvent(QResizeEvent *event) override;

public Q_SLOTS:
    void exportWithDialog();
    void copyToClipboard();

Q_SIGNALS:
    // An export through the dialog wrote this file.
    void exported(const QString &path);

private:
    Factory m_factory;
    QStackedLayout *m_stack = nullptr;
    QChartView *m_view = nullptr;
    QLabel *m_message = nullptr;
    bool m_hasChart = false;
    QString m_name = QStringLiteral("chart");
    QString m_fullTitle; // the factory's title, before wrapping to the width
    void fitTitle();
};

} // namespace syncscope::ui
