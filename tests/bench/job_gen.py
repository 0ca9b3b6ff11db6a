#!/usr/bin/env python3
"""Writes the Kineto-like traces of one generated job, one file per rank.

Each step of each rank: a ProfilerStep#N on the main thread with forward ops
that launch kernels on the compute stream (7), an aten::item that blocks in
cudaStreamSynchronize, and a record_param_comms that launches an NCCL
all-reduce on the communication stream (20). The all-reduce ends at the same
instant on every rank (a blocking collective); each rank's clock is offset by
rank x 1.000173 ms and its host work jitters (a fixed seed per rank), so
different ranks arrive last at different steps. Sizes are approximate: steps
are added until the file reaches --mb. With --coupled, each step also ends with
the host waiting for its all-reduce (cudaStreamSynchronize in an aten::item):
a collective that ends earlier then moves every rank's next step.

Usage: job_gen.py OUTDIR --ranks N --mb SIZE [--seed S] [--coupled]
Writes OUTDIR/rank-00000.json ... (never commit them).
"""
import argparse
import os
import random
import sys

KERNELS = ["void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>",
           "ampere_sgemm_128x64_tn", "void at::native::reduce_kernel<512, 1>",
           "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>"]
OPS = ["aten::linear", "aten::add", "aten::sum", "aten::mm"]


def rank_trace(path, rank, world, target_bytes, seed, coupled=False):
    rnd = random.Random(seed * 1_000_003 + rank)
    offset = rank * 1_000_173  # ns
    host_pid, host_tid, gpu_pid = 1000 + rank, 1000 + rank, rank
    ext = corr = 0
    t_common = 1_000_000_000  # ns: the job's aligned clock
    out = open(path, "w", buffering=1 << 20)
    out.write('{"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": %d, "world_size": %d},\n'
              ' "traceEvents": [\n' % (rank, world))
    out.write('{"ph": "M", "name": "process_name", "pid": %d, "args": {"name": "GPU %d"}},\n' % (gpu_pid, rank))
    written = 0
    step = 0
    first = True

    def us(ns):
        return "%d.%03d" % divmod(ns, 1000)

    def ev(cat, name, pid, tid, ts, dur, args):
        nonlocal first
        a = ", ".join('"%s": %s' % kv for kv in args)
        s = ('%s{"ph": "X", "cat": "%s", "name": "%s", "pid": %s, "tid": %s, "ts": %s, "dur": %s, "args": {%s}}'
             % ("" if first else ",\n", cat, name, pid, tid, us(ts), us(dur), a))
        first = False
        return s

    while written < target_bytes:
        parts = []
        t0 = t_common + offset
        t = t0 + 2_000
        gpu_free = t0
        for i in range(8):  # forward ops, each one kernel
            ext += 1
            corr += 1
            op_dur = 12_000 + rnd.randrange(8_000)
            parts.append(ev("cpu_op", OPS[i % 4], host_pid, host_tid, t, op_dur, [("External id", ext)]))
            parts.append(ev("cuda_runtime", "cudaLaunchKernel", host_pid, host_tid, t + 2_000, 5_000,
                            [("External id", ext), ("correlation", corr)]))
            k_start = max(t + 9_000, gpu_free + 1_000)
            k_dur = 20_000 + rnd.randrange(30_000)
            parts.append(ev("kernel", KERNELS[i % 4], gpu_pid, 7, k_start, k_dur,
                            [("External id", ext), ("device", rank), ("stream", 7), ("correlation", corr)]))
            gpu_free = k_start + k_dur
            t += op_dur + 1_000
        # The sync: aten::item waits until the compute stream is done.
        ext += 1
        wait_end = max(t + 10_000, gpu_free + 3_000)
        parts.append(ev("cpu_op", "aten::item", host_pid, host_tid, t, wait_end - t + 4_000, [("External id", ext)]))
        parts.append(ev("cuda_runtime", "cudaStreamSynchronize", host_pid, host_tid, t + 2_000, wait_end - t - 2_000,
                        [("External id", ext)]))
        t = wait_end + 5_000 + rnd.randrange(40_000)  # host work after the sync, jittered per rank
        # The all-reduce: it ends at one instant on every rank (aligned clock).
        ext += 1
        corr += 1
        parts.append(ev("cpu_op", "record_param_comms", host_pid, host_tid, t, 15_000,
                        [("External id", ext), ("Process Group Name", '"0"'), ("Collective name", '"allreduce"')]))
        parts.append(ev("cuda_runtime", "cudaLaunchKernel", host_pid, host_tid, t + 3_000, 6_000,
                        [("External id", ext), ("correlation", corr)]))
        arrive = max(t + 10_000, gpu_free + 500)
        end_aligned = t_common + 2_000_000  # every rank's arrival fits before this
        end = end_aligned + offset
        parts.append(ev("kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
                        gpu_pid, 20, arrive, end - arrive,
                        [("External id", ext), ("device", rank), ("stream", 20), ("correlation", corr)]))
        if coupled:  # the host reads the reduced loss: it waits for the all-reduce
            ext += 1
            w0 = t + 16_000
            parts.append(ev("cpu_op", "aten::item", host_pid, host_tid, w0, end + 5_000 - w0, [("External id", ext)]))
            parts.append(ev("cuda_runtime", "cudaStreamSynchronize", host_pid, host_tid, w0 + 1_000,
                            end + 3_000 - w0 - 1_000, [("External id", ext)]))
        parts.append(ev("user_annotation", "ProfilerStep#%d" % step, host_pid, host_tid, t0, end - t0 + 20_000,
                        [("External id", 0)]))
        text = "".join(parts)
        out.write(text)
        written += len(text)
        step += 1
        t_common += 2_200_000
    out.write('\n]}\n')
    out.close()
    return step


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--ranks", type=int, required=True)
    ap.add_argument("--mb", type=float, required=True, help="approximate size of each rank's file")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--coupled", action="store_true",
                    help="each step also ends with the host waiting for its all-reduce (a loss.item())")
    args = ap.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    for r in range(args.ranks):
        path = os.path.join(args.outdir, "rank-%05d.json" % r)
        steps = rank_trace(path, r, args.ranks, int(args.mb * 1e6), args.seed, args.coupled)
        if r == 0 or (r + 1) % 64 == 0 or r + 1 == args.ranks:
            print(f"[{r + 1}/{args.ranks}] {path}: {steps} steps, {os.path.getsize(path)} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
