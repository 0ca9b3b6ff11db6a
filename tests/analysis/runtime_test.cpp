// CUDA and HIP as runtimes: the name rules, the runtime of a trace, device names
// from deviceProperties, and the verdicts on two hand-made traces whose figures
// are worked out by hand (tests/data/hip_item_sync.json, graph_launch.json).
#include "analysis/jobanalysis.h"
#include "analysis/runtime.h"
#include "testutil.h"
#include "trace/traceloader.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>

using namespace syncscope;

namespace {

std::string nameOf(const TraceModel &m, const EventRef &r)
{
    return r.valid() ? std::string(m.str(m.tracks()[r.track].name[r.index])) : std::string("-");
}

} // namespace

TEST(Runtime, BlockingNames)
{
    for (const char *n :
         {"hipStreamSynchronize", "hipDeviceSynchronize", "hipEventSynchronize", "hipCtxSynchronize", "hipMemcpy",
          "hipMemcpyWithStream", "hipMemcpyDtoH", "hipMemcpyHtoD", "hipMemcpyDtoD", "hipMemcpy2D", "hipMemcpyPeer",
          "hipMemcpyToSymbol", "cudaStreamSynchronize", "cudaMemcpy", "cuMemcpyDtoH_v2"})
        EXPECT_TRUE(isBlockingSyncCall(n)) << n;
    for (const char *n : {"hipMemcpyAsync", "hipMemcpyDtoHAsync", "hipMemcpy2DAsync", "hipMemcpyPeerAsync",
                          "hipLaunchKernel", "hipGraphLaunch", "hipStreamWaitEvent", "hipMemsetAsync",
                          "cudaMemcpyAsync", "cudaLaunchKernel", "hipmemcpy", ""})
        EXPECT_FALSE(isBlockingSyncCall(n)) << n;
    EXPECT_TRUE(isAsyncCopyCall("hipMemcpyAsync"));
    EXPECT_TRUE(isAsyncCopyCall("cudaMemcpyAsync"));
    EXPECT_FALSE(isAsyncCopyCall("hipMemcpyWithStream"));
    // ROCm's copy names carry no pageable mark.
    EXPECT_FALSE(isPageableDeviceToHost("Memcpy DtoH (Device -> Host)"));
    EXPECT_TRUE(isPageableDeviceToHost("Memcpy DtoH (Device -> Pageable)"));
    EXPECT_TRUE(isGraphLaunch("hipGraphLaunch"));
    EXPECT_TRUE(isGraphLaunch("cudaGraphLaunch"));
    EXPECT_FALSE(isGraphLaunch("hipLaunchKernel"));
}

TEST(Runtime, OfCall)
{
    EXPECT_EQ(runtimeOfCall("hipExtModuleLaunchKernel"), Runtime::Hip);
    EXPECT_EQ(runtimeOfCall("cudaLaunchKernel"), Runtime::Cuda);
    EXPECT_EQ(runtimeOfCall("cuLaunchKernel"), Runtime::Cuda);
    EXPECT_EQ(runtimeOfCall("curious"), Runtime::None);
    EXPECT_EQ(runtimeOfCall("INVALID"), Runtime::None);
    EXPECT_STREQ(runtimeKey(Runtime::Hip), "hip");
    EXPECT_STREQ(runtimeKey(Runtime::Cuda), "cuda");
    EXPECT_EQ(runtimeKey(Runtime::None), nullptr);
}

TEST(Runtime, DeviceNames)
{
    const auto names = deviceNames(
        R"([{"id":0,"name":""},{"id":2,"name":"AMD Instinct MI300X"},{"name":"no id"},{"id":"3","name":"x"},7])");
    ASSERT_EQ(names.size(), 1u);
    EXPECT_EQ(names.at(2), "AMD Instinct MI300X");
    EXPECT_TRUE(deviceNames("").empty());
    EXPECT_TRUE(deviceNames("{\"id\":0,\"name\":\"a\"}").empty());
    EXPECT_TRUE(deviceNames("[{\"id\":0,").empty()); // malformed: no names, no throw
}

TEST(Runtime, DetectedPerTrace)
{
    auto detect = [](const std::string &events) {
        auto m = loadTraceFromMemory(R"({"traceEvents":[)" + events + "]}", "runtime.json");
        return detectRuntime(*m);
    };
    const RuntimeUse hip = detect(
        R"({"ph":"X","cat":"cuda_runtime","name":"hipLaunchKernel","pid":1,"tid":1,"ts":1,"dur":1},
           {"ph":"X","cat":"cuda_runtime","name":"hipLaunchKernel","pid":1,"tid":1,"ts":3,"dur":1},
           {"ph":"X","cat":"cuda_runtime","name":"cudaFree","pid":1,"tid":1,"ts":5,"dur":1})");
    EXPECT_EQ(hip.runtime, Runtime::Hip);
    EXPECT_EQ(hip.hipCalls, 2u);
    EXPECT_EQ(hip.cudaCalls, 1u);
    const RuntimeUse legacy =
        detect(R"({"ph":"X","cat":"Runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1,"dur":1})");
    EXPECT_EQ(legacy.runtime, Runtime::Cuda);
    const RuntimeUse none = detect(
        R"({"ph":"X","cat":"cuda_runtime","name":"INVALID","pid":1,"tid":1,"ts":1,"dur":1},
           {"ph":"X","cat":"cuda_runtime","name":"INVALID","pid":1,"tid":1,"ts":3,"dur":1},
           {"ph":"X","cat":"cuda_runtime","name":"mystery","pid":1,"tid":1,"ts":5,"dur":1},
           {"ph":"X","cat":"cpu_op","name":"hipNotARuntimeCall","pid":1,"tid":1,"ts":7,"dur":1})");
    EXPECT_EQ(none.runtime, Runtime::None);
    EXPECT_EQ(none.otherCalls, 3u);
    EXPECT_EQ(runtimeUnavailableSentence(none),
              "no runtime calls syncscope knows (names seen: INVALID, mystery): sync analysis unavailable");
    const RuntimeUse cpuOnly =
        detect(R"({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":1,"dur":1})");
    EXPECT_EQ(cpuOnly.runtime, Runtime::None);
    EXPECT_EQ(runtimeUnavailableSentence(cpuOnly), "no runtime calls syncscope knows (no cuda_runtime or "
                                                   "cuda_driver events): sync analysis unavailable");
}

// hip_item_sync.json (us): .item() on ROCm. hipMemcpyWithStream [110, 390] under
// aten::_local_scalar_dense under aten::item; its copy [200, 210]; kernels
// [20, 200] and [430, 500]; a hipMemcpyAsync whose copy "Memcpy DtoH (Device ->
// Host)" [500, 505] has no pageable mark, so it is no sync. Device 2 (args.device).
//  busy 180 + 10 + 70 + 5 = 265, span 505 - 20 = 485, idle 220 = the gap [210, 430],
//  which the copy call ends in (390). Replay without it: head start 280, so the
//  kernel launched at 420 starts at max(430 - 280, 210) = 210, ends 280; the last
//  copy starts at max(500 - 280, 280) = 280, ends 285: 505 - 285 = 220 avoidable.
TEST(Runtime, HipItemSyncOpensAGap)
{
    auto m = loadTrace(test::dataPath("hip_item_sync.json"));
    const SyncAnalysis a = analyzeSyncs(*m);
    EXPECT_EQ(a.runtime.runtime, Runtime::Hip);
    ASSERT_EQ(a.devices.size(), 1u);
    const DeviceActivity &d = a.devices[0];
    EXPECT_EQ(d.device, 2);
    EXPECT_EQ(d.name, "AMD Instinct MI300X");
    EXPECT_EQ(d.busy, 265'000);
    EXPECT_EQ(d.span(), 485'000);
    EXPECT_EQ(d.syncGap, 220'000);
    EXPECT_EQ(d.avoidable, 220'000);
    ASSERT_EQ(a.syncCalls.size(), 1u);
    const SyncCall &c = a.syncCalls[0];
    EXPECT_EQ(nameOf(*m, c.event), "hipMemcpyWithStream");
    EXPECT_EQ(nameOf(*m, c.op), "aten::_local_scalar_dense");
    EXPECT_EQ(nameOf(*m, c.rootOp), "aten::item");
    EXPECT_FALSE(c.pageableCopy);
    EXPECT_EQ(c.dur, 280'000);
    ASSERT_EQ(a.syncGaps.size(), 1u);
    EXPECT_EQ(a.syncGaps[0].interval.start, 210'000);
    EXPECT_EQ(a.syncGaps[0].interval.end, 430'000);
    EXPECT_EQ(a.syncGaps[0].avoidable, 220'000);
    ASSERT_EQ(a.sources.size(), 1u);
    EXPECT_EQ(m->str(a.sources[0].sync), "hipMemcpyWithStream");
    ASSERT_EQ(a.idleBreakdown.size(), 1u);
    EXPECT_EQ(a.idleBreakdown[0].hostWait, 220'000); // the kernel's launch (420) came after 210

    const nlohmann::json doc = nlohmann::json::parse(analysisToJson(analyzeJob({m}), 10));
    EXPECT_EQ(doc["files"][0]["runtime"], "hip");
    EXPECT_EQ(doc["devices"][0]["name"], "AMD Instinct MI300X");
}

// graph_launch.json (us): warmup kernel [10, 60] on stream 7; cudaStreamSynchronize
// [6, 62]; cudaGraphLaunch [72, 90] (correlation 10) in CUDAGraph::replay launches
// graph_k1..k3 on stream 7 at [95,105], [105,115], [120,130] and graph_k4, k5 on
// stream 9 at [130,140], [140,150]. graph_k4 started 40 us after its launch ended,
// exactly when graph_k3 ended: it waited for it (an inferred dependency). Replay
// without the sync (head start 56): every kernel of the graph is launched at 72-56,
// ready at 90-56 = 34. k1 keeps its 5 us after the launch but waits for warmup: 60;
// k2 follows k1: 70; k3 keeps its 5 us after k2: 85; k4 follows k3: 95, k5: 105,
// ending at 115 instead of 150: avoidable 35.
TEST(Runtime, GraphLaunchMovesAllItsKernels)
{
    auto m = loadTrace(test::dataPath("graph_launch.json"));
    const SyncAnalysis a = analyzeSyncs(*m);
    EXPECT_EQ(a.runtime.runtime, Runtime::Cuda);
    ASSERT_EQ(a.devices.size(), 1u);
    EXPECT_EQ(a.devices[0].name, "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(a.devices[0].kernels, 6u);
    EXPECT_EQ(a.devices[0].busy, 100'000);
    EXPECT_EQ(a.devices[0].syncGap, 35'000);
    EXPECT_EQ(a.devices[0].avoidable, 35'000);
    ASSERT_EQ(a.syncCalls.size(), 1u);
    EXPECT_EQ(a.syncCalls[0].avoidable, 35'000);
    ASSERT_EQ(a.replay.deps.size(), 1u); // graph_k4 waited for graph_k3
    // The launch's graph: 5 kernels of 10 us; the warmup launch: 1 of 50 us.
    const GpuWork graph = gpuWorkOfCorrelation(*m, 10);
    EXPECT_EQ(graph.count, 5u);
    EXPECT_EQ(graph.time, 50'000);
    EXPECT_EQ(gpuWorkOfCorrelation(*m, 1).time, 50'000);
    EXPECT_EQ(gpuWorkOfCorrelation(*m, 2).count, 0u); // the sync launches nothing
}

// Op statistics give a graph's kernels to the graph launch and its enclosing op:
// the five graph kernels (10 us each) under CUDAGraph::replay and cudaGraphLaunch,
// the warmup kernel (50 us) under cudaLaunchKernel, nothing under the sync.
TEST(Runtime, GraphKernelsCountUnderTheLaunchingOp)
{
    auto m = loadTrace(test::dataPath("graph_launch.json"));
    std::map<std::string, OpStat> byName;
    for (const OpStat &s : opStatistics(*m))
        byName[std::string(m->str(s.name))] = s;
    EXPECT_EQ(byName["CUDAGraph::replay"].gpuCount, 5u);
    EXPECT_EQ(byName["CUDAGraph::replay"].gpuTime, 50'000);
    EXPECT_EQ(byName["cudaGraphLaunch"].gpuCount, 5u);
    EXPECT_EQ(byName["cudaGraphLaunch"].gpuTime, 50'000);
    EXPECT_EQ(byName["cudaLaunchKernel"].gpuCount, 1u);
    EXPECT_EQ(byName["cudaLaunchKernel"].gpuTime, 50'000);
    EXPECT_EQ(byName["cudaStreamSynchronize"].gpuCount, 0u);
    EXPECT_EQ(byName["graph_k1"].gpuCount, 0u); // GPU events launch nothing
    // Ranges leave it out.
    for (const OpStat &s : opStatistics(*m, 0, 1'000'000))
        EXPECT_EQ(s.gpuCount, 0u);
}
