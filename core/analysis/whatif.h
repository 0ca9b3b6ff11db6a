#pragma once
// What-if: how much earlier each device would finish without a chosen set of
// sync sources, together. A spec selects sources by substrings of their sync
// call's name, their op and their user frame (`sync=`, `op=`, `frame=`) and by
// the id of their advice rule (`advice=`, exact), comma-joined: all must hold;
// several specs select the union. The chosen sources'
// calls are removed together in one sync-free replay of each file (docs/analysis.md
// "What-if").
#include "analysis/jobscale.h"

#include <string>
#include <vector>

namespace syncscope {

struct WhatIfSpec {
    std::string text;            // as given
    std::string sync, op, frame; // substrings; empty: any
    std::string advice;          // an advice rule's id (exact); empty: any
    bool hasSync = false, hasOp = false, hasFrame = false, hasAdvice = false;
};

// Parses "sync=cudaStreamSynchronize,op=aten::item"; a bad spec is an Error
// with one sentence.
WhatIfSpec parseWhatIfSpec(const std::string &text);

// Whether a source's k-th call is selected by the spec: the source's sync,
// op and frame match, and the call's own advice rule is the spec's (a source's
// calls can match different rules).
bool whatIfSelects(const WhatIfSpec &spec, const RankSource &source, size_t k);
// Whether the source's sync, op and frame match (its advice is not looked at).
bool whatIfSelects(const WhatIfSpec &spec, const RankSource &source);

struct WhatIfDevice {
    size_t file = 0; // index into the inputs
    int64_t device = 0;
    TimeNs avoidable = 0; // the replay without every selected call of that file
    // Where that replay's head start stopped on the device (limitSentence);
    // kind "none" with no selected call in the file.
    std::string limitKind = "none", limitText = "no blocking call to remove";
};

struct WhatIf {
    std::vector<std::string> specs;
    uint64_t selectedCalls = 0; // over every file
    uint64_t selectedSources = 0;
    std::vector<WhatIfDevice> devices; // by file, then device id
    // With two or more files (the ranks of one job): how much earlier the job
    // ends with the selected calls of every rank removed together, through the
    // collectives (jobWhatIfSaving).
    bool hasJob = false;
    TimeNs jobAvoidable = 0;
};

WhatIf analyzeWhatIf(const std::vector<RankInput> &files, const std::vector<WhatIfSpec> &specs);

class JsonWriter;
// The `what_if` member of `analyze --json`.
void writeWhatIfJson(JsonWriter &w, const WhatIf &whatIf);

} // namespace syncscope
