#pragma once
// Two traces side by side: each one's timeline data (with its sync analysis)
// and the comparison of the two, built once on a worker thread, then immutable.
#include "analysis/tracediff.h"
#include "common/progress.h"
#include "timeline/timelinedata.h"

#include <QString>

#include <memory>

namespace syncscope::ui {

struct CompareData {
    QString beforePath, afterPath;
    std::shared_ptr<const TimelineData> before, after;
    TraceDiff diff;

    const TimelineData &side(int s) const { return s ? *after : *before; }
    // Loads both files and compares them; throws Error naming the file that does
    // not load, or Cancelled.
    static std::shared_ptr<const CompareData> build(const QString &beforePath, const QString &afterPath,
                                                    const ProgressFn &progress = {},
                                                    const CancelToken *cancel = nullptr);
};

} // namespace syncscope::ui
