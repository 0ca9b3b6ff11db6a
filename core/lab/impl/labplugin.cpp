// The lab library's side of the seam (api/labinterface.h): the two exported
// extern "C" entry points, which hand out the one TorchLab. Built into
// libsyncscope_lab.so with every other symbol hidden.
#include "lab/impl/torchlab.h"

#define SYNCSCOPE_LAB_EXPORT extern "C" __attribute__((visibility("default")))

SYNCSCOPE_LAB_EXPORT int syncscope_lab_interface_version() { return syncscope::lab::kLabInterfaceVersion; }

SYNCSCOPE_LAB_EXPORT syncscope::lab::LabInterface *syncscope_lab_create(int version)
{
    if (version != syncscope::lab::kLabInterfaceVersion)
        return nullptr;
    return &syncscope::lab::torchLab();
}
