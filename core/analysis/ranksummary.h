#pragma once
// A rank summary: everything `analyze` needs of one rank, without its trace:
// the file's report (what analyze prints for it), the rank's input to the job
// analysis (the host launch and sync sequence, the activities the replay needs,
// the steps and the sync sources) and the options its analysis ran with.
// `syncscope-cli summarize` writes one per rank; `analyze` merges them.
//
// The file (docs/cli.md "Map and reduce: summaries, Slurm, Dask"):
//   magic    24 bytes  "syncscope rank summary\n" and a NUL
//   version  u32       kRankSummaryVersion
//   length   u64       bytes of the body
//   crc32    u32       zlib's crc32 of the body
//   body     a string table (u32 count, then u32 length + bytes each), then
//            the fields in a fixed order, strings as u32 indices into the
//            table (0xffffffff: absent), lists as a u64 count then the items.
// Integers are little-endian and fixed-width; times are int64 ns.
#include "analysis/filereport.h"
#include "analysis/jobscale.h"

#include <string>
#include <string_view>

namespace syncscope {

constexpr uint32_t kRankSummaryVersion = 4;

struct RankSummary {
    FileReport report;
    RankInput job;
    AnalysisOptions options; // what the analysis of the trace ran with
};

RankSummary makeRankSummary(const TraceModel &model, const SyncAnalysis &analysis, const AnalysisOptions &options,
                            const CancelToken *cancel = nullptr);

// The bytes of the file, and back; `name` names the file in errors. Decoding
// refuses (Error, one sentence naming the file) a non-summary, another format
// version, a truncated or damaged file.
std::string encodeRankSummary(const RankSummary &summary);
RankSummary decodeRankSummary(std::string_view bytes, const std::string &name);

// A report in the summary's bytes (its strings once each, its fields
// fixed-width): a fraction of its size in memory, so the ranks of a large job
// can keep their reports while the job analysis runs; and back.
std::string packReport(FileReport report);
FileReport unpackReport(std::string_view packed);

// Written atomically (atomicfile.h); read whole.
void writeRankSummary(const std::string &path, const RankSummary &summary);
RankSummary readRankSummary(const std::string &path);

// Whether the file starts with the summary magic (by content, not by name).
// Never throws: an unreadable file is not a summary.
bool isRankSummaryFile(const std::string &path);

// One rank from a trace or a summary, told apart by content. A trace is loaded,
// analysed, reported on and dropped: only its summary stays. The job input is
// made when withJobInput (a trace's own is left empty otherwise); a summary's
// options must equal `options` (checkSummaryOptions).
RankSummary loadRank(const std::string &path, const AnalysisOptions &options, bool withJobInput,
                     const ProgressFn &progress = {}, const CancelToken *cancel = nullptr);

// The ranks in job order: those with a distributedInfo.rank first, by rank, the
// others after them in the order given (stable).
void sortByRank(std::vector<RankSummary> &ranks);
// The same order as positions, from each file's distributedInfo.rank (kNoValue: none).
std::vector<size_t> jobOrder(const std::vector<int64_t> &ranks);

// Throws Error when a summary's analysis ran with other options than `options`
// (its figures would differ from an analysis of its trace with them).
void checkSummaryOptions(const RankSummary &summary, const AnalysisOptions &options, const std::string &name);

} // namespace syncscope
