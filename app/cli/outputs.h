#pragma once
// What every `syncscope-cli` command does with the files it writes: refuse an
// output that is also an input (or another output) before any work, find an
// unwritable output before a long run, and check that standard output really
// took what was written.
#include "trace/atomicfile.h"

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace syncscope::cli {

// (option, path) of one output file; an empty path or "-" (stdout) is skipped.
using NamedOutput = std::pair<std::string, std::string>;

// Throws Error (one sentence) when an output names the same file as an input
// or as another output (symlinks and hard links followed), or when an output
// cannot be written (missing or read-only folder, a folder given as a file).
// Touches nothing: a probe file is created and removed again.
void checkOutputs(const std::vector<std::string> &inputs, const std::vector<NamedOutput> &outputs);

// Flushes and closes standard output. Returns exitCode, or 1 with one sentence
// on stderr when anything written to stdout was lost (full disk, closed pipe).
int finishStdout(int exitCode);

// Standard output or an atomically written file, written piece by piece.
class OutputFile {
public:
    explicit OutputFile(const std::string &path); // "-" is standard output
    void write(std::string_view data);
    void commit(); // throws Error when anything could not be written

private:
    std::string m_path;
    std::unique_ptr<AtomicFile> m_file;
};

} // namespace syncscope::cli
