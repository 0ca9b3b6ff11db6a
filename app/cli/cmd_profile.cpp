#include "cliutil.h"
#include "commands.h"
#include "outputs.h"

#include "lab/api/capture.h"
#include "lab/api/labloader.h"
#include "trace/atomicfile.h"

#include <unistd.h>

#include <iostream>

namespace syncscope::cli {

namespace {
struct ProfileOptions : PointOptions {
    std::string variant, n, out;
    int steps = 5, warmup = 2;
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
    o->addTo(cmd);
    cmd->add_option("--warmup", o->warmup, "Untraced steps first (default 2)");
    auto *iters = cmd->add_option("--iters", o->steps, "Same as --steps");
    auto *steps = cmd->add_option("--steps", o->steps, "Traced steps (default 5)");
    cmd->add_option("--out", o->out, "Output trace, .json or .json.gz")->required();
    cmd->callback([o, iters, steps, &exitCode] {
        guarded(exitCode, [&] {
            Doing doing("profiling the sampler");
            if (iters->count() && steps->count())
                throw Error("--iters and --steps are one setting, the traced steps: give only one of them");
            checkOutputs({}, {{"--out", o->out}});
            lab::CaptureRequest r;
            r.variant = o->variant;
            r.point = o->point(parseCount(o->n, "--n"));
            r.device = lab::parseDevice(o->device);
            r.steps = o->steps;
            r.warmup = o->warmup;
            r.seed = o->seed;
            r.threads = o->threads;
            r.outPath = o->out;
            // The capture's raw profiler output, removed if a failure or a signal
            // leaves it behind (on success it was already renamed or removed).
            const ScopedTempFile raw(o->out + ".capture-" + std::to_string(::getpid()) + ".json");
            StderrProgress progress;
            const auto res = lab::requireLab().captureTrace(
                r, [&](double f, const char *what) { progress(f, what); }, nullptr);
            std::cout << "wrote " << res.path << ": " << res.steps << " steps of " << r.variant << " (" << res.note
                      << ")\n";
            return 0;
        });
    });
}

} // namespace syncscope::cli
