#include "jobranks.h"

#include "activity.h"
#include "analysis/ranksummary.h"

namespace syncscope::cli {

JobAnalysis JobRanks::assemble(const ProgressFn &progress, size_t threads)
{
    std::optional<JobScale> jobScale;
    if (!packed.empty())
        jobScale = analyzeJobScale(std::move(inputs), progress, nullptr, threads);
    inputs.clear();
    std::vector<FileReport> files = std::move(reports);
    reports.clear();
    files.reserve(files.size() + packed.size());
    for (std::string &p : packed) {
        files.push_back(unpackReport(p));
        std::string().swap(p);
    }
    packed.clear();
    return assembleJob(std::move(files), std::move(jobScale));
}

JobRanks loadJobRanks(const std::vector<std::string> &files, const AnalysisOptions &options,
                      bool withJobInput,
                      const std::function<void(size_t, double, const char *)> &progress)
{
    const size_t n = files.size();
    std::vector<std::string> packed;
    std::vector<FileReport> reports;
    std::vector<RankInput> inputs;
    std::vector<int64_t> rankIds;
    for (size_t i = 0; i < n; ++i) {
        Doing loading("loading and analysing '" + files[i] + "'");
        RankSummary r = loadRank(files[i], options, withJobInput,
                                 [&, i](double f, const char *msg) { progress(i, f, msg); });
        rankIds.push_back(r.report.rank);
        if (n >= 2)
            packed.push_back(packReport(std::move(r.report)));
        else
            reports.push_back(std::move(r.report));
        if (withJobInput)
            inputs.push_back(std::move(r.job));
    }
    JobRanks job;
    for (size_t i : jobOrder(rankIds)) {
        if (n >= 2)
            job.packed.push_back(std::move(packed[i]));
        else
            job.reports.push_back(std::move(reports[i]));
        if (withJobInput)
            job.inputs.push_back(std::move(inputs[i]));
    }
    return job;
}

} // namespace syncscope::cli
