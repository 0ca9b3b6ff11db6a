#pragma once
// A lab without LibTorch, for the tests of the pages that are given one
// (Explore, Distribution, the window). It records every request, answers with
// numbers made from the request (so a test can tell one point's result from
// another's), polls the cancel token as the real lab does, and writes a small
// real Chrome trace for a capture. Never a stand-in for the lab's own tests:
// tests/lab measures the real one.
#include "common/error.h"
#include "lab/api/labinterface.h"
#include "lab/api/variants.h"

#include <zlib.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace syncscope::test {

class FakeLab final : public lab::LabInterface {
public:
    // A bench point whose N is at least this runs until it is cancelled (or
    // 60 s pass, then it fails): what a test cancels.
    std::atomic<int64_t> slowFromN{INT64_MAX};
    // When set, validateBench refuses every request with this sentence (set
    // it from the test's thread while no job runs).
    std::string refuseBench;

    std::vector<lab::BenchRequest> benchRequests() const { return locked(m_bench); }
    std::vector<lab::CaptureRequest> captureRequests() const { return locked(m_captures); }
    std::vector<lab::SampleRequest> sampleRequests() const { return locked(m_samples); }

    // The median the fake reports for a variant at a point: distinct per both.
    static double medianMs(const std::string &variant, const lab::BenchPoint &p)
    {
        return 1e-4 * double(p.n) * double(1 + indexOf(variant)) + 1e-3 * double(p.k);
    }

    std::string torchVersion() override { return "fake"; }
    bool cudaAvailable(std::string *why) override
    {
        if (why)
            *why = "the fake lab has no CUDA";
        return false;
    }
    std::string deviceDescription(lab::Device device) override
    {
        return device == lab::Device::Cpu ? "fake CPU" : "unavailable";
    }
    void checkDevice(lab::Device device) override
    {
        if (device != lab::Device::Cpu)
            throw Error(std::string("device '") + lab::deviceName(device) +
                        "' was requested, but the fake lab runs on the CPU only");
    }
    bool variantRunnable(const std::string &variant, lab::Device device, std::string *why) override
    {
        const lab::VariantInfo *v = lab::findVariant(variant);
        std::string reason = !v                           ? "unknown variant"
                             : device != lab::Device::Cpu ? "the fake lab has no CUDA"
                             : v->needsCuda               ? "it needs CUDA"
                                                          : "";
        if (why)
            *why = reason;
        return reason.empty();
    }

    void validateBench(const lab::BenchRequest &r) override
    {
        if (!refuseBench.empty())
            throw Error(refuseBench);
        if (r.variants.empty())
            throw Error("name at least one variant");
        if (r.points.empty())
            throw Error("give at least one point");
        for (const std::string &v : r.variants)
            if (!lab::findVariant(v))
                throw Error("unknown variant '" + v + "'");
        checkDevice(r.device);
        for (const lab::BenchPoint &p : r.points)
            if (p.n < 1 || p.k < 1 || p.k > p.n)
                throw Error("N must be at least 1 and K between 1 and N");
    }

    lab::BenchReport runBench(const lab::BenchRequest &r, const ProgressFn &progress,
                              const CancelToken *cancel) override
    {
        validateBench(r);
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_bench.push_back(r);
        }
        lab::BenchReport out;
        out.device = lab::deviceName(r.device);
        out.torchVersion = torchVersion();
        out.threads = 1;
        out.warmup = r.warmup;
        out.seed = r.seed;
        const double cells = double(r.points.size() * r.variants.size());
        size_t done = 0;
        for (const lab::BenchPoint &p : r.points)
            for (const std::string &v : r.variants) {
                if (p.n >= slowFromN.load()) {
                    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
                    while (std::chrono::steady_clock::now() < until) {
                        checkCancel(cancel);
                        if (progress)
                            progress((double(done) + 0.5) / cells, "timing steps");
                        std::this_thread::sleep_for(std::chrono::milliseconds(2));
                    }
                    throw Error("the fake lab's slow point was never cancelled");
                }
                checkCancel(cancel);
                lab::BenchResult x;
                x.variant = v;
                x.point = p;
                x.device = out.device;
                x.iters = r.iters;
                x.stats.medianMs = x.stats.meanMs = medianMs(v, p);
                x.stats.minMs = x.stats.p5Ms = 0.9 * x.stats.medianMs;
                x.stats.p95Ms = 1.2 * x.stats.medianMs;
                x.floorMs = 0.1 * x.stats.medianMs;
                x.gatherFloorMs = 0.2 * x.stats.medianMs;
                x.timer = "steady_clock";
                out.results.push_back(x);
                ++done;
                if (progress)
                    progress(double(done) / cells, "timing steps");
            }
        return out;
    }

    void validateSample(const lab::SampleRequest &r) override
    {
        if (!lab::findVariant(r.variant))
            throw Error("unknown variant '" + r.variant + "'");
        checkDevice(r.input.device);
        if (r.input.n < 1 || r.k < 1)
            throw Error("N and K must be at least 1");
    }

    lab::SampleRun runSample(const lab::SampleRequest &r, bool) override
    {
        validateSample(r);
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_samples.push_back(r);
        }
        lab::SampleRun s;
        s.batch = r.input.batch;
        s.n = r.input.n;
        s.k = r.k;
        s.dim = s.outDim = r.input.dim;
        s.inputLabels.assign(size_t(s.batch * s.n), 0);
        for (int64_t b = 0; b < s.batch; ++b)
            for (int64_t j = 0; j < s.k; ++j) {
                const bool real = j < s.n;
                s.indices.push_back(real ? j : -1);
                s.labels.push_back(real ? 0 : -1);
            }
        s.features.assign(size_t(s.batch * s.k * s.outDim), 0.0f);
        s.valid.assign(size_t(s.batch), std::min(s.k, s.n));
        return s;
    }

    lab::DistributionStats runDistribution(const lab::SampleRequest &r, int64_t runs, const ProgressFn &progress,
                                           const CancelToken *cancel) override
    {
        validateSample(r);
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_samples.push_back(r);
        }
        lab::DistributionStats d;
        d.runs = runs;
        d.batch = r.input.batch;
        d.n = r.input.n;
        d.k = r.k;
        d.inputLabels.assign(size_t(d.batch * d.n), 0);
        d.selectedCount.assign(size_t(d.batch * d.n), runs * std::min(d.k, d.n) / d.n);
        d.positiveSlotCount.assign(size_t(d.k), 0);
        d.negativeSlotCount.assign(size_t(d.k), runs);
        for (std::vector<int64_t> *v : {&d.requestedPos, &d.obtainedPos})
            v->assign(size_t(d.batch), 0);
        for (std::vector<int64_t> *v : {&d.requestedNeg, &d.obtainedNeg})
            v->assign(size_t(d.batch), std::min(d.k, d.n));
        d.padding.assign(size_t(d.batch), d.k - std::min(d.k, d.n));
        checkCancel(cancel);
        if (progress)
            progress(1.0, "sampling");
        return d;
    }

    // A trace of `steps` ProfilerStep#N ranges, each with an aten::eq op
    // (category cpu_op), gzip-compressed, written to outPath.
    lab::CaptureResult captureTrace(const lab::CaptureRequest &r, const ProgressFn &progress,
                                    const CancelToken *cancel) override
    {
        if (!lab::findVariant(r.variant))
            throw Error("unknown variant '" + r.variant + "'");
        checkDevice(r.device);
        checkCancel(cancel);
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_captures.push_back(r);
        }
        std::string json = "{\"traceEvents\":[";
        for (int s = 0; s < r.steps; ++s) {
            const std::string ts = std::to_string(1000 * (s + 1));
            json += std::string(s ? "," : "") +
                    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#" + std::to_string(s) +
                    "\",\"pid\":1,\"tid\":1,\"ts\":" + ts + ",\"dur\":900}" +
                    ",{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::eq\",\"pid\":1,\"tid\":1,\"ts\":" + ts +
                    ",\"dur\":10}";
        }
        json += "]}";
        gzFile f = gzopen(r.outPath.c_str(), "wb");
        if (!f || gzwrite(f, json.data(), unsigned(json.size())) != int(json.size()) || gzclose(f) != Z_OK)
            throw Error("the fake lab cannot write '" + r.outPath + "'");
        if (progress)
            progress(1.0, "capturing");
        lab::CaptureResult out;
        out.path = r.outPath;
        out.profiler = "legacy";
        out.note = "written by the fake lab";
        out.steps = r.steps;
        return out;
    }

private:
    mutable std::mutex m_mutex;
    std::vector<lab::BenchRequest> m_bench;
    std::vector<lab::CaptureRequest> m_captures;
    std::vector<lab::SampleRequest> m_samples;

    template <typename T> std::vector<T> locked(const std::vector<T> &v) const
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        return v;
    }
    static size_t indexOf(const std::string &variant)
    {
        const auto &all = lab::allVariants();
        for (size_t i = 0; i < all.size(); ++i)
            if (all[i].name == variant)
                return i;
        return all.size();
    }
};

} // namespace syncscope::test
