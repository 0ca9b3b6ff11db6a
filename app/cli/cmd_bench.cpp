#include "cliutil.h"
#include "commands.h"
#include "outputs.h"

#include "trace/atomicfile.h"
#include "lab/api/bench.h"
#include "lab/api/labloader.h"

#include <cstdio>
#include <iostream>

namespace syncscope::cli {

namespace {
struct BenchOptions : PointOptions {
    std::string variants, ns, json, csv;
    int warmup = 5, iters = 50;
};

std::string fmtMs(double ms)
{
    char buf[32];
    if (ms >= 100)
        std::snprintf(buf, sizeof buf, "%.1f", ms);
    else if (ms >= 1)
        std::snprintf(buf, sizeof buf, "%.3f", ms);
    else
        std::snprintf(buf, sizeof buf, "%.4f", ms);
    return buf;
}

void printTable(const lab::BenchReport &rep)
{
    std::printf("device %s, LibTorch %s, %d threads\n", rep.device.c_str(), rep.torchVersion.c_str(), rep.threads);
    std::printf("%-14s %10s %9s %4s %4s %5s %10s %11s %23s %10s %8s %10s %8s %7s\n", "variant", "N", "K", "B", "D",
                "p", "min ms", "median ms", "p5 - p95 ms", "floor ms", "x floor", "gather ms", "x gather",
                "syncs");
    for (const auto &r : rep.results) {
        if (!r.error.empty()) {
            std::printf("%-14s %10lld %9lld %4lld %4lld %5.3g  error: %s\n", r.variant.c_str(),
                        static_cast<long long>(r.point.n), static_cast<long long>(r.point.k),
                        static_cast<long long>(r.point.batch), static_cast<long long>(r.point.dim),
                        r.point.posFrac, r.error.c_str());
            continue;
        }
        const std::string spread = fmtMs(r.stats.p5Ms) + " - " + fmtMs(r.stats.p95Ms);
        const std::string syncs = r.syncsPerStep ? std::to_string(*r.syncsPerStep) : "n/a";
        const bool gather = r.gatherFloorMs && *r.gatherFloorMs > 0;
        const std::string gatherMs = gather ? fmtMs(*r.gatherFloorMs) : "n/a";
        char gatherRatio[32] = "n/a";
        if (gather)
            std::snprintf(gatherRatio, sizeof gatherRatio, "%.2f", r.stats.medianMs / *r.gatherFloorMs);
        std::printf("%-14s %10lld %9lld %4lld %4lld %5.3g %10s %11s %23s %10s %8.2f %10s %8s %7s\n",
                    r.variant.c_str(), static_cast<long long>(r.point.n), static_cast<long long>(r.point.k),
                    static_cast<long long>(r.point.batch), static_cast<long long>(r.point.dim), r.point.posFrac,
                    fmtMs(r.stats.minMs).c_str(), fmtMs(r.stats.medianMs).c_str(), spread.c_str(),
                    fmtMs(r.floorMs).c_str(), r.floorMs > 0 ? r.stats.medianMs / r.floorMs : 0.0, gatherMs.c_str(),
                    gatherRatio, syncs.c_str());
    }
}
} // namespace

void registerBench(CLI::App &app, int &exitCode)
{
    auto o = std::make_shared<BenchOptions>();
    auto *cmd = app.add_subcommand(
        "bench", "Time variants over a grid of N: median and spread per step, the label read-pass floor and\n"
                 "the gather floor (labels read, K full rows gathered, indices and labels written).\n"
                 "Example: syncscope-cli bench --variants naive,static,fused --n 1e3,1e5,1e6 --json bench.json");
    cmd->add_option("--variants", o->variants, "Comma-separated variant names")->required();
    cmd->add_option("--n", o->ns, "Comma-separated N values (1000 or 1e6)")->required();
    o->addTo(cmd);
    cmd->add_option("--warmup", o->warmup, "Warm-up steps per cell (default 5)");
    cmd->add_option("--iters", o->iters, "Timed steps per cell (default 50)");
    cmd->add_option("--json", o->json, "Write the results as JSON");
    cmd->add_option("--csv", o->csv, "Write the results as CSV");
    cmd->callback([o, &exitCode] {
        guarded(exitCode, [&] {
            Doing doing("running the benchmark");
            lab::BenchRequest req;
            req.variants = splitList(o->variants);
            for (size_t i = 0; i < req.variants.size(); ++i)
                for (size_t j = 0; j < i; ++j)
                    if (req.variants[i] == req.variants[j])
                        throw Error("--variants lists '" + req.variants[i] + "' twice; name each variant once");
            req.device = lab::parseDevice(o->device);
            req.warmup = o->warmup;
            req.iters = o->iters;
            req.seed = o->seed;
            req.threads = o->threads;
            for (const auto &nText : splitList(o->ns))
                req.points.push_back(o->point(parseCount(nText, "--n")));
            checkOutputs({}, {{"--json", o->json}, {"--csv", o->csv}});
            StderrProgress progress;
            lab::LabInterface &lab = lab::requireLab();
            const lab::BenchReport rep = lab.runBench(
                req, [&](double f, const char *what) { progress(f, what); }, nullptr);
            printTable(rep);
            if (!o->json.empty())
                writeFileAtomically(o->json, lab::benchReportToJson(rep));
            if (!o->csv.empty())
                writeFileAtomically(o->csv, lab::benchReportToCsv(rep));
            for (const auto &r : rep.results)
                if (!r.error.empty())
                    return 3; // some cells failed; the table says which and why
            return 0;
        });
    });
}

} // namespace syncscope::cli
