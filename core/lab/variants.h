#pragma once
// The variant registry as the CLI and the UI see it: names, one-line
// descriptions and what this build and machine can run. No LibTorch here.
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

// Whether `variant` can run on `device` ("cpu" or "cuda") here; if not, why.
bool variantRunnable(const std::string &variant, const std::string &device, std::string *why);

// Facts about the linked LibTorch and the machine.
std::string torchVersion();
bool cudaAvailable(std::string *why);
std::string deviceDescription(const std::string &device);

// Throws syncscope::Error with one sentence unless `device` is "cpu" or a usable "cuda".
void checkDevice(const std::string &device);

} // namespace syncscope::lab
