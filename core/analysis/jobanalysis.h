#pragma once
// The analysis of a whole job (one trace per rank) and its JSON form, which is the
// `syncscope-cli analyze --json` contract (docs/cli.md "analyze --json").
#include "analysis/filereport.h"
#include "analysis/jobscale.h"
#include "analysis/jsonwriter.h"
#include "analysis/whatif.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace syncscope {

// The categories top_ops lists by default: cpu_op, user_annotation and the GPU ones.
const std::vector<std::string> &defaultTopCategories();

// What `analyze` reports on a job: plain values, no trace model.
struct JobAnalysis {
    std::vector<FileReport> files;                                   // one per file, in the order given
    std::map<std::string, uint64_t> categories;                      // normalized category -> duration events
    std::vector<NamedOpStat> ops;                                    // all files, longest total first
    std::vector<std::string> topCategories = defaultTopCategories(); // what top lists show
    bool hasJobScale = false;                                        // two or more files: the ranks of one job
    JobScale jobScale;
    bool hasWhatIf = false; // analyze --what-if: the chosen sources removed together
    WhatIf whatIf;
};

// Analyses every file (one per rank, in the order given) and the job across them.
JobAnalysis analyzeJob(const std::vector<TraceModelPtr> &files, const AnalysisOptions &options = {},
                       const ProgressFn &progress = {}, const CancelToken *cancel = nullptr);

// The job from its files' reports and, one per file in the same order, their
// ranks' inputs (used when there are two or more; may be empty for one file).
// Two files of the same rank are an Error. The job's replays use `threads`
// threads (analyzeJobScale; 0: automatic).
JobAnalysis assembleJob(std::vector<FileReport> files, const std::vector<RankInput> &ranks,
                        const ProgressFn &progress = {}, const CancelToken *cancel = nullptr, size_t threads = 0);
// The same with the job-scale analysis already run (analyzeJobScale on the
// ranks' inputs; none for one file), so a large job's reports need not be
// unpacked while its replays run.
JobAnalysis assembleJob(std::vector<FileReport> files, std::optional<JobScale> jobScale);

// The JSON document of `analyze --json`; top_ops keeps the topN longest ops of
// the given categories (all when empty); the job-scale members follow with two
// or more files. Every *_us value is exact.
std::string analysisToJson(const JobAnalysis &job, size_t topN,
                           const std::vector<std::string> &topCategories = defaultTopCategories(), int indent = 1);
// The same document streamed to `sink` piece by piece (JsonWriter's sink), so
// a large job's document is never whole in memory.
void writeAnalysisJson(const JobAnalysis &job, size_t topN, const std::vector<std::string> &topCategories,
                       const JsonWriter::Sink &sink, int indent = 1);

class JsonWriter;

// A sync source's advice as analyze --json writes it: {id, class, title, why,
// rewrite: {text, before, after}, min_torch, refs, needs_newer_torch}, or null
// when `id` is empty or names no built-in rule. needs_newer_torch: the trace
// states a PyTorch version older than min_torch.
void writeAdviceJson(JsonWriter &w, const std::string &id, const std::string &torchVersion);

} // namespace syncscope
