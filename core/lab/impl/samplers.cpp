// The three tensor-level sampler variants. Inputs arrive validated and batched.
#include "lab/impl/sampler.h"

#include "common/error.h"
#include "kernels/countrule.h"
#include "kernels/cpu/fusedsampler.h"
#include "lab/impl/cancelpoint.h"
#include "lab/impl/hostalloc.h"
#include "lab/impl/torchcompat.h"
#if defined(SYNCSCOPE_WITH_CUDA)
#include "lab/impl/cudalab.h"
#endif

#include <algorithm>
#include <sstream>
#include <vector>

namespace syncscope::lab {

namespace {

at::TensorOptions longOpts(const at::Tensor &like) { return like.options().dtype(at::kLong); }

// Pads a row's `valid` leading entries to K slots along dim 0 (no copy when full).
at::Tensor padRows(const at::Tensor &t, int64_t K, double value)
{
    const int64_t missing = K - t.size(0);
    if (missing == 0)
        return t;
    std::vector<int64_t> pad(static_cast<size_t>(2 * t.dim()), 0);
    pad.back() = missing; // constant_pad_nd lists the last dim first
    return at::constant_pad_nd(t, pad, value);
}

at::Tensor stackRows(const std::vector<at::Tensor> &rows)
{
    return rows.size() == 1 ? rows.front().unsqueeze(0) : at::stack(rows);
}

} // namespace

// The article's algorithm with the count rule fixed: nonzero and randperm give
// data-dependent shapes, so on a GPU reading .numel() waits for the device.
SampleOutput sampleNaive(const at::Tensor &features, const at::Tensor &labels, const SamplerConfig &cfg)
{
    const int64_t B = labels.size(0), K = cfg.k;
    auto gen = compat::makeGenerator(labels.device(), cfg.seed);
    // Each row's outputs are built at their final size: no prefilled buffers
    // to copy into, so the padding costs nothing when a row fills its K slots.
    std::vector<at::Tensor> indices, outLabels, outFeatures;
    std::vector<int64_t> valid(static_cast<size_t>(B));
    for (int64_t b = 0; b < B; ++b) {
        const at::Tensor row = labels[b];
        const at::Tensor positive = at::nonzero(row == 1).squeeze(1);
        cancelPoint();
        const at::Tensor negative = at::nonzero(row == 0).squeeze(1);
        cancelPoint();
        const auto counts = kernels::sampleCounts(positive.numel(), negative.numel(), K, cfg.targetPosFraction);
        const auto perm1 = at::randperm(positive.numel(), gen, longOpts(labels)).slice(0, 0, counts.numPos);
        cancelPoint();
        const auto perm2 = at::randperm(negative.numel(), gen, longOpts(labels)).slice(0, 0, counts.numNeg);
        cancelPoint();
        at::Tensor chosen = at::cat({positive.index_select(0, perm1), negative.index_select(0, perm2)});
        cancelPoint();
        chosen = chosen.index_select(0, at::randperm(counts.valid(), gen, longOpts(labels)));
        cancelPoint();
        indices.push_back(padRows(chosen, K, -1));
        cancelPoint();
        outLabels.push_back(padRows(row.index_select(0, chosen).to(at::kLong), K, -1));
        cancelPoint();
        outFeatures.push_back(padRows(features[b].index_select(0, chosen), K, 0));
        cancelPoint();
        valid[static_cast<size_t>(b)] = counts.valid();
    }
    SampleOutput out;
    out.indices = stackRows(indices);
    out.labels = stackRows(outLabels);
    out.features = stackRows(outFeatures);
    out.valid = at::tensor(valid, at::kLong).to(labels.device());
    return out;
}

// Sync-free: every shape depends on N and K only. Counts stay on the device, the
// subsets come from random keys + topk, and the output order from a second set
// of fresh keys, so it is uniform whatever the class balance (the article
// reused the selection keys, which sorts the minority class to the end).
SampleOutput sampleStatic(const at::Tensor &features, const at::Tensor &labels, const SamplerConfig &cfg)
{
    return sampleStaticWith(features, labels, cfg, compat::makeGenerator(labels.device(), cfg.seed));
}

SampleOutput sampleStaticWith(const at::Tensor &features, const at::Tensor &labels, const SamplerConfig &cfg,
                              at::Generator gen)
{
    const int64_t B = labels.size(0), N = labels.size(1), K = cfg.k, D = features.size(2);
    const auto fopts = features.options().dtype(at::kFloat);

    const at::Tensor posMask = labels == 1;
    cancelPoint();
    const at::Tensor negMask = labels == 0;
    cancelPoint();
    const at::Tensor P = compat::countNonzeroLastDim(posMask);
    cancelPoint();
    const at::Tensor Q = compat::countNonzeroLastDim(negMask);
    cancelPoint();
    const int64_t targetPos = kernels::targetPositives(K, cfg.targetPosFraction);
    at::Tensor numPos = at::clamp_max(P, targetPos);
    const at::Tensor numNeg = at::minimum(Q, at::rsub(numPos, K));
    numPos = at::where(numNeg < at::rsub(numPos, K), at::minimum(P, at::rsub(numNeg, K)), numPos);
    const at::Tensor valid = numPos + numNeg;
    cancelPoint();

    const int64_t kk = std::min(K, N);
    const at::Tensor keys = at::rand({B, N}, gen, fopts);
    cancelPoint();
    const auto posTop = at::topk(keys.masked_fill(posMask.logical_not(), -1.0), kk, -1);
    cancelPoint();
    const auto negTop = at::topk(keys.masked_fill(negMask.logical_not(), -1.0), kk, -1);
    cancelPoint();
    const at::Tensor slot = at::arange(kk, longOpts(labels)).unsqueeze(0);
    const at::Tensor candIdx = at::cat({std::get<1>(posTop), std::get<1>(negTop)}, 1);
    const at::Tensor candOk = at::cat({slot < numPos.unsqueeze(1), slot < numNeg.unsqueeze(1)}, 1);
    cancelPoint();

    const int64_t W = std::min(K, 2 * kk);
    const at::Tensor orderKeys = at::rand({B, 2 * kk}, gen, fopts).masked_fill(candOk.logical_not(), -1.0);
    const at::Tensor order = std::get<1>(at::topk(orderKeys, W, -1));
    cancelPoint();
    const at::Tensor chosen = at::gather(candIdx, 1, order);
    const at::Tensor slotOk = at::arange(W, longOpts(labels)).unsqueeze(0) < valid.unsqueeze(1);
    const at::Tensor padMask = slotOk.logical_not();
    cancelPoint();

    SampleOutput out;
    out.indices = chosen.masked_fill(padMask, -1);
    cancelPoint();
    out.labels = at::gather(labels, 1, chosen).to(at::kLong).masked_fill(padMask, -1);
    cancelPoint();
    out.features =
        at::gather(features, 1, chosen.unsqueeze(-1).expand({B, W, D})).masked_fill(padMask.unsqueeze(-1), 0);
    cancelPoint();
    if (W < K) {
        out.indices = at::constant_pad_nd(out.indices, {0, K - W}, -1);
        out.labels = at::constant_pad_nd(out.labels, {0, K - W}, -1);
        out.features = at::constant_pad_nd(out.features, {0, 0, 0, K - W}, 0);
    }
    out.valid = valid;
    return out;
}

// The article's opt_sample_data, op for op (torch.where(m, x, -1) is written
// x.masked_fill(~m, -1)); SUB_SAMPLE is cfg.k. Kept to show its defects, which
// its tests assert: the gather index idxs.unsqueeze(-1) returns column 0 only;
// the last topk ranks the winners by the very keys that selected them, so the
// class that keeps most of its items (the minority, whose keys span [0, 1))
// lands behind the other (whose winners are its largest keys); the counts use K//2 whatever the target fraction, and a row with fewer
// than K eligible items is filled with ineligible ones (there is no padding).
SampleOutput sampleArticleStatic(const at::Tensor &features, const at::Tensor &labels, const SamplerConfig &cfg)
{
    const int64_t B = labels.size(0), N = labels.size(1), K = cfg.k;
    if (K > N)
        throw Error("article-static needs K <= N (got K=" + std::to_string(K) + ", N=" + std::to_string(N) +
                    "): the published code calls topk(k=K) on the N labels");
    auto gen = compat::makeGenerator(labels.device(), cfg.seed);
    const at::Tensor posMask = labels == 1;
    cancelPoint();
    const at::Tensor negMask = labels == 0;
    cancelPoint();
    const at::Tensor numPosIdxs = compat::countNonzeroLastDim(posMask);
    const at::Tensor numNegIdxs = compat::countNonzeroLastDim(negMask);
    cancelPoint();
    const int64_t half = K / 2;
    at::Tensor numPos = at::clamp_max(numPosIdxs, half);
    at::Tensor numNeg = at::clamp_max(numNegIdxs, half);
    numPos = at::where(numNeg < half, at::rsub(numNeg, K), numPos);
    numNeg = at::rsub(numPos, K);

    // create random ordering on pos and neg entries
    const at::Tensor rand = at::rand({B, N}, gen, features.options().dtype(at::kFloat));
    cancelPoint();
    const at::Tensor posRand = rand.masked_fill(posMask.logical_not(), -1);
    const at::Tensor negRand = rand.masked_fill(negMask.logical_not(), -1);
    cancelPoint();

    // select top pos entries and invalidate others
    auto posTop = at::topk(posRand, K, -1);
    const at::Tensor arange = at::arange(K, longOpts(labels)).unsqueeze(0);
    const at::Tensor topPosRand = std::get<0>(posTop).masked_fill(arange >= numPos.unsqueeze(-1), -1);
    cancelPoint();
    auto negTop = at::topk(negRand, K, -1);
    const at::Tensor topNegRand = std::get<0>(negTop).masked_fill(arange >= numNeg.unsqueeze(-1), -1);
    cancelPoint();

    // combine and mix together positive and negative idxs
    const at::Tensor catRand = at::cat({topPosRand, topNegRand}, -1);
    const at::Tensor catIdx = at::cat({std::get<1>(posTop), std::get<1>(negTop)}, -1);
    const at::Tensor topkRandIdx = std::get<1>(at::topk(catRand, K, -1));
    cancelPoint();
    const at::Tensor sampledIdxs = at::gather(catIdx, -1, topkRandIdx);
    const at::Tensor sampledInput = at::gather(features, -2, sampledIdxs.unsqueeze(-1));
    cancelPoint();
    const at::Tensor sampledLabels = at::gather(labels, -1, sampledIdxs);

    SampleOutput out;
    out.indices = sampledIdxs;
    out.labels = sampledLabels.to(at::kLong);
    out.features = sampledInput; // [B, K, 1]
    out.valid = at::full({B}, K, longOpts(labels));
    return out;
}

kernels::LabelType kernelLabelType(at::ScalarType t)
{
    switch (t) {
    case at::kByte: return kernels::LabelType::UInt8;
    case at::kInt: return kernels::LabelType::Int32;
    default: return kernels::LabelType::Int64;
    }
}

FusedInputs fusedInputs(const at::Tensor &features, const at::Tensor &labels)
{
    const auto st = labels.scalar_type();
    const bool native = st == at::kByte || st == at::kInt || st == at::kLong;
    return {native ? labels.contiguous() : labels.to(at::kLong).contiguous(), features.contiguous()};
}

kernels::FusedSamplerArgs fusedArgs(const FusedInputs &in, const SamplerConfig &cfg, SampleOutput &out)
{
    const int64_t N = in.labels.size(1), D = in.features.size(2);
    kernels::FusedSamplerArgs a;
    a.labels = in.labels.data_ptr();
    a.labelType = kernelLabelType(in.labels.scalar_type());
    a.batch = in.labels.size(0);
    a.n = N;
    a.labelRowStride = N;
    a.features = static_cast<const uint8_t *>(in.features.data_ptr());
    a.featureRowBytes = D * static_cast<int64_t>(in.features.element_size());
    a.featureBatchStride = N * a.featureRowBytes;
    a.k = cfg.k;
    a.targetPosFraction = cfg.targetPosFraction;
    a.seed = cfg.seed;
    a.outIndices = out.indices.data_ptr<int64_t>();
    a.outLabels = out.labels.data_ptr<int64_t>();
    a.outFeatures = static_cast<uint8_t *>(out.features.data_ptr());
    a.outValid = out.valid.data_ptr<int64_t>();
    return a;
}

void sampleFusedInto(const at::Tensor &features, const at::Tensor &labels, const SamplerConfig &cfg,
                     SampleOutput &out)
{
    validateTensors(features, labels, cfg);
    if (labels.is_cuda())
        throw Error("sampling into caller outputs runs on the CPU only (the labels are on CUDA)");
    useTorchIntraOpPool();
    // No views or copies on the hot path: the kernel reads the (batched or
    // unbatched) inputs in place when they are contiguous.
    const bool batched = labels.dim() == 2;
    const int64_t B = batched ? labels.size(0) : 1, N = labels.size(-1), K = cfg.k, D = features.size(-1);
    const FusedInputs in = fusedInputs(features, labels);
    auto check = [](const char *name, const at::Tensor &t, std::initializer_list<int64_t> shape,
                    at::ScalarType dtype) {
        if (t.defined() && t.sizes() == c10::IntArrayRef(shape) && t.scalar_type() == dtype && t.is_contiguous() &&
            t.device().is_cpu())
            return;
        std::ostringstream want;
        want << c10::IntArrayRef(shape);
        if (!t.defined())
            throw Error(std::string("output ") + name + " is missing (want " + want.str() + ")");
        std::ostringstream got;
        got << t.sizes() << ' ' << t.scalar_type() << (t.is_contiguous() ? "" : " non-contiguous") << " on "
            << t.device();
        throw Error(std::string("output ") + name + " must be a contiguous CPU " + c10::toString(dtype) +
                    " tensor of shape " + want.str() + " (got " + got.str() + ")");
    };
    check("indices", out.indices, {B, K}, at::kLong);
    check("labels", out.labels, {B, K}, at::kLong);
    check("features", out.features, {B, K, D}, in.features.scalar_type());
    check("valid", out.valid, {B}, at::kLong);
    kernels::FusedSamplerArgs a;
    a.labels = in.labels.data_ptr();
    a.labelType = kernelLabelType(in.labels.scalar_type());
    a.batch = B;
    a.n = N;
    a.labelRowStride = N;
    a.features = static_cast<const uint8_t *>(in.features.data_ptr());
    a.featureRowBytes = D * static_cast<int64_t>(in.features.element_size());
    a.featureBatchStride = N * a.featureRowBytes;
    a.k = K;
    a.targetPosFraction = cfg.targetPosFraction;
    a.seed = cfg.seed;
    a.outIndices = out.indices.data_ptr<int64_t>();
    a.outLabels = out.labels.data_ptr<int64_t>();
    a.outFeatures = static_cast<uint8_t *>(out.features.data_ptr());
    a.outValid = out.valid.data_ptr<int64_t>();
    try {
        kernels::fusedSampleCpu(a);
    } catch (const std::exception &e) {
        throw Error(std::string("variant 'fused' failed: ") + e.what());
    }
}

// Our own kernel on the CPU; its outputs live on huge pages (hostalloc.h).
SampleOutput sampleFused(const at::Tensor &features, const at::Tensor &labels, const SamplerConfig &cfg)
{
#if defined(SYNCSCOPE_WITH_CUDA)
    if (labels.is_cuda())
        return sampleFusedCuda(features, labels, cfg);
#endif
    const int64_t B = labels.size(0), K = cfg.k, D = features.size(2);
    const FusedInputs in = fusedInputs(features, labels);
    SampleOutput out;
    out.indices = emptyHostOutput({B, K}, at::kLong);
    out.labels = emptyHostOutput({B, K}, at::kLong);
    out.features = emptyHostOutput({B, K, D}, in.features.scalar_type());
    out.valid = at::empty({B}, longOpts(labels));
    kernels::fusedSampleCpu(fusedArgs(in, cfg, out));
    return out;
}

} // namespace syncscope::lab
