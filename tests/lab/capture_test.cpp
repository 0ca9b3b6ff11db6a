// A capture that is cancelled or fails leaves nothing behind: neither the output
// nor the profiler's intermediate file next to it.
#include "lab/impl/torchlab.h"
#include "common/error.h"
#include "lab/api/capture.h"

#include <gtest/gtest.h>

#include <filesystem>

using namespace syncscope;
namespace fs = std::filesystem;

TEST(Capture, CancelledCaptureLeavesNoFile)
{
    const fs::path dir = fs::temp_directory_path() / ("syncscope-capture-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    lab::CaptureRequest req;
    req.variant = "naive";
    req.point.n = 20000;
    req.point.k = 2000;
    req.steps = 50;
    req.warmup = 1;
    req.outPath = (dir / "t.json").string();
    CancelToken cancel;
    int calls = 0;
    // Cancel once the traced steps run (the profiler's file is open by then).
    ProgressFn progress = [&](double f, const char *) {
        if (f > 0.2 && ++calls == 1)
            cancel.cancel();
    };
    EXPECT_THROW(lab::torchLab().captureTrace(req, progress, &cancel), Cancelled);
    std::vector<std::string> left;
    for (const auto &e : fs::directory_iterator(dir))
        left.push_back(e.path().filename().string());
    EXPECT_TRUE(left.empty()) << "left behind: " << (left.empty() ? "" : left[0]);
    fs::remove_all(dir);
}
