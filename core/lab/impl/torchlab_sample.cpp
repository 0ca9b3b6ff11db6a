// Sampling runs on generated inputs, copied back to host vectors, and the
// statistics the Distribution page and the tests use.
#include "lab/api/samplerun.h"

#include "common/error.h"
#include "kernels/countrule.h"
#include "lab/impl/cancelpoint.h"
#include "lab/api/labstats.h"
#include "lab/impl/sampler.h"
#include "lab/api/variants.h"
#include "lab/impl/torchlab.h"

#include <chrono>
#include <cmath>
#include <limits>

namespace syncscope::lab {

void TorchLab::validateSample(const SampleRequest &r)
{
    if (!findVariant(r.variant))
        throw Error("unknown variant '" + r.variant + "' (see `syncscope-cli variants`)");
    if (r.k < 1)
        throw Error("K must be at least 1 (got " + std::to_string(r.k) + ")");
    if (r.input.n < 1)
        throw Error("N must be at least 1 (got " + std::to_string(r.input.n) + ")");
    if (r.input.batch < 1)
        throw Error("B must be at least 1 (got " + std::to_string(r.input.batch) + ")");
    if (r.input.dim < 1)
        throw Error("D must be at least 1 (got " + std::to_string(r.input.dim) + ")");
    if (!(r.input.posFrac >= 0 && r.input.posFrac <= 1))
        throw Error("positive fraction must be in [0, 1] (got " + std::to_string(r.input.posFrac) + ")");
    if (!(r.input.ignoreFrac >= 0 && r.input.ignoreFrac <= 1) || r.input.posFrac + r.input.ignoreFrac > 1 + 1e-12)
        throw Error("ignored fraction must be in [0, 1 - positive fraction] (got " +
                    std::to_string(r.input.ignoreFrac) + ")");
    if (!(r.targetPosFraction >= 0 && r.targetPosFraction <= 1))
        throw Error("target positive fraction must be in [0, 1] (got " + std::to_string(r.targetPosFraction) +
                    ")");
    checkDevice(r.input.device);
    std::string why;
    if (!variantRunnable(r.variant, r.input.device, &why))
        throw Error("cannot run variant '" + r.variant + "' on " + deviceName(r.input.device) + ": " + why);
}

namespace {
template <typename T> std::vector<T> toHost(const at::Tensor &t)
{
    const at::Tensor c = t.to(at::kCPU).contiguous();
    const T *p = c.data_ptr<T>();
    return std::vector<T>(p, p + c.numel());
}

GeneratedInput makeInput(const InputSpec &in, float *featuresInto = nullptr)
{
    return generateInput(in.batch, in.n, in.dim, in.posFrac, in.ignoreFrac, in.seed,
                         at::Device(in.device == Device::Cuda ? at::kCUDA : at::kCPU), featuresInto);
}
} // namespace

SampleRun TorchLab::runSample(const SampleRequest &request, bool keepInputFeatures)
{
    validateSample(request);
    SampleRun run;
    // On the CPU the input's features are drawn straight into the run's vector:
    // no second copy of the largest array.
    const bool inPlace = keepInputFeatures && request.input.device != Device::Cuda;
    if (inPlace)
        run.inputFeatures.resize(static_cast<size_t>(request.input.batch * request.input.n * request.input.dim));
    const GeneratedInput in = makeInput(request.input, inPlace ? run.inputFeatures.data() : nullptr);
    const SampleOutput out = runVariant(request.variant, in.features, in.labels,
                                        {request.k, request.targetPosFraction, request.seed});
    run.batch = request.input.batch;
    run.n = request.input.n;
    run.k = request.k;
    run.dim = request.input.dim;
    run.outDim = out.features.size(2);
    run.inputLabels = toHost<int64_t>(in.labels);
    if (keepInputFeatures && !inPlace)
        run.inputFeatures = toHost<float>(in.features);
    run.indices = toHost<int64_t>(out.indices);
    run.labels = toHost<int64_t>(out.labels);
    run.features = toHost<float>(out.features.to(at::kFloat));
    run.valid = toHost<int64_t>(out.valid);
    return run;
}


DistributionStats TorchLab::runDistribution(const SampleRequest &request, int64_t runs, const ProgressFn &progress,
                                            const CancelToken *cancel)
{
    validateSample(request);
    if (runs < 1)
        throw Error("the number of runs must be at least 1 (got " + std::to_string(runs) + ")");
    // Between the ATen calls of a run, too (cancelpoint.h).
    const CancelScope cancelScope(cancel);
    const GeneratedInput in = makeInput(request.input);
    const int64_t B = request.input.batch, N = request.input.n, K = request.k;
    DistributionStats st;
    st.batch = B;
    st.n = N;
    st.k = K;
    st.inputLabels = toHost<int64_t>(in.labels);
    st.selectedCount.assign(static_cast<size_t>(B * N), 0);
    std::vector<int64_t> posSlotsPerRow(static_cast<size_t>(B * K), 0);
    st.positiveSlotCount.assign(static_cast<size_t>(K), 0);
    st.negativeSlotCount.assign(static_cast<size_t>(K), 0);
    std::vector<int64_t> P(B, 0), Q(B, 0), validPerRow(B, 0);
    for (int64_t b = 0; b < B; ++b)
        for (int64_t i = 0; i < N; ++i) {
            const int64_t l = st.inputLabels[static_cast<size_t>(b * N + i)];
            P[b] += l == 1;
            Q[b] += l == 0;
        }
    for (int64_t b = 0; b < B; ++b) {
        const auto c = kernels::sampleCounts(P[b], Q[b], K, request.targetPosFraction);
        st.requestedPos.push_back(std::min(K, kernels::targetPositives(K, request.targetPosFraction)));
        st.requestedNeg.push_back(K - st.requestedPos.back());
        validPerRow[b] = c.valid();
    }
    auto last = std::chrono::steady_clock::now() - std::chrono::seconds(1);
    std::vector<int64_t> lastLabels;
    for (int64_t r = 0; r < runs; ++r) {
        checkCancel(cancel);
        const SampleOutput out = runVariant(request.variant, in.features, in.labels,
                                            {K, request.targetPosFraction,
                                             request.seed + static_cast<uint64_t>(r)});
        const auto idx = toHost<int64_t>(out.indices);
        lastLabels = toHost<int64_t>(out.labels);
        for (int64_t b = 0; b < B; ++b)
            for (int64_t j = 0; j < K; ++j) {
                const size_t s = static_cast<size_t>(b * K + j);
                if (idx[s] < 0)
                    continue;
                ++st.selectedCount[static_cast<size_t>(b * N + idx[s])];
                if (lastLabels[s] == 1) {
                    ++posSlotsPerRow[s];
                    ++st.positiveSlotCount[static_cast<size_t>(j)];
                } else {
                    ++st.negativeSlotCount[static_cast<size_t>(j)];
                }
            }
        const auto now = std::chrono::steady_clock::now();
        if (progress && (r + 1 == runs || now - last >= std::chrono::milliseconds(50))) {
            last = now;
            progress(static_cast<double>(r + 1) / static_cast<double>(runs), "sampling");
        }
    }
    st.runs = runs;
    std::vector<int64_t> group;
    for (int64_t b = 0; b < B; ++b) {
        int64_t pos = 0, neg = 0, pad = 0;
        for (int64_t j = 0; j < K; ++j) {
            const int64_t l = lastLabels[static_cast<size_t>(b * K + j)];
            pos += l == 1;
            neg += l == 0;
            pad += l == -1;
        }
        st.obtainedPos.push_back(pos);
        st.obtainedNeg.push_back(neg);
        st.padding.push_back(pad);
        const auto c = kernels::sampleCounts(P[b], Q[b], K, request.targetPosFraction);
        for (int cls = 0; cls < 2; ++cls) {
            group.clear();
            for (int64_t i = 0; i < N; ++i)
                if (st.inputLabels[static_cast<size_t>(b * N + i)] == (cls == 0 ? 1 : 0))
                    group.push_back(st.selectedCount[static_cast<size_t>(b * N + i)]);
            addSubsetChi2(group.data(), static_cast<int64_t>(group.size()), cls == 0 ? c.numPos : c.numNeg, runs,
                          st.selectionChi2, st.selectionDof);
        }
        addSubsetChi2(posSlotsPerRow.data() + b * K, validPerRow[b], c.numPos, runs, st.orderChi2, st.orderDof);
    }
    st.selectionP = chiSquareSurvival(st.selectionChi2, st.selectionDof);
    st.orderP = chiSquareSurvival(st.orderChi2, st.orderDof);
    return st;
}

} // namespace syncscope::lab
