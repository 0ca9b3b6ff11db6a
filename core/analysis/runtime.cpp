#include "analysis/runtime.h"
#include "trace/categories.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace syncscope {

namespace {

bool startsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

} // namespace

const char *runtimeKey(Runtime r)
{
    switch (r) {
    case Runtime::Cuda: return "cuda";
    case Runtime::Hip: return "hip";
    case Runtime::None: break;
    }
    return nullptr;
}

const char *runtimeLabel(Runtime r)
{
    switch (r) {
    case Runtime::Cuda: return "CUDA";
    case Runtime::Hip: return "HIP (ROCm)";
    case Runtime::None: break;
    }
    return "";
}

Runtime runtimeOfCall(std::string_view name)
{
    if (startsWith(name, "hip"))
        return Runtime::Hip;
    if (startsWith(name, "cuda") ||
        (name.size() > 2 && startsWith(name, "cu") && name[2] >= 'A' && name[2] <= 'Z'))
        return Runtime::Cuda;
    return Runtime::None;
}

RuntimeUse detectRuntime(const TraceModel &model)
{
    RuntimeUse use;
    const category::Ids cats(model);
    std::unordered_map<StrId, uint64_t> byName;
    if (cats.runtime != kNoStr || cats.driver != kNoStr)
        for (const Track &t : model.tracks())
            for (uint32_t i = 0; i < t.size(); ++i)
                if (cats.runtimeCall(t.cat[i]))
                    ++byName[t.name[i]];
    std::vector<std::pair<uint64_t, std::string_view>> names;
    for (const auto &kv : byName) {
        const std::string_view n = model.str(kv.first);
        switch (runtimeOfCall(n)) {
        case Runtime::Cuda: use.cudaCalls += kv.second; break;
        case Runtime::Hip: use.hipCalls += kv.second; break;
        case Runtime::None: use.otherCalls += kv.second; break;
        }
        names.emplace_back(kv.second, n);
    }
    use.distinctNames = names.size();
    if (use.hipCalls > use.cudaCalls)
        use.runtime = Runtime::Hip;
    else if (use.cudaCalls > 0)
        use.runtime = Runtime::Cuda;
    if (use.runtime == Runtime::None) {
        std::sort(names.begin(), names.end(), [](const auto &a, const auto &b) {
            return a.first != b.first ? a.first > b.first : a.second < b.second;
        });
        for (size_t i = 0; i < names.size() && i < RuntimeUse::kMaxSeen; ++i)
            use.namesSeen.emplace_back(names[i].second);
    }
    return use;
}

std::string runtimeUnavailableSentence(const RuntimeUse &use)
{
    std::string seen;
    if (use.namesSeen.empty()) {
        seen = "no cuda_runtime or cuda_driver events";
    } else {
        seen = "names seen: ";
        for (size_t i = 0; i < use.namesSeen.size(); ++i)
            seen += (i ? ", " : "") + use.namesSeen[i];
        if (use.distinctNames > use.namesSeen.size())
            seen += " and " + std::to_string(use.distinctNames - use.namesSeen.size()) + " more";
    }
    return "no runtime calls syncscope knows (" + seen + "): sync analysis unavailable";
}

bool isBlockingSyncCall(std::string_view name)
{
    static const std::unordered_set<std::string_view> kNames = {
        "cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize", "cudaMemcpy",
        "cuStreamSynchronize",   "cuCtxSynchronize",      "cuEventSynchronize",   "cuMemcpyDtoH",
        "cuMemcpyDtoH_v2",       "hipStreamSynchronize",  "hipDeviceSynchronize", "hipEventSynchronize",
        "hipCtxSynchronize"};
    if (kNames.count(name) != 0)
        return true;
    // Every synchronous HIP copy: hipMemcpy, hipMemcpyWithStream, hipMemcpyDtoH, hipMemcpy2D, ...
    return startsWith(name, "hipMemcpy") && name.find("Async") == name.npos;
}

bool isAsyncCopyCall(std::string_view name) { return name == "cudaMemcpyAsync" || name == "hipMemcpyAsync"; }

bool isPageableDeviceToHost(std::string_view memcpyName)
{
    return memcpyName.find("DtoH") != memcpyName.npos && memcpyName.find("Pageable") != memcpyName.npos;
}

bool isPageableHostToDevice(std::string_view memcpyName)
{
    return memcpyName.find("HtoD") != memcpyName.npos && memcpyName.find("Pageable") != memcpyName.npos;
}

bool isGraphLaunch(std::string_view name)
{
    return name == "cudaGraphLaunch" || name == "hipGraphLaunch" || name == "cuGraphLaunch";
}

GpuWork gpuWorkOfCorrelation(const TraceModel &model, int64_t correlation)
{
    GpuWork w;
    const category::Ids cats(model);
    if (correlation == kNoValue)
        return w;
    for (const Track &t : model.tracks())
        for (uint32_t i = 0; i < t.size(); ++i)
            if (t.correlation[i] == correlation && cats.gpuActivity(t.cat[i])) {
                ++w.count;
                w.time += t.dur[i];
            }
    return w;
}

std::map<int64_t, std::string> deviceNames(const std::string &devicePropertiesJson)
{
    std::map<int64_t, std::string> out;
    if (devicePropertiesJson.empty())
        return out;
    const nlohmann::json doc = nlohmann::json::parse(devicePropertiesJson, nullptr, false);
    if (!doc.is_array())
        return out;
    for (const nlohmann::json &d : doc) {
        if (!d.is_object())
            continue;
        auto id = d.find("id");
        auto name = d.find("name");
        if (id == d.end() || !id->is_number_integer() || name == d.end() || !name->is_string())
            continue;
        const std::string &n = name->get_ref<const std::string &>();
        if (!n.empty())
            out.emplace(id->get<int64_t>(), n);
    }
    return out;
}

} // namespace syncscope
