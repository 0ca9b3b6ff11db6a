#include "cliutil.h"
#include "commands.h"

#include "trace/atomicfile.h"
#include "lab/samplerun.h"

#include <nlohmann/json.hpp>

#include <iostream>

namespace syncscope::cli {

namespace {
struct SampleOptions {
    std::string variant, n, k = "", batch = "1", dim = "16", device = "cpu", json;
    double posFrac = 0.5, ignoreFrac = 0.0, targetPos = 0.5;
    uint64_t seed = 0;
    bool noInput = false;
};

nlohmann::json rows(const std::vector<int64_t> &v, int64_t b, int64_t w)
{
    nlohmann::json out = nlohmann::json::array();
    for (int64_t r = 0; r < b; ++r)
        out.push_back(std::vector<int64_t>(v.begin() + r * w, v.begin() + (r + 1) * w));
    return out;
}

nlohmann::json rows3(const std::vector<float> &v, int64_t b, int64_t w, int64_t d)
{
    nlohmann::json out = nlohmann::json::array();
    for (int64_t r = 0; r < b; ++r) {
        nlohmann::json row = nlohmann::json::array();
        for (int64_t i = 0; i < w; ++i) {
            const auto *p = v.data() + (r * w + i) * d;
            row.push_back(std::vector<float>(p, p + d));
        }
        out.push_back(std::move(row));
    }
    return out;
}
} // namespace

void registerSample(CLI::App &app, int &exitCode)
{
    auto o = std::make_shared<SampleOptions>();
    auto *cmd = app.add_subcommand(
        "sample", "Generate inputs, run one variant once and write inputs and outputs as JSON.\n"
                  "Example: syncscope-cli sample --variant fused --n 1000 --k 100 --batch 2 --json out.json");
    cmd->add_option("--variant", o->variant, "Variant name (see `variants`)")->required();
    cmd->add_option("--n", o->n, "Items per row, N")->required();
    cmd->add_option("--k", o->k, "Slots per row, K")->required();
    cmd->add_option("--batch", o->batch, "Rows, B (default 1)");
    cmd->add_option("--dim", o->dim, "Feature dimension, D (default 16)");
    cmd->add_option("--pos-frac", o->posFrac, "P(label = 1) in the generated input (default 0.5)");
    cmd->add_option("--ignore-frac", o->ignoreFrac, "P(label = -1), never sampled (default 0)");
    cmd->add_option("--target-pos-fraction", o->targetPos, "Target positive fraction f (default 0.5)");
    cmd->add_option("--seed", o->seed, "Seed of the inputs and of the sampler (default 0)");
    cmd->add_option("--device", o->device, "cpu or cuda (default cpu)");
    cmd->add_option("--json", o->json, "Output file, or - for stdout")->required();
    cmd->add_flag("--no-input", o->noInput, "Leave the generated input out of the JSON");
    cmd->callback([o, &exitCode] {
        guarded(exitCode, [&] {
            lab::SampleRequest r;
            r.variant = o->variant;
            r.input.n = parseCount(o->n, "--n");
            r.k = parseCount(o->k, "--k");
            r.input.batch = parseCount(o->batch, "--batch");
            r.input.dim = parseCount(o->dim, "--dim");
            r.input.posFrac = o->posFrac;
            r.input.ignoreFrac = o->ignoreFrac;
            r.input.seed = o->seed;
            r.input.device = o->device;
            r.targetPosFraction = o->targetPos;
            r.seed = o->seed;
            const lab::SampleRun run = lab::runSample(r, !o->noInput);

            nlohmann::json j;
            j["variant"] = r.variant;
            j["n"] = run.n;
            j["k"] = run.k;
            j["batch"] = run.batch;
            j["dim"] = run.dim;
            j["seed"] = o->seed;
            j["device"] = r.input.device;
            j["pos_frac"] = r.input.posFrac;
            j["ignore_frac"] = r.input.ignoreFrac;
            j["target_pos_fraction"] = r.targetPosFraction;
            if (!o->noInput)
                j["input"] = {{"labels", rows(run.inputLabels, run.batch, run.n)},
                              {"features", rows3(run.inputFeatures, run.batch, run.n, run.dim)}};
            j["output"] = {{"indices", rows(run.indices, run.batch, run.k)},
                           {"labels", rows(run.labels, run.batch, run.k)},
                           {"features", rows3(run.features, run.batch, run.k, run.outDim)},
                           {"valid", run.valid}};
            const std::string text = j.dump() + "\n";
            if (o->json == "-")
                std::cout << text;
            else
                writeFileAtomically(o->json, text);
            return 0;
        });
    });
}

} // namespace syncscope::cli
