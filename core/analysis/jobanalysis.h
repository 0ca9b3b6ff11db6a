#pragma once
// The analysis of a whole job (one trace per rank) and its JSON form, which is the
// `syncscope-cli analyze --json` contract (issue 3, section 3).
#include "analysis/opstats.h"
#include "analysis/syncanalysis.h"

#include <map>
#include <string>
#include <vector>

namespace syncscope {

// An op statistic merged over files by its text (files intern separately).
struct NamedOpStat {
    std::string name, cat;
    uint64_t count = 0;
    TimeNs total = 0, self = 0, min = 0, max = 0;
};

struct JobAnalysis {
    std::vector<TraceModelPtr> files;
    std::vector<SyncAnalysis> sync;              // one per file
    std::map<std::string, uint64_t> categories;  // normalized category -> duration events
    std::vector<NamedOpStat> ops;                // all files, longest total first
};

JobAnalysis analyzeJob(std::vector<TraceModelPtr> files, const AnalysisOptions &options = {},
                       const ProgressFn &progress = {}, const CancelToken *cancel = nullptr);

// The JSON document of `analyze --json`; top_ops keeps the topN longest.
std::string analysisToJson(const JobAnalysis &job, size_t topN, int indent = 1);

} // namespace syncscope
