#include "cliutil.h"
#include "commands.h"

#include "lab/api/samplerun.h"
#include "lab/api/labloader.h"
#include "outputs.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <iostream>
#include <string_view>

namespace syncscope::cli {

namespace {
struct SampleOptions {
    std::string variant, n, k = "", batch = "1", dim = "16", device = "cpu", json;
    double posFrac = 0.5, ignoreFrac = 0.0, targetPos = 0.5;
    uint64_t seed = 0;
    bool noInput = false;
};

// Writes the JSON piece by piece: the only copy of the data in memory is the
// run's own vectors, plus a buffer of about a megabyte. Numbers are formatted by
// nlohmann/json, so the text is what json::dump() would give.
class JsonStream {
public:
    explicit JsonStream(OutputFile &out) : m_out(out) {}
    template <typename T> void scalar(const T &v) { put(nlohmann::json(v).dump()); }
    // A float as json::dump() writes it (the shortest text that reads back as
    // the same double), without building a json value per number.
    void number(float v)
    {
        if (!std::isfinite(v)) {
            put("null");
            return;
        }
        char buf[64];
        char *end = nlohmann::detail::to_chars(buf, buf + sizeof buf, static_cast<double>(v));
        put(std::string_view(buf, static_cast<size_t>(end - buf)));
    }
    void put(std::string_view s)
    {
        m_buf.append(s);
        if (m_buf.size() >= (1u << 20))
            flush();
    }
    void key(const char *name, bool first = false)
    {
        if (!first)
            put(",");
        put("\"");
        put(name);
        put("\":");
    }
    // [[row 0], [row 1], ...]: b rows of w numbers.
    void rows(const std::vector<int64_t> &v, int64_t b, int64_t w)
    {
        put("[");
        for (int64_t r = 0; r < b; ++r) {
            put(r ? ",[" : "[");
            for (int64_t i = 0; i < w; ++i) {
                if (i)
                    put(",");
                put(std::to_string(v[static_cast<size_t>(r * w + i)]));
            }
            put("]");
        }
        put("]");
    }
    void flat(const std::vector<int64_t> &v)
    {
        put("[");
        for (size_t i = 0; i < v.size(); ++i) {
            if (i)
                put(",");
            put(std::to_string(v[i]));
        }
        put("]");
    }
    // b rows of w items of d floats.
    void rows3(const std::vector<float> &v, int64_t b, int64_t w, int64_t d)
    {
        put("[");
        for (int64_t r = 0; r < b; ++r) {
            put(r ? ",[" : "[");
            for (int64_t i = 0; i < w; ++i) {
                put(i ? ",[" : "[");
                const float *p = v.data() + (r * w + i) * d;
                for (int64_t x = 0; x < d; ++x) {
                    if (x)
                        put(",");
                    number(p[x]);
                }
                put("]");
            }
            put("]");
        }
        put("]");
    }
    void flush()
    {
        m_out.write(m_buf);
        m_buf.clear();
    }

private:
    OutputFile &m_out;
    std::string m_buf;
};
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
    cmd->add_option("--seed", o->seed, "Seed of the inputs and of the sampler (default 0)")
        ->check(seedValidator());
    cmd->add_option("--device", o->device, "cpu or cuda (default cpu)");
    cmd->add_option("--json", o->json, "Output file, or - for stdout")->required();
    cmd->add_flag("--no-input", o->noInput, "Leave the generated input out of the JSON");
    cmd->callback([o, &exitCode] {
        guarded(exitCode, [&] {
            Doing doing("sampling");
            lab::SampleRequest r;
            r.variant = o->variant;
            r.input.n = parseCount(o->n, "--n");
            r.k = parseCount(o->k, "--k");
            r.input.batch = parseCount(o->batch, "--batch");
            r.input.dim = parseCount(o->dim, "--dim");
            r.input.posFrac = o->posFrac;
            r.input.ignoreFrac = o->ignoreFrac;
            r.input.seed = o->seed;
            r.input.device = lab::parseDevice(o->device);
            r.targetPosFraction = o->targetPos;
            r.seed = o->seed;
            checkOutputs({}, {{"--json", o->json}});
            const lab::SampleRun run = lab::requireLab().runSample(r, !o->noInput);

            // Keys in the order json::dump() sorts them.
            OutputFile file(o->json);
            JsonStream j(file);
            j.put("{");
            j.key("batch", true);
            j.scalar(run.batch);
            j.key("device");
            j.scalar(lab::deviceName(r.input.device));
            j.key("dim");
            j.scalar(run.dim);
            j.key("ignore_frac");
            j.scalar(r.input.ignoreFrac);
            if (!o->noInput) {
                j.key("input");
                j.put("{");
                j.key("features", true);
                j.rows3(run.inputFeatures, run.batch, run.n, run.dim);
                j.key("labels");
                j.rows(run.inputLabels, run.batch, run.n);
                j.put("}");
            }
            j.key("k");
            j.scalar(run.k);
            j.key("n");
            j.scalar(run.n);
            j.key("output");
            j.put("{");
            j.key("features", true);
            j.rows3(run.features, run.batch, run.k, run.outDim);
            j.key("indices");
            j.rows(run.indices, run.batch, run.k);
            j.key("labels");
            j.rows(run.labels, run.batch, run.k);
            j.key("valid");
            j.flat(run.valid);
            j.put("}");
            j.key("pos_frac");
            j.scalar(r.input.posFrac);
            j.key("seed");
            j.scalar(o->seed);
            j.key("target_pos_fraction");
            j.scalar(r.targetPosFraction);
            j.key("variant");
            j.scalar(r.variant);
            j.put("}\n");
            j.flush();
            file.commit();
            return 0;
        });
    });
}

} // namespace syncscope::cli
