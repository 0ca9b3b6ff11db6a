#pragma once
// Charts of bench results, built from a BenchReport value alone so that the
// window, the export dialog and the headless `--export-chart` draw the same.
#include "lab/api/bench.h"

#include <QString>

#include <optional>
#include <string>
#include <vector>

QT_BEGIN_NAMESPACE
class QChart;
QT_END_NAMESPACE

namespace syncscope::ui {

enum class SweepAxis { None, N, Batch, PosFrac };

QString sweepAxisLabel(SweepAxis axis);
double sweepValue(const lab::BenchPoint &p, SweepAxis axis);

// The parameter that varies across the report's results (N, then B, then the
// positive fraction); None for a single point.
SweepAxis detectSweepAxis(const lab::BenchReport &report);

bool samePoint(const lab::BenchPoint &a, const lab::BenchPoint &b);
QString describePoint(const lab::BenchPoint &p);
// What a chart's title ends with, so an exported chart says what it measured:
// the point (or, with none, the swept range and the fixed parameters), the
// threads, the device and the LibTorch version, " · " between them.
QString runCaption(const lab::BenchReport &report, const lab::BenchPoint *point);
// Variants in order of first appearance.
std::vector<std::string> reportVariants(const lab::BenchReport &report);
// The point the step-time chart shows by default: the last one measured.
lab::BenchPoint defaultPoint(const lab::BenchReport &report);
// "naive" when present (the article's baseline), else the first variant.
std::string defaultBaseline(const lab::BenchReport &report);

// Each returns a new chart owned by the caller, or nullptr with one sentence
// in *why when the report cannot make that chart.
// Step time per variant at one point: median bars, p5-p95 whiskers, the floor.
// logY: a log y-axis; by default one when the medians span more than 100x
// (stepTimeSpansDecades), so a 1 ms bar stays visible beside a 1 s one.
QChart *makeStepTimeChart(const lab::BenchReport &report, const lab::BenchPoint &point, QString *why,
                          std::optional<bool> logY = std::nullopt);
bool stepTimeSpansDecades(const lab::BenchReport &report, const lab::BenchPoint &point);
// Every timed step per variant at one point (samples_ms): a strip of dots and
// the median, so a bimodal distribution shows.
QChart *makeStepSamplesChart(const lab::BenchReport &report, const lab::BenchPoint &point, QString *why);
// Median step time against the swept parameter, log-log, p5-p95 bands, floor.
QChart *makeSweepChart(const lab::BenchReport &report, QString *why);
// baseline median / variant median, per point (lines for a sweep, bars at one point).
QChart *makeSpeedupChart(const lab::BenchReport &report, const std::string &baseline, QString *why);
// Syncs per step or peak device memory at one point, where the device measured them.
QChart *makeSyncsChart(const lab::BenchReport &report, const lab::BenchPoint &point, QString *why);
QChart *makeMemoryChart(const lab::BenchReport &report, const lab::BenchPoint &point, QString *why);

} // namespace syncscope::ui
