// The device type's names: every device reads back from its name, and any
// other name is refused with one sentence that says what would do.
#include "common/error.h"
#include "lab/api/device.h"

#include <gtest/gtest.h>

#include <string>

using namespace syncscope;
using namespace syncscope::lab;

TEST(Device, NamesAreTheFlagsAndTheJsonValues)
{
    EXPECT_STREQ(deviceName(Device::Cpu), "cpu");
    EXPECT_STREQ(deviceName(Device::Cuda), "cuda");
}

TEST(Device, EachNameReadsBackAsItsDevice)
{
    for (const Device d : {Device::Cpu, Device::Cuda})
        EXPECT_EQ(parseDevice(deviceName(d)), d) << deviceName(d);
}

TEST(Device, AnyOtherNameIsRefusedWithOneSentence)
{
    for (const std::string name : {"tpu", "", "CPU", "Cuda", "cuda:0", " cpu"}) {
        try {
            parseDevice(name);
            ADD_FAILURE() << "'" << name << "' accepted";
        } catch (const Error &e) {
            EXPECT_EQ(std::string(e.what()), "device must be 'cpu' or 'cuda' (got '" + name + "')");
        }
    }
}
