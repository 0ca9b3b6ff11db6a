#pragma once
// A spin box for counts, sizes and seeds that reads the one number grammar of
// the CLI and the app (core/common/numbers.h): 1000, 1e6, 10k, 2M, 1_000_000.
// What it shows is the plain number with group separators.
#include <QSpinBox>

namespace syncscope::ui {

class CountSpinBox : public QSpinBox {
    Q_OBJECT
public:
    explicit CountSpinBox(QWidget *parent = nullptr);

protected:
    int valueFromText(const QString &text) const override;
    QValidator::State validate(QString &text, int &pos) const override;
};

} // namespace syncscope::ui
