#pragma once
// A PyTorch-like trace built in memory, for the timeline tests and the frame
// benchmark: one host thread running steps of ops that launch kernels, a second
// host thread of short events, two GPU streams, a blocking cudaStreamSynchronize
// at the end of every step and host work after it, so every step boundary leaves
// one sync gap of exactly gapNs() on device 0 (steps - 1 gaps in all).
#include "trace/tracebuilder.h"

#include <cstdint>
#include <string>

namespace syncscope::test {

struct SyntheticTrace {
    static constexpr TimeNs kHostWorkNs = 200'000; // host time after each sync: the gap
    // sync returns 3 us after the last kernel; next kernel starts 1 + 200 + 7 us later
    static constexpr TimeNs gapNs() { return 3'000 + 1'000 + kHostWorkNs + 7'000; }
    size_t steps = 4;
    size_t kernelsPerStep = 10;
    bool flows = true;
    TimeNs kernelNs = 20'000;
    TimeNs launchNs = 5'000;

    // Duration events: steps * (3 * kernelsPerStep + 3) on the main thread and GPU,
    // plus the same number again on the second host thread.
    size_t eventCount() const { return 2 * steps * (3 * kernelsPerStep + 3); }

    TraceModelPtr build(const std::string &name = "synthetic.json") const
    {
        TraceInfo info;
        info.path = name;
        info.format = "json";
        TraceBuilder b(info);
        const IdValue hostPid = b.id(int64_t(4242)), gpuPid = b.id(int64_t(0));
        const uint32_t main = b.track(hostPid, b.id(int64_t(1)));
        const uint32_t worker = b.track(hostPid, b.id(int64_t(2)));
        const uint32_t stream7 = b.track(gpuPid, b.id(int64_t(7)));
        const uint32_t stream8 = b.track(gpuPid, b.id(int64_t(8)));
        b.setProcessName(hostPid, b.intern("python train.py"));
        b.setProcessName(gpuPid, b.intern("GPU 0"));
        b.setThreadName(main, b.intern("main thread"));
        b.setThreadName(worker, b.intern("data loader"));
        b.setThreadName(stream7, b.intern("stream 7"));
        b.setThreadName(stream8, b.intern("stream 8"));
        const StrId cpuOp = b.internCategory("cpu_op"), runtime = b.internCategory("cuda_runtime");
        const StrId kernel = b.internCategory("kernel"), anno = b.internCategory("user_annotation");
        const StrId launchName = b.intern("cudaLaunchKernel"), syncName = b.intern("cudaStreamSynchronize");
        const StrId itemName = b.intern("aten::item"), flowCat = b.intern("ac2g"), flowName = b.intern("ac2g");
        const StrId opNames[] = {b.intern("aten::mm"), b.intern("aten::add_"), b.intern("aten::relu"),
                                 b.intern("aten::index_select")};
        const StrId kernelNames[] = {b.intern("void gemm_kernel<float, 128>(float const*, float*)"),
                                     b.intern("elementwise_add_kernel"), b.intern("relu_kernel"),
                                     b.intern("indexSelectLargeIndex")};
        const StrId workerName = b.intern("DataLoader::next");

        TimeNs t = 1'000'000'000; // epoch-like start, as profilers write
        int64_t corr = 1;
        for (size_t s = 0; s < steps; ++s) {
            const TimeNs stepStart = t;
            TimeNs gpuFree = t;
            TimeNs cpu = t + 1000;
            for (size_t k = 0; k < kernelsPerStep; ++k) {
                const size_t v = (s * 7 + k) % 4;
                const TimeNs opStart = cpu;
                const TimeNs launch = opStart + 1000;
                EventKeys keys;
                keys.correlation = corr;
                const std::string args = "{\"correlation\":" + std::to_string(corr) +
                                         ",\"External id\":" + std::to_string(corr) + "}";
                b.addComplete(main, launch, launchNs, launchName, runtime, b.storeArgs(args), keys);
                b.addComplete(main, opStart, launchNs + 2000, opNames[v], cpuOp, {}, {});
                const TimeNs ks = std::max(gpuFree, launch + launchNs);
                const TimeNs kd = kernelNs / 2 + TimeNs((k * 7919 + s * 104729) % size_t(kernelNs));
                EventKeys kk = keys;
                kk.device = 0;
                kk.stream = (k % 2) ? 8 : 7;
                const std::string kargs = "{\"device\":0,\"stream\":" + std::to_string(kk.stream) +
                                          ",\"correlation\":" + std::to_string(corr) + ",\"grid\":[128,1,1]}";
                b.addComplete((k % 2) ? stream8 : stream7, ks, kd, kernelNames[v], kernel, b.storeArgs(kargs), kk);
                if (flows) {
                    FlowEvent f;
                    f.phase = FlowPhase::Start;
                    f.track = main;
                    f.ts = launch;
                    f.name = flowName;
                    f.cat = flowCat;
                    f.id = corr;
                    b.addFlow(f);
                    f.phase = FlowPhase::End;
                    f.bindEnclosing = true;
                    f.track = (k % 2) ? stream8 : stream7;
                    f.ts = ks;
                    b.addFlow(f);
                }
                gpuFree = ks + kd;
                cpu = opStart + launchNs + 2000 + 500;
                ++corr;
            }
            // aten::item blocks in cudaStreamSynchronize until the GPU is done.
            const TimeNs syncStart = cpu + 1000;
            const TimeNs syncEnd = std::max(gpuFree, syncStart + 2000) + 3000;
            b.addComplete(main, cpu, syncEnd + 1000 - cpu, itemName, cpuOp, {}, {});
            b.addComplete(main, syncStart, syncEnd - syncStart, syncName, runtime, {}, {});
            const TimeNs stepEnd = syncEnd + 1000 + kHostWorkNs;
            b.addComplete(main, stepStart, stepEnd - stepStart, b.intern("ProfilerStep#" + std::to_string(s)),
                          anno, {}, {});
            // The data loader: as many short events as the main thread and GPU have.
            const size_t n = 3 * kernelsPerStep + 3;
            const TimeNs slot = std::max<TimeNs>(1, (stepEnd - stepStart) / TimeNs(n));
            for (size_t w = 0; w < n; ++w)
                b.addComplete(worker, stepStart + TimeNs(w) * slot, std::max<TimeNs>(1, slot / 3), workerName,
                              cpuOp, {}, {});
            t = stepEnd;
        }
        return b.finish();
    }
};

} // namespace syncscope::test
