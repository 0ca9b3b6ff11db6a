#pragma once
// A report to share: the headline, the per-step chart, the sync sources with
// what to write instead, the top gaps and, for a before/after pair, the
// deltas, as one self-contained HTML page (inline SVG, no script, no external
// asset) or as Markdown for a pull request (docs/cli.md "A report to share").
//
// A trace is untrusted input and a report is shared: every string from a
// trace (op, kernel and file names, frames, args) is escaped for HTML or
// Markdown, and the page forbids scripts (Content-Security-Policy) as well.
#include "analysis/jobanalysis.h"
#include "analysis/tracediff.h"

#include <string>

namespace syncscope {

struct ReportInput {
    const JobAnalysis *job = nullptr;   // the traces (the ranks of one job) and their analysis
    const TraceDiff *compare = nullptr; // before/after deltas, or null
    std::string generator;              // "syncscope-cli 0.1.0", in the footer
    size_t topSources = 20, topGaps = 15;
};

// The same content, two formats.
std::string reportHtml(const ReportInput &in);
std::string reportMarkdown(const ReportInput &in);

// Text as HTML character data or an attribute value (& < > " ' escaped).
std::string htmlEscape(std::string_view text);
// Text for a Markdown paragraph or table cell: the characters Markdown or
// HTML would read (\ ` * _ [ ] < > | # ! and &) escaped, newlines as spaces.
std::string markdownEscape(std::string_view text);

} // namespace syncscope
