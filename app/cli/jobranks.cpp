#include "jobranks.h"

#include "activity.h"
#include "analysis/ranksummary.h"
#include "common/heap.h"

namespace syncscope::cli {

JobAnalysis JobRanks::assemble(const ProgressFn &progress, size_t threads)
{
    std::optional<JobScale> jobScale;
    if (!packedOrder.empty())
        jobScale = analyzeJobScale(std::move(inputs), progress, nullptr, threads);
    inputs.clear();
    std::vector<FileReport> files = std::move(reports);
    reports.clear();
    files.reserve(files.size() + packedOrder.size());
    for (size_t i : packedOrder)
        files.push_back(unpackReport(packed.take(i)));
    packedOrder.clear();
    packed = SpillFile();
    return assembleJob(std::move(files), std::move(jobScale));
}

JobRanks loadJobRanks(const std::vector<std::string> &files, const AnalysisOptions &options, bool withJobInput,
                      const std::function<void(size_t, double, const char *)> &progress)
{
    const size_t n = files.size();
    // A job holds every rank's input and lets large buffers go while it does
    // (each rank's decoded summary, later its launch calls): they go back to
    // the system, not into holes of a heap that then cannot shrink.
    if (n >= 2)
        returnLargeBlocks();
    JobRanks job;
    std::vector<size_t> packed;
    std::vector<FileReport> reports;
    std::vector<RankInput> inputs;
    std::vector<int64_t> rankIds;
    for (size_t i = 0; i < n; ++i) {
        Doing loading("loading and analysing '" + files[i] + "'");
        RankSummary r = loadRank(files[i], options, withJobInput,
                                 [&, i](double f, const char *msg) { progress(i, f, msg); });
        rankIds.push_back(r.report.rank);
        if (n >= 2)
            packed.push_back(job.packed.add(packReport(std::move(r.report))));
        else
            reports.push_back(std::move(r.report));
        if (withJobInput)
            inputs.push_back(std::move(r.job));
    }
    for (size_t i : jobOrder(rankIds)) {
        if (n >= 2)
            job.packedOrder.push_back(packed[i]);
        else
            job.reports.push_back(std::move(reports[i]));
        if (withJobInput)
            job.inputs.push_back(std::move(inputs[i]));
    }
    return job;
}

} // namespace syncscope::cli
