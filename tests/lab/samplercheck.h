#pragma once
// Output-contract checks shared by the CPU and CUDA sampler tests. Tensors may
// live on any device; they are compared on the host.
#include "kernels/countrule.h"
#include "lab/impl/sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace syncscope::lab::samplertest {

// A row with exactly P ones, Q zeros and the rest ignored (-1 or 2), shuffled.
inline at::Tensor makeRow(int64_t n, int64_t P, int64_t Q, uint32_t seed)
{
    std::vector<int64_t> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
        v[i] = i < P ? 1 : (i < P + Q ? 0 : (i % 2 ? -1 : 2));
    std::mt19937 g(seed);
    std::shuffle(v.begin(), v.end(), g);
    return at::tensor(v, at::kLong);
}

// Checks every rule of the output contract for one batched call.
inline void checkOutputOnHost(const at::Tensor &features, const at::Tensor &labels, const SampleOutput &out,
                              int64_t K, double f)
{
    const int64_t B = labels.size(0), D = features.size(2);
    ASSERT_EQ(out.indices.sizes(), (std::vector<int64_t>{B, K}));
    ASSERT_EQ(out.labels.sizes(), (std::vector<int64_t>{B, K}));
    ASSERT_EQ(out.features.sizes(), (std::vector<int64_t>{B, K, D}));
    ASSERT_EQ(out.valid.sizes(), (std::vector<int64_t>{B}));
    for (int64_t b = 0; b < B; ++b) {
        const auto row = labels[b];
        const int64_t P = (row == 1).sum().item<int64_t>(), Q = (row == 0).sum().item<int64_t>();
        const auto want = kernels::sampleCounts(P, Q, K, f);
        const int64_t valid = out.valid[b].item<int64_t>();
        ASSERT_EQ(valid, want.valid()) << "row " << b;
        std::set<int64_t> seen;
        int64_t pos = 0, neg = 0;
        for (int64_t j = 0; j < K; ++j) {
            const int64_t idx = out.indices[b][j].item<int64_t>();
            const int64_t lab = out.labels[b][j].item<int64_t>();
            if (j >= valid) {
                EXPECT_EQ(idx, -1);
                EXPECT_EQ(lab, -1);
                EXPECT_TRUE(out.features[b][j].eq(0).all().item<bool>()) << "padding row " << j;
                continue;
            }
            ASSERT_GE(idx, 0);
            ASSERT_LT(idx, labels.size(1));
            EXPECT_TRUE(seen.insert(idx).second) << "index " << idx << " repeated";
            EXPECT_EQ(lab, row[idx].item<int64_t>());
            EXPECT_TRUE(out.features[b][j].equal(features[b][idx])) << "feature row " << idx;
            pos += lab == 1;
            neg += lab == 0;
            EXPECT_TRUE(lab == 0 || lab == 1) << "an ignored label was sampled";
        }
        EXPECT_EQ(pos, want.numPos) << "row " << b;
        EXPECT_EQ(neg, want.numNeg) << "row " << b;
    }
}

// Any device: copies everything to the host first.
inline void checkOutput(const at::Tensor &features, const at::Tensor &labels, const SampleOutput &out, int64_t K,
                        double f)
{
    const SampleOutput host{out.indices.cpu(), out.labels.cpu(), out.features.cpu(), out.valid.cpu()};
    checkOutputOnHost(features.cpu(), labels.cpu(), host, K, f);
}

struct RowSpec {
    int64_t P, Q;
};

// The count rule and the whole contract on a table of edge cases: odd K, P = 0,
// Q = 0, P + Q < K, f = 0 and 1, B > 1 with differing rows, K > N.
inline void checkContractTable(const std::string &variant, const at::Device &device)
{
    struct Case {
        int64_t n, K;
        double f;
        std::vector<RowSpec> rows;
    };
    const std::vector<Case> cases = {
        {30, 5, 0.5, {{10, 10}}},                           // odd K
        {30, 4, 0.5, {{0, 20}}},                            // P = 0
        {30, 4, 0.5, {{20, 0}}},                            // Q = 0
        {30, 10, 0.5, {{2, 1}}},                            // P + Q < K, ignored rest
        {30, 4, 0.0, {{5, 5}, {5, 2}}},                     // f = 0
        {30, 4, 1.0, {{5, 5}, {1, 5}}},                     // f = 1
        {40, 7, 0.5, {{3, 30}, {30, 3}, {0, 0}, {20, 20}}}, // B > 1, differing rows
        {8, 20, 0.5, {{4, 4}}},                             // K > N
        {1, 1, 0.5, {{1, 0}}},
    };
    int seed = 1;
    for (const auto &c : cases) {
        std::vector<at::Tensor> rows;
        for (const auto &r : c.rows)
            rows.push_back(makeRow(c.n, r.P, r.Q, static_cast<uint32_t>(seed++)));
        const at::Tensor labels = at::stack(rows).to(device);
        const at::Tensor features = at::randn({labels.size(0), c.n, 3}).to(device);
        SCOPED_TRACE("n=" + std::to_string(c.n) + " K=" + std::to_string(c.K) + " f=" + std::to_string(c.f));
        const auto out = runVariant(variant, features, labels, {c.K, c.f, 7});
        checkOutput(features, labels, out, c.K, c.f);
    }
}

} // namespace syncscope::lab::samplertest
