#pragma once
// The Explore page's parameters: every field validated inline as it is typed,
// and turned into a bench request only when all of them are valid.
#include "charts/benchcharts.h"
#include "lab/api/bench.h"
#include "lab/api/labinterface.h"

#include <QHash>
#include <QWidget>

#include <optional>

QT_BEGIN_NAMESPACE
class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QListWidget;
class QSettings;
class QSpinBox;
QT_END_NAMESPACE

namespace syncscope::ui {

class NoticeBar;

// Every field's numbers, in the grammar of common/numbers.h (the CLI's too):
// "10000", "1e6", "1,000,000", "10k", "2M".
std::optional<double> parseNumber(const QString &text);
std::optional<int64_t> parseCount(const QString &text);

// Log-spaced (or, for a range that starts at 0, linear) sweep values; whole
// numbers are rounded and deduplicated.
std::vector<double> sweepValues(double from, double to, int points, bool whole);

class ParamsForm : public QWidget {
    Q_OBJECT
public:
    // `lab` says which variants and devices can run; it outlives the form.
    explicit ParamsForm(lab::LabInterface &lab, QWidget *parent = nullptr);

    // Re-checks every field, shows the problems beside them and returns them.
    QStringList validate();
    bool isValid() const { return m_errors.isEmpty(); }
    QStringList errors() const { return m_errors; }

    // The request for Run (one point) or Sweep; nullopt with the first problem.
    std::optional<lab::BenchRequest> pointRequest(QString *error);
    std::optional<lab::BenchRequest> sweepRequest(QString *error);
    SweepAxis sweepAxis() const;

    // Fields by name, for tests and for --demo/screenshot drivers:
    // n, k, batch, dim, posFrac, ignoreFrac, targetFrac, seed, sweepFrom, sweepTo.
    QLineEdit *field(const QString &name) const { return m_fields.value(name); }
    void setField(const QString &name, const QString &text);
    void setKIsRatio(bool ratio);
    void setDevice(const QString &device);
    void setIterations(int warmup, int iters);
    void setSweep(SweepAxis axis, const QString &from, const QString &to, int points);
    void setVariantsChecked(const QStringList &names);
    QStringList checkedVariants() const;
    QString device() const;

    void save(QSettings &settings) const;
    void restore(QSettings &settings);
    void resetToDefaults();

Q_SIGNALS:
    void validityChanged(bool valid);
    void variantsChanged(); // a variant was checked or unchecked

private:
    lab::LabInterface &m_lab;
    QLineEdit *addField(QFormLayout *form, const QString &name, const QString &label, const QString &tooltip,
                        QWidget *labelWidget = nullptr);
    void setError(const QString &name, const QString &error);
    std::optional<lab::BenchPoint> basePoint(QStringList *errors);
    void onEdited();

    QHash<QString, QLineEdit *> m_fields;
    QHash<QString, NoticeBar *> m_errorLabels;
    QComboBox *m_kMode = nullptr;
    QComboBox *m_device = nullptr;
    QSpinBox *m_warmup = nullptr;
    QSpinBox *m_iters = nullptr;
    QSpinBox *m_threads = nullptr;
    QListWidget *m_variants = nullptr;
    NoticeBar *m_variantError = nullptr;
    QComboBox *m_sweepAxis = nullptr;
    QSpinBox *m_sweepPoints = nullptr;
    QLabel *m_summary = nullptr;
    QStringList m_errors;
    bool m_valid = true;
};

} // namespace syncscope::ui
