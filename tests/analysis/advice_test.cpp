// The advice rules: the data file, the matching order, the facts a trace gives
// them, and the rules on real traces.
#include "analysis/advice.h"
#include "analysis/jobanalysis.h"
#include "analysis/jsonwriter.h"
#include "analysis/syncphases.h"
#include "common/error.h"
#include "testutil.h"
#include "trace/traceloader.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

using namespace syncscope;
using test::dataPath;
using test::sharedTrace;

namespace {

AdviceFacts facts(std::string sync, std::vector<std::string> chainInnermostFirst,
                  std::vector<std::string> frames = {}, std::string copy = {})
{
    AdviceFacts f;
    f.sync = std::move(sync);
    for (std::string &n : chainInnermostFirst) {
        AdviceChainOp op;
        op.name = std::move(n);
        f.chain.push_back(std::move(op));
    }
    f.frames = std::move(frames);
    f.copy = std::move(copy);
    return f;
}

std::string matched(const AdviceFacts &f, const AdviceRules &rules = builtinAdviceRules())
{
    const int at = matchAdvice(rules, f);
    return at < 0 ? std::string("(none)") : rules.rules[size_t(at)].id;
}

std::string refusal(const std::string &json)
{
    try {
        parseAdviceRules(json, "rules.json");
    } catch (const Error &e) {
        return e.what();
    }
    return "(accepted)";
}

// A one-rule file with `rule`'s fields replacing a valid rule's.
std::string oneRule(const nlohmann::json &patch)
{
    nlohmann::json rule = {{"id", "r"},
                           {"match", {{"ops", {"aten::x"}}}},
                           {"class", "false_dependency"},
                           {"title", "t"},
                           {"why", "w"},
                           {"rewrite", {{"text", "x"}, {"before", "b"}, {"after", "a"}}},
                           {"min_torch", nullptr},
                           {"refs", {"ref"}}};
    rule.merge_patch(patch);
    return nlohmann::json{{"format", 1}, {"rules", nlohmann::json::array({rule})}}.dump();
}

} // namespace

TEST(Advice, TheBuiltInRulesAreTheResourceFileAndHaveEveryNamedId)
{
    std::ifstream in(std::string(SYNCSCOPE_RESOURCES_DIR) + "/advice.json", std::ios::binary);
    ASSERT_TRUE(in) << "resources/advice.json not found";
    std::stringstream ss;
    ss << in.rdbuf();
    EXPECT_EQ(ss.str(), std::string(builtinAdviceJson()));
    const AdviceRules &rules = builtinAdviceRules();
    for (const char *id : {"item",
                           "truthiness",
                           "nonzero",
                           "bool-mask-index",
                           "masked-select",
                           "bool-mask-assign",
                           "cpu-index",
                           "unique",
                           "repeat-interleave",
                           "bincount",
                           "histc",
                           "one-hot",
                           "multinomial",
                           "equal-allclose",
                           "to-host",
                           "to-device-pageable",
                           "pageable-copy",
                           "linalg-check-errors",
                           "ctc-lengths",
                           "grad-scaler",
                           "clip-grad-nonfinite",
                           "explicit-sync",
                           "host-scalar-shape",
                           "hip-to-device-sync",
                           "hip-sync-copy"})
        EXPECT_GE(rules.find(id), 0) << id;
    for (const AdviceRule &r : rules.rules) {
        EXPECT_FALSE(r.before.empty()) << r.id;
        EXPECT_FALSE(r.after.empty()) << r.id;
        EXPECT_NE(r.before, r.after) << r.id;
        EXPECT_EQ(r.why.find('\n'), std::string::npos) << r.id << ": why is one sentence";
    }
}

TEST(Advice, EachRuleOnAHandMadeChain)
{
    struct Case {
        AdviceFacts f;
        const char *want;
    };
    const char *sync = "cudaStreamSynchronize";
    const std::string dtoh = "Memcpy DtoH (Device -> Pageable)", htod = "Memcpy HtoD (Pageable -> Device)";
    AdviceFacts shape = facts(sync, {"aten::_local_scalar_dense", "aten::item"});
    shape.chain[1].next = "aten::zeros";
    AdviceFacts notShape = shape;
    notShape.chain[1].next = "aten::mm";
    const std::vector<Case> cases = {
        {facts(sync, {"aten::_local_scalar_dense", "aten::item"}), "item"},
        {facts(sync, {"aten::_local_scalar_dense"}), "item"},
        {notShape, "item"},
        {shape, "host-scalar-shape"},
        {facts(sync, {"aten::_local_scalar_dense", "aten::item", "aten::is_nonzero"}), "truthiness"},
        {facts(sync, {"aten::nonzero"}), "nonzero"},
        {facts(sync, {"aten::nonzero", "aten::nonzero_numpy", "aten::where"}), "nonzero"},
        {facts(sync, {"aten::nonzero", "aten::argwhere"}), "nonzero"},
        {facts(sync, {"aten::nonzero", "aten::index"}), "bool-mask-index"},
        {facts(sync, {"aten::nonzero", "aten::masked_select"}), "masked-select"},
        {facts(sync, {"aten::nonzero", "aten::_index_put_impl_", "aten::index_put_"}), "bool-mask-assign"},
        {facts(sync, {"aten::copy_", "aten::_to_copy", "aten::to", "aten::index"}, {}, htod), "cpu-index"},
        {facts(sync, {"aten::copy_", "aten::_to_copy", "aten::to", "aten::_index_put_impl_"}, {}, htod),
         "cpu-index"},
        {facts(sync, {"aten::_local_scalar_dense", "aten::item", "aten::_unique2"}), "unique"},
        {facts(sync, {"aten::_local_scalar_dense", "aten::item", "aten::repeat_interleave"}), "repeat-interleave"},
        {facts(sync, {"aten::_local_scalar_dense", "aten::item", "aten::bincount"}), "bincount"},
        {facts(sync, {"aten::_local_scalar_dense", "aten::item", "aten::histc"}), "histc"},
        {facts(sync, {"aten::_local_scalar_dense", "aten::item", "aten::one_hot"}), "one-hot"},
        {facts(sync, {"aten::_local_scalar_dense", "aten::item", "aten::multinomial"}), "multinomial"},
        {facts(sync, {"aten::_local_scalar_dense", "aten::item", "aten::equal"}), "equal-allclose"},
        {facts(sync, {"aten::_local_scalar_dense", "aten::item", "aten::all", "aten::allclose"}),
         "equal-allclose"},
        {facts(sync, {"aten::copy_", "aten::_to_copy", "aten::to"}, {}, dtoh), "to-host"},
        {facts("cudaMemcpyAsync", {"aten::copy_", "aten::_to_copy", "aten::to"}, {}, dtoh), "to-host"},
        {facts(sync, {"aten::copy_", "aten::_to_copy", "aten::to"}, {}, htod), "to-device-pageable"},
        {facts("cudaMemcpyAsync", {"aten::copy_"}, {}, dtoh), "pageable-copy"},
        {facts("cudaMemcpyAsync", {}, {}, dtoh), "pageable-copy"},
        {facts(sync,
               {"aten::_local_scalar_dense", "aten::item", "aten::_linalg_check_errors", "aten::linalg_cholesky"}),
         "linalg-check-errors"},
        {facts(sync, {"aten::copy_", "aten::_to_copy", "aten::to", "aten::_ctc_loss", "aten::ctc_loss"}, {}, dtoh),
         "ctc-lengths"},
        {facts(sync, {"aten::_local_scalar_dense", "aten::item"},
               {"<built-in method item>", "torch/amp/grad_scaler.py(300): _maybe_opt_step", "train.py(9): f"}),
         "grad-scaler"},
        {facts(sync, {"aten::_local_scalar_dense", "aten::item", "aten::is_nonzero"},
               {"torch/nn/utils/clip_grad.py(60): clip_grad_norm_"}),
         "clip-grad-nonfinite"},
        {facts("cudaDeviceSynchronize", {}), "explicit-sync"},
        {facts("cudaEventSynchronize", {"ProfilerStep#3"}), "explicit-sync"},
        {facts("hipStreamSynchronize", {"## forward ##"}), "explicit-sync"},
        // ROCm marks no pinned or pageable memory: the blocking copy call and
        // its direction say it.
        {facts("hipMemcpyWithStream", {"aten::copy_", "aten::_to_copy", "aten::to"}, {},
               "Memcpy HtoD (Host -> Device)"),
         "hip-to-device-sync"},
        {facts("hipMemcpyWithStream", {"aten::copy_", "aten::lift_fresh", "aten::tensor"}, {},
               "Memcpy HtoD (Host -> Device)"),
         "hip-to-device-sync"},
        {facts("hipMemcpy", {"aten::copy_"}, {}, "Memcpy HtoD (Host -> Device)"), "hip-to-device-sync"},
        {facts("hipMemcpyWithStream", {"aten::copy_", "aten::_to_copy", "aten::to"}, {},
               "Memcpy DtoH (Device -> Host)"),
         "to-host"},
        {facts("hipMemcpyWithStream", {"aten::copy_"}, {}, "Memcpy DtoD (Device -> Device)"), "hip-sync-copy"},
        {facts("hipMemcpyDtoH", {}), "hip-sync-copy"},
        // No rule knows these: no guess.
        {facts("cudaDeviceSynchronize", {"aten::mm"}), "(none)"},
        {facts(sync, {"aten::copy_"}, {}, "Memcpy DtoH (Device -> Pinned)"), "(none)"},
        {facts(sync, {"aten::nonzero_static", "my::op"}), "(none)"},
        {facts(sync, {"aten::copy_", "aten::_to_copy", "aten::to"}, {}, "Memcpy DtoD (Device -> Device)"),
         "(none)"},
    };
    for (const Case &c : cases) {
        std::string chain;
        for (const AdviceChainOp &op : c.f.chain)
            chain += op.name + " < ";
        EXPECT_EQ(matched(c.f), c.want) << c.f.sync << " in " << chain << " copy '" << c.f.copy << "'";
    }
}

TEST(Advice, TheOutermostKnownOpDecidesThenTheWalkGoesInward)
{
    // With a device-to-host copy the outer key (aten::to, to-host) wins over
    // the aten::index inside it.
    const std::string dtoh = "Memcpy DtoH (Device -> Pageable)";
    EXPECT_EQ(matched(facts("cudaStreamSynchronize", {"aten::nonzero", "aten::index", "aten::to"}, {}, dtoh)),
              "to-host");
    // The outer key has no rule whose conditions hold: the inner key decides.
    EXPECT_EQ(matched(facts("cudaStreamSynchronize", {"aten::nonzero", "aten::index", "aten::to"})),
              "bool-mask-index");
}

TEST(Advice, InputTypesAndRuleOrderInACustomFile)
{
    const AdviceRules rules = parseAdviceRules(R"({"format": 1, "rules": [
        {"id": "bool-index", "match": {"ops": ["aten::index"], "input_types": ["bool"]}, "class": "data_dependent",
         "title": "t", "why": "w", "rewrite": {"text": "x", "before": "b", "after": "a"}, "refs": ["r"]},
        {"id": "any-index", "match": {"ops": ["aten::index"]}, "class": "intentional",
         "title": "t", "why": "w", "rewrite": {"text": "x", "before": "b", "after": "a"}, "refs": ["r"]}]})",
                                               "custom.json");
    AdviceFacts f = facts("cudaStreamSynchronize", {"aten::nonzero", "aten::index"});
    EXPECT_EQ(matched(f, rules), "any-index");
    f.chain[1].inputTypes = {"float", "bool"};
    EXPECT_EQ(matched(f, rules), "bool-index");
    EXPECT_TRUE(rules.usesInputTypes());
    EXPECT_FALSE(rules.usesFollowedBy());
    EXPECT_EQ(rules.rules[1].cls, AdviceClass::Intentional);
}

TEST(Advice, AMalformedFileIsOneSentenceNamingTheRuleAndTheField)
{
    EXPECT_EQ(refusal(oneRule(nlohmann::json::object())), "(accepted)");
    auto has = [](const std::string &why, const std::string &part) {
        return why.find(part) != std::string::npos && why.find('\n') == std::string::npos;
    };
    EXPECT_TRUE(has(refusal("{"), "the advice rules in rules.json are malformed: not valid JSON"));
    EXPECT_TRUE(has(refusal(R"({"format": 2, "rules": []})"), "'format' is not 1"));
    EXPECT_TRUE(has(refusal(R"({"format": 1, "rules": []})"), "'rules' is not a non-empty list"));
    EXPECT_TRUE(has(refusal(oneRule({{"class", "maybe"}})), "rule 'r': 'class' is 'maybe'"));
    EXPECT_TRUE(has(refusal(oneRule({{"id", "Bad Id"}})), "has a character other than"));
    EXPECT_TRUE(has(refusal(oneRule({{"title", ""}})), "rule 'r': 'title' is empty"));
    EXPECT_TRUE(has(refusal(oneRule({{"why", nullptr}})), "rule 'r': 'why' is missing"));
    EXPECT_TRUE(has(refusal(oneRule({{"rewrite", "use x"}})), "'rewrite' is not an object"));
    EXPECT_TRUE(has(refusal(oneRule({{"rewrite", {{"after", nullptr}}}})), "'after' is missing"));
    EXPECT_TRUE(has(refusal(oneRule({{"min_torch", "next"}})), "'min_torch' is 'next'"));
    EXPECT_TRUE(has(refusal(oneRule({{"refs", nlohmann::json::array()}})), "'refs' is empty"));
    EXPECT_TRUE(has(refusal(oneRule({{"match", {{"ops", nullptr}}}})), "would match every call"));
    EXPECT_TRUE(has(refusal(oneRule({{"match", {{"opz", {"a"}}}}})), "unknown match key 'opz'"));
    EXPECT_TRUE(has(refusal(oneRule({{"colour", "red"}})), "unknown key 'colour'"));
    EXPECT_TRUE(has(refusal(oneRule({{"match", {{"ops", nullptr}, {"sync", {"x"}}, {"inner", {"y"}}}}})),
                    "'inner', 'input_types' and 'followed_by' need 'ops'"));
    EXPECT_TRUE(has(refusal(oneRule({{"match", {{"ops", {1}}}}})), "'ops' has an entry that is not"));
    const std::string two = R"({"format": 1, "rules": [)" +
                            nlohmann::json::parse(oneRule(nlohmann::json::object()))["rules"][0].dump() + "," +
                            nlohmann::json::parse(oneRule(nlohmann::json::object()))["rules"][0].dump() + "]}";
    EXPECT_TRUE(has(refusal(two), "rule 'r': the id is used twice"));
}

TEST(Advice, TorchVersions)
{
    EXPECT_TRUE(torchOlderThan("1.13.1+cu117", "2.0"));
    EXPECT_TRUE(torchOlderThan("1.9", "1.10"));
    EXPECT_FALSE(torchOlderThan("1.10.0", "1.9"));
    EXPECT_FALSE(torchOlderThan("2.0", "2.0.0"));
    EXPECT_FALSE(torchOlderThan("2.1.0a0+git1234", "2.1"));
    EXPECT_FALSE(torchOlderThan("", "2.0"));
    EXPECT_FALSE(torchOlderThan("1.13", ""));
    EXPECT_FALSE(torchOlderThan("nightly", "2.0"));

    EXPECT_EQ(torchVersionFromMetadata(R"({"system": {"torch_env_info": "PyTorch version: 2.1.0+cu121\nOS: x"}})"),
              "2.1.0+cu121");
    EXPECT_EQ(torchVersionFromMetadata(R"({"system": {"torch_env_info": {"torch_version": "1.13.1"}}})"),
              "1.13.1");
    EXPECT_EQ(torchVersionFromMetadata(R"({"system": {"torch_env_info": "PyTorch version: N/A"}})"), "");
    EXPECT_EQ(torchVersionFromMetadata(R"({"system": {}})"), "");
    EXPECT_EQ(torchVersionFromMetadata("[1, 2"), "");
    EXPECT_EQ(torchVersionFromMetadata(""), "");
}

TEST(Advice, FactsFromATraceAndTheAnalysisAttachesThem)
{
    const auto model = loadTrace(dataPath("advice_chains.json"));
    const SyncAnalysis a = analyzeSyncs(*model);
    std::vector<std::pair<std::string, std::string>> got; // (call name at ts, advice)
    for (const SyncCall &c : a.syncCalls)
        got.push_back({std::string(model->str(model->tracks()[c.event.track].name[c.event.index])) + "@" +
                           std::to_string(c.start / 1000),
                       c.advice < 0 ? "(none)" : builtinAdviceRules().rules[size_t(c.advice)].id});
    const std::vector<std::pair<std::string, std::string>> want = {
        {"cudaMemcpyAsync@14", "host-scalar-shape"}, // pageable DtoH copy; item then zeros
        {"cudaStreamSynchronize@20", "host-scalar-shape"},
        {"cudaMemcpyAsync@206", "to-device-pageable"},       // a pageable HtoD copy syncs its stream first
        {"cudaStreamSynchronize@212", "to-device-pageable"}, // the copy launched before it in copy_
        {"cudaStreamSynchronize@430", "linalg-check-errors"},
        {"cudaDeviceSynchronize@610", "(none)"}, // under aten::mm
        {"cudaDeviceSynchronize@800", "explicit-sync"},
    };
    EXPECT_EQ(got, want);
    // The facts behind the first sync.
    const SyncCall &c = a.syncCalls[1];
    const AdviceFacts f = phases::adviceFacts(*model, builtinAdviceRules(), {}, c);
    ASSERT_EQ(f.chain.size(), 3u);
    EXPECT_EQ(f.chain[0].name, "aten::_local_scalar_dense");
    EXPECT_EQ(f.chain[1].name, "aten::item");
    EXPECT_EQ(f.chain[1].next, "aten::zeros");
    EXPECT_EQ(f.chain[2].name, "ProfilerStep#1");
    EXPECT_EQ(f.frames, std::vector<std::string>{"train.py(10): step"});
    EXPECT_EQ(f.copy, ""); // no copy names given
    // Sources take the rule most of their calls match, with the count.
    for (const SyncSource &s : a.sources) {
        EXPECT_LE(s.adviceCalls, s.count);
        EXPECT_GE(s.adviceCalls, 1u);
    }
    // The report carries the ids and the trace's PyTorch version.
    const FileReport r = makeFileReport(*model, a);
    EXPECT_EQ(r.torchVersion, "1.13.1+cu117");
    EXPECT_EQ(r.syncCalls[4].advice, "linalg-check-errors");
}

TEST(Advice, TheJsonOfAnAdviceSaysWhenTheTraceIsOlderThanTheRewrite)
{
    auto json = [](const std::string &id, const std::string &version) {
        JsonWriter w(0);
        writeAdviceJson(w, id, version);
        return nlohmann::json::parse(w.take());
    };
    const nlohmann::json g = json("grad-scaler", "1.13.1+cu117");
    EXPECT_EQ(g["id"], "grad-scaler");
    EXPECT_EQ(g["class"], "data_dependent");
    EXPECT_EQ(g["min_torch"], "2.0");
    EXPECT_EQ(g["needs_newer_torch"], true);
    EXPECT_TRUE(g["rewrite"]["after"].get<std::string>().find("fused=True") != std::string::npos);
    EXPECT_EQ(json("grad-scaler", "2.3.0")["needs_newer_torch"], false);
    EXPECT_EQ(json("grad-scaler", "")["needs_newer_torch"], false);
    EXPECT_EQ(json("item", "1.0")["min_torch"], nullptr);
    EXPECT_TRUE(json("", "").is_null());
    EXPECT_TRUE(json("not-a-rule", "").is_null());
}

TEST(Advice, RulesOnTheSharedTraces)
{
    // The 8-rank DLRM set: x[cpu_index] in aten::index copies the indices over.
    const std::string dlrm = sharedTrace("param_dlrm_8ranks/worker0_step_12.1694128201545.pt.trace.json");
    SYNCSCOPE_REQUIRE_SHARED(dlrm);
    {
        const auto model = loadTrace(dlrm);
        const SyncAnalysis a = analyzeSyncs(*model);
        size_t underIndex = 0;
        for (const SyncCall &c : a.syncCalls) {
            const AdviceFacts f = phases::adviceFacts(*model, builtinAdviceRules(), {}, c);
            bool index = false;
            for (const AdviceChainOp &op : f.chain)
                index = index || op.name == "aten::index";
            if (!index)
                continue;
            ++underIndex;
            ASSERT_GE(c.advice, 0);
            EXPECT_EQ(builtinAdviceRules().rules[size_t(c.advice)].id, "cpu-index");
        }
        EXPECT_GT(underIndex, 0u);
    }
    // hta_cuda_event_sync: `if t:` reads the scalar through aten::is_nonzero ->
    // aten::item -> aten::_local_scalar_dense: truthiness, the outermost known op.
    const std::string event = sharedTrace("hta_cuda_event_sync.json.gz");
    SYNCSCOPE_REQUIRE_SHARED(event);
    {
        const auto model = loadTrace(event);
        const SyncAnalysis a = analyzeSyncs(*model);
        size_t scalar = 0;
        for (const SyncCall &c : a.syncCalls) {
            if (!c.op.valid() ||
                model->str(model->tracks()[c.op.track].name[c.op.index]) != "aten::_local_scalar_dense")
                continue;
            ++scalar;
            ASSERT_GE(c.advice, 0);
            EXPECT_EQ(builtinAdviceRules().rules[size_t(c.advice)].id, "truthiness");
            // The same chain without the bool test is `item`.
            AdviceFacts f = phases::adviceFacts(*model, builtinAdviceRules(), {}, c);
            while (!f.chain.empty() && f.chain.back().name != "aten::item")
                f.chain.pop_back();
            EXPECT_EQ(matched(f), "item");
        }
        EXPECT_EQ(scalar, 2u);
    }
}
