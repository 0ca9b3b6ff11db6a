#include "commands.h"

#include "lab/api/variants.h"
#include "lab/api/labloader.h"

#include <nlohmann/json.hpp>

#include <iostream>

namespace syncscope::cli {

void registerVariants(CLI::App &app, int &exitCode)
{
    auto *cmd = app.add_subcommand("variants", "List the sampler variants and what this build can run.\n"
                                               "Example: syncscope-cli variants --json");
    auto *json = cmd->add_flag("--json", "Print JSON instead of a table");
    cmd->callback([&exitCode, json] {
        guarded(exitCode, [&] {
            lab::LabInterface &lab = lab::requireLab();
            std::string whyCuda;
            const bool cuda = lab.cudaAvailable(&whyCuda);
            if (json->count()) {
                nlohmann::json out;
                out["torch_version"] = lab.torchVersion();
                out["cuda"] = cuda;
                if (!cuda)
                    out["cuda_reason"] = whyCuda;
                out["variants"] = nlohmann::json::array();
                for (const auto &v : lab::allVariants()) {
                    std::string whyCpu, whyGpu;
                    nlohmann::json o{{"name", v.name},
                                     {"description", v.description},
                                     {"native_batch", v.nativeBatch},
                                     {"sync_free", v.syncFree},
                                     {lab::deviceName(lab::Device::Cpu),
                                      lab.variantRunnable(v.name, lab::Device::Cpu, &whyCpu)},
                                     {lab::deviceName(lab::Device::Cuda),
                                      lab.variantRunnable(v.name, lab::Device::Cuda, &whyGpu)}};
                    o["capturable"] = v.capturable;
                    if (!v.capturable)
                        o["not_capturable_reason"] = v.notCapturableReason;
                    if (!whyCpu.empty())
                        o["cpu_reason"] = whyCpu;
                    if (!whyGpu.empty())
                        o["cuda_reason"] = whyGpu;
                    out["variants"].push_back(o);
                }
                std::cout << out.dump(2) << "\n";
                return 0;
            }
            std::cout << "LibTorch " << lab.torchVersion() << ", CUDA "
                      << (cuda ? "available" : "unavailable (" + whyCuda + ")") << "\n\n";
            for (const auto &v : lab::allVariants()) {
                std::string why;
                const bool cpu = lab.variantRunnable(v.name, lab::Device::Cpu, &why);
                const bool gpu = lab.variantRunnable(v.name, lab::Device::Cuda, nullptr);
                std::cout << "  " << v.name << std::string(v.name.size() < 14 ? 14 - v.name.size() : 1, ' ') << "["
                          << (cpu ? "cpu" : "   ") << (gpu ? " cuda" : "     ") << "]  " << v.description << "\n";
            }
            return 0;
        });
    });
}

} // namespace syncscope::cli
