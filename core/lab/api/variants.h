#pragma once
// The variant registry as the CLI and the UI see it: names, one-line
// descriptions and properties. No LibTorch here.
#include <string>
#include <vector>

namespace syncscope::lab {

struct VariantInfo {
    std::string name;
    std::string description;
    bool nativeBatch = false; // handles B x N input in one call (else loops over rows)
    bool syncFree = false;    // never reads a device value on the host
    bool needsCuda = false;
    // Whether the variant's step can be captured into a CUDA graph; if not, why.
    bool capturable = false;
    std::string notCapturableReason;
    // A reference kept to show its defects: not held to the output contract
    // (the contract tests skip it; its own tests assert the defects).
    bool reference = false;
};

// Every variant this build knows, in display order.
const std::vector<VariantInfo> &allVariants();
const VariantInfo *findVariant(const std::string &name);
// What this machine can run of them: LabInterface::variantRunnable.

} // namespace syncscope::lab
