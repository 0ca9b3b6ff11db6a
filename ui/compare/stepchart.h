#pragma once
// The before/after chart per step: step time, GPU busy time or avoidable idle of
// the i-th step of each trace (steps matched by order, as in the diff), built
// from the comparison alone so the window and its export draw the same.
#include "analysis/tracediff.h"

#include <QString>

QT_BEGIN_NAMESPACE
class QChart;
QT_END_NAMESPACE

namespace syncscope::ui {

enum class StepMetric { StepTime, GpuBusy, Avoidable };

QString stepMetricTitle(StepMetric metric);
// A new chart owned by the caller, or nullptr with one sentence in *why when
// neither trace has steps.
QChart *makeStepCompareChart(const TraceDiff &diff, StepMetric metric, QString *why);

} // namespace syncscope::ui
