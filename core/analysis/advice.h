#pragma once
// What to write instead: rules that name the sync-free rewrite of a blocking
// call from where it was made (docs/analysis.md "What to change"). The rules are data,
// resources/advice.json, built into the library; parseAdviceRules reads any
// file of that format.
//
// Matching a blocking call (matchAdvice):
//  - its chain: the enclosing cpu_op/user_annotation names, innermost first;
//  - walking the chain from the outermost op inward, at the first op some
//    rule lists in `ops`, the first rule (file order) listing it whose other
//    conditions all hold wins; when none holds there, the walk goes on inward;
//  - rules without `ops` are tried last, in file order;
//  - no rule: no advice ("no known rewrite"), never a guess.
// Conditions of a rule besides `ops` (all must hold; an absent one holds):
//  - inner: one of these ops encloses the call inside the keyed op;
//  - sync: the blocking call's name is one of these;
//  - copy: the call's GPU memcpy (same correlation, else the last one
//    launched before it inside its innermost op) has all of these substrings;
//  - input_types: the keyed op's record_shapes "Input type" has each entry;
//  - frames: one enclosing python_function contains one of these;
//  - followed_by: the next op after the keyed op, at its level on its
//    thread, is one of these;
//  - no_aten_parent: no op of the chain starts with "aten::".
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace syncscope {

enum class AdviceClass : uint8_t { FalseDependency, DataDependent, Intentional };

// "false_dependency", "data_dependent", "intentional".
std::string_view adviceClassName(AdviceClass c);

struct AdviceMatch {
    std::vector<std::string> ops, inner, sync, copy, inputTypes, frames, followedBy;
    bool noAtenParent = false;
};

struct AdviceRule {
    std::string id;
    AdviceMatch match;
    AdviceClass cls = AdviceClass::FalseDependency;
    std::string title, why;
    std::string rewrite, before, after; // the rewrite's text and its code snippet
    std::string minTorch;               // empty: any release
    std::vector<std::string> refs;
};

struct AdviceRules {
    std::vector<AdviceRule> rules;
    // Index of the rule with that id, or -1.
    int find(std::string_view id) const;
    // Whether any rule reads these facts (they cost a look at the trace).
    bool usesInputTypes() const;
    bool usesFollowedBy() const;
};

// Reads the rules; a malformed file is an Error naming `name`, the rule and
// the field, in one sentence.
AdviceRules parseAdviceRules(std::string_view json, const std::string &name);

// The rules built into this program (resources/advice.json), and their text.
const AdviceRules &builtinAdviceRules();
std::string_view builtinAdviceJson();

// What the rules can see of one blocking call.
struct AdviceChainOp {
    std::string name;
    std::vector<std::string> inputTypes; // filled only when some rule reads them
    std::string next;                    // the next op at its level; filled only when read
};
struct AdviceFacts {
    std::string sync;                 // the blocking call's name
    std::vector<AdviceChainOp> chain; // enclosing ops, innermost first
    std::vector<std::string> frames;  // enclosing python_function names, innermost first
    std::string copy;                 // its GPU memcpy's name; empty when none
};

// The index of the rule that matches, or -1.
int matchAdvice(const AdviceRules &rules, const AdviceFacts &facts);

// Whether a PyTorch version ("1.13.1+cu117", "2.1.0a0+git...") is older than
// `minTorch` ("2.0"): numeric parts compared in order, missing parts 0.
// False when either is empty or does not start with a number.
bool torchOlderThan(std::string_view version, std::string_view minTorch);

// What a rule's PyTorch version means for a trace recorded with `torchVersion`
// ("" when unknown), one sentence without its full stop: "Needs PyTorch 2.0;
// this trace was recorded with 1.13.1" when it is older, else "Needs PyTorch
// 2.0 or later"; empty when the rule names no version. The CLI, the report
// and the app all say it this way.
std::string torchNeedSentence(const AdviceRule &rule, std::string_view torchVersion);

// The PyTorch version a trace's top-level "metadata" object states
// (metadata.system.torch_env_info: collect_env's text with "PyTorch version:
// X", or an object with "torch_version"); empty when it states none.
std::string torchVersionFromMetadata(std::string_view metadataJson);

} // namespace syncscope
