#include "distribution/distributionpage.h"

#include "charts/chartgrid.h"
#include "charts/chartpanel.h"
#include "distribution/distributioncharts.h"
#include "jobs/jobrunner.h"
#include "jobs/progressrow.h"
#include "lab/api/variants.h"
#include "shared/countspinbox.h"
#include "shared/noticebar.h"

#include <QAction>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardItemModel>
#include <QVBoxLayout>

namespace syncscope::ui {

namespace {
// runs x B x N host work above this takes minutes on a laptop: say so up front.
constexpr double kMaxWork = 4e9;
constexpr int kChartPoints = 1600; // about twice a wide chart's pixel width
} // namespace

DistributionPage::DistributionPage(lab::LabInterface &lab, QWidget *parent) : QWidget(parent), m_lab(lab)
{
    m_jobs = new JobRunner(this);
    createActions();
    QWidget *left = buildJobPanel();
    QWidget *right = buildChartPanel();
    buildLayout(left, right);
    connectSignals();
    m_summary->setText(tr("Sample one fixed input many times with the chosen variant, then test whether every "
                          "eligible item is equally likely to be picked and whether positives are spread "
                          "uniformly over the output. Press <b>Run</b> (Ctrl+R)."));
    for (ChartPanel *c : charts())
        c->clear(tr("No sampling run yet."));
    updateChartActions();
    setBusy(false);
    validateForm();
}

void DistributionPage::createActions()
{
    m_runAction = new QAction(QIcon::fromTheme("media-playback-start"), tr("Run &Sampling Test"), this);
    m_runAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    m_runAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_runAction->setToolTip(tr("Sample the same input many times and test for bias (Ctrl+R)"));
    m_cancelAction = new QAction(QIcon::fromTheme("process-stop"), tr("Cancel Sampling Test"), this);
    m_cancelAction->setShortcut(QKeySequence(Qt::Key_Escape));
    m_cancelAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    addAction(m_runAction);
    addAction(m_cancelAction);
    connect(m_runAction, &QAction::triggered, this, &DistributionPage::run);
    connect(m_cancelAction, &QAction::triggered, this, &DistributionPage::cancel);
    m_exportChartsAction = new QAction(tr("&Export Chart…"), this);
    m_exportChartsAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    m_exportChartsAction->setToolTip(tr("Save the charts of this page as one PNG, SVG or PDF (Ctrl+E)"));
    m_copyChartsAction = new QAction(tr("Cop&y Chart"), this);
    m_copyChartsAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    m_copyChartsAction->setToolTip(tr("Copy the charts of this page as one image (Ctrl+Shift+C)"));
    for (QAction *a : {m_exportChartsAction, m_copyChartsAction}) {
        a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        addAction(a);
    }
    connect(m_exportChartsAction, &QAction::triggered, this, &DistributionPage::exportChartsWithDialog);
    connect(m_copyChartsAction, &QAction::triggered, this, &DistributionPage::copyCharts);
}

// The sampling run's parameters, and under them what is wrong with them.
QGroupBox *DistributionPage::buildForm()
{
    auto *formBox = new QGroupBox(tr("Sampling run"), this);
    auto *form = new QFormLayout(formBox);
    m_variant = new QComboBox(formBox);
    for (const auto &v : lab::allVariants()) {
        m_variant->addItem(QString::fromStdString(v.name));
        m_variant->setItemData(m_variant->count() - 1, QString::fromStdString(v.description), Qt::ToolTipRole);
    }
    m_device = new QComboBox(formBox);
    m_device->addItem(tr("CPU"), QStringLiteral("cpu"));
    m_device->addItem(tr("CUDA"), QStringLiteral("cuda"));
    std::string why;
    if (!m_lab.cudaAvailable(&why)) {
        qobject_cast<QStandardItemModel *>(m_device->model())->item(1)->setEnabled(false);
        const QString reason = tr("CUDA is unavailable: %1.").arg(QString::fromStdString(why));
        m_device->setItemData(1, reason, Qt::ToolTipRole);
        m_device->setToolTip(reason);
    }
    auto spin = [&](int lo, int hi, int value, const QString &tip) {
        auto *s = new CountSpinBox(formBox); // 1e6, 10k and 1_000_000 too, as everywhere
        s->setRange(lo, hi);
        s->setValue(value);
        s->setGroupSeparatorShown(true);
        s->setToolTip(tip);
        return s;
    };
    auto frac = [&](double value, const QString &tip) {
        auto *s = new QDoubleSpinBox(formBox);
        s->setRange(0, 1);
        s->setDecimals(4);
        s->setSingleStep(0.01);
        s->setValue(value);
        s->setToolTip(tip);
        return s;
    };
    m_n = spin(1, 10'000'000, 1000, tr("Items per row"));
    m_k = spin(1, 10'000'000, 100, tr("Samples per row"));
    m_batch = spin(1, 4096, 1, tr("Rows; B > 1 also shows the per-row balance"));
    m_posFrac = frac(0.1, tr("Probability that an input label is positive"));
    m_ignoreFrac = frac(0.0, tr("Probability that an input label is ignored (-1)"));
    m_targetFrac = frac(0.5, tr("Target positive fraction f of K"));
    m_inputSeed = spin(0, 1'000'000'000, 0, tr("Seed of the one fixed input"));
    m_seed = spin(0, 1'000'000'000, 1, tr("Sampler seed of the first run; run r uses seed + r"));
    m_runs = spin(10, 1'000'000, 2000, tr("Repetitions; more runs detect smaller biases"));
    form->addRow(tr("Variant"), m_variant);
    form->addRow(tr("Device"), m_device);
    form->addRow(tr("N"), m_n);
    form->addRow(tr("K"), m_k);
    form->addRow(tr("B"), m_batch);
    form->addRow(tr("Input positive fraction"), m_posFrac);
    form->addRow(tr("Ignored fraction"), m_ignoreFrac);
    form->addRow(tr("Target positive fraction f"), m_targetFrac);
    form->addRow(tr("Input seed"), m_inputSeed);
    form->addRow(tr("First sampler seed"), m_seed);
    form->addRow(tr("Runs"), m_runs);
    m_formError = new NoticeBar(formBox, NoticeBar::Look::Line);
    m_formError->setObjectName(QStringLiteral("distributionError"));
    form->addRow(m_formError);
    return formBox;
}

// Left: the form, and the buttons that run and cancel it, scrolled in a small window.
QWidget *DistributionPage::buildJobPanel()
{
    auto *left = new QWidget(this);
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->addWidget(buildForm());
    auto *take = new QPushButton(tr("Take Parameters from Explore"), left);
    take->setToolTip(tr("Copy N, K, B, fractions, seed and the first checked variant from the Explore page"));
    connect(take, &QPushButton::clicked, this, &DistributionPage::takeFromExploreRequested);
    leftLayout->addWidget(take);
    auto *buttons = new QHBoxLayout;
    auto *runButton = new QPushButton(tr("Run"), left);
    auto *cancelButton = new QPushButton(tr("Cancel"), left);
    runButton->setToolTip(m_runAction->toolTip());
    connect(runButton, &QPushButton::clicked, m_runAction, &QAction::trigger);
    connect(cancelButton, &QPushButton::clicked, m_cancelAction, &QAction::trigger);
    connect(m_runAction, &QAction::changed, runButton, [=] { runButton->setEnabled(m_runAction->isEnabled()); });
    connect(m_cancelAction, &QAction::changed, cancelButton,
            [=] { cancelButton->setEnabled(m_cancelAction->isEnabled()); });
    buttons->addWidget(runButton);
    buttons->addWidget(cancelButton);
    leftLayout->addLayout(buttons);
    m_progress = new ProgressRow(m_jobs, ProgressRow::thinBar(), left);
    leftLayout->addWidget(m_progress);
    leftLayout->addStretch(1);
    auto *scroll = new QScrollArea(this);
    scroll->setWidget(left);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setMinimumWidth(300);
    return scroll;
}

// Right: the summary of the test, over its charts.
QWidget *DistributionPage::buildChartPanel()
{
    auto *right = new QWidget(this);
    auto *rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    m_summary = new QLabel(right);
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setMargin(6);
    rightLayout->addWidget(m_summary);
    // Two columns where the charts fit side by side, else one; a small window
    // scrolls rather than cutting their titles, axes and legends.
    m_chartGrid = new ChartGrid(right);
    m_counts = new ChartPanel(m_chartGrid);
    m_selection = new ChartPanel(m_chartGrid);
    m_order = new ChartPanel(m_chartGrid);
    m_rows = new ChartPanel(m_chartGrid);
    m_counts->setSuggestedName(QStringLiteral("counts"));
    m_selection->setSuggestedName(QStringLiteral("selection"));
    m_order->setSuggestedName(QStringLiteral("order"));
    m_rows->setSuggestedName(QStringLiteral("row-balance"));
    for (ChartPanel *c : {m_counts, m_selection, m_rows, m_order})
        m_chartGrid->addCell(c);
    // The summary stays above; only the charts scroll (a word-wrapped label
    // inside the scroll area would size it by its preferred height).
    auto *chartScroll = new QScrollArea(right);
    chartScroll->setWidget(m_chartGrid);
    chartScroll->setWidgetResizable(true);
    chartScroll->setFrameShape(QFrame::NoFrame);
    chartScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    rightLayout->addWidget(chartScroll, 1);
    return right;
}

void DistributionPage::buildLayout(QWidget *left, QWidget *right)
{
    auto *split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(left);
    split->addWidget(right);
    split->setStretchFactor(1, 1);
    split->setSizes({320, 960});
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(split);
}

void DistributionPage::connectSignals()
{
    for (QSpinBox *s : {m_n, m_k, m_batch, m_runs, m_inputSeed, m_seed})
        connect(s, &QSpinBox::valueChanged, this, &DistributionPage::validateForm);
    for (QDoubleSpinBox *s : {m_posFrac, m_ignoreFrac, m_targetFrac})
        connect(s, &QDoubleSpinBox::valueChanged, this, &DistributionPage::validateForm);
    connect(m_variant, &QComboBox::currentIndexChanged, this, &DistributionPage::validateForm);
    connect(m_device, &QComboBox::currentIndexChanged, this, &DistributionPage::validateForm);
    connect(m_jobs, &JobRunner::failed, this, [this](quint64, const QString &error) {
        setBusy(false);
        m_formError->showMessage(error);
        Q_EMIT statusMessage(error);
    });
    connect(m_jobs, &JobRunner::cancelled, this, [this] {
        setBusy(false);
        Q_EMIT statusMessage(tr("Sampling test cancelled."));
    });
}

DistributionPage::~DistributionPage()
{
    m_jobs->cancel();
    m_jobs->waitForDone();
}

QList<ChartPanel *> DistributionPage::charts() const { return {m_counts, m_selection, m_order, m_rows}; }
QString DistributionPage::summaryText() const { return m_summary->text(); }
bool DistributionPage::isBusy() const { return m_jobs->isRunning(); }
int64_t DistributionPage::runs() const { return m_runs->value(); }

std::optional<lab::SampleRequest> DistributionPage::request(QString *error)
{
    lab::SampleRequest r;
    r.variant = m_variant->currentText().toStdString();
    r.input.n = m_n->value();
    r.input.batch = m_batch->value();
    r.input.dim = 1; // features play no part in these statistics
    r.input.posFrac = m_posFrac->value();
    r.input.ignoreFrac = m_ignoreFrac->value();
    r.input.seed = static_cast<uint64_t>(m_inputSeed->value());
    r.input.device = lab::parseDevice(m_device->currentData().toString().toStdString());
    r.k = m_k->value();
    r.targetPosFraction = m_targetFrac->value();
    r.seed = static_cast<uint64_t>(m_seed->value());
    QString problem;
    const double work = double(m_runs->value()) * double(r.input.batch) * double(r.input.n);
    if (r.input.posFrac + r.input.ignoreFrac > 1 + 1e-12)
        problem = tr("Positive and ignored fractions add up to more than 1.");
    else if (double(r.input.batch) * double(r.input.n) > 5e7)
        problem = tr("B×N is above 50 million; the per-position counts would not fit a chart or memory well.");
    else if (work > kMaxWork)
        problem = tr("Runs × B × N = %1 is too much work for one test; lower the runs, B or N.")
                      .arg(QLocale().toString(work, 'g', 3));
    else {
        try {
            m_lab.validateSample(r);
        } catch (const std::exception &e) {
            problem = QString::fromUtf8(e.what());
            problem[0] = problem[0].toUpper();
            if (!problem.endsWith(QLatin1Char('.')))
                problem += QLatin1Char('.');
        }
    }
    if (problem.isEmpty())
        m_formError->clear();
    else
        m_formError->showMessage(problem);
    if (!problem.isEmpty()) {
        if (error)
            *error = problem;
        return std::nullopt;
    }
    return r;
}

void DistributionPage::validateForm()
{
    const bool ok = request(nullptr).has_value();
    m_runAction->setEnabled(ok && !isBusy());
}

void DistributionPage::setRequest(const lab::SampleRequest &r, int64_t runs)
{
    const int v = m_variant->findText(QString::fromStdString(r.variant));
    if (v >= 0)
        m_variant->setCurrentIndex(v);
    const int d = m_device->findData(QString::fromLatin1(lab::deviceName(r.input.device)));
    if (d >= 0 && m_device->model()->index(d, 0).flags().testFlag(Qt::ItemIsEnabled))
        m_device->setCurrentIndex(d);
    m_n->setValue(int(std::min<int64_t>(r.input.n, m_n->maximum())));
    m_k->setValue(int(std::min<int64_t>(r.k, m_k->maximum())));
    m_batch->setValue(int(std::min<int64_t>(r.input.batch, m_batch->maximum())));
    m_posFrac->setValue(r.input.posFrac);
    m_ignoreFrac->setValue(r.input.ignoreFrac);
    m_targetFrac->setValue(r.targetPosFraction);
    m_inputSeed->setValue(int(std::min<uint64_t>(r.input.seed, 1'000'000'000)));
    m_seed->setValue(int(std::min<uint64_t>(r.seed, 1'000'000'000)));
    m_runs->setValue(int(std::clamp<int64_t>(runs, m_runs->minimum(), m_runs->maximum())));
    validateForm();
}

void DistributionPage::setBusy(bool busy)
{
    m_cancelAction->setEnabled(busy);
    validateForm();
    Q_EMIT busyChanged(busy);
}

void DistributionPage::run()
{
    if (isBusy())
        return;
    QString error;
    const auto r = request(&error);
    if (!r) {
        Q_EMIT statusMessage(error);
        return;
    }
    QSettings settings;
    save(settings);
    const int64_t runs = m_runs->value();
    m_request = *r;
    m_jobs->start(
        tr("Sampling test"),
        [&lab = m_lab, req = *r, runs](const ProgressFn &progress, const CancelToken *cancel) {
            return lab.runDistribution(req, runs, progress, cancel);
        },
        this, [this](lab::DistributionStats stats) { onFinished(std::move(stats)); });
    setBusy(true);
    Q_EMIT statusMessage(tr("Sampling %1 × with %2…").arg(runs).arg(QString::fromStdString(r->variant)));
}

void DistributionPage::cancel()
{
    if (isBusy())
        m_jobs->cancel();
}

void DistributionPage::onFinished(lab::DistributionStats stats)
{
    setBusy(false);
    m_stats = std::move(stats);
    refresh();
    Q_EMIT statusMessage(tr("Sampling test done: selection p = %1, order p = %2.")
                             .arg(m_stats.selectionP, 0, 'g', 3)
                             .arg(m_stats.orderP, 0, 'g', 3));
    Q_EMIT finished();
}

void DistributionPage::refresh()
{
    const lab::DistributionStats st = m_stats;
    m_summary->setText(describeDistribution(m_request, st));
    m_counts->setFactory([st](QString *why) { return makeCountsChart(st, why); });
    m_selection->setFactory([st](QString *why) { return makeSelectionChart(st, kChartPoints, why); });
    m_order->setFactory([st](QString *why) { return makeOrderChart(st, kChartPoints, why); });
    m_rows->setFactory([st](QString *why) { return makeRowBalanceChart(st, 64, why); });
    updateChartActions();
}

void DistributionPage::save(QSettings &s) const
{
    s.beginGroup(QStringLiteral("distribution"));
    s.setValue("variant", m_variant->currentText());
    s.setValue("n", m_n->value());
    s.setValue("k", m_k->value());
    s.setValue("batch", m_batch->value());
    s.setValue("posFrac", m_posFrac->value());
    s.setValue("ignoreFrac", m_ignoreFrac->value());
    s.setValue("targetFrac", m_targetFrac->value());
    s.setValue("inputSeed", m_inputSeed->value());
    s.setValue("seed", m_seed->value());
    s.setValue("runs", m_runs->value());
    s.endGroup();
}

void DistributionPage::restore(QSettings &s)
{
    s.beginGroup(QStringLiteral("distribution"));
    if (s.contains("n")) {
        lab::SampleRequest r;
        r.variant = s.value("variant", "fused").toString().toStdString();
        r.input.n = s.value("n", 1000).toLongLong();
        r.k = s.value("k", 100).toLongLong();
        r.input.batch = s.value("batch", 1).toLongLong();
        r.input.posFrac = s.value("posFrac", 0.1).toDouble();
        r.input.ignoreFrac = s.value("ignoreFrac", 0.0).toDouble();
        r.targetPosFraction = s.value("targetFrac", 0.5).toDouble();
        r.input.seed = s.value("inputSeed", 0).toULongLong();
        r.seed = s.value("seed", 1).toULongLong();
        setRequest(r, s.value("runs", 2000).toLongLong());
    }
    s.endGroup();
}

} // namespace syncscope::ui
