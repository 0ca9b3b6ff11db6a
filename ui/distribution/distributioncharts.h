#pragma once
// Charts of one sampling experiment (lab::runDistribution), from the stats
// value alone so that the page and exports draw the same.
#include "lab/api/samplerun.h"

#include <QString>

QT_BEGIN_NAMESPACE
class QChart;
QT_END_NAMESPACE

namespace syncscope::ui {

// Requested vs obtained positives, negatives and padding, summed over rows.
QChart *makeCountsChart(const lab::DistributionStats &st, QString *why);
// Times each eligible input position was selected divided by the times a fair
// sampler would select it (1 = fair), decimated to `maxPoints`, with a binned mean.
QChart *makeSelectionChart(const lab::DistributionStats &st, int maxPoints, QString *why);
// The same ratio for positives per output slot: a sampler that orders its
// output puts positives in some slots more than others.
QChart *makeOrderChart(const lab::DistributionStats &st, int maxPoints, QString *why);
// Positives, negatives and padding per row (B > 1), at most `maxRows` rows.
QChart *makeRowBalanceChart(const lab::DistributionStats &st, int maxRows, QString *why);

// One paragraph: the runs, the tests used, their statistics and how to read them.
QString describeDistribution(const lab::SampleRequest &request, const lab::DistributionStats &st);

} // namespace syncscope::ui
