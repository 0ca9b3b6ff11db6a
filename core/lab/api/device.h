#pragma once
// Where the lab runs its work: the host's CPU or a CUDA device. Requests and
// the lab's operations carry this type; its name ("cpu", "cuda") appears only
// where text is read or written: CLI flags, JSON and CSV, the UI's settings and
// labels. Torch-free.
#include <string>

namespace syncscope::lab {

enum class Device { Cpu, Cuda };

// "cpu" or "cuda".
const char *deviceName(Device device);
// The device called `name` ("cpu" or "cuda"); anything else throws
// syncscope::Error: "device must be 'cpu' or 'cuda' (got 'NAME')".
Device parseDevice(const std::string &name);

} // namespace syncscope::lab
