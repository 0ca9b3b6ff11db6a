// Runs the real syncscope-cli binary and checks its contract.
#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <csignal>
#include <cstdlib>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/files.h"
#include "trace/traceloader.h"
#include "activity.h"

using nlohmann::json;

namespace {

struct Result {
    int code = -1;
    std::string out, err;
};

std::string tempPath(const std::string &name)
{
    return ::testing::TempDir() + "syncscope_cli_" + std::to_string(::getpid()) + "_" + name;
}

Result run(const std::string &args)
{
    const std::string errFile = tempPath("stderr.txt");
    const std::string cmd = std::string("'") + SYNCSCOPE_CLI + "' " + args + " 2>'" + errFile + "'";
    Result r;
    FILE *p = ::popen(cmd.c_str(), "r");
    if (!p)
        return r;
    std::array<char, 4096> buf;
    size_t n;
    while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0)
        r.out.append(buf.data(), n);
    const int status = ::pclose(p);
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.err = syncscope::test::readFile(errFile);
    std::remove(errFile.c_str());
    return r;
}

int lines(const std::string &s)
{
    int count = 0;
    for (char c : s)
        count += c == '\n';
    return count;
}

} // namespace

TEST(Cli, VariantsJsonListsTheRegistry)
{
    const auto r = run("variants --json");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = json::parse(r.out);
    std::vector<std::string> names;
    for (const auto &v : j["variants"]) {
        names.push_back(v["name"]);
        EXPECT_FALSE(v["description"].get<std::string>().empty());
        EXPECT_TRUE(v.contains("cpu"));
        EXPECT_TRUE(v.contains("cuda"));
    }
    for (const char *want : {"naive", "static", "fused"})
        EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
}

TEST(Cli, SampleWritesTheContractShape)
{
    for (const char *variant : {"naive", "static", "fused"}) {
        const std::string out = tempPath(std::string("sample_") + variant + ".json");
        const auto r = run(std::string("sample --variant ") + variant +
                           " --n 50 --k 9 --batch 3 --dim 4 --pos-frac 0.3 --ignore-frac 0.2 --seed 5 --json '" +
                           out + "'");
        ASSERT_EQ(r.code, 0) << r.err;
        const auto j = json::parse(syncscope::test::readFile(out));
        std::remove(out.c_str());
        for (const char *key : {"variant", "n", "k", "batch", "dim", "seed", "device", "input", "output"})
            EXPECT_TRUE(j.contains(key)) << key;
        EXPECT_EQ(j["variant"], variant);
        EXPECT_EQ(j["n"], 50);
        EXPECT_EQ(j["k"], 9);
        EXPECT_EQ(j["batch"], 3);
        EXPECT_EQ(j["dim"], 4);
        EXPECT_EQ(j["device"], "cpu");
        const auto &in = j["input"], &o = j["output"];
        ASSERT_EQ(in["labels"].size(), 3u);
        ASSERT_EQ(in["labels"][0].size(), 50u);
        ASSERT_EQ(in["features"][2][49].size(), 4u);
        ASSERT_EQ(o["indices"].size(), 3u);
        ASSERT_EQ(o["features"][0].size(), 9u);
        ASSERT_EQ(o["valid"].size(), 3u);
        for (int b = 0; b < 3; ++b) {
            const int valid = o["valid"][b];
            for (int s = 0; s < 9; ++s) {
                const int64_t idx = o["indices"][b][s];
                if (s >= valid) {
                    EXPECT_EQ(idx, -1);
                    EXPECT_EQ(o["labels"][b][s], -1);
                    for (int d = 0; d < 4; ++d)
                        EXPECT_EQ(o["features"][b][s][d], 0.0);
                    continue;
                }
                EXPECT_EQ(o["labels"][b][s], in["labels"][b][idx]);
                EXPECT_EQ(o["features"][b][s], in["features"][b][idx]);
            }
        }
    }
}

TEST(Cli, SampleNoInputAndOneRowForBatchOne)
{
    const auto r = run("sample --variant fused --n 20 --k 4 --no-input --json -");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = json::parse(r.out);
    EXPECT_FALSE(j.contains("input"));
    ASSERT_EQ(j["output"]["indices"].size(), 1u); // nested by batch even for B = 1
    EXPECT_EQ(j["output"]["indices"][0].size(), 4u);
    EXPECT_EQ(j["output"]["features"][0][0].size(), 16u); // default D
}

TEST(Cli, BenchPrintsATableAndWritesJsonAndCsv)
{
    const std::string js = tempPath("bench.json"), csv = tempPath("bench.csv");
    const auto r =
        run("bench --variants naive,static,fused --n 1000,3000 --k-ratio 0.1 --dim 4 --warmup 1 --iters 3 "
            "--threads 1 --json '" +
            js + "' --csv '" + csv + "'");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("median ms"), std::string::npos);
    EXPECT_NE(r.err.find("100%"), std::string::npos) << "progress goes to stderr";
    const auto j = json::parse(syncscope::test::readFile(js));
    for (const char *key : {"device", "torch_version", "threads", "results"})
        EXPECT_TRUE(j.contains(key)) << key;
    EXPECT_EQ(j["threads"], 1);
    ASSERT_EQ(j["results"].size(), 6u);
    for (const auto &res : j["results"]) {
        for (const char *key :
             {"variant", "n", "k", "batch", "dim", "pos_frac", "median_ms", "mean_ms", "min_ms", "p5_ms", "p95_ms",
              "stdev_ms", "iters", "floor_ms", "syncs_per_step", "peak_bytes"})
            EXPECT_TRUE(res.contains(key)) << key;
        EXPECT_EQ(res["k"].get<int64_t>() * 10, res["n"].get<int64_t>());
        EXPECT_EQ(res["iters"], 3);
        EXPECT_TRUE(res["syncs_per_step"].is_null());
    }
    EXPECT_EQ(lines(syncscope::test::readFile(csv)), 7);
    std::remove(js.c_str());
    std::remove(csv.c_str());
}

TEST(Cli, BadArgumentsGiveOneSentenceAndNonZeroExit)
{
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"sample --variant fused --n 10 --k 0 --json -", "K must be at least 1"},
        {"sample --variant nope --n 10 --k 2 --json -", "unknown variant"},
        {"sample --variant fused --n ten --k 2 --json -", "--n takes whole numbers"},
        {"sample --variant fused --n 10 --k 2 --target-pos-fraction 2 --json -", "target positive fraction"},
        {"sample --variant fused --n 10 --k 2 --json /nonexistent/dir/x.json", "cannot write"},
        {"bench --variants fused --n 0", "N must be at least 1"},
        {"bench --variants fused,bogus --n 100", "unknown variant"},
        {"bench --variants fused --n 100 --iters 0", "iterations must be at least 1"},
        {"sample --variant fused --k 2 --json -", "--n is required"},
        {"frobnicate", "frobnicate"},
    };
    for (const auto &[args, needle] : cases) {
        const auto r = run(args);
        EXPECT_NE(r.code, 0) << args;
        EXPECT_EQ(lines(r.err), 1) << args << " -> " << r.err;
        EXPECT_NE(r.err.find(needle), std::string::npos) << args << " -> " << r.err;
    }
}

TEST(Cli, CudaRequestOnACpuBuildFailsWithOneSentence)
{
    const auto v = json::parse(run("variants --json").out);
    if (v["cuda"].get<bool>())
        GTEST_SKIP() << "CUDA is available here";
    const auto r = run("sample --variant static --n 10 --k 2 --device cuda --json -");
    EXPECT_NE(r.code, 0);
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("cuda"), std::string::npos) << r.err;
}

TEST(Cli, VersionAndHelp)
{
    const auto v = run("--version");
    EXPECT_EQ(v.code, 0);
    EXPECT_NE(v.out.find("syncscope-cli"), std::string::npos);
    const auto h = run("--help");
    EXPECT_EQ(h.code, 0);
    for (const char *sub : {"variants", "sample", "bench", "profile", "diff"})
        EXPECT_NE(h.out.find(sub), std::string::npos) << sub;
}

TEST(Cli, ProfileWritesATraceOurLoaderReads)
{
    for (const char *ext : {".json", ".json.gz"}) {
        const std::string out = tempPath(std::string("profile") + ext);
        const auto r = run("profile --variant naive --n 2000 --steps 3 --warmup 1 --out '" + out + "'");
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_NE(r.out.find("3 steps of naive"), std::string::npos) << r.out;
        const auto model = syncscope::loadTrace(out);
        ASSERT_TRUE(model);
        int steps = 0;
        for (const auto &t : model->tracks())
            for (size_t i = 0; i < t.size(); ++i)
                steps += model->str(t.name[i]).rfind("ProfilerStep#", 0) == 0;
        EXPECT_EQ(steps, 3);
        EXPECT_GT(model->counts().durationEvents, 10u);
        std::remove(out.c_str());
    }
    const auto bad = run("profile --variant naive --n 100 --out /tmp/x.txt");
    EXPECT_NE(bad.code, 0);
    EXPECT_NE(bad.err.find(".json"), std::string::npos);
}

namespace {

const char *kTinyTrace =
    R"({"traceEvents":[{"ph":"X","name":"aten::add","cat":"cpu_op","pid":1,"tid":1,"ts":0,"dur":5}]})";

void writeText(const std::string &path, const std::string &text) { std::ofstream(path, std::ios::binary) << text; }

} // namespace

TEST(CliOutputs, AnOutputThatIsAnInputIsRefusedBeforeAnyWork)
{
    const std::string trace = tempPath("in.json"), link = tempPath("in-link.json"),
                      hard = tempPath("in-hard.json");
    writeText(trace, kTinyTrace);
    std::remove(link.c_str());
    std::remove(hard.c_str());
    ASSERT_EQ(::symlink(trace.c_str(), link.c_str()), 0);
    ASSERT_EQ(::link(trace.c_str(), hard.c_str()), 0);
    for (const std::string &out : {trace, link, hard}) {
        const auto r = run("analyze '" + trace + "' --json '" + out + "'");
        EXPECT_EQ(r.code, 1) << out;
        EXPECT_EQ(lines(r.err), 1) << r.err;
        EXPECT_NE(r.err.find("is the input file"), std::string::npos) << r.err;
        EXPECT_EQ(r.out, "") << "the analysis ran before the refusal";
        EXPECT_EQ(syncscope::test::readFile(trace), kTinyTrace) << "the input was overwritten";
    }
    std::remove(link.c_str());
    std::remove(hard.c_str());
    std::remove(trace.c_str());
}

TEST(CliOutputs, TwoOutputsNamingOneFileAreRefused)
{
    const std::string out = tempPath("both.out");
    std::remove(out.c_str());
    const auto r = run("bench --variants naive --n 100 --warmup 0 --iters 1 --json '" + out + "' --csv '" + out +
                       "'");
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("--json and --csv both name"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
}

TEST(CliOutputs, AnUnwritableOutputIsFoundBeforeTheRun)
{
    const auto r = run("bench --variants naive --n 100 --warmup 0 --iters 1 --json /nonexistent/dir/b.json");
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("--json"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "") << "the bench ran before the output was checked";
}

TEST(CliOutputs, WriteErrorsAreErrors)
{
    if (::access("/dev/full", W_OK) != 0)
        GTEST_SKIP() << "no /dev/full here";
    const std::string trace = tempPath("full.json");
    writeText(trace, kTinyTrace);
    // The summary on stdout, the JSON on stdout, the JSON into a device that is full.
    for (const std::string &args :
         {"analyze '" + trace + "' >/dev/full", "analyze '" + trace + "' --json - >/dev/full",
          "analyze '" + trace + "' --json /dev/full", std::string("variants >/dev/full")}) {
        const auto r = run(args);
        EXPECT_EQ(r.code, 1) << args;
        // Progress lines may come first; the error is one sentence on the last line.
        const size_t last = r.err.rfind('\n', r.err.size() >= 2 ? r.err.size() - 2 : 0);
        const std::string sentence = r.err.substr(last == std::string::npos ? 0 : last + 1);
        EXPECT_EQ(lines(sentence), 1) << args << " -> " << r.err;
        EXPECT_NE(sentence.find("No space left"), std::string::npos) << args << " -> " << r.err;
    }
    struct stat st;
    ASSERT_EQ(::stat("/dev/full", &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode));
    std::remove(trace.c_str());
}

TEST(CliOutputs, AClosedPipeIsAnError)
{
    const std::string errFile = tempPath("pipe-err.txt");
    // Megabytes of JSON into a reader that stops after one byte.
    const std::string cmd = std::string("bash -c \"'") + SYNCSCOPE_CLI +
                            "' sample --variant naive --n 200000 --k 10 --json - 2>'" + errFile +
                            "' | head -c 1 >/dev/null; exit \\${PIPESTATUS[0]}\"";
    const int status = std::system(cmd.c_str());
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 1);
    const std::string err = syncscope::test::readFile(errFile);
    EXPECT_NE(err.find("standard output"), std::string::npos) << err;
    std::remove(errFile.c_str());
}

TEST(CliOutputs, SampleStreamsTheSameJsonAsBefore)
{
    // The streamed text parses, and its numbers are json::dump()'s.
    const auto r = run("sample --variant fused --n 50 --k 7 --batch 2 --dim 3 --seed 4 --json -");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = json::parse(r.out);
    EXPECT_EQ(j.dump() + "\n", r.out);
    EXPECT_EQ(j["output"]["valid"].size(), 2u);
    EXPECT_EQ(j["input"]["features"][1][49].size(), 3u);
}

TEST(CliOutputs, InterruptedSampleLeavesNoTemporaryFile)
{
    const std::string dir = tempPath("sigint");
    ::mkdir(dir.c_str(), 0700);
    const std::string out = dir + "/s.json";
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        ::execl(SYNCSCOPE_CLI, SYNCSCOPE_CLI, "sample", "--variant", "naive", "--n", "300000", "--k", "10",
                "--dim", "8", "--json", out.c_str(), static_cast<char *>(nullptr));
        ::_exit(127);
    }
    // Wait until the temporary file exists, then interrupt.
    bool seen = false;
    for (int i = 0; i < 60000 && !seen; ++i) {
        if (DIR *d = ::opendir(dir.c_str())) {
            while (const dirent *e = ::readdir(d))
                seen = seen || std::string(e->d_name).find(".tmp.") != std::string::npos;
            ::closedir(d);
        }
        if (!seen)
            ::usleep(1000);
    }
    ::kill(child, SIGINT);
    int status = 0;
    ::waitpid(child, &status, 0);
    EXPECT_TRUE(seen) << "the temporary file never appeared";
    std::vector<std::string> left;
    if (DIR *d = ::opendir(dir.c_str())) {
        while (const dirent *e = ::readdir(d))
            if (e->d_name[0] != '.')
                left.push_back(e->d_name);
        ::closedir(d);
    }
    EXPECT_TRUE(left.empty()) << left.front();
    ::rmdir(dir.c_str());
}

TEST(CliSentences, EachBadParameterIsOnePreciseSentence)
{
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"bench --variants naive --n 100 --k-ratio 1e10", "at most 1000"},
        {"bench --variants naive --n 100 --threads 1e9", "from 0 (all cores) to 1024"},
        {"bench --variants naive --n 100 --threads 5000", "to 1024 (got '5000')"},
        {"analyze -x.json", "'-x.json' was taken for the option -x"},
        {"bench --variants naive --n 100 --seed -1", "the seed must be a whole number from 0"},
        {"sample --variant naive --n 10 --k 2 --seed -1 --json -", "the seed must be a whole number from 0"},
        {"profile --variant naive --n 100 --iters 2 --steps 3 --out x.json", "give only one of them"},
        {"bench --variants naive,static,naive --n 100", "--variants lists 'naive' twice"},
        {"bench --variants naive --n 100 --bogus", "bench has no option --bogus"},
    };
    for (const auto &[args, needle] : cases) {
        const auto r = run(args);
        EXPECT_NE(r.code, 0) << args;
        EXPECT_EQ(lines(r.err), 1) << args << " -> " << r.err;
        EXPECT_NE(r.err.find(needle), std::string::npos) << args << " -> " << r.err;
        EXPECT_EQ(r.out, "") << args;
    }
}

// Running out of memory is one sentence that names what was being done: the
// innermost phase a command marked, and the enclosing one again after it.
TEST(CliOutOfMemory, TheSentenceNamesThePhase)
{
    using syncscope::cli::Doing;
    using syncscope::cli::outOfMemorySentence;
    EXPECT_EQ(outOfMemorySentence().find(" while "), std::string::npos);
    {
        Doing outer("loading 'a.json'");
        {
            Doing inner("analysing the syncs of 'a.json'");
            const std::string s = outOfMemorySentence();
            EXPECT_EQ(s.rfind("syncscope-cli: ran out of memory while analysing the syncs of 'a.json' (", 0), 0u)
                << s;
            EXPECT_NE(s.find(" MiB at its peak); "), std::string::npos) << s;
            EXPECT_EQ(s.find('\n'), std::string::npos) << s;
        }
        EXPECT_NE(outOfMemorySentence().find("while loading 'a.json'"), std::string::npos);
    }
    EXPECT_EQ(outOfMemorySentence().find(" while "), std::string::npos);
}
