// bench JSON and CSV: the CLI writes them, the app reads and writes the same.
// No LibTorch here, so the app can read results from any machine.
#include "common/csv.h"
#include "common/error.h"
#include "lab/api/bench.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <sstream>

namespace syncscope::lab {

namespace {
using nlohmann::json;

json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

template <typename T> T get(const json &obj, const char *key, T fallback)
{
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null())
        return fallback;
    return it->get<T>();
}
} // namespace

std::string benchReportToJson(const BenchReport &report)
{
    json root;
    root["device"] = report.device;
    root["torch_version"] = report.torchVersion;
    root["threads"] = report.threads;
    root["warmup"] = report.warmup ? json(*report.warmup) : json(nullptr);
    // A string: a 64-bit seed does not survive a double in other readers.
    root["seed"] = report.seed ? json(std::to_string(*report.seed)) : json(nullptr);
    json results = json::array();
    for (const auto &r : report.results) {
        json o;
        o["variant"] = r.variant;
        o["n"] = r.point.n;
        o["k"] = r.point.k;
        o["batch"] = r.point.batch;
        o["dim"] = r.point.dim;
        o["pos_frac"] = r.point.posFrac;
        o["ignore_frac"] = r.point.ignoreFrac;
        o["target_pos_fraction"] = r.point.targetPosFraction;
        const bool ok = r.error.empty();
        o["median_ms"] = ok ? number(r.stats.medianMs) : json(nullptr);
        o["mean_ms"] = ok ? number(r.stats.meanMs) : json(nullptr);
        o["min_ms"] = ok ? number(r.stats.minMs) : json(nullptr);
        o["p5_ms"] = ok ? number(r.stats.p5Ms) : json(nullptr);
        o["p95_ms"] = ok ? number(r.stats.p95Ms) : json(nullptr);
        o["stdev_ms"] = ok ? number(r.stats.stdevMs) : json(nullptr);
        o["iters"] = r.iters;
        o["floor_ms"] = number(r.floorMs);
        o["launch_floor_ms"] = r.launchFloorMs ? number(*r.launchFloorMs) : json(nullptr);
        o["gather_floor_ms"] = r.gatherFloorMs ? number(*r.gatherFloorMs) : json(nullptr);
        json samples = json::array();
        for (double v : r.samplesMs)
            samples.push_back(number(v));
        o["samples_ms"] = std::move(samples);
        if (!r.timer.empty())
            o["timer"] = r.timer;
        o["syncs_per_step"] = r.syncsPerStep ? json(*r.syncsPerStep) : json(nullptr);
        o["peak_bytes"] = r.peakBytes ? json(*r.peakBytes) : json(nullptr);
        if (!ok)
            o["error"] = r.error;
        results.push_back(std::move(o));
    }
    root["results"] = std::move(results);
    return root.dump(2) + "\n";
}

BenchReport benchReportFromJson(const std::string &text)
{
    json root;
    try {
        root = json::parse(text);
    } catch (const json::parse_error &e) {
        throw Error("not a bench result: invalid JSON at byte " + std::to_string(e.byte));
    }
    if (!root.is_object() || !root.contains("results") || !root["results"].is_array())
        throw Error("not a bench result: expected an object with a \"results\" array");
    BenchReport report;
    long index = -1; // the result being read, for the message
    try {
        report.device = get<std::string>(root, "device", "");
        report.torchVersion = get<std::string>(root, "torch_version", "");
        report.threads = get<int>(root, "threads", 0);
        if (root.contains("warmup") && !root["warmup"].is_null())
            report.warmup = root["warmup"].get<int>();
        if (root.contains("seed") && !root["seed"].is_null()) {
            const json &s = root["seed"];
            if (s.is_string()) {
                const std::string text = s.get<std::string>();
                size_t used = 0;
                unsigned long long v = 0;
                try {
                    v = std::stoull(text, &used);
                } catch (const std::exception &) {
                    used = 0;
                }
                if (used == 0 || used != text.size())
                    throw Error("not a bench result: \"seed\" is not a whole number");
                report.seed = v;
            } else {
                report.seed = s.get<uint64_t>();
            }
        }
        for (const auto &o : root["results"]) {
            ++index;
            if (!o.is_object())
                throw Error("not a bench result: results[" + std::to_string(index) + "] is not an object");
            BenchResult r;
            r.variant = o.at("variant").get<std::string>();
            r.point.n = o.at("n").get<int64_t>();
            r.point.k = o.at("k").get<int64_t>();
            r.point.batch = get<int64_t>(o, "batch", 1);
            r.point.dim = get<int64_t>(o, "dim", 16);
            r.point.posFrac = get<double>(o, "pos_frac", 0.5);
            r.point.ignoreFrac = get<double>(o, "ignore_frac", 0.0);
            r.point.targetPosFraction = get<double>(o, "target_pos_fraction", 0.5);
            r.device = get<std::string>(o, "device", report.device);
            r.stats.medianMs = get<double>(o, "median_ms", NAN);
            r.stats.meanMs = get<double>(o, "mean_ms", NAN);
            r.stats.minMs = get<double>(o, "min_ms", NAN);
            r.stats.p5Ms = get<double>(o, "p5_ms", NAN);
            r.stats.p95Ms = get<double>(o, "p95_ms", NAN);
            r.stats.stdevMs = get<double>(o, "stdev_ms", NAN);
            r.iters = get<int>(o, "iters", 0);
            r.floorMs = get<double>(o, "floor_ms", NAN);
            if (o.contains("syncs_per_step") && !o["syncs_per_step"].is_null())
                r.syncsPerStep = o["syncs_per_step"].get<double>();
            if (o.contains("launch_floor_ms") && !o["launch_floor_ms"].is_null())
                r.launchFloorMs = o["launch_floor_ms"].get<double>();
            if (o.contains("gather_floor_ms") && !o["gather_floor_ms"].is_null())
                r.gatherFloorMs = o["gather_floor_ms"].get<double>();
            if (o.contains("samples_ms") && o["samples_ms"].is_array())
                for (const auto &v : o["samples_ms"])
                    r.samplesMs.push_back(v.is_null() ? NAN : v.get<double>());
            r.timer = get<std::string>(o, "timer", "");
            if (o.contains("peak_bytes") && !o["peak_bytes"].is_null())
                r.peakBytes = o["peak_bytes"].get<int64_t>();
            r.error = get<std::string>(o, "error", "");
            if (r.error.empty() && !std::isfinite(r.stats.medianMs))
                r.error = "no timing recorded";
            report.results.push_back(std::move(r));
        }
    } catch (const json::exception &e) {
        // One sentence in our words, not the JSON library's.
        const std::string where = index < 0 ? std::string("the header") : "results[" + std::to_string(index) + "]";
        const std::string what = e.what();
        const size_t q1 = what.find('\''), q2 = q1 == std::string::npos ? q1 : what.find('\'', q1 + 1);
        if (e.id == 403 && q2 != std::string::npos) // out_of_range: key not found
            throw Error("not a bench result: " + where + " has no \"" + what.substr(q1 + 1, q2 - q1 - 1) + "\"");
        throw Error("not a bench result: " + where + " has a field of the wrong type");
    }
    return report;
}

std::string benchReportToCsv(const BenchReport &report)
{
    std::string out = "variant,device,n,k,batch,dim,pos_frac,ignore_frac,target_pos_fraction,median_ms,mean_ms,"
                      "min_ms,p5_ms,p95_ms,stdev_ms,iters,floor_ms,gather_floor_ms,syncs_per_step,peak_bytes,"
                      "error,warmup,seed\n";
    auto real = [](double v) {
        std::ostringstream os;
        os.precision(9);
        os << v;
        return os.str();
    };
    for (const auto &r : report.results) {
        const bool ok = r.error.empty();
        auto num = [&](double v) { return ok && std::isfinite(v) ? std::to_string(v) : std::string(); };
        csv::Row row(out);
        row.text(r.variant);
        row.text(r.device.empty() ? report.device : r.device);
        for (int64_t v : {r.point.n, r.point.k, r.point.batch, r.point.dim})
            row.raw(std::to_string(v));
        for (double v : {r.point.posFrac, r.point.ignoreFrac, r.point.targetPosFraction})
            row.raw(real(v));
        for (double v :
             {r.stats.medianMs, r.stats.meanMs, r.stats.minMs, r.stats.p5Ms, r.stats.p95Ms, r.stats.stdevMs})
            row.raw(num(v));
        row.raw(std::to_string(r.iters));
        row.raw(std::isfinite(r.floorMs) ? std::to_string(r.floorMs) : "");
        row.raw(r.gatherFloorMs && std::isfinite(*r.gatherFloorMs) ? std::to_string(*r.gatherFloorMs) : "");
        row.raw(r.syncsPerStep ? std::to_string(*r.syncsPerStep) : "");
        row.raw(r.peakBytes ? std::to_string(*r.peakBytes) : "");
        row.text(r.error);
        row.raw(report.warmup ? std::to_string(*report.warmup) : "");
        row.raw(report.seed ? std::to_string(*report.seed) : "");
        row.end();
    }
    return out;
}

} // namespace syncscope::lab
