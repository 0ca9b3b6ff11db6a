// Runs the real syncscope-cli binary and checks its contract.
#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include "trace/traceloader.h"

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

std::string slurp(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream os;
    os << in.rdbuf();
    return os.str();
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
    r.err = slurp(errFile);
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
        const auto j = json::parse(slurp(out));
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
    const auto r = run("bench --variants naive,static,fused --n 1000,3000 --k-ratio 0.1 --dim 4 --warmup 1 --iters 3 "
                       "--threads 1 --json '" + js + "' --csv '" + csv + "'");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("median ms"), std::string::npos);
    EXPECT_NE(r.err.find("100%"), std::string::npos) << "progress goes to stderr";
    const auto j = json::parse(slurp(js));
    for (const char *key : {"device", "torch_version", "threads", "results"})
        EXPECT_TRUE(j.contains(key)) << key;
    EXPECT_EQ(j["threads"], 1);
    ASSERT_EQ(j["results"].size(), 6u);
    for (const auto &res : j["results"]) {
        for (const char *key : {"variant", "n", "k", "batch", "dim", "pos_frac", "median_ms", "mean_ms", "min_ms",
                                "p5_ms", "p95_ms", "stdev_ms", "iters", "floor_ms", "syncs_per_step", "peak_bytes"})
            EXPECT_TRUE(res.contains(key)) << key;
        EXPECT_EQ(res["k"].get<int64_t>() * 10, res["n"].get<int64_t>());
        EXPECT_EQ(res["iters"], 3);
        EXPECT_TRUE(res["syncs_per_step"].is_null());
    }
    EXPECT_EQ(lines(slurp(csv)), 7);
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
