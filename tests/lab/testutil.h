#pragma once
// Shared by the sampler test files.
#include "lab/impl/torchlab.h"
#include "lab/api/variants.h"

#include <string>
#include <vector>

namespace syncscope::test {

// The variants this build can run on the CPU and holds to the output contract,
// from the registry (reference variants have their own tests of their defects).
inline std::vector<std::string> cpuVariants()
{
    std::vector<std::string> v;
    for (const auto &info : lab::allVariants())
        if (!info.reference && lab::torchLab().variantRunnable(info.name, lab::Device::Cpu, nullptr))
            v.push_back(info.name);
    return v;
}

} // namespace syncscope::test

// The statistical checks every variant must pass, on any device. Threshold
// 1e-4: a correct sampler fails one with probability ~1e-4 (fixed seeds).
#include "lab/api/samplerun.h"

#include <gtest/gtest.h>

namespace syncscope::test {

constexpr double kStatAlpha = 1e-4;

// N = 40, K = 10, B = 2, with ignored labels: every eligible item equally
// likely, a uniform output order, ignored items never picked.
inline void expectUniformSelection(const std::string &variant, lab::Device device, int64_t runs)
{
    lab::SampleRequest r;
    r.variant = variant;
    r.input = {40, 2, 2, 0.3, 0.1, 123, device};
    r.k = 10;
    r.seed = 1000;
    const auto st = lab::torchLab().runDistribution(r, runs, nullptr, nullptr);
    EXPECT_GT(st.selectionDof, 20);
    EXPECT_GT(st.selectionP, kStatAlpha) << "chi2 " << st.selectionChi2 << " dof " << st.selectionDof;
    EXPECT_GT(st.orderP, kStatAlpha) << "chi2 " << st.orderChi2 << " dof " << st.orderDof;
    for (size_t i = 0; i < st.inputLabels.size(); ++i)
        if (st.inputLabels[i] != 0 && st.inputLabels[i] != 1)
            EXPECT_EQ(st.selectedCount[i], 0);
}

// N = 10000, K = 1000, 1% positives: the article's static sampler puts the
// positives at mean output position ~914 instead of 499.5.
inline void expectUniformOrderAtImbalance(const std::string &variant, lab::Device device)
{
    lab::SampleRequest r;
    r.variant = variant;
    r.input = {10000, 1, 1, 0.01, 0.0, 7, device};
    r.k = 1000;
    r.seed = 77;
    const auto st = lab::torchLab().runDistribution(r, 100, nullptr, nullptr);
    double sum = 0, count = 0;
    for (int64_t j = 0; j < r.k; ++j) {
        sum += static_cast<double>(j * st.positiveSlotCount[j]);
        count += static_cast<double>(st.positiveSlotCount[j]);
    }
    ASSERT_GT(count, 0);
    // ~100 positives a run; the mean of 1e4 positions has sd ~2.9, so 20 is ~7 sd.
    EXPECT_NEAR(sum / count, 499.5, 20.0);
    EXPECT_GT(st.orderP, kStatAlpha) << "chi2 " << st.orderChi2 << " dof " << st.orderDof;
}

} // namespace syncscope::test
