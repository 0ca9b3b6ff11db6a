#include "lab/api/device.h"

#include "common/error.h"

namespace syncscope::lab {

const char *deviceName(Device device)
{
    switch (device) {
    case Device::Cpu: return "cpu";
    case Device::Cuda: return "cuda";
    }
    return "cpu";
}

Device parseDevice(const std::string &name)
{
    for (const Device d : {Device::Cpu, Device::Cuda})
        if (name == deviceName(d))
            return d;
    throw Error("device must be 'cpu' or 'cuda' (got '" + name + "')");
}

} // namespace syncscope::lab
