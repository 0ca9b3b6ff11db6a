#pragma once
// Shared by the sampler test files.
#include "lab/variants.h"

#include <string>
#include <vector>

namespace syncscope::test {

// The variants this build can run on the CPU, from the registry.
inline std::vector<std::string> cpuVariants()
{
    std::vector<std::string> v;
    for (const auto &info : lab::allVariants())
        if (lab::variantRunnable(info.name, "cpu", nullptr))
            v.push_back(info.name);
    return v;
}

} // namespace syncscope::test
