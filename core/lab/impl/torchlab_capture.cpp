// Profiler capture. Kineto is used where the LibTorch has it (2.x wheels);
// Debian's 1.13 is built without Kineto, where ProfilerResult::save throws, so
// it gets the legacy profiler's CPU-only Chrome trace (RecordProfile).
#include "lab/api/capture.h"

#include "common/error.h"
#include "kernels/cpu/intraoppool.h"
#include "lab/impl/sampler.h"
#include "lab/impl/torchcompat.h"
#include "lab/api/variants.h"
#include "lab/impl/torchlab.h"
#include "trace/atomicfile.h"

#include <ATen/Parallel.h>
#include <ATen/record_function.h>
#include <torch/csrc/autograd/profiler_kineto.h>
#include <torch/csrc/autograd/profiler_legacy.h>
#include <torch/version.h>

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace syncscope::lab {

namespace {

bool endsWith(const std::string &s, const std::string &suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string readAll(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw Error("cannot read the profiler output '" + path + "'");
    std::ostringstream os;
    os << in.rdbuf();
    return os.str();
}

// Moves the finished trace into place: a rename for .json; for .json.gz the
// profiler's bytes, gzip-compressed, written atomically.
void publish(const std::string &tmpJson, const std::string &out)
{
    if (!endsWith(out, ".gz")) {
        if (std::rename(tmpJson.c_str(), out.c_str()) != 0) {
            std::remove(tmpJson.c_str());
            throw Error("cannot write '" + out + "'");
        }
        return;
    }
    const std::string data = readAll(tmpJson);
    std::remove(tmpJson.c_str());
    z_stream zs{};
    if (deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16 /* gzip header */, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        throw Error("cannot compress the trace for '" + out + "'");
    // zlib counts in 32-bit uInt: feed and drain in pieces so captures over 4 GiB work.
    constexpr size_t kPiece = size_t(1) << 30;
    std::string gz;
    char buf[1 << 16];
    size_t pos = 0;
    int rc = Z_OK;
    do {
        const size_t n = std::min(kPiece, data.size() - pos);
        zs.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(data.data() + pos));
        zs.avail_in = static_cast<uInt>(n);
        pos += n;
        const int flush = pos == data.size() ? Z_FINISH : Z_NO_FLUSH;
        do {
            zs.next_out = reinterpret_cast<Bytef *>(buf);
            zs.avail_out = sizeof buf;
            rc = deflate(&zs, flush);
            gz.append(buf, sizeof buf - zs.avail_out);
        } while (zs.avail_out == 0);
    } while (pos < data.size() && rc == Z_OK);
    deflateEnd(&zs);
    if (rc != Z_STREAM_END)
        throw Error("cannot compress the trace for '" + out + "'");
    writeFileAtomically(out, gz);
}

void checkWritable(const std::string &out)
{
    if (out.empty())
        throw Error("give the output file with --out (.json or .json.gz)");
    if (!endsWith(out, ".json") && !endsWith(out, ".json.gz"))
        throw Error("the output file must end in .json or .json.gz (got '" + out + "')");
    const std::string probe = out + ".probe-" + std::to_string(::getpid());
    std::FILE *f = std::fopen(probe.c_str(), "wb");
    if (!f)
        throw Error("cannot write '" + out + "': its folder is missing or not writable");
    std::fclose(f);
    std::remove(probe.c_str());
}

struct Steps {
    const CaptureRequest &req;
    const ProgressFn &progress;
    const CancelToken *cancel;
    std::vector<GeneratedInput> inputs;

    void run(int first, int count, bool traced)
    {
        for (int s = first; s < first + count; ++s) {
            if (cancel && cancel->cancelled())
                throw Cancelled();
            const auto &in = inputs[static_cast<size_t>(s) % inputs.size()];
            const SamplerConfig cfg{req.point.k, req.point.targetPosFraction, req.seed + static_cast<uint64_t>(s)};
            if (traced) {
                at::RecordFunction range(at::RecordScope::USER_SCOPE);
                if (range.isActive())
                    compat::beginRange(range, "ProfilerStep#" + std::to_string(s - first));
                runVariant(req.variant, in.features, in.labels, cfg);
            } else {
                runVariant(req.variant, in.features, in.labels, cfg);
            }
            if (progress)
                progress(static_cast<double>(s + 1) / (req.warmup + req.steps),
                         traced ? "profiling" : "warming up");
        }
        // One wait after the last step, never between steps: a per-step device
        // sync would itself be a blocking sync call in the trace.
        if (!inputs.empty())
            compat::synchronize(inputs.front().labels.device());
    }
};

#if TORCH_VERSION_MAJOR >= 2
bool captureKineto(Steps &steps, const std::string &tmpJson, std::string &note)
{
    namespace prof = torch::profiler::impl;
    std::set<prof::ActivityType> activities{prof::ActivityType::CPU};
    const bool cuda = steps.req.device == Device::Cuda;
    if (cuda)
        activities.insert(prof::ActivityType::CUDA);
    prof::ExperimentalConfig experimental(/*profiler_metrics*/ {}, /*per_kernel*/ false,
                                          /*verbose*/ false, /*performance_events*/ {},
                                          /*enable_cuda_sync_events*/ cuda);
    const prof::ProfilerConfig config(prof::ProfilerState::KINETO, /*shapes*/ true, /*memory*/ false,
                                      /*stack*/ false, /*flops*/ false, /*modules*/ false, experimental);
    try {
        torch::autograd::profiler::prepareProfiler(config, activities);
        torch::autograd::profiler::enableProfiler(config, activities);
    } catch (const c10::Error &e) {
        note = std::string("Kineto could not start (") + e.what_without_backtrace() + ")";
        return false;
    }
    std::unique_ptr<torch::autograd::profiler::ProfilerResult> result;
    try {
        steps.run(steps.req.warmup, steps.req.steps, true);
    } catch (...) {
        torch::autograd::profiler::disableProfiler();
        throw;
    }
    result = torch::autograd::profiler::disableProfiler();
    try {
        result->save(tmpJson);
    } catch (const c10::Error &e) {
        note = std::string("Kineto could not save (") + e.what_without_backtrace() + ")";
        return false;
    }
    note = cuda ? "Kineto: CPU and CUDA activities, CUDA sync events on" : "Kineto: CPU activities";
    return true;
}
#endif

} // namespace

CaptureResult TorchLab::captureTrace(const CaptureRequest &req, const ProgressFn &progress,
                                     const CancelToken *cancel)
{
    if (!findVariant(req.variant))
        throw Error("unknown variant '" + req.variant + "' (see `syncscope-cli variants`)");
    if (req.steps < 1)
        throw Error("steps must be at least 1 (got " + std::to_string(req.steps) + ")");
    if (req.warmup < 0)
        throw Error("warm-up steps must be 0 or more (got " + std::to_string(req.warmup) + ")");
    BenchRequest probe;
    probe.variants = {req.variant};
    probe.points = {req.point};
    probe.device = req.device;
    validateBench(probe);
    std::string why;
    if (!variantRunnable(req.variant, req.device, &why))
        throw Error("cannot run variant '" + req.variant + "' on " + deviceName(req.device) + ": " + why);
    checkThreads(req.threads);
    checkWritable(req.outPath);

    useThreads(req.threads);
    const at::Device device(req.device == Device::Cuda ? at::kCUDA : at::kCPU);
    Steps steps{req, progress, cancel, {}};
    for (uint64_t s = 0; s < 2; ++s)
        steps.inputs.push_back(generateInput(req.point.batch, req.point.n, req.point.dim, req.point.posFrac,
                                             req.point.ignoreFrac, req.seed + s, device));
    steps.run(0, req.warmup, false);

    const std::string tmpJson = req.outPath + ".capture-" + std::to_string(::getpid()) + ".json";
    // Removed on cancel, error or signal; publish() consumes it on success.
    ScopedTempFile rawGuard(tmpJson);
    CaptureResult res;
    res.path = req.outPath;
    res.steps = req.steps;
    bool done = false;
#if TORCH_VERSION_MAJOR >= 2
    std::string kinetoNote;
    done = captureKineto(steps, tmpJson, kinetoNote);
    res.profiler = done ? "kineto" : "legacy";
    res.note = kinetoNote;
#endif
    if (!done) {
        // The legacy profiler records the CPU side only.
        {
            torch::autograd::profiler::RecordProfile guard(tmpJson);
            steps.run(req.warmup, req.steps, true);
        }
        res.profiler = "legacy";
        const std::string why = res.note.empty() ? "this LibTorch (" + torchVersion() + ") has no Kineto"
                                                 : res.note;
        res.note = "legacy profiler, CPU only: " + why;
    }
    publish(tmpJson, req.outPath);
    return res;
}

} // namespace syncscope::lab
