#include "explorer/paramsform.h"

#include "common/numbers.h"
#include "lab/api/variants.h"
#include "shared/noticebar.h"

#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QSettings>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QVBoxLayout>

#include <cmath>
#include <set>

namespace syncscope::ui {

namespace {
constexpr double kMaxFeatureBytes = 4.0 * 1024 * 1024 * 1024; // one input set's features
const char *kDefaults[][2] = {{"n", "100000"},       {"k", "0.1"},          {"batch", "1"},        {"dim", "16"},
                              {"posFrac", "0.5"},    {"ignoreFrac", "0"},   {"targetFrac", "0.5"}, {"seed", "0"},
                              {"sweepFrom", "1000"}, {"sweepTo", "1000000"}};
} // namespace

std::optional<double> parseNumber(const QString &text)
{
    return syncscope::parseNumber(text.trimmed().toStdString());
}

std::optional<int64_t> parseCount(const QString &text)
{
    return syncscope::parseCount(text.trimmed().toStdString());
}

std::vector<double> sweepValues(double from, double to, int points, bool whole)
{
    std::vector<double> out;
    if (points < 2)
        points = 2;
    const bool log = from > 0 && to > 0;
    for (int i = 0; i < points; ++i) {
        const double t = static_cast<double>(i) / (points - 1);
        double v = log ? std::exp(std::log(from) + t * (std::log(to) - std::log(from))) : from + t * (to - from);
        if (whole)
            v = std::round(v);
        else
            v = std::round(v * 1e6) / 1e6;
        if (out.empty() || out.back() != v)
            out.push_back(v);
    }
    return out;
}

ParamsForm::ParamsForm(lab::LabInterface &lab, QWidget *parent) : QWidget(parent), m_lab(lab)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);

    auto *inputs = new QGroupBox(tr("Inputs"), this);
    auto *form = new QFormLayout(inputs);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    addField(form, "n", tr("N (items per row)"), tr("Candidates per row, e.g. 100000, 1e6 or 2M."));
    m_kMode = new QComboBox(inputs);
    m_kMode->addItem(tr("K / N"), true);
    m_kMode->addItem(tr("K"), false);
    m_kMode->setToolTip(tr("Give the sample size K directly, or as a fraction of N (0.1 = K is N/10)."));
    addField(form, "k", QString(), tr("Samples per row (K), or K/N as a fraction."), m_kMode);
    addField(form, "batch", tr("B (rows)"), tr("Rows sampled per step; 1 for unbatched input."));
    addField(form, "dim", tr("D (feature dim)"), tr("Feature width gathered for every sample."));
    addField(form, "posFrac", tr("Input positive fraction"),
             tr("Probability that an input label is positive (1); 0.01 is a strong imbalance."));
    addField(form, "ignoreFrac", tr("Ignored fraction"),
             tr("Probability that an input label is ignored (-1): never sampled."));
    addField(form, "targetFrac", tr("Target positive fraction f"),
             tr("Share of K that should be positives (Detectron2's positive_fraction)."));
    layout->addWidget(inputs);

    auto *run = new QGroupBox(tr("Run"), this);
    auto *runForm = new QFormLayout(run);
    m_device = new QComboBox(run);
    m_device->addItem(tr("CPU"), QStringLiteral("cpu"));
    m_device->addItem(tr("CUDA"), QStringLiteral("cuda"));
    std::string why;
    if (!m_lab.cudaAvailable(&why)) {
        auto *model = qobject_cast<QStandardItemModel *>(m_device->model());
        model->item(1)->setEnabled(false);
        const QString reason = tr("CUDA is unavailable: %1.").arg(QString::fromStdString(why));
        m_device->setItemData(1, reason, Qt::ToolTipRole);
        m_device->setToolTip(reason);
    }
    runForm->addRow(tr("Device"), m_device);
    m_warmup = new QSpinBox(run);
    m_warmup->setRange(0, 1000);
    m_warmup->setToolTip(tr("Untimed steps first, so one-time set-up stays out of the numbers."));
    runForm->addRow(tr("Warm-up steps"), m_warmup);
    m_iters = new QSpinBox(run);
    m_iters->setRange(3, 100000);
    m_iters->setToolTip(tr("Timed steps per variant and point; p5/p95 need at least 20 to mean much."));
    runForm->addRow(tr("Timed steps"), m_iters);
    m_threads = new QSpinBox(run);
    m_threads->setRange(0, lab::kMaxThreads);
    m_threads->setSpecialValueText(tr("all cores"));
    runForm->addRow(tr("CPU threads"), m_threads);
    addField(runForm, "seed", tr("Seed"), tr("Seeds the inputs and the samplers; same seed, same output."));
    layout->addWidget(run);

    auto *variants = new QGroupBox(tr("Variants"), this);
    auto *vl = new QVBoxLayout(variants);
    m_variants = new QListWidget(variants);
    for (const auto &v : lab::allVariants()) {
        auto *item = new QListWidgetItem(QString::fromStdString(v.name), m_variants);
        item->setData(Qt::UserRole, QString::fromStdString(v.name));
        QString tip = QString::fromStdString(v.description);
        tip += v.syncFree ? tr("\nSync-free.") : tr("\nSyncs with the device.");
        item->setToolTip(tip);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Checked);
    }
    m_variants->setMaximumHeight(m_variants->sizeHintForRow(0) * (m_variants->count() + 1) + 6);
    vl->addWidget(m_variants);
    m_variantError = new NoticeBar(variants, NoticeBar::Look::Line);
    vl->addWidget(m_variantError);
    layout->addWidget(variants);

    auto *sweep = new QGroupBox(tr("Sweep"), this);
    auto *sweepForm = new QFormLayout(sweep);
    m_sweepAxis = new QComboBox(sweep);
    m_sweepAxis->addItem(tr("N (log scale)"), static_cast<int>(SweepAxis::N));
    m_sweepAxis->addItem(tr("B (log scale)"), static_cast<int>(SweepAxis::Batch));
    m_sweepAxis->addItem(tr("Input positive fraction"), static_cast<int>(SweepAxis::PosFrac));
    sweepForm->addRow(tr("Vary"), m_sweepAxis);
    addField(sweepForm, "sweepFrom", tr("From"), tr("First value of the swept parameter."));
    addField(sweepForm, "sweepTo", tr("To"), tr("Last value of the swept parameter."));
    m_sweepPoints = new QSpinBox(sweep);
    m_sweepPoints->setRange(2, 40);
    sweepForm->addRow(tr("Points"), m_sweepPoints);
    layout->addWidget(sweep);

    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    m_summary->setStyleSheet(QStringLiteral("color: palette(mid);"));
    layout->addWidget(m_summary);
    layout->addStretch(1);

    resetToDefaults();
    connect(m_kMode, &QComboBox::currentIndexChanged, this, &ParamsForm::onEdited);
    connect(m_device, &QComboBox::currentIndexChanged, this, &ParamsForm::onEdited);
    connect(m_variants, &QListWidget::itemChanged, this, &ParamsForm::onEdited);
    connect(m_variants, &QListWidget::itemChanged, this, &ParamsForm::variantsChanged);
    connect(m_sweepAxis, &QComboBox::currentIndexChanged, this, [this] {
        // Sensible ranges per swept parameter, so switching never leaves nonsense.
        switch (sweepAxis()) {
        case SweepAxis::N:
            setField("sweepFrom", "1000");
            setField("sweepTo", "1000000");
            break;
        case SweepAxis::Batch:
            setField("sweepFrom", "1");
            setField("sweepTo", "64");
            break;
        case SweepAxis::PosFrac:
            setField("sweepFrom", "0.001");
            setField("sweepTo", "0.5");
            break;
        case SweepAxis::None: break;
        }
        onEdited();
    });
    connect(m_sweepPoints, &QSpinBox::valueChanged, this, &ParamsForm::onEdited);
    validate();
}

QLineEdit *ParamsForm::addField(QFormLayout *form, const QString &name, const QString &label,
                                const QString &tooltip, QWidget *labelWidget)
{
    auto *edit = new QLineEdit(form->parentWidget());
    edit->setToolTip(tooltip);
    edit->setObjectName(name);
    auto *error = new NoticeBar(form->parentWidget(), NoticeBar::Look::Line);
    auto *box = new QWidget(form->parentWidget());
    auto *v = new QVBoxLayout(box);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(1);
    v->addWidget(edit);
    v->addWidget(error);
    if (labelWidget)
        form->addRow(labelWidget, box);
    else
        form->addRow(label, box);
    m_fields.insert(name, edit);
    m_errorLabels.insert(name, error);
    connect(edit, &QLineEdit::textChanged, this, &ParamsForm::onEdited);
    return edit;
}

void ParamsForm::setField(const QString &name, const QString &text)
{
    if (auto *e = m_fields.value(name))
        e->setText(text);
}

void ParamsForm::setKIsRatio(bool ratio) { m_kMode->setCurrentIndex(ratio ? 0 : 1); }

void ParamsForm::setDevice(const QString &device)
{
    const int i = m_device->findData(device);
    if (i >= 0)
        m_device->setCurrentIndex(i);
}

void ParamsForm::setIterations(int warmup, int iters)
{
    m_warmup->setValue(warmup);
    m_iters->setValue(iters);
}

void ParamsForm::setSweep(SweepAxis axis, const QString &from, const QString &to, int points)
{
    m_sweepAxis->setCurrentIndex(std::max(0, m_sweepAxis->findData(static_cast<int>(axis))));
    setField("sweepFrom", from);
    setField("sweepTo", to);
    m_sweepPoints->setValue(points);
}

void ParamsForm::setVariantsChecked(const QStringList &names)
{
    for (int i = 0; i < m_variants->count(); ++i) {
        auto *item = m_variants->item(i);
        item->setCheckState(names.contains(item->data(Qt::UserRole).toString()) ? Qt::Checked : Qt::Unchecked);
    }
}

QStringList ParamsForm::checkedVariants() const
{
    QStringList out;
    for (int i = 0; i < m_variants->count(); ++i)
        if (m_variants->item(i)->checkState() == Qt::Checked)
            out << m_variants->item(i)->data(Qt::UserRole).toString();
    return out;
}

QString ParamsForm::device() const { return m_device->currentData().toString(); }

SweepAxis ParamsForm::sweepAxis() const { return static_cast<SweepAxis>(m_sweepAxis->currentData().toInt()); }

void ParamsForm::setError(const QString &name, const QString &error)
{
    NoticeBar *label = m_errorLabels.value(name);
    QLineEdit *edit = m_fields.value(name);
    if (!label || !edit)
        return;
    if (error.isEmpty())
        label->clear();
    else
        label->showMessage(error);
    edit->setStyleSheet(error.isEmpty() ? QString() : QStringLiteral("border: 1px solid #b00020;"));
    if (!error.isEmpty())
        m_errors << error;
}

void ParamsForm::onEdited() { validate(); }

std::optional<lab::BenchPoint> ParamsForm::basePoint(QStringList *errors)
{
    lab::BenchPoint p;
    bool ok = true;
    auto count = [&](const QString &name, const QString &what, int64_t lo, int64_t hi, int64_t &out) {
        const auto v = parseCount(field(name)->text());
        if (!v || *v < lo || *v > hi) {
            setError(name, tr("%1 must be a whole number from %2 to %3.")
                               .arg(what, QLocale().toString(lo), QLocale().toString(hi)));
            ok = false;
            return;
        }
        setError(name, QString());
        out = *v;
    };
    auto fraction = [&](const QString &name, const QString &what, double &out) {
        const auto v = parseNumber(field(name)->text());
        if (!v || *v < 0 || *v > 1) {
            setError(name, tr("%1 must be a number from 0 to 1.").arg(what));
            ok = false;
            return;
        }
        setError(name, QString());
        out = *v;
    };
    count("n", tr("N"), 1, 2'000'000'000, p.n);
    count("batch", tr("B"), 1, 1'000'000, p.batch);
    count("dim", tr("D"), 1, 65536, p.dim);
    fraction("posFrac", tr("The input positive fraction"), p.posFrac);
    fraction("ignoreFrac", tr("The ignored fraction"), p.ignoreFrac);
    fraction("targetFrac", tr("The target positive fraction f"), p.targetPosFraction);
    if (ok && p.posFrac + p.ignoreFrac > 1 + 1e-12) {
        setError("ignoreFrac", tr("Positive and ignored fractions add up to more than 1."));
        ok = false;
    }
    const bool ratio = m_kMode->currentData().toBool();
    if (ratio) {
        const auto v = parseNumber(field("k")->text());
        if (!v || *v <= 0 || *v > 1) {
            setError("k", tr("K/N must be a fraction above 0 and at most 1, e.g. 0.1."));
            ok = false;
        } else {
            setError("k", QString());
            p.k = std::max<int64_t>(1, std::llround(static_cast<double>(p.n) * *v));
        }
    } else {
        count("k", tr("K"), 1, 2'000'000'000, p.k);
    }
    const auto seed = parseCount(field("seed")->text());
    if (!seed || *seed < 0) {
        setError("seed", tr("The seed must be a whole number of 0 or more."));
        ok = false;
    } else {
        setError("seed", QString());
    }
    if (errors)
        *errors = m_errors;
    if (!ok)
        return std::nullopt;
    return p;
}

QStringList ParamsForm::validate()
{
    m_errors.clear();
    const auto point = basePoint(nullptr);
    // The sweep range is checked with the rest, so Sweep is never offered with a bad range.
    const SweepAxis axis = sweepAxis();
    const auto from = parseNumber(field("sweepFrom")->text());
    const auto to = parseNumber(field("sweepTo")->text());
    const bool whole = axis != SweepAxis::PosFrac;
    auto rangeOk = [&](double v) {
        if (whole)
            return std::abs(v - std::round(v)) < 1e-9 && v >= 1 && v <= (axis == SweepAxis::N ? 2e9 : 1e6);
        return v >= 0 && v <= 1;
    };
    const QString rangeText = whole ? tr("a whole number of 1 or more") : tr("a number from 0 to 1");
    setError("sweepFrom", from && rangeOk(*from) ? QString() : tr("From must be %1.").arg(rangeText));
    if (!to || !rangeOk(*to))
        setError("sweepTo", tr("To must be %1.").arg(rangeText));
    else if (from && *to <= *from)
        setError("sweepTo", tr("To must be larger than From."));
    else
        setError("sweepTo", QString());

    QString variantError;
    const QStringList variants = checkedVariants();
    if (variants.isEmpty())
        variantError = tr("Choose at least one variant.");
    for (const QString &v : variants) {
        std::string why;
        if (!m_lab.variantRunnable(v.toStdString(), lab::parseDevice(device().toStdString()), &why)) {
            variantError = tr("%1 cannot run on %2: %3.").arg(v, device(), QString::fromStdString(why));
            break;
        }
    }
    if (variantError.isEmpty())
        m_variantError->clear();
    else
        m_variantError->showMessage(variantError);
    if (!variantError.isEmpty())
        m_errors << variantError;

    auto memoryCheck = [&](int64_t batch, int64_t n, int64_t dim) {
        const double bytes = static_cast<double>(batch) * n * dim * 4.0;
        if (bytes > kMaxFeatureBytes)
            return tr("B×N×D = %1 floats need %2 GiB of features; reduce N, B or D.")
                .arg(QLocale().toString(static_cast<double>(batch) * n * dim, 'g', 3))
                .arg(bytes / (1024.0 * 1024 * 1024), 0, 'f', 1);
        return QString();
    };
    QString summary;
    if (point) {
        const QString mem = memoryCheck(point->batch, point->n, point->dim);
        if (!mem.isEmpty()) {
            setError("n", mem);
        } else if (from && to && rangeOk(*from) && rangeOk(*to) && axis != SweepAxis::PosFrac) {
            const int64_t top = static_cast<int64_t>(*to);
            const QString sweepMem = axis == SweepAxis::N ? memoryCheck(point->batch, top, point->dim)
                                                          : memoryCheck(top, point->n, point->dim);
            if (!sweepMem.isEmpty())
                setError("sweepTo", sweepMem);
        }
        summary = tr("One point: %1 on %2, %3 warm-up + %4 timed steps per variant.")
                      .arg(describePoint(*point), device().toUpper())
                      .arg(m_warmup->value())
                      .arg(m_iters->value());
    }
    m_summary->setText(m_errors.isEmpty() ? summary : QString());
    const bool valid = m_errors.isEmpty();
    if (valid != m_valid) {
        m_valid = valid;
        Q_EMIT validityChanged(valid);
    }
    return m_errors;
}

std::optional<lab::BenchRequest> ParamsForm::pointRequest(QString *error)
{
    const QStringList errs = validate();
    if (!errs.isEmpty()) {
        if (error)
            *error = errs.front();
        return std::nullopt;
    }
    lab::BenchRequest r;
    r.points.push_back(*basePoint(nullptr));
    for (const QString &v : checkedVariants())
        r.variants.push_back(v.toStdString());
    r.device = lab::parseDevice(device().toStdString());
    r.warmup = m_warmup->value();
    r.iters = m_iters->value();
    r.seed = static_cast<uint64_t>(*parseCount(field("seed")->text()));
    r.threads = m_threads->value();
    return r;
}

std::optional<lab::BenchRequest> ParamsForm::sweepRequest(QString *error)
{
    auto r = pointRequest(error);
    if (!r)
        return std::nullopt;
    const lab::BenchPoint base = r->points.front();
    const SweepAxis axis = sweepAxis();
    const bool ratio = m_kMode->currentData().toBool();
    const double kRatio = ratio ? *parseNumber(field("k")->text()) : 0;
    r->points.clear();
    for (double v : sweepValues(*parseNumber(field("sweepFrom")->text()), *parseNumber(field("sweepTo")->text()),
                                m_sweepPoints->value(), axis != SweepAxis::PosFrac)) {
        lab::BenchPoint p = base;
        switch (axis) {
        case SweepAxis::N:
            p.n = static_cast<int64_t>(v);
            if (ratio)
                p.k = std::max<int64_t>(1, std::llround(static_cast<double>(p.n) * kRatio));
            break;
        case SweepAxis::Batch: p.batch = static_cast<int64_t>(v); break;
        case SweepAxis::PosFrac:
            p.posFrac = v;
            if (p.posFrac + p.ignoreFrac > 1) {
                if (error)
                    *error = tr("At positive fraction %1 the ignored fraction %2 leaves no room; lower it.")
                                 .arg(v)
                                 .arg(p.ignoreFrac);
                return std::nullopt;
            }
            break;
        case SweepAxis::None: break;
        }
        r->points.push_back(p);
    }
    return r;
}

void ParamsForm::resetToDefaults()
{
    for (const auto &d : kDefaults)
        setField(QString::fromLatin1(d[0]), QString::fromLatin1(d[1]));
    m_kMode->setCurrentIndex(0);
    m_device->setCurrentIndex(0);
    m_warmup->setValue(3);
    m_iters->setValue(30);
    m_threads->setValue(0);
    m_sweepAxis->setCurrentIndex(0);
    setField("sweepFrom", "1000");
    setField("sweepTo", "1000000");
    m_sweepPoints->setValue(7);
    setVariantsChecked({QStringLiteral("naive"), QStringLiteral("static"), QStringLiteral("fused")});
}

void ParamsForm::save(QSettings &s) const
{
    s.beginGroup(QStringLiteral("explore"));
    for (auto it = m_fields.begin(); it != m_fields.end(); ++it)
        s.setValue(it.key(), it.value()->text());
    s.setValue("kIsRatio", m_kMode->currentData().toBool());
    s.setValue("device", device());
    s.setValue("warmup", m_warmup->value());
    s.setValue("iters", m_iters->value());
    s.setValue("threads", m_threads->value());
    s.setValue("sweepAxis", m_sweepAxis->currentIndex());
    s.setValue("sweepPoints", m_sweepPoints->value());
    s.setValue("variants", checkedVariants());
    s.endGroup();
}

void ParamsForm::restore(QSettings &s)
{
    s.beginGroup(QStringLiteral("explore"));
    if (s.contains("n")) {
        const QString from = s.value("sweepFrom").toString(), to = s.value("sweepTo").toString();
        m_sweepAxis->setCurrentIndex(std::clamp(s.value("sweepAxis").toInt(), 0, m_sweepAxis->count() - 1));
        for (auto it = m_fields.begin(); it != m_fields.end(); ++it)
            if (s.contains(it.key()))
                it.value()->setText(s.value(it.key()).toString());
        setField("sweepFrom", from);
        setField("sweepTo", to);
        setKIsRatio(s.value("kIsRatio", true).toBool());
        setDevice(s.value("device", "cpu").toString());
        if (!m_device->model()->index(m_device->currentIndex(), 0).flags().testFlag(Qt::ItemIsEnabled))
            m_device->setCurrentIndex(0);
        m_warmup->setValue(s.value("warmup", 3).toInt());
        m_iters->setValue(s.value("iters", 30).toInt());
        m_threads->setValue(s.value("threads", 0).toInt());
        m_sweepPoints->setValue(s.value("sweepPoints", 7).toInt());
        setVariantsChecked(s.value("variants").toStringList());
    }
    s.endGroup();
    validate();
}

} // namespace syncscope::ui
