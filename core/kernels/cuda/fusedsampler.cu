// Fused CUDA sampler. Per row, with the labels cut into tiles of 32-label words:
//  count   one read pass over the labels: each warp turns 1024 labels into 32
//          positive and 32 negative bitmask words with __ballot_sync, and each
//          tile's (P, Q) is reduced (the only kernel that reads labels);
//  scan    one block per row scans the tile counts into rank offsets and applies
//          the count rule, on the device: no host ever sees P or Q;
//  select  every positive of rank r is kept iff perm_pos(r) < num_pos, a
//          uniformly random num_pos-subset of [0, P); likewise the negatives.
//          A kept item with combined id e (positives 0.., negatives num_pos..)
//          goes to output slot perm_order(e), a uniformly random order. The
//          kernel writes index, label (1 or 0: the class says which, no label
//          re-read) and the full feature row there, and the padding.
// Rows up to 32768 labels take one block and one launch for all three steps.
// Randomness is a pure function of (seed, row, rank): deterministic, with no
// atomics deciding anything, and no state to carry between graph replays.
#include "kernels/cuda/fusedsampler_cuda.h"

#include "common/error.h"
#include "kernels/countrule.h"
#include "kernels/feistel.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <string>

namespace syncscope::kernels {
namespace {

constexpr int kWarp = 32;
constexpr int kTileThreads = 256;       // words per tile: 8192 labels
constexpr int kSingleMaxThreads = 1024; // one block: up to 32768 labels
constexpr int kScanThreads = 1024;
constexpr unsigned kFull = 0xFFFFFFFFu;

void check(cudaError_t rc, const char *what)
{
    if (rc != cudaSuccess)
        throw Error(std::string("CUDA error in the fused sampler (") + what + "): " + cudaGetErrorString(rc));
}

struct RowInfo {
    uint32_t P, Q, numPos, numNeg;
};

struct Params {
    const void *labels;
    int64_t batch, n, words, tiles, labelRowStride;
    const uint8_t *features;
    int64_t rowBytes, featureBatchStride;
    int64_t k, targetPos;
    uint64_t seed;
    int64_t *outIndices, *outLabels, *outValid;
    uint8_t *outFeatures;
    int vecBytes; // 16, 4 or 1: the widest access all feature rows allow
    uint32_t *posMask, *negMask;
    uint64_t *tileCounts, *tileOffsets; // (P | Q << 32) per tile
    RowInfo *rows;
};

__device__ __forceinline__ uint64_t pack(uint32_t pos, uint32_t neg)
{
    return uint64_t(pos) | (uint64_t(neg) << 32);
}

// Exclusive scan of v over the block (blockDim.x a multiple of 32); *total gets
// the sum. Safe to call repeatedly: it ends with a barrier.
__device__ uint64_t blockExclusiveScan(uint64_t v, uint64_t *total)
{
    __shared__ uint64_t warpSums[32];
    const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
    const int warps = blockDim.x / kWarp;
    uint64_t x = v;
    for (int o = 1; o < kWarp; o <<= 1) {
        const uint64_t y = __shfl_up_sync(kFull, x, o);
        if (lane >= o)
            x += y;
    }
    if (lane == kWarp - 1)
        warpSums[warp] = x;
    __syncthreads();
    if (warp == 0) {
        uint64_t s = lane < warps ? warpSums[lane] : 0;
        for (int o = 1; o < kWarp; o <<= 1) {
            const uint64_t y = __shfl_up_sync(kFull, s, o);
            if (lane >= o)
                s += y;
        }
        if (lane < warps)
            warpSums[lane] = s;
    }
    __syncthreads();
    const uint64_t before = warp > 0 ? warpSums[warp - 1] : 0;
    *total = warpSums[warps - 1];
    __syncthreads();
    return before + x - v;
}

// Warp w of the block turns the labels of words [word0 + 32w, word0 + 32w + 32)
// into bitmasks; lane j ends up holding word word0 + 32w + j.
template <typename T>
__device__ void buildWords(const T *lab, int64_t n, int64_t word0, uint32_t &pos, uint32_t &neg)
{
    const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
    const int64_t base = (word0 + int64_t(warp) * kWarp) * 32;
    pos = 0;
    neg = 0;
#pragma unroll 8
    for (int j = 0; j < kWarp; ++j) {
        const int64_t i = base + int64_t(j) * 32 + lane;
        if (base + int64_t(j) * 32 >= n) // warp-uniform
            break;
        const T v = i < n ? lab[i] : T(2);
        const uint32_t pb = __ballot_sync(kFull, v == T(1));
        const uint32_t nb = __ballot_sync(kFull, v == T(0));
        if (lane == j) {
            pos = pb;
            neg = nb;
        }
    }
}

__device__ __forceinline__ void copyRow(const uint8_t *src, uint8_t *dst, int64_t bytes, int vec)
{
    if (vec == 16) {
        const uint4 *s = reinterpret_cast<const uint4 *>(src);
        uint4 *d = reinterpret_cast<uint4 *>(dst);
        for (int64_t w = 0; w < bytes / 16; ++w)
            d[w] = __ldg(s + w);
    } else if (vec == 4) {
        const uint32_t *s = reinterpret_cast<const uint32_t *>(src);
        uint32_t *d = reinterpret_cast<uint32_t *>(dst);
        for (int64_t w = 0; w < bytes / 4; ++w)
            d[w] = __ldg(s + w);
    } else {
        for (int64_t w = 0; w < bytes; ++w)
            dst[w] = src[w];
    }
}

// The kept items of one word of one row go to their output slots.
__device__ void emitWord(const Params &p, int64_t b, int64_t word, uint32_t pos, uint32_t neg, uint32_t rankPos,
                         uint32_t rankNeg, const RowInfo &row)
{
    const uint32_t valid = row.numPos + row.numNeg;
    if (valid == 0)
        return;
    const FeistelPermutation order(valid, permutationKey(p.seed, b, 2));
    int64_t *outIdx = p.outIndices + b * p.k;
    int64_t *outLab = p.outLabels + b * p.k;
    uint8_t *outFeat = p.outFeatures + b * p.k * p.rowBytes;
    const uint8_t *feat = p.features + b * p.featureBatchStride;
    auto emit = [&](uint32_t bit, uint32_t combined, int64_t label) {
        const int64_t i = word * 32 + bit;
        const uint32_t slot = order(combined);
        outIdx[slot] = i;
        outLab[slot] = label;
        copyRow(feat + i * p.rowBytes, outFeat + int64_t(slot) * p.rowBytes, p.rowBytes, p.vecBytes);
    };
    if (pos && row.numPos > 0) {
        // Every positive is kept when num_pos == P: its rank is a fine combined
        // id, the order permutation alone makes the order uniform.
        const bool all = row.numPos == row.P;
        const FeistelPermutation pick(row.P, permutationKey(p.seed, b, 0));
        for (uint32_t m = pos; m; m &= m - 1, ++rankPos) {
            const uint32_t e = all ? rankPos : pick(rankPos);
            if (e < row.numPos)
                emit(__ffs(m) - 1, e, 1);
        }
    }
    if (neg && row.numNeg > 0) {
        const bool all = row.numNeg == row.Q;
        const FeistelPermutation pick(row.Q, permutationKey(p.seed, b, 1));
        for (uint32_t m = neg; m; m &= m - 1, ++rankNeg) {
            const uint32_t e = all ? rankNeg : pick(rankNeg);
            if (e < row.numNeg)
                emit(__ffs(m) - 1, row.numPos + e, 0);
        }
    }
}

// Padding slots [s0, s1) of row b, spread over the block's threads.
__device__ void writePadding(const Params &p, int64_t b, int64_t s0, int64_t s1)
{
    for (int64_t s = s0 + threadIdx.x; s < s1; s += blockDim.x) {
        p.outIndices[b * p.k + s] = -1;
        p.outLabels[b * p.k + s] = -1;
    }
    uint8_t *base = p.outFeatures + (b * p.k) * p.rowBytes;
    const int64_t b0 = s0 * p.rowBytes, b1 = s1 * p.rowBytes;
    if (p.vecBytes >= 4) {
        uint32_t *w = reinterpret_cast<uint32_t *>(base);
        for (int64_t x = b0 / 4 + threadIdx.x; x < b1 / 4; x += blockDim.x)
            w[x] = 0;
    } else {
        for (int64_t x = b0 + threadIdx.x; x < b1; x += blockDim.x)
            base[x] = 0;
    }
}

__device__ RowInfo rowCounts(uint64_t total, int64_t k, int64_t targetPos)
{
    const auto P = static_cast<uint32_t>(total), Q = static_cast<uint32_t>(total >> 32);
    const SampleCounts c = sampleCountsForTarget(P, Q, k, targetPos);
    return {P, Q, static_cast<uint32_t>(c.numPos), static_cast<uint32_t>(c.numNeg)};
}

// Rows of at most 32768 labels: one block per row does count, rule and select.
template <typename T> __global__ void singleBlockKernel(Params p)
{
    for (int64_t b = blockIdx.x; b < p.batch; b += gridDim.x) {
        const T *lab = static_cast<const T *>(p.labels) + b * p.labelRowStride;
        uint32_t pos, neg;
        buildWords(lab, p.n, 0, pos, neg);
        uint64_t total;
        const uint64_t before = blockExclusiveScan(pack(__popc(pos), __popc(neg)), &total);
        const RowInfo row = rowCounts(total, p.k, p.targetPos);
        const int64_t valid = int64_t(row.numPos) + row.numNeg;
        if (threadIdx.x == 0)
            p.outValid[b] = valid;
        emitWord(p, b, threadIdx.x, pos, neg, static_cast<uint32_t>(before), static_cast<uint32_t>(before >> 32),
                 row);
        writePadding(p, b, valid, p.k);
    }
}

template <typename T> __global__ void countKernel(Params p)
{
    const int64_t t = blockIdx.x;
    for (int64_t b = blockIdx.y; b < p.batch; b += gridDim.y) {
        const T *lab = static_cast<const T *>(p.labels) + b * p.labelRowStride;
        uint32_t pos, neg;
        buildWords(lab, p.n, t * kTileThreads, pos, neg);
        const int64_t word = t * kTileThreads + threadIdx.x;
        if (word < p.words) {
            p.posMask[b * p.words + word] = pos;
            p.negMask[b * p.words + word] = neg;
        }
        uint64_t total;
        blockExclusiveScan(pack(__popc(pos), __popc(neg)), &total);
        if (threadIdx.x == 0)
            p.tileCounts[b * p.tiles + t] = total;
    }
}

__global__ void scanKernel(Params p)
{
    for (int64_t b = blockIdx.x; b < p.batch; b += gridDim.x) {
        uint64_t carry = 0;
        for (int64_t t0 = 0; t0 < p.tiles; t0 += blockDim.x) {
            const int64_t t = t0 + threadIdx.x;
            const uint64_t v = t < p.tiles ? p.tileCounts[b * p.tiles + t] : 0;
            uint64_t total;
            const uint64_t before = blockExclusiveScan(v, &total);
            if (t < p.tiles)
                p.tileOffsets[b * p.tiles + t] = carry + before;
            carry += total;
        }
        if (threadIdx.x == 0) {
            const RowInfo row = rowCounts(carry, p.k, p.targetPos);
            p.rows[b] = row;
            p.outValid[b] = int64_t(row.numPos) + row.numNeg;
        }
    }
}

__global__ void selectKernel(Params p)
{
    const int64_t t = blockIdx.x;
    for (int64_t b = blockIdx.y; b < p.batch; b += gridDim.y) {
        const int64_t word = t * kTileThreads + threadIdx.x;
        const uint32_t pos = word < p.words ? p.posMask[b * p.words + word] : 0;
        const uint32_t neg = word < p.words ? p.negMask[b * p.words + word] : 0;
        uint64_t total;
        const uint64_t before = blockExclusiveScan(pack(__popc(pos), __popc(neg)), &total) +
                                p.tileOffsets[b * p.tiles + t];
        const RowInfo row = p.rows[b];
        emitWord(p, b, word, pos, neg, static_cast<uint32_t>(before), static_cast<uint32_t>(before >> 32), row);
        const int64_t valid = int64_t(row.numPos) + row.numNeg, pad = p.k - valid;
        writePadding(p, b, valid + pad * t / p.tiles, valid + pad * (t + 1) / p.tiles);
    }
}

template <typename T>
__global__ void countOnesKernel(const T *lab, int64_t count, bool vectorized, unsigned long long *out)
{
    constexpr int perVec = 16 / sizeof(T);
    unsigned long long local = 0;
    const int64_t stride = int64_t(gridDim.x) * blockDim.x;
    const int64_t vecs = vectorized ? count / perVec : 0;
    const uint4 *v = reinterpret_cast<const uint4 *>(lab);
    for (int64_t x = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; x < vecs; x += stride) {
        union {
            uint4 raw;
            T e[perVec];
        } u;
        u.raw = __ldg(v + x);
#pragma unroll
        for (int j = 0; j < perVec; ++j)
            local += u.e[j] == T(1);
    }
    for (int64_t x = vecs * perVec + int64_t(blockIdx.x) * blockDim.x + threadIdx.x; x < count; x += stride)
        local += lab[x] == T(1);
    uint64_t total;
    blockExclusiveScan(local, &total);
    if (threadIdx.x == 0)
        atomicAdd(out, static_cast<unsigned long long>(total));
}

__global__ void emptyKernel() {}

// The gather floor in one kernel: every thread reads its share of all labels
// (counting positives, so the read cannot be dropped) and copies its share of
// the K full rows at the given sorted indices, with their indices and labels.
template <typename T> __global__ void gatherFloorKernel(GatherFloorArgs a, unsigned long long *outCount)
{
    const int64_t stride = int64_t(gridDim.x) * blockDim.x;
    const int64_t first = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    const T *lab = static_cast<const T *>(a.labels);
    unsigned long long local = 0;
    for (int64_t x = first; x < a.batch * a.n; x += stride)
        local += lab[x] == T(1);
    // Rows move in 4-byte words where they allow it, else bytes.
    const bool words = a.featureRowBytes % 4 == 0;
    const int64_t unit = words ? 4 : 1, units = a.featureRowBytes / unit;
    const int64_t rows = a.batch * a.k;
    for (int64_t x = first; x < rows * units; x += stride) {
        const int64_t r = x / units, u = x % units, b = r / a.k;
        const int64_t idx = a.indices[r];
        const uint8_t *src = a.features + b * a.featureBatchStride + idx * a.featureRowBytes + u * unit;
        uint8_t *dst = a.outFeatures + r * a.featureRowBytes + u * unit;
        if (words)
            *reinterpret_cast<uint32_t *>(dst) = __ldg(reinterpret_cast<const uint32_t *>(src));
        else
            *dst = *src;
        if (u == 0) {
            a.outIndices[r] = idx;
            a.outLabels[r] = static_cast<int64_t>(lab[b * a.n + idx]);
        }
    }
    uint64_t total;
    blockExclusiveScan(local, &total);
    if (threadIdx.x == 0)
        atomicAdd(outCount, static_cast<unsigned long long>(total));
}

int deviceSmCount()
{
    int dev = 0, sms = 0;
    check(cudaGetDevice(&dev), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), "device attribute");
    return sms;
}

struct Layout {
    int64_t words, tiles;
    size_t masks, counts, offsets, rows, total;
};

size_t align256(size_t x) { return (x + 255) / 256 * 256; }

Layout layoutFor(int64_t batch, int64_t n)
{
    Layout l{};
    l.words = (n + 31) / 32;
    l.tiles = (l.words + kTileThreads - 1) / kTileThreads;
    if (l.words <= kSingleMaxThreads)
        return l; // one block per row needs no scratch
    const auto B = static_cast<size_t>(batch);
    l.masks = 0;
    l.counts = l.masks + 2 * align256(B * static_cast<size_t>(l.words) * sizeof(uint32_t));
    l.offsets = l.counts + align256(B * static_cast<size_t>(l.tiles) * sizeof(uint64_t));
    l.rows = l.offsets + align256(B * static_cast<size_t>(l.tiles) * sizeof(uint64_t));
    l.total = l.rows + align256(B * sizeof(RowInfo));
    return l;
}

int vecBytesFor(const FusedSamplerArgs &a)
{
    auto aligned = [&](int v) {
        return a.featureRowBytes % v == 0 && a.featureBatchStride % v == 0 &&
               reinterpret_cast<uintptr_t>(a.features) % v == 0 &&
               reinterpret_cast<uintptr_t>(a.outFeatures) % v == 0;
    };
    return aligned(16) ? 16 : (aligned(4) ? 4 : 1);
}

void validateArgs(const FusedSamplerArgs &a)
{
    if (a.batch < 1 || a.n < 1 || a.k < 1 || a.featureRowBytes < 1)
        throw Error("the fused CUDA sampler needs B, N, K and the feature row size to be at least 1");
    if (a.n > kFusedCudaMaxN)
        throw Error("the fused CUDA sampler takes at most 2^31 - 1 labels per row (got N = " +
                    std::to_string(a.n) + ")");
    if (!a.labels || !a.features || !a.outIndices || !a.outLabels || !a.outFeatures || !a.outValid)
        throw Error("the fused CUDA sampler was given a null pointer");
}

template <typename T> void launchAll(const Params &p, bool single, int singleThreads, cudaStream_t s)
{
    const auto rowsGrid = static_cast<unsigned>(p.batch < 65535 ? p.batch : 65535);
    if (single) {
        singleBlockKernel<T>
            <<<static_cast<unsigned>(p.batch < (1 << 30) ? p.batch : (1 << 30)), singleThreads, 0, s>>>(p);
        return;
    }
    const dim3 grid(static_cast<unsigned>(p.tiles), rowsGrid);
    countKernel<T><<<grid, kTileThreads, 0, s>>>(p);
    scanKernel<<<static_cast<unsigned>(p.batch < (1 << 30) ? p.batch : (1 << 30)), kScanThreads, 0, s>>>(p);
    selectKernel<<<grid, kTileThreads, 0, s>>>(p);
}

} // namespace

size_t fusedSampleCudaWorkspaceBytes(const FusedSamplerArgs &args) { return layoutFor(args.batch, args.n).total; }

void fusedSampleCuda(const FusedSamplerArgs &a, void *workspace, size_t workspaceBytes, void *stream)
{
    validateArgs(a);
    const Layout l = layoutFor(a.batch, a.n);
    if (workspaceBytes < l.total || (l.total > 0 && !workspace))
        throw Error("the fused CUDA sampler needs a workspace of " + std::to_string(l.total) + " bytes (got " +
                    std::to_string(workspaceBytes) + ")");
    Params p{};
    p.labels = a.labels;
    p.batch = a.batch;
    p.n = a.n;
    p.words = l.words;
    p.tiles = l.tiles;
    p.labelRowStride = a.labelRowStride;
    p.features = a.features;
    p.rowBytes = a.featureRowBytes;
    p.featureBatchStride = a.featureBatchStride;
    p.k = a.k;
    p.targetPos = targetPositives(a.k, a.targetPosFraction);
    p.seed = a.seed;
    p.outIndices = a.outIndices;
    p.outLabels = a.outLabels;
    p.outValid = a.outValid;
    p.outFeatures = a.outFeatures;
    p.vecBytes = vecBytesFor(a);
    auto *ws = static_cast<uint8_t *>(workspace);
    const bool single = l.words <= kSingleMaxThreads;
    if (!single) {
        const size_t maskBytes = align256(static_cast<size_t>(a.batch * l.words) * sizeof(uint32_t));
        p.posMask = reinterpret_cast<uint32_t *>(ws + l.masks);
        p.negMask = reinterpret_cast<uint32_t *>(ws + l.masks + maskBytes);
        p.tileCounts = reinterpret_cast<uint64_t *>(ws + l.counts);
        p.tileOffsets = reinterpret_cast<uint64_t *>(ws + l.offsets);
        p.rows = reinterpret_cast<RowInfo *>(ws + l.rows);
    }
    const int singleThreads = static_cast<int>((l.words + kWarp - 1) / kWarp * kWarp);
    auto s = static_cast<cudaStream_t>(stream);
    switch (a.labelType) {
    case LabelType::UInt8: launchAll<uint8_t>(p, single, singleThreads, s); break;
    case LabelType::Int32: launchAll<int32_t>(p, single, singleThreads, s); break;
    case LabelType::Int64: launchAll<int64_t>(p, single, singleThreads, s); break;
    }
    check(cudaGetLastError(), "kernel launch");
}

void labelReadPassCuda(const void *labels, LabelType type, int64_t count, int64_t *outCount, void *stream)
{
    auto s = static_cast<cudaStream_t>(stream);
    check(cudaMemsetAsync(outCount, 0, sizeof(int64_t), s), "clearing the floor's counter");
    if (count < 1)
        return;
    static const int sms = deviceSmCount();
    const int threads = 256;
    const int64_t wanted = (count + threads * 16 - 1) / (threads * 16);
    const auto blocks = static_cast<unsigned>(wanted < sms * 8 ? wanted : sms * 8);
    auto *out = reinterpret_cast<unsigned long long *>(outCount);
    const bool vec = reinterpret_cast<uintptr_t>(labels) % 16 == 0;
    switch (type) {
    case LabelType::UInt8:
        countOnesKernel<<<blocks, threads, 0, s>>>(static_cast<const uint8_t *>(labels), count, vec, out);
        break;
    case LabelType::Int32:
        countOnesKernel<<<blocks, threads, 0, s>>>(static_cast<const int32_t *>(labels), count, vec, out);
        break;
    case LabelType::Int64:
        countOnesKernel<<<blocks, threads, 0, s>>>(static_cast<const int64_t *>(labels), count, vec, out);
        break;
    }
    check(cudaGetLastError(), "floor kernel launch");
}

void gatherFloorCuda(const GatherFloorArgs &args, int64_t *outCount, void *stream)
{
    auto s = static_cast<cudaStream_t>(stream);
    check(cudaMemsetAsync(outCount, 0, sizeof(int64_t), s), "clearing the gather floor's counter");
    const int64_t work = std::max(args.batch * args.n,
                                  args.batch * args.k * std::max<int64_t>(1, args.featureRowBytes / 4));
    if (work < 1)
        return;
    static const int sms = deviceSmCount();
    const int threads = 256;
    const int64_t wanted = (work + threads * 4 - 1) / (threads * 4);
    const auto blocks = static_cast<unsigned>(wanted < sms * 8 ? wanted : sms * 8);
    auto *out = reinterpret_cast<unsigned long long *>(outCount);
    switch (args.labelType) {
    case LabelType::UInt8: gatherFloorKernel<uint8_t><<<blocks, threads, 0, s>>>(args, out); break;
    case LabelType::Int32: gatherFloorKernel<int32_t><<<blocks, threads, 0, s>>>(args, out); break;
    case LabelType::Int64: gatherFloorKernel<int64_t><<<blocks, threads, 0, s>>>(args, out); break;
    }
    check(cudaGetLastError(), "gather floor kernel launch");
}

EmptyGraph::EmptyGraph()
{
    cudaStream_t s = nullptr;
    check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "creating a stream");
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    cudaError_t rc = cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
    if (rc == cudaSuccess) {
        emptyKernel<<<1, 1, 0, s>>>();
        rc = cudaStreamEndCapture(s, &graph);
    }
    if (rc == cudaSuccess)
        rc = cudaGraphInstantiate(&exec, graph, 0);
    cudaStreamDestroy(s);
    if (rc != cudaSuccess) {
        if (graph)
            cudaGraphDestroy(graph);
        check(rc, "building the empty launch-floor graph");
    }
    m_graph = graph;
    m_exec = exec;
}

EmptyGraph::~EmptyGraph()
{
    if (m_exec)
        cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(m_exec));
    if (m_graph)
        cudaGraphDestroy(static_cast<cudaGraph_t>(m_graph));
}

void EmptyGraph::replay(void *stream)
{
    check(cudaGraphLaunch(static_cast<cudaGraphExec_t>(m_exec), static_cast<cudaStream_t>(stream)),
          "replaying the launch-floor graph");
}

} // namespace syncscope::kernels
