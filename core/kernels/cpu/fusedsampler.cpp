// Fused CPU sampler. Per row:
//  1. one read pass over the labels builds a positive and a negative bitmask
//     (64 labels per word) and counts P and Q, in parallel chunks;
//  2. the count rule gives num_pos/num_neg; Floyd's algorithm picks a uniformly
//     random subset of the positive ranks [0, P) and of the negative ranks;
//  3. the rank bitmaps are mapped back to indices through the masks (PDEP where
//     the CPU has BMI2), which reads bitmasks, not labels;
//  4. a Fisher-Yates shuffle gives a uniformly random output order, then the
//     labels and full feature rows are gathered and the padding written.
// Randomness depends only on (seed, row), never on the thread count.
#include "kernels/cpu/fusedsampler.h"

#include "kernels/countrule.h"
#include "kernels/cpu/permutation.h"
#include "kernels/cpu/rng.h"
#include "kernels/cpu/intraoppool.h"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define SYNCSCOPE_X86 1
#endif

namespace syncscope::kernels {
namespace {

constexpr int64_t kMinParallelLabels = int64_t(1) << 16;
constexpr int64_t kPrefetchAhead = 8;

inline int popcount64(uint64_t x) { return __builtin_popcountll(x); }

inline uint64_t pdepPortable(uint64_t src, uint64_t mask)
{
    uint64_t result = 0;
    for (uint64_t bit = 1; mask; bit <<= 1) {
        const uint64_t lowest = mask & (0 - mask);
        if (src & bit)
            result |= lowest;
        mask &= mask - 1;
    }
    return result;
}

#ifdef SYNCSCOPE_X86
__attribute__((target("bmi2"))) inline uint64_t pdepBmi2(uint64_t src, uint64_t mask)
{
    return _pdep_u64(src, mask);
}
#endif

bool cpuHasAvx2()
{
#ifdef SYNCSCOPE_X86
    static const bool has = __builtin_cpu_supports("avx2");
    return has;
#else
    return false;
#endif
}


bool cpuHasBmi2()
{
#ifdef SYNCSCOPE_X86
    static const bool has = __builtin_cpu_supports("bmi2");
    return has;
#else
    return false;
#endif
}

// c bits of the bitmap starting at bit r (c <= 64).
inline uint64_t extractBits(const uint64_t *bitmap, uint64_t r, int c)
{
    if (c == 0)
        return 0;
    const uint64_t w = r >> 6;
    const int o = static_cast<int>(r & 63);
    uint64_t v = bitmap[w] >> o;
    if (o != 0 && o + c > 64)
        v |= bitmap[w + 1] << (64 - o);
    return c == 64 ? v : (v & ((uint64_t(1) << c) - 1));
}

int64_t countBits(const uint64_t *bitmap, uint64_t r0, uint64_t r1)
{
    int64_t total = 0;
    while (r0 < r1) {
        const int c = static_cast<int>(std::min<uint64_t>(64, r1 - r0));
        total += popcount64(extractBits(bitmap, r0, c));
        r0 += c;
    }
    return total;
}

// Uniformly random m-subset of [0, total) as a bitmap (Floyd; the complement when
// m > total / 2 so the work stays O(min(m, total - m))).
void selectRanks(uint64_t total, uint64_t m, std::vector<uint64_t> &bits, Xoshiro256 &rng)
{
    const uint64_t words = (total + 63) / 64;
    bits.assign(words + 1, 0); // +1: extractBits may peek one word past the end
    if (m == 0)
        return;
    const bool invert = m > total / 2;
    const uint64_t pick = invert ? total - m : m;
    for (uint64_t j = total - pick; j < total; ++j) {
        const uint64_t t = rng.below(j + 1);
        uint64_t &word = bits[t >> 6];
        const uint64_t bit = uint64_t(1) << (t & 63);
        if (word & bit)
            bits[j >> 6] |= uint64_t(1) << (j & 63);
        else
            word |= bit;
    }
    if (invert) {
        for (uint64_t w = 0; w < words; ++w)
            bits[w] = ~bits[w];
        if (total & 63)
            bits[words - 1] &= (uint64_t(1) << (total & 63)) - 1;
    }
}

// One 64-label word: bit j of pos/neg says lab[j] == 1 / == 0.
template <typename T> inline void maskWordScalar(const T *p, int count, uint64_t &pm, uint64_t &nm)
{
    pm = 0;
    nm = 0;
    for (int j = 0; j < count; ++j) {
        pm |= uint64_t(p[j] == T(1)) << j;
        nm |= uint64_t(p[j] == T(0)) << j;
    }
}

#ifdef SYNCSCOPE_X86
// The same with AVX2 compares and movemask: the pass stays at memory speed.
__attribute__((target("avx2"))) inline void maskWordAvx2(const int64_t *p, uint64_t &pm, uint64_t &nm)
{
    const __m256i one = _mm256_set1_epi64x(1), zero = _mm256_setzero_si256();
    pm = 0;
    nm = 0;
    for (int j = 0; j < 64; j += 4) {
        const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + j));
        pm |= uint64_t(_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(v, one)))) << j;
        nm |= uint64_t(_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(v, zero)))) << j;
    }
}
__attribute__((target("avx2"))) inline void maskWordAvx2(const int32_t *p, uint64_t &pm, uint64_t &nm)
{
    const __m256i one = _mm256_set1_epi32(1), zero = _mm256_setzero_si256();
    pm = 0;
    nm = 0;
    for (int j = 0; j < 64; j += 8) {
        const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + j));
        pm |= uint64_t(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(v, one)))) << j;
        nm |= uint64_t(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(v, zero)))) << j;
    }
}
__attribute__((target("avx2"))) inline void maskWordAvx2(const uint8_t *p, uint64_t &pm, uint64_t &nm)
{
    const __m256i one = _mm256_set1_epi8(1), zero = _mm256_setzero_si256();
    pm = 0;
    nm = 0;
    for (int j = 0; j < 64; j += 32) {
        const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + j));
        pm |= uint64_t(static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, one)))) << j;
        nm |= uint64_t(static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, zero)))) << j;
    }
}

template <typename T>
__attribute__((target("avx2"))) void buildMasksAvx2(const T *lab, int64_t n, int64_t w0, int64_t w1, uint64_t *pos,
                                                    uint64_t *neg, int64_t &posCount, int64_t &negCount)
{
    int64_t pc = 0, nc = 0;
    for (int64_t w = w0; w < w1; ++w) {
        const int64_t base = w * 64;
        uint64_t pm, nm;
        if (base + 64 <= n)
            maskWordAvx2(lab + base, pm, nm);
        else
            maskWordScalar(lab + base, static_cast<int>(n - base), pm, nm);
        pos[w] = pm;
        neg[w] = nm;
        pc += popcount64(pm);
        nc += popcount64(nm);
    }
    posCount = pc;
    negCount = nc;
}
#endif

template <typename T>
void buildMasks(const T *lab, int64_t n, int64_t w0, int64_t w1, uint64_t *pos, uint64_t *neg, int64_t &posCount,
                int64_t &negCount)
{
#ifdef SYNCSCOPE_X86
    if (cpuHasAvx2()) {
        buildMasksAvx2(lab, n, w0, w1, pos, neg, posCount, negCount);
        return;
    }
#endif
    int64_t pc = 0, nc = 0;
    for (int64_t w = w0; w < w1; ++w) {
        const int64_t base = w * 64;
        uint64_t pm, nm;
        maskWordScalar(lab + base, static_cast<int>(std::min<int64_t>(64, n - base)), pm, nm);
        pos[w] = pm;
        neg[w] = nm;
        pc += popcount64(pm);
        nc += popcount64(nm);
    }
    posCount = pc;
    negCount = nc;
}

template <bool Bmi2>
int64_t mapSelected(const uint64_t *classMask, const uint64_t *sel, int64_t w0, int64_t w1, uint64_t rank,
                    int64_t *out)
{
    int64_t written = 0;
    for (int64_t w = w0; w < w1; ++w) {
        const uint64_t m = classMask[w];
        if (!m)
            continue;
        const int c = popcount64(m);
        const uint64_t bits = extractBits(sel, rank, c);
        rank += c;
        if (!bits)
            continue;
#ifdef SYNCSCOPE_X86
        uint64_t s = Bmi2 ? pdepBmi2(bits, m) : pdepPortable(bits, m);
#else
        uint64_t s = pdepPortable(bits, m);
#endif
        while (s) {
            out[written++] = w * 64 + __builtin_ctzll(s);
            s &= s - 1;
        }
    }
    return written;
}

int64_t mapSelectedDispatch(const uint64_t *classMask, const uint64_t *sel, int64_t w0, int64_t w1, uint64_t rank,
                            int64_t *out)
{
    return cpuHasBmi2() ? mapSelected<true>(classMask, sel, w0, w1, rank, out)
                        : mapSelected<false>(classMask, sel, w0, w1, rank, out);
}

// Item j of the selection (index order) goes to output slot dest[j]: the big
// input is read in index order and only the K-row output is written at random.
struct ScatterArgs {
    const uint8_t *feat;
    int64_t rowBytes;
    const int64_t *sorted;
    const int64_t *dest;
    int64_t numPos;
    int64_t *outIdx;
    int64_t *outLab;
    uint8_t *outFeat;
};

template <typename RowBytes, typename Copy>
inline void scatterLoop(const ScatterArgs &a, int64_t j0, int64_t j1, RowBytes rowBytes, Copy copy)
{
    const int64_t bytes = rowBytes;
    for (int64_t j = j0; j < j1; ++j) {
        if (j + kPrefetchAhead < j1)
            __builtin_prefetch(a.feat + a.sorted[j + kPrefetchAhead] * bytes);
        const int64_t i = a.sorted[j], slot = a.dest[j];
        a.outIdx[slot] = i;
        a.outLab[slot] = j < a.numPos ? 1 : 0;
        copy(a.outFeat + slot * bytes, a.feat + i * bytes, bytes);
    }
}

#ifdef SYNCSCOPE_X86
// A 64-byte row into an aligned output: one streaming store, which skips
// reading the destination line first.
__attribute__((target("avx2"))) void scatterRows64Stream(const ScatterArgs &a, int64_t j0, int64_t j1)
{
    for (int64_t j = j0; j < j1; ++j) {
        if (j + kPrefetchAhead < j1)
            _mm_prefetch(reinterpret_cast<const char *>(a.feat + a.sorted[j + kPrefetchAhead] * 64), _MM_HINT_T0);
        const int64_t i = a.sorted[j], slot = a.dest[j];
        a.outIdx[slot] = i;
        a.outLab[slot] = j < a.numPos ? 1 : 0;
        const auto *src = reinterpret_cast<const __m256i *>(a.feat + i * 64);
        auto *dst = reinterpret_cast<__m256i *>(a.outFeat + slot * 64);
        const __m256i lo = _mm256_loadu_si256(src), hi = _mm256_loadu_si256(src + 1);
        _mm256_stream_si256(dst, lo);
        _mm256_stream_si256(dst + 1, hi);
    }
    _mm_sfence();
}
#endif

void scatterRows(const ScatterArgs &a, int64_t j0, int64_t j1)
{
    auto memcpyRow = [](uint8_t *dst, const uint8_t *src, int64_t bytes) {
        std::memcpy(dst, src, static_cast<size_t>(bytes));
    };
#ifdef SYNCSCOPE_X86
    if (a.rowBytes == 64 && cpuHasAvx2() && (reinterpret_cast<uintptr_t>(a.outFeat) & 63) == 0) {
        scatterRows64Stream(a, j0, j1);
        return;
    }
#endif
    // Fixed row sizes let the compiler inline the copy (D = 8, 16, 32 floats).
    switch (a.rowBytes) {
    case 32: scatterLoop(a, j0, j1, std::integral_constant<int64_t, 32>(), memcpyRow); break;
    case 64: scatterLoop(a, j0, j1, std::integral_constant<int64_t, 64>(), memcpyRow); break;
    case 128: scatterLoop(a, j0, j1, std::integral_constant<int64_t, 128>(), memcpyRow); break;
    default: scatterLoop(a, j0, j1, a.rowBytes, memcpyRow);
    }
}

struct RowScratch {
    std::vector<uint64_t> pos, neg, selPos, selNeg;
    std::vector<int64_t> chunkPos, chunkNeg, outPos, outNeg, selected, dest;
};

// Runs fn(task) for tasks in [0, tasks): on the pool when `parallel`, else inline.
template <typename Fn> void forTasks(bool parallel, int tasks, Fn &&fn)
{
    if (parallel && tasks > 1) {
        const std::function<void(int)> f = fn;
        IntraOpPool::instance().run(tasks, f);
    } else {
        for (int t = 0; t < tasks; ++t)
            fn(t);
    }
}

template <typename T> void sampleRow(const FusedSamplerArgs &a, int64_t b, int chunks, RowScratch &s)
{
    const bool par = chunks > 1;
    const T *lab = static_cast<const T *>(a.labels) + b * a.labelRowStride;
    const int64_t n = a.n;
    const int64_t words = (n + 63) / 64;
    s.pos.resize(words);
    s.neg.resize(words);
    s.chunkPos.assign(chunks, 0);
    s.chunkNeg.assign(chunks, 0);
    auto chunkBegin = [&](int c) { return words * c / chunks; };

    // 1. the one read pass over the labels
    forTasks(par, chunks, [&](int c) {
        buildMasks(lab, n, chunkBegin(c), chunkBegin(c + 1), s.pos.data(), s.neg.data(), s.chunkPos[c],
                   s.chunkNeg[c]);
    });
    int64_t P = 0, Q = 0;
    for (int c = 0; c < chunks; ++c) {
        P += s.chunkPos[c];
        Q += s.chunkNeg[c];
    }
    const SampleCounts counts = sampleCounts(P, Q, a.k, a.targetPosFraction);
    const int64_t valid = counts.valid();

    // 2. which ranks: independent streams per (row, class), so the two run in parallel
    forTasks(par, 2, [&](int cls) {
        Xoshiro256 rng(a.seed, static_cast<uint64_t>(b) * 3 + cls);
        if (cls == 0)
            selectRanks(P, counts.numPos, s.selPos, rng);
        else
            selectRanks(Q, counts.numNeg, s.selNeg, rng);
    });

    // 3. ranks -> indices, positives then negatives, each in index order
    s.selected.resize(static_cast<size_t>(valid));
    int64_t *idx = s.selected.data();
    s.outPos.assign(chunks + 1, 0);
    s.outNeg.assign(chunks + 1, 0);
    std::vector<int64_t> rankPos(chunks + 1, 0), rankNeg(chunks + 1, 0);
    for (int c = 0; c < chunks; ++c) {
        rankPos[c + 1] = rankPos[c] + s.chunkPos[c];
        rankNeg[c + 1] = rankNeg[c] + s.chunkNeg[c];
    }
    if (par) {
        // Serial: N/64 popcounts cost less than a parallel region's join,
        // which on a busy machine can wait a scheduler tick.
        for (int c = 0; c < chunks; ++c) {
            s.outPos[c + 1] = countBits(s.selPos.data(), rankPos[c], rankPos[c + 1]);
            s.outNeg[c + 1] = countBits(s.selNeg.data(), rankNeg[c], rankNeg[c + 1]);
        }
        for (int c = 0; c < chunks; ++c) {
            s.outPos[c + 1] += s.outPos[c];
            s.outNeg[c + 1] += s.outNeg[c];
        }
    }
    forTasks(par, chunks, [&](int c) {
        mapSelectedDispatch(s.pos.data(), s.selPos.data(), chunkBegin(c), chunkBegin(c + 1), rankPos[c],
                            idx + s.outPos[c]);
        mapSelectedDispatch(s.neg.data(), s.selNeg.data(), chunkBegin(c), chunkBegin(c + 1), rankNeg[c],
                            idx + counts.numPos + s.outNeg[c]);
    });

    // 4. a uniformly random order: item j (in index order) goes to slot dest[j].
    // Reading the features in index order keeps the big input's pages and
    // prefetchers on our side; only the K-row output is written at random.
    std::vector<int64_t> &dest = s.dest;
    dest.resize(static_cast<size_t>(valid));
    randomPermutation(dest.data(), valid, a.seed, static_cast<uint64_t>(b) * 3 + 2, par);

    // Items [0, numPos) of the selection are the positives, the rest negatives,
    // so no label is read again.
    ScatterArgs sc;
    sc.feat = a.features + b * a.featureBatchStride;
    sc.rowBytes = a.featureRowBytes;
    sc.sorted = s.selected.data();
    sc.dest = dest.data();
    sc.numPos = counts.numPos;
    sc.outIdx = a.outIndices + b * a.k;
    sc.outLab = a.outLabels + b * a.k;
    sc.outFeat = a.outFeatures + b * a.k * a.featureRowBytes;
    int64_t *outIdx = sc.outIdx;
    int64_t *outLab = sc.outLab;
    uint8_t *outFeat = sc.outFeat;
    const int64_t rb = sc.rowBytes;
    forTasks(par, chunks, [&](int c) {
        scatterRows(sc, valid * c / chunks, valid * (c + 1) / chunks);
        const int64_t p0 = valid + (a.k - valid) * c / chunks, p1 = valid + (a.k - valid) * (c + 1) / chunks;
        for (int64_t slot = p0; slot < p1; ++slot) {
            outIdx[slot] = -1;
            outLab[slot] = -1;
        }
        if (p1 > p0)
            std::memset(outFeat + p0 * rb, 0, static_cast<size_t>((p1 - p0) * rb));
    });
    a.outValid[b] = valid;
}

template <typename T> void sampleAll(const FusedSamplerArgs &a)
{
    const int threads = IntraOpPool::instance().threads();
    if (a.batch >= threads && a.batch > 1) {
        // rows are the parallel unit; each row runs on one thread
        IntraOpPool::instance().run(static_cast<int>(std::min<int64_t>(a.batch, threads * 4)), [&](int task) {
            thread_local RowScratch scratch;
            const int tasks = static_cast<int>(std::min<int64_t>(a.batch, threads * 4));
            for (int64_t b = task; b < a.batch; b += tasks)
                sampleRow<T>(a, b, 1, scratch);
        });
        return;
    }
    thread_local RowScratch scratch;
    const int chunks = (threads > 1 && a.n >= kMinParallelLabels) ? threads * 2 : 1;
    for (int64_t b = 0; b < a.batch; ++b)
        sampleRow<T>(a, b, chunks, scratch);
}

template <typename T> int64_t countOnes(const T *lab, int64_t count)
{
    const int threads = IntraOpPool::instance().threads();
    const int chunks = (threads > 1 && count >= kMinParallelLabels) ? threads : 1;
    std::vector<int64_t> partial(chunks, 0);
    forTasks(chunks > 1, chunks, [&](int c) {
        const int64_t i0 = count * c / chunks, i1 = count * (c + 1) / chunks;
        int64_t total = 0;
        for (int64_t i = i0; i < i1; ++i)
            total += lab[i] == T(1);
        partial[c] = total;
    });
    int64_t total = 0;
    for (auto p : partial)
        total += p;
    return total;
}


// One row copy of the gather floor: the same copies the fused kernel uses.
template <typename RowBytes>
inline void gatherLoop(const uint8_t *feat, int64_t featBatchStride, const int64_t *indices, int64_t j0,
                       int64_t j1, int64_t k, uint8_t *outFeat, RowBytes rowBytes)
{
    const int64_t bytes = rowBytes;
    for (int64_t j = j0; j < j1; ++j) {
        const uint8_t *base = feat + (j / k) * featBatchStride;
        if (j + kPrefetchAhead < j1)
            __builtin_prefetch(feat + ((j + kPrefetchAhead) / k) * featBatchStride +
                               indices[j + kPrefetchAhead] * bytes);
        std::memcpy(outFeat + j * bytes, base + indices[j] * bytes, static_cast<size_t>(bytes));
    }
}

#ifdef SYNCSCOPE_X86
__attribute__((target("avx2"))) void gatherRows64Stream(const uint8_t *feat, int64_t featBatchStride,
                                                        const int64_t *indices, int64_t j0, int64_t j1, int64_t k,
                                                        uint8_t *outFeat)
{
    for (int64_t j = j0; j < j1; ++j) {
        if (j + kPrefetchAhead < j1)
            _mm_prefetch(reinterpret_cast<const char *>(feat + ((j + kPrefetchAhead) / k) * featBatchStride +
                                                        indices[j + kPrefetchAhead] * 64),
                         _MM_HINT_T0);
        const auto *src = reinterpret_cast<const __m256i *>(feat + (j / k) * featBatchStride + indices[j] * 64);
        auto *dst = reinterpret_cast<__m256i *>(outFeat + j * 64);
        const __m256i lo = _mm256_loadu_si256(src), hi = _mm256_loadu_si256(src + 1);
        _mm256_stream_si256(dst, lo);
        _mm256_stream_si256(dst + 1, hi);
    }
    _mm_sfence();
}
#endif

void gatherRows(const GatherFloorArgs &a, int64_t j0, int64_t j1)
{
#ifdef SYNCSCOPE_X86
    if (a.featureRowBytes == 64 && cpuHasAvx2() && (reinterpret_cast<uintptr_t>(a.outFeatures) & 63) == 0) {
        gatherRows64Stream(a.features, a.featureBatchStride, a.indices, j0, j1, a.k, a.outFeatures);
        return;
    }
#endif
    switch (a.featureRowBytes) {
    case 32:
        gatherLoop(a.features, a.featureBatchStride, a.indices, j0, j1, a.k, a.outFeatures,
                   std::integral_constant<int64_t, 32>());
        break;
    case 64:
        gatherLoop(a.features, a.featureBatchStride, a.indices, j0, j1, a.k, a.outFeatures,
                   std::integral_constant<int64_t, 64>());
        break;
    case 128:
        gatherLoop(a.features, a.featureBatchStride, a.indices, j0, j1, a.k, a.outFeatures,
                   std::integral_constant<int64_t, 128>());
        break;
    default:
        gatherLoop(a.features, a.featureBatchStride, a.indices, j0, j1, a.k, a.outFeatures, a.featureRowBytes);
    }
}

// One parallel region: task t reads its share of all B*N labels and gathers
// its share of all B*K rows.
template <typename T> int64_t gatherFloorT(const GatherFloorArgs &a)
{
    const T *lab = static_cast<const T *>(a.labels);
    const int64_t labels = a.batch * a.n, items = a.batch * a.k;
    const int threads = IntraOpPool::instance().threads();
    const int tasks = (threads > 1 && labels >= kMinParallelLabels) ? threads : 1;
    std::vector<int64_t> partial(static_cast<size_t>(tasks), 0);
    forTasks(tasks > 1, tasks, [&](int t) {
        const int64_t i0 = labels * t / tasks, i1 = labels * (t + 1) / tasks;
        int64_t ones = 0;
        for (int64_t i = i0; i < i1; ++i)
            ones += lab[i] == T(1);
        partial[static_cast<size_t>(t)] = ones;
        const int64_t j0 = items * t / tasks, j1 = items * (t + 1) / tasks;
        for (int64_t j = j0; j < j1; ++j) {
            const int64_t idx = a.indices[j];
            a.outIndices[j] = idx;
            a.outLabels[j] = static_cast<int64_t>(lab[(j / a.k) * a.n + idx]);
        }
        gatherRows(a, j0, j1);
    });
    int64_t total = 0;
    for (auto p : partial)
        total += p;
    return total;
}
} // namespace

void fusedSampleCpu(const FusedSamplerArgs &args)
{
    switch (args.labelType) {
    case LabelType::UInt8: sampleAll<uint8_t>(args); break;
    case LabelType::Int32: sampleAll<int32_t>(args); break;
    case LabelType::Int64: sampleAll<int64_t>(args); break;
    }
}

int64_t gatherFloorCpu(const GatherFloorArgs &args)
{
    if (args.k <= 0 || args.batch <= 0)
        return 0;
    switch (args.labelType) {
    case LabelType::UInt8: return gatherFloorT<uint8_t>(args);
    case LabelType::Int32: return gatherFloorT<int32_t>(args);
    case LabelType::Int64: return gatherFloorT<int64_t>(args);
    }
    return 0;
}

void sortedRandomSubset(int64_t n, int64_t k, uint64_t seed, uint64_t stream, int64_t *out)
{
    if (n <= 0 || k <= 0)
        return;
    k = std::min(k, n);
    Xoshiro256 rng(seed, stream);
    std::vector<uint64_t> bits;
    selectRanks(static_cast<uint64_t>(n), static_cast<uint64_t>(k), bits, rng);
    int64_t written = 0;
    for (int64_t w = 0; w < (n + 63) / 64; ++w) {
        uint64_t word = bits[static_cast<size_t>(w)];
        while (word) {
            out[written++] = w * 64 + __builtin_ctzll(word);
            word &= word - 1;
        }
    }
}

int64_t labelReadPassCpu(const void *labels, LabelType type, int64_t count)
{
    switch (type) {
    case LabelType::UInt8: return countOnes(static_cast<const uint8_t *>(labels), count);
    case LabelType::Int32: return countOnes(static_cast<const int32_t *>(labels), count);
    case LabelType::Int64: return countOnes(static_cast<const int64_t *>(labels), count);
    }
    return 0;
}

} // namespace syncscope::kernels
