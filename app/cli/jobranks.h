#pragma once
// A job's files (traces or rank summaries, in any mix) loaded one rank at a
// time, as analyze and report read them: one trace model alive at once, and
// with two or more files each rank's report packed (packReport) in a
// temporary file (SpillFile) until the job analysis has run, so the replays
// never share memory with every rank's per-call rows.
#include "analysis/filereport.h"
#include "analysis/jobanalysis.h"
#include "analysis/jobscale.h"
#include "analysis/syncanalysis.h"
#include "trace/spillfile.h"

#include <functional>
#include <string>
#include <vector>

namespace syncscope::cli {

struct JobRanks {
    std::vector<RankInput> inputs; // in job order (sortByRank), when asked for

    // The job of these ranks: with two or more files, the job-scale analysis
    // on the inputs (given up), then the reports unpacked (assembleJob).
    JobAnalysis assemble(const ProgressFn &progress = {}, size_t threads = 0);

    // Two or more files: their packed reports, taken in job order by the
    // numbers in packedOrder.
    SpillFile packed;
    std::vector<size_t> packedOrder;
    std::vector<FileReport> reports; // one file
};

// Loads each file, marking the phase with its name (Doing); progress(i, f, msg)
// reports file i's share f.
JobRanks loadJobRanks(const std::vector<std::string> &files, const AnalysisOptions &options, bool withJobInput,
                      const std::function<void(size_t, double, const char *)> &progress);

} // namespace syncscope::cli
