#include "charts/exportdialog.h"

#include "charts/chartexport.h"
#include "shared/noticebar.h"
#include "shared/savefolder.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QMainWindow>
#include <QStatusBar>

namespace syncscope::ui {

ExportDialog::ExportDialog(QWidget *parent, const QString &baseName) : QDialog(parent)
{
    setWindowTitle(tr("Export Chart"));
    QSettings settings;
    m_format = new QComboBox(this);
    m_format->addItem(tr("PNG image"), QStringLiteral("png"));
    m_format->addItem(tr("SVG vector image"), QStringLiteral("svg"));
    m_format->addItem(tr("PDF document"), QStringLiteral("pdf"));
    m_format->setCurrentIndex(std::max(0, m_format->findData(settings.value("export/format", "png"))));
    m_width = new QSpinBox(this);
    m_height = new QSpinBox(this);
    for (QSpinBox *s : {m_width, m_height}) {
        s->setRange(64, 16384);
        s->setSuffix(tr(" px"));
    }
    m_width->setValue(settings.value("export/width", 1200).toInt());
    m_height->setValue(settings.value("export/height", 700).toInt());
    auto *sizeRow = new QHBoxLayout;
    sizeRow->addWidget(m_width);
    sizeRow->addWidget(new QLabel(QStringLiteral("×"), this));
    sizeRow->addWidget(m_height);
    m_path = new QLineEdit(this);
    m_path->setText(defaultSavePath(baseName + QLatin1Char('.') + m_format->currentData().toString()));
    auto *browse = new QPushButton(tr("Browse…"), this);
    auto *pathRow = new QHBoxLayout;
    pathRow->addWidget(m_path, 1);
    pathRow->addWidget(browse);
    m_error = new NoticeBar(this, NoticeBar::Look::Line);

    auto *form = new QFormLayout;
    form->addRow(tr("Format:"), m_format);
    form->addRow(tr("Size:"), sizeRow);
    form->addRow(tr("File:"), pathRow);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_error);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &ExportDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &ExportDialog::reject);
    connect(browse, &QPushButton::clicked, this, &ExportDialog::browse);
    connect(m_format, &QComboBox::currentIndexChanged, this, &ExportDialog::syncSuffix);
    resize(560, sizeHint().height());
}

QString ExportDialog::path() const { return m_path->text().trimmed(); }
QSize ExportDialog::chartSize() const { return QSize(m_width->value(), m_height->value()); }

void ExportDialog::syncSuffix()
{
    QFileInfo info(path());
    if (info.fileName().isEmpty())
        return;
    m_path->setText(info.dir().filePath(info.completeBaseName() + QLatin1Char('.') +
                                        m_format->currentData().toString()));
}

void ExportDialog::browse()
{
    const QString file = QFileDialog::getSaveFileName(this, tr("Export Chart"), path(),
                                                      tr("Images (*.png *.svg *.pdf)"));
    if (file.isEmpty())
        return;
    m_path->setText(file);
    if (const auto f = chartFormatForPath(file))
        m_format->setCurrentIndex(m_format->findData(chartFormatSuffix(*f)));
}

void ExportDialog::accept()
{
    QString error;
    if (path().isEmpty()) {
        error = tr("Choose a file to export to.");
    } else if (!chartFormatForPath(path())) {
        error = tr("The file name must end in .png, .svg or .pdf.");
    } else if (m_renderer && !m_renderer(chartSize(), path(), &error)) {
        // error set by the renderer
    } else {
        QSettings settings;
        settings.setValue("export/format", m_format->currentData());
        settings.setValue("export/width", m_width->value());
        settings.setValue("export/height", m_height->value());
        rememberSaveFolder(path());
        QDialog::accept();
        return;
    }
    m_error->showMessage(error);
}

void ExportDialog::announce(QWidget *from, const QString &path)
{
    // The status bar of the main window, wherever the export started.
    if (auto *window = qobject_cast<QMainWindow *>(from ? from->window() : nullptr))
        window->statusBar()->showMessage(
            tr("Wrote %1").arg(QDir::toNativeSeparators(QFileInfo(path).absoluteFilePath())), 10000);
}

} // namespace syncscope::ui
