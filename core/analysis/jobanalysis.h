#pragma once
// The analysis of a whole job (one trace per rank) and its JSON form, which is the
// `syncscope-cli analyze --json` contract (README "analyze --json").
#include "analysis/jobscale.h"
#include "analysis/opstats.h"
#include "analysis/syncanalysis.h"

#include <map>
#include <string>
#include <vector>

namespace syncscope {

// The categories top_ops lists by default: cpu_op, user_annotation and the GPU ones.
const std::vector<std::string> &defaultTopCategories();

// An op statistic merged over files by its text (files intern separately).
struct NamedOpStat {
    std::string name, cat;
    uint64_t count = 0;
    TimeNs total = 0, self = 0, min = 0, max = 0;
    uint64_t gpuCount = 0; // GPU activities launched inside (OpStat::gpuCount)
    TimeNs gpuTime = 0;
};

struct JobAnalysis {
    std::vector<TraceModelPtr> files;
    std::vector<SyncAnalysis> sync;              // one per file
    std::map<std::string, uint64_t> categories;  // normalized category -> duration events
    std::vector<NamedOpStat> ops;                // all files, longest total first
    std::vector<std::string> topCategories = defaultTopCategories(); // what top lists show
    bool hasScale = false; // two or more files: the job-scale analysis
    JobScale scale;
};

JobAnalysis analyzeJob(std::vector<TraceModelPtr> files, const AnalysisOptions &options = {},
                       const ProgressFn &progress = {}, const CancelToken *cancel = nullptr);

// The JSON document of `analyze --json`; top_ops keeps the topN longest ops of
// the given categories (all when empty). Every *_us value is exact.
std::string analysisToJson(const JobAnalysis &job, size_t topN,
                           const std::vector<std::string> &topCategories = defaultTopCategories(),
                           int indent = 1);

} // namespace syncscope
