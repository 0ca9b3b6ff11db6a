#include "analysis/whatif.h"

#include "analysis/advice.h"

#include "analysis/jsonwriter.h"
#include "analysis/limittext.h"
#include "analysis/syncreplay.h"
#include "common/error.h"

#include <algorithm>

namespace syncscope {

WhatIfSpec parseWhatIfSpec(const std::string &text)
{
    WhatIfSpec s;
    s.text = text;
    auto bad = [&](const std::string &why) {
        throw Error(
            "--what-if '" + text + "': " + why +
            " (give sync=, op= or frame= substrings or an advice= rule id, comma-joined, e.g. op=aten::item)");
    };
    size_t at = 0;
    bool any = false;
    while (at <= text.size()) {
        const size_t comma = text.find(',', at);
        const std::string part = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
        at = comma == std::string::npos ? text.size() + 1 : comma + 1;
        if (part.empty())
            continue;
        const size_t eq = part.find('=');
        if (eq == std::string::npos)
            bad("'" + part + "' is not key=value");
        const std::string key = part.substr(0, eq), value = part.substr(eq + 1);
        if (value.empty())
            bad("'" + key + "=' has no value");
        if (key == "sync") {
            s.sync = value;
            s.hasSync = true;
        } else if (key == "op") {
            s.op = value;
            s.hasOp = true;
        } else if (key == "frame") {
            s.frame = value;
            s.hasFrame = true;
        } else if (key == "advice") {
            if (builtinAdviceRules().find(value) < 0) {
                std::string ids;
                for (const AdviceRule &r : builtinAdviceRules().rules)
                    ids += (ids.empty() ? "" : ", ") + r.id;
                bad("there is no advice rule '" + value + "' (the rules: " + ids + ")");
            }
            s.advice = value;
            s.hasAdvice = true;
        } else {
            bad("unknown key '" + key + "'");
        }
        any = true;
    }
    if (!any)
        bad("it selects nothing");
    return s;
}

bool whatIfSelects(const WhatIfSpec &spec, const RankSource &source)
{
    if (spec.hasSync && source.sync.find(spec.sync) == std::string::npos)
        return false;
    if (spec.hasOp && (!source.hasOp || source.op.find(spec.op) == std::string::npos))
        return false;
    if (spec.hasFrame && (!source.hasUserFrame || source.userFrame.find(spec.frame) == std::string::npos))
        return false;
    return true;
}

bool whatIfSelects(const WhatIfSpec &spec, const RankSource &source, size_t k)
{
    if (!whatIfSelects(spec, source))
        return false;
    return !spec.hasAdvice || (k < source.callAdvice.size() && source.callAdvice[k] == spec.advice);
}

WhatIf analyzeWhatIf(const std::vector<RankInput> &files, const std::vector<WhatIfSpec> &specs)
{
    WhatIf out;
    for (const WhatIfSpec &s : specs)
        out.specs.push_back(s.text);
    std::vector<std::vector<size_t>> byFile(files.size());
    for (size_t f = 0; f < files.size(); ++f) {
        const RankInput &r = files[f];
        std::vector<size_t> &calls = byFile[f];
        for (const RankSource &src : r.sources) {
            bool chosen = false;
            for (size_t k = 0; k < src.calls.size(); ++k) {
                const bool call = std::any_of(specs.begin(), specs.end(),
                                              [&](const WhatIfSpec &s) { return whatIfSelects(s, src, k); });
                if (call)
                    calls.push_back(src.calls[k]);
                chosen = chosen || call;
            }
            out.selectedSources += chosen;
        }
        std::sort(calls.begin(), calls.end());
        calls.erase(std::unique(calls.begin(), calls.end()), calls.end());
        out.selectedCalls += calls.size();
        SyncReplay replay(r.replay);
        const std::vector<TimeNs> saved = replay.run(calls);
        // A call in a sentence: its source's sync and op.
        const auto callText = [&](size_t c) {
            for (const RankSource &src : r.sources)
                if (std::find(src.calls.begin(), src.calls.end(), uint32_t(c)) != src.calls.end())
                    return src.sync + (src.hasOp ? " in " + src.op : std::string());
            return std::string("a blocking call");
        };
        for (size_t d = 0; d < r.replay.deviceIds.size() && d < saved.size(); ++d) {
            WhatIfDevice dev{f, r.replay.deviceIds[d], saved[d]};
            if (!calls.empty()) {
                const ReplayLimit limit = replay.limitedBy(calls, d);
                dev.limitKind = limitKindName(limit.kind);
                dev.limitText = limitSentence(limit, r.replay, callText, r.origin);
            }
            out.devices.push_back(std::move(dev));
        }
    }
    if (files.size() >= 2) {
        out.hasJob = true;
        out.jobAvoidable = jobWhatIfSaving(files, byFile);
    }
    return out;
}

void writeWhatIfJson(JsonWriter &w, const WhatIf &whatIf)
{
    w.key("what_if").beginObject();
    w.key("specs").beginArray();
    for (const std::string &s : whatIf.specs)
        w.value(s);
    w.endArray();
    w.key("selected_sources").value(whatIf.selectedSources);
    w.key("selected_calls").value(whatIf.selectedCalls);
    w.key("devices").beginArray();
    for (const WhatIfDevice &d : whatIf.devices) {
        w.beginObject();
        w.key("file").value(uint64_t(d.file));
        w.key("device").value(d.device);
        w.key("avoidable_us").micros(d.avoidable);
        w.key("limited_by").beginObject();
        w.key("kind").value(d.limitKind);
        w.key("text").value(d.limitText);
        w.endObject();
        w.endObject();
    }
    w.endArray();
    if (whatIf.hasJob)
        w.key("job_avoidable_us").micros(whatIf.jobAvoidable);
    w.endObject();
}

} // namespace syncscope
