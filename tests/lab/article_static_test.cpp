// article-static is the article's published sampler, kept to show its defects.
// These tests assert each defect, so the reference stays faithful: a "fix" to
// it fails here. Statistical thresholds as in testutil.h (fixed seeds).
#include "lab/impl/torchlab.h"
#include "common/error.h"
#include "kernels/countrule.h"
#include "lab/impl/sampler.h"
#include "lab/api/samplerun.h"
#include "lab/api/variants.h"
#include "samplercheck.h"
#include "testutil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

using namespace syncscope;
using namespace syncscope::lab;

namespace {

const char *kArticle = "article-static";

// Mean output slot of the positives over `runs` runs, and the order p-value.
struct OrderResult {
    double meanSlot = 0;
    double orderP = 1;
};

OrderResult orderAtOnePercent(const std::string &variant)
{
    SampleRequest r;
    r.variant = variant;
    r.input = {10000, 1, 1, 0.01, 0.0, 7, Device::Cpu};
    r.k = 1000;
    r.seed = 77;
    const auto st = torchLab().runDistribution(r, 100, nullptr, nullptr);
    double sum = 0, count = 0;
    for (int64_t j = 0; j < r.k; ++j) {
        sum += static_cast<double>(j * st.positiveSlotCount[static_cast<size_t>(j)]);
        count += static_cast<double>(st.positiveSlotCount[static_cast<size_t>(j)]);
    }
    return {count > 0 ? sum / count : -1.0, st.orderP};
}

} // namespace

TEST(ArticleStatic, IsAReferenceOutsideTheContractTests)
{
    const VariantInfo *info = findVariant(kArticle);
    ASSERT_NE(info, nullptr);
    EXPECT_TRUE(info->reference);
    EXPECT_TRUE(info->syncFree);
    EXPECT_NE(info->description.find("published"), std::string::npos) << info->description;
    EXPECT_NE(info->description.find("column 0"), std::string::npos) << info->description;
    const auto names = test::cpuVariants();
    EXPECT_EQ(std::find(names.begin(), names.end(), kArticle), names.end());
    EXPECT_NE(std::find(names.begin(), names.end(), "static"), names.end());
    EXPECT_TRUE(torchLab().variantRunnable(kArticle, Device::Cpu, nullptr));
}

// Defect 1: gather(input, -2, idxs.unsqueeze(-1)) returns [B, K, 1], column 0
// of each chosen row, instead of the full row.
TEST(ArticleStatic, ReturnsOnlyFeatureColumnZero)
{
    const auto in = generateInput(2, 500, 16, 0.5, 0.0, 11, at::Device(at::kCPU));
    const auto out = runVariant(kArticle, in.features, in.labels, {50, 0.5, 5});
    ASSERT_EQ(out.features.sizes(), (std::vector<int64_t>{2, 50, 1}));
    ASSERT_EQ(out.indices.sizes(), (std::vector<int64_t>{2, 50}));
    for (int64_t b = 0; b < 2; ++b)
        for (int64_t j = 0; j < 50; ++j) {
            const int64_t idx = out.indices[b][j].item<int64_t>();
            ASSERT_GE(idx, 0);
            ASSERT_LT(idx, 500);
            EXPECT_EQ(out.features[b][j][0].item<float>(), in.features[b][idx][0].item<float>());
            EXPECT_EQ(out.labels[b][j].item<int64_t>(), in.labels[b][idx].item<int64_t>());
        }
    // The full rows the contract asks for are not there.
    EXPECT_NE(out.features.size(2), in.features.size(2));
}

// Defect 2: the last topk orders the winners by their selection keys. At 1%
// positives the positives sit near slot 914 of 1000, and the order test of the
// Distribution page rejects it, while `static` on the same input passes.
// False-positive rates: `static` fails the 1e-4 bound with probability ~1e-4.
TEST(ArticleStatic, OrdersPositivesLateAtOnePercentAndFailsTheOrderTest)
{
    const OrderResult article = orderAtOnePercent(kArticle);
    EXPECT_GT(article.meanSlot, 850.0);
    EXPECT_LT(article.orderP, 1e-6);
    const OrderResult fixed = orderAtOnePercent("static");
    // ~100 positives a run; the mean of 1e4 positions has sd ~2.9, so 20 is ~7 sd.
    EXPECT_NEAR(fixed.meanSlot, 499.5, 20.0);
    EXPECT_GT(fixed.orderP, test::kStatAlpha);
}

// Defect 3: the counts. The published code splits K as K//2 positives and
// K - K//2 negatives whatever the target fraction; it loses no item for odd K
// (num_neg = K - num_pos), the article's sample_data does (2 * K//2 items).
TEST(ArticleStatic, CountsIgnoreTheTargetFraction)
{
    const at::Tensor labels = lab::samplertest::makeRow(200, 100, 100, 3).unsqueeze(0);
    const at::Tensor features = at::randn({1, 200, 2});
    for (const double f : {0.3, 0.5, 0.9}) {
        for (const int64_t K : {10, 11}) {
            const auto out = runVariant(kArticle, features, labels, {K, f, 1});
            const int64_t pos = (out.labels == 1).sum().item<int64_t>();
            const int64_t neg = (out.labels == 0).sum().item<int64_t>();
            EXPECT_EQ(pos, K / 2) << "f=" << f << " K=" << K;
            EXPECT_EQ(neg, K - K / 2) << "f=" << f << " K=" << K;
            const auto rule = kernels::sampleCounts(100, 100, K, f);
            if (f != 0.5)
                EXPECT_NE(pos, rule.numPos) << "f=" << f << " K=" << K;
        }
    }
}

// ... and with fewer than K eligible items it has no padding: every row claims
// K valid items, and the slots beyond the eligible ones hold ignored items or
// repeats.
TEST(ArticleStatic, FillsShortRowsWithIneligibleItems)
{
    const at::Tensor labels = lab::samplertest::makeRow(30, 2, 1, 5).unsqueeze(0); // 27 ignored
    const at::Tensor features = at::randn({1, 30, 3});
    const auto out = runVariant(kArticle, features, labels, {10, 0.5, 2});
    EXPECT_EQ(out.valid[0].item<int64_t>(), 10);
    std::set<int64_t> eligible;
    int64_t ineligibleOrRepeat = 0;
    for (int64_t j = 0; j < 10; ++j) {
        const int64_t idx = out.indices[0][j].item<int64_t>();
        const int64_t lab = labels[0][idx].item<int64_t>();
        if ((lab == 0 || lab == 1) && eligible.insert(idx).second)
            continue;
        ++ineligibleOrRepeat;
    }
    EXPECT_EQ(eligible.size(), 3u);
    EXPECT_EQ(ineligibleOrRepeat, 7);
}

TEST(ArticleStatic, KAboveNIsOneSentence)
{
    try {
        runVariant(kArticle, at::randn({8, 2}), at::zeros({8}, at::kLong), {9, 0.5, 0});
        FAIL() << "K > N accepted";
    } catch (const Error &e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("K <= N"), std::string::npos) << msg;
        EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
}

TEST(ArticleStatic, SameSeedSameOutput)
{
    const auto in = generateInput(2, 1000, 4, 0.5, 0.1, 21, at::Device(at::kCPU));
    const auto a = runVariant(kArticle, in.features, in.labels, {100, 0.5, 42});
    const auto b = runVariant(kArticle, in.features, in.labels, {100, 0.5, 42});
    const auto c = runVariant(kArticle, in.features, in.labels, {100, 0.5, 43});
    EXPECT_TRUE(a.indices.equal(b.indices));
    EXPECT_FALSE(a.indices.equal(c.indices));
}
