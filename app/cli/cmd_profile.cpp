#include "cliutil.h"
#include "commands.h"

#include "lab/capture.h"

#include <iostream>

namespace syncscope::cli {

namespace {
struct ProfileOptions {
    std::string variant, n, k, batch = "1", dim = "16", device = "cpu", out;
    double kRatio = 0.1, posFrac = 0.5, ignoreFrac = 0.0, targetPos = 0.5;
    int steps = 5, warmup = 2, threads = 0;
    uint64_t seed = 0;
};
} // namespace

void registerProfile(CLI::App &app, int &exitCode)
{
    auto o = std::make_shared<ProfileOptions>();
    auto *cmd = app.add_subcommand(
        "profile", "Run S steps of one variant under the LibTorch profiler and write a Chrome trace.\n"
                   "Example: syncscope-cli profile --variant naive --n 1e5 --steps 5 --out naive.json.gz");
    cmd->add_option("--variant", o->variant, "Variant name (see `variants`)")->required();
    cmd->add_option("--n", o->n, "Items per row, N")->required();
    auto *kOpt = cmd->add_option("--k", o->k, "Slots per row, K");
    cmd->add_option("--k-ratio", o->kRatio, "K = round(N * ratio) when --k is not given (default 0.1)")
        ->excludes(kOpt);
    cmd->add_option("--batch", o->batch, "Rows, B (default 1)");
    cmd->add_option("--dim", o->dim, "Feature dimension, D (default 16)");
    cmd->add_option("--pos-frac", o->posFrac, "P(label = 1) in the inputs (default 0.5)");
    cmd->add_option("--ignore-frac", o->ignoreFrac, "P(label = -1) in the inputs (default 0)");
    cmd->add_option("--target-pos-fraction", o->targetPos, "Target positive fraction f (default 0.5)");
    cmd->add_option("--device", o->device, "cpu or cuda (default cpu)");
    cmd->add_option("--warmup", o->warmup, "Untraced steps first (default 2)");
    cmd->add_option("--iters", o->steps, "Same as --steps");
    cmd->add_option("--steps", o->steps, "Traced steps (default 5)");
    cmd->add_option("--seed", o->seed, "Seed (default 0)");
    cmd->add_option("--threads", o->threads, "CPU threads, 0 = all cores (default 0)");
    cmd->add_option("--out", o->out, "Output trace, .json or .json.gz")->required();
    cmd->callback([o, kOpt, &exitCode] {
        guarded(exitCode, [&] {
            lab::CaptureRequest r;
            r.variant = o->variant;
            r.point.n = parseCount(o->n, "--n");
            if (!(o->kRatio > 0))
                throw Error("--k-ratio must be greater than 0");
            r.point.k = kOpt->count() ? parseCount(o->k, "--k")
                                      : std::max<int64_t>(1, std::llround(static_cast<double>(r.point.n) * o->kRatio));
            r.point.batch = parseCount(o->batch, "--batch");
            r.point.dim = parseCount(o->dim, "--dim");
            r.point.posFrac = o->posFrac;
            r.point.ignoreFrac = o->ignoreFrac;
            r.point.targetPosFraction = o->targetPos;
            r.device = o->device;
            r.steps = o->steps;
            r.warmup = o->warmup;
            r.seed = o->seed;
            r.threads = o->threads;
            r.outPath = o->out;
            StderrProgress progress;
            const auto res = lab::captureTrace(
                r, [&](double f, const char *what) { progress(f, what); }, nullptr);
            std::cout << "wrote " << res.path << ": " << res.steps << " steps of " << r.variant << " ("
                      << res.note << ")\n";
            return 0;
        });
    });
}

} // namespace syncscope::cli
