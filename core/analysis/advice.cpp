#include "analysis/advice.h"

#include "common/error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

namespace syncscope {

// Defined in the generated advicedata.cpp: resources/advice.json's bytes.
extern const char kBuiltinAdviceJson[];
extern const size_t kBuiltinAdviceJsonSize;

namespace {

using nlohmann::json;

bool contains(const std::vector<std::string> &v, std::string_view s)
{
    return std::find(v.begin(), v.end(), s) != v.end();
}

bool anyContains(const std::vector<std::string> &haystacks, const std::vector<std::string> &needles)
{
    for (const std::string &h : haystacks)
        for (const std::string &n : needles)
            if (h.find(n) != std::string::npos)
                return true;
    return false;
}

class RuleReader {
public:
    explicit RuleReader(std::string name) : m_name(std::move(name)) {}

    [[noreturn]] void fail(const std::string &what) const
    {
        throw Error("the advice rules in " + m_name +
                    " are malformed: " + (m_rule.empty() ? std::string() : "rule '" + m_rule + "': ") + what);
    }

    void setRule(std::string id) { m_rule = std::move(id); }

    std::string text(const json &o, const char *key, bool required) const
    {
        auto it = o.find(key);
        if (it == o.end() || it->is_null()) {
            if (required)
                fail(std::string("'") + key + "' is missing");
            return {};
        }
        if (!it->is_string())
            fail(std::string("'") + key + "' is not a string");
        std::string s = it->get<std::string>();
        if (required && s.empty())
            fail(std::string("'") + key + "' is empty");
        return s;
    }

    std::vector<std::string> texts(const json &o, const char *key) const
    {
        std::vector<std::string> out;
        auto it = o.find(key);
        if (it == o.end())
            return out;
        if (!it->is_array())
            fail(std::string("'") + key + "' is not a list of strings");
        for (const json &v : *it) {
            if (!v.is_string() || v.get<std::string>().empty())
                fail(std::string("'") + key + "' has an entry that is not a non-empty string");
            out.push_back(v.get<std::string>());
        }
        return out;
    }

private:
    std::string m_name, m_rule;
};

// The leading numbers of a version: "1.13.1+cu117" -> {1, 13, 1}.
std::vector<long> versionParts(std::string_view v)
{
    std::vector<long> parts;
    size_t i = 0;
    while (i < v.size() && v[i] >= '0' && v[i] <= '9') {
        long n = 0;
        while (i < v.size() && v[i] >= '0' && v[i] <= '9' && n < 100000)
            n = n * 10 + (v[i++] - '0');
        parts.push_back(n);
        if (i < v.size() && v[i] == '.' && i + 1 < v.size() && v[i + 1] >= '0' && v[i + 1] <= '9')
            ++i;
        else
            break;
    }
    return parts;
}

} // namespace

std::string_view adviceClassName(AdviceClass c)
{
    switch (c) {
    case AdviceClass::FalseDependency: return "false_dependency";
    case AdviceClass::DataDependent: return "data_dependent";
    case AdviceClass::Intentional: return "intentional";
    }
    return "false_dependency";
}

int AdviceRules::find(std::string_view id) const
{
    for (size_t i = 0; i < rules.size(); ++i)
        if (rules[i].id == id)
            return int(i);
    return -1;
}

bool AdviceRules::usesInputTypes() const
{
    return std::any_of(rules.begin(), rules.end(),
                       [](const AdviceRule &r) { return !r.match.inputTypes.empty(); });
}

bool AdviceRules::usesFollowedBy() const
{
    return std::any_of(rules.begin(), rules.end(),
                       [](const AdviceRule &r) { return !r.match.followedBy.empty(); });
}

AdviceRules parseAdviceRules(std::string_view text, const std::string &name)
{
    RuleReader rd(name);
    json doc;
    try {
        doc = json::parse(text.begin(), text.end());
    } catch (const json::parse_error &e) {
        rd.fail(std::string("not valid JSON (") + e.what() + ")");
    }
    if (!doc.is_object())
        rd.fail("the top level is not an object");
    auto format = doc.find("format");
    if (format == doc.end() || !format->is_number_integer() || format->get<int64_t>() != 1)
        rd.fail("'format' is not 1, the only format this program reads");
    auto list = doc.find("rules");
    if (list == doc.end() || !list->is_array() || list->empty())
        rd.fail("'rules' is not a non-empty list");

    static const std::set<std::string> matchKeys = {"ops",    "inner",       "sync",           "copy",
                                                    "frames", "followed_by", "no_aten_parent", "input_types"};
    static const std::set<std::string> ruleKeys = {"id",  "match",   "class",     "title",
                                                   "why", "rewrite", "min_torch", "refs"};
    AdviceRules out;
    std::set<std::string> ids;
    for (const json &r : *list) {
        rd.setRule({});
        if (!r.is_object())
            rd.fail("a rule is not an object");
        AdviceRule rule;
        rule.id = rd.text(r, "id", true);
        for (char c : rule.id)
            if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'))
                rd.fail("the id '" + rule.id + "' has a character other than a-z, 0-9 and '-'");
        rd.setRule(rule.id);
        if (!ids.insert(rule.id).second)
            rd.fail("the id is used twice");
        for (auto it = r.begin(); it != r.end(); ++it)
            if (!ruleKeys.count(it.key()))
                rd.fail("unknown key '" + it.key() + "'");

        auto m = r.find("match");
        if (m == r.end() || !m->is_object())
            rd.fail("'match' is not an object");
        for (auto it = m->begin(); it != m->end(); ++it)
            if (!matchKeys.count(it.key()))
                rd.fail("unknown match key '" + it.key() + "'");
        rule.match.ops = rd.texts(*m, "ops");
        rule.match.inner = rd.texts(*m, "inner");
        rule.match.sync = rd.texts(*m, "sync");
        rule.match.copy = rd.texts(*m, "copy");
        rule.match.inputTypes = rd.texts(*m, "input_types");
        rule.match.frames = rd.texts(*m, "frames");
        rule.match.followedBy = rd.texts(*m, "followed_by");
        if (auto na = m->find("no_aten_parent"); na != m->end()) {
            if (!na->is_boolean())
                rd.fail("'no_aten_parent' is not true or false");
            rule.match.noAtenParent = na->get<bool>();
        }
        const AdviceMatch &mm = rule.match;
        if (mm.ops.empty() && mm.sync.empty() && mm.copy.empty() && mm.frames.empty())
            rd.fail("'match' names no ops, sync calls, copies or frames, so it would match every call");
        if (mm.ops.empty() && (!mm.inner.empty() || !mm.inputTypes.empty() || !mm.followedBy.empty()))
            rd.fail("'inner', 'input_types' and 'followed_by' need 'ops'");

        const std::string cls = rd.text(r, "class", true);
        if (cls == "false_dependency")
            rule.cls = AdviceClass::FalseDependency;
        else if (cls == "data_dependent")
            rule.cls = AdviceClass::DataDependent;
        else if (cls == "intentional")
            rule.cls = AdviceClass::Intentional;
        else
            rd.fail("'class' is '" + cls + "', not false_dependency, data_dependent or intentional");
        rule.title = rd.text(r, "title", true);
        rule.why = rd.text(r, "why", true);
        auto rw = r.find("rewrite");
        if (rw == r.end() || !rw->is_object())
            rd.fail("'rewrite' is not an object with text, before and after");
        rule.rewrite = rd.text(*rw, "text", true);
        rule.before = rd.text(*rw, "before", true);
        rule.after = rd.text(*rw, "after", true);
        rule.minTorch = rd.text(r, "min_torch", false);
        if (!rule.minTorch.empty() && versionParts(rule.minTorch).empty())
            rd.fail("'min_torch' is '" + rule.minTorch + "', not a version such as 2.1");
        rule.refs = rd.texts(r, "refs");
        if (rule.refs.empty())
            rd.fail("'refs' is empty: every rule cites where its rewrite is documented");
        out.rules.push_back(std::move(rule));
    }
    return out;
}

std::string_view builtinAdviceJson() { return {kBuiltinAdviceJson, kBuiltinAdviceJsonSize}; }

const AdviceRules &builtinAdviceRules()
{
    static const AdviceRules rules = parseAdviceRules(builtinAdviceJson(), "the built-in advice.json");
    return rules;
}

int matchAdvice(const AdviceRules &rules, const AdviceFacts &facts)
{
    auto holds = [&](const AdviceRule &r, size_t keyAt) {
        const AdviceMatch &m = r.match;
        if (!m.sync.empty() && !contains(m.sync, facts.sync))
            return false;
        for (const std::string &s : m.copy)
            if (facts.copy.find(s) == std::string::npos)
                return false;
        if (!m.frames.empty() && !anyContains(facts.frames, m.frames))
            return false;
        if (m.noAtenParent)
            for (const AdviceChainOp &op : facts.chain)
                if (op.name.rfind("aten::", 0) == 0)
                    return false;
        if (keyAt == SIZE_MAX)
            return true;
        const AdviceChainOp &key = facts.chain[keyAt];
        if (!m.inner.empty()) {
            bool found = false;
            for (size_t i = 0; i < keyAt && !found; ++i)
                found = contains(m.inner, facts.chain[i].name);
            if (!found)
                return false;
        }
        for (const std::string &t : m.inputTypes)
            if (!contains(key.inputTypes, t))
                return false;
        if (!m.followedBy.empty() && !contains(m.followedBy, key.next))
            return false;
        return true;
    };
    for (size_t at = facts.chain.size(); at-- > 0;) {
        const std::string &op = facts.chain[at].name;
        for (size_t r = 0; r < rules.rules.size(); ++r)
            if (contains(rules.rules[r].match.ops, op) && holds(rules.rules[r], at))
                return int(r);
    }
    for (size_t r = 0; r < rules.rules.size(); ++r)
        if (rules.rules[r].match.ops.empty() && holds(rules.rules[r], SIZE_MAX))
            return int(r);
    return -1;
}

bool torchOlderThan(std::string_view version, std::string_view minTorch)
{
    const std::vector<long> v = versionParts(version), m = versionParts(minTorch);
    if (v.empty() || m.empty())
        return false;
    for (size_t i = 0; i < std::max(v.size(), m.size()); ++i) {
        const long a = i < v.size() ? v[i] : 0, b = i < m.size() ? m[i] : 0;
        if (a != b)
            return a < b;
    }
    return false;
}

std::string torchNeedSentence(const AdviceRule &rule, std::string_view torchVersion)
{
    if (rule.minTorch.empty())
        return {};
    if (torchOlderThan(torchVersion, rule.minTorch))
        return "Needs PyTorch " + rule.minTorch + "; this trace was recorded with " + std::string(torchVersion);
    return "Needs PyTorch " + rule.minTorch + " or later";
}

std::string torchVersionFromMetadata(std::string_view metadataJson)
{
    if (metadataJson.empty())
        return {};
    const json doc = json::parse(metadataJson.begin(), metadataJson.end(), nullptr, false);
    if (!doc.is_object())
        return {};
    auto system = doc.find("system");
    if (system == doc.end() || !system->is_object())
        return {};
    auto env = system->find("torch_env_info");
    if (env == system->end())
        return {};
    std::string version;
    if (env->is_string()) {
        const std::string text = env->get<std::string>();
        const std::string label = "PyTorch version:";
        const size_t at = text.find(label);
        if (at == std::string::npos)
            return {};
        size_t i = at + label.size();
        while (i < text.size() && (text[i] == ' ' || text[i] == '\t'))
            ++i;
        size_t j = i;
        while (j < text.size() && text[j] != '\n' && text[j] != '\r' && text[j] != ' ')
            ++j;
        version = text.substr(i, j - i);
    } else if (env->is_object()) {
        auto v = env->find("torch_version");
        if (v != env->end() && v->is_string())
            version = v->get<std::string>();
    }
    return versionParts(version).empty() ? std::string() : version;
}

} // namespace syncscope
