#!/usr/bin/env python3
"""Writes a Kineto-like Chrome trace of a host-bound training loop.

The host is slower than the GPU: every op runs 14-40 us on the host and
launches one kernel of 2-12 us, so the GPU waits for the host between kernels.
Each step: a ProfilerStep#N on the main thread, forward ops that launch on the
compute stream (7), backward() handed to the autograd engine's thread (its
`…Backward0` ops share the forward ops' sequence numbers, with `fwdbwd`
flows), which launches the backward kernels and hands back, then the
optimizer's kernels from the main thread. At the end of the step that brings
the launches since the last read to N (--every) or more, the main thread reads
the loss (`loss.item()`): aten::item -> _local_scalar_dense -> a
cudaMemcpyAsync to pageable memory, which returns a few us before its copy
ends by the trace's clocks (as the pageable copies of the shared traces do),
and a cudaStreamSynchronize that waits for that copy. Launches carry `ac2g`
flows and the ops `Input Dims` and `Input type`, as the profiler writes them.
Events are added until the file reaches --mb.

Removing one of those reads moves everything after it earlier: the next kept
read waits for nothing, so the head start survives to the end of the trace.

Usage: hostbound_gen.py OUT.json --mb SIZE [--every N] [--seed S]
Never commit the files it writes.
"""
import argparse
import os
import random
import sys

FWD = [("aten::linear", "ampere_sgemm_64x32_sliced1x4_tn"),
       ("aten::add", "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>"),
       ("aten::relu", "void at::native::vectorized_elementwise_kernel<4, at::native::clamp_min_scalar_kernel>"),
       ("aten::layer_norm", "void at::native::vectorized_layer_norm_kernel<float, float>")]
BWD = [("AddmmBackward0", "aten::mm", "ampere_sgemm_64x32_sliced1x4_nt"),
       ("AddBackward0", "aten::add", "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>"),
       ("ReluBackward0", "aten::threshold_backward", "void at::native::vectorized_elementwise_kernel<4, at::native::threshold_kernel>"),
       ("NativeLayerNormBackward0", "aten::native_layer_norm_backward", "void at::native::layer_norm_grad_input_kernel<float, float>")]
OPT = ("aten::_foreach_add_", "void at::native::multi_tensor_apply_kernel<at::native::TensorListMetadata<2>>")


def us(ns):
    return "%d.%03d" % divmod(ns, 1000)


class Writer:
    def __init__(self, out, rnd):
        self.out, self.rnd = out, rnd
        self.first = True
        self.written = 0
        self.ext = self.corr = self.seq = self.flow = 0
        self.gpu_free = 0
        self.launches = 0

    def emit(self, text):
        text = ("" if self.first else ",\n") + text
        self.first = False
        self.out.write(text)
        self.written += len(text)

    def x(self, cat, name, pid, tid, ts, dur, args):
        self.emit('{"ph": "X", "cat": "%s", "name": "%s", "pid": %s, "tid": %s, "ts": %s, "dur": %s, "args": {%s}}'
                  % (cat, name, pid, tid, us(ts), us(dur), args))

    def op(self, name, tid, ts, dur, seq=None, dims='[[64, 1024], [1024]]', types='["float", "float"]'):
        self.ext += 1
        a = '"External id": %d, "Input Dims": %s, "Input type": %s' % (self.ext, dims, types)
        if seq is not None:
            a += ', "Fwd thread id": 0, "Sequence number": %d' % seq
        self.x("cpu_op", name, 1, tid, ts, dur, a)

    def launch(self, tid, ts, kernel, gpu_cat="kernel", stream=7, k_dur=None, runtime="cudaLaunchKernel"):
        """A runtime call at ts that launches one activity; returns the call's end."""
        self.corr += 1
        self.launches += 1
        call_dur = 4_000 + self.rnd.randrange(4_000)
        self.x("cuda_runtime", runtime, 1, tid, ts, call_dur,
               '"External id": %d, "cbid": 211, "correlation": %d' % (self.ext, self.corr))
        self.emit('{"ph": "s", "id": %d, "pid": 1, "tid": %d, "ts": %s, "cat": "ac2g", "name": "ac2g"}'
                  % (self.corr, tid, us(ts)))
        k_start = max(ts + call_dur + 2_000 + self.rnd.randrange(2_000), self.gpu_free + 1_000)
        k_dur = k_dur if k_dur is not None else 2_000 + self.rnd.randrange(10_000)
        if gpu_cat == "kernel":
            a = ('"External id": %d, "queued": 0, "device": 0, "context": 1, "stream": %d, "correlation": %d, '
                 '"registers per thread": 32, "shared memory": 0, "grid": [256, 1, 1], "block": [128, 1, 1]'
                 % (self.ext, stream, self.corr))
        else:
            a = ('"External id": %d, "device": 0, "context": 1, "stream": %d, "correlation": %d, "bytes": 4'
                 % (self.ext, stream, self.corr))
        self.x(gpu_cat, kernel, 0, stream, k_start, k_dur, a)
        self.emit('{"ph": "f", "id": %d, "pid": 0, "tid": %d, "ts": %s, "cat": "ac2g", "name": "ac2g", "bp": "e"}'
                  % (self.corr, stream, us(k_start)))
        self.gpu_free = k_start + k_dur
        return ts + call_dur

    def launching_op(self, name, kernel, tid, t, seq=None):
        """An op that launches one kernel; returns when the host is free again."""
        dur = 14_000 + self.rnd.randrange(26_000)
        self.op(name, tid, t, dur, seq)
        self.launch(tid, t + 3_000 + self.rnd.randrange(3_000), kernel)
        return t + dur + 1_000 + self.rnd.randrange(2_000)

    def item(self, tid, t):
        """loss.item(): a copy to pageable memory and a stream synchronize; returns when the host is free."""
        self.ext += 1
        top_ext = self.ext
        copy_at = t + 6_000
        # The copy waits for the stream; the synchronize returns once it is done.
        call_end = self.launch(tid, copy_at, "Memcpy DtoH (Device -> Pageable)", gpu_cat="gpu_memcpy",
                               k_dur=1_500, runtime="cudaMemcpyAsync")
        sync_at = call_end + 1_000
        sync_end = max(sync_at + 3_000, self.gpu_free + 2_000)
        self.ext += 1
        self.corr += 1
        self.x("cuda_runtime", "cudaStreamSynchronize", 1, tid, sync_at, sync_end - sync_at,
               '"External id": %d, "cbid": 131, "correlation": %d' % (self.ext, self.corr))
        end = sync_end + 2_000
        self.x("cpu_op", "aten::_local_scalar_dense", 1, tid, t + 3_000, end - t - 4_000,
               '"External id": %d, "Input Dims": [[]], "Input type": ["float"]' % (top_ext + 1,))
        self.x("cpu_op", "aten::item", 1, tid, t, end - t,
               '"External id": %d, "Input Dims": [[]], "Input type": ["float"]' % top_ext)
        self.ext += 1
        return end + 2_000


def generate(path, target_bytes, every=1200, seed=1, fwd=120, opt=40):
    """Writes the trace; returns (steps, launches, reads)."""
    rnd = random.Random(seed)
    main_tid, engine_tid = 100, 200
    with open(path, "w", buffering=1 << 20) as out:
        out.write('{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB", '
                  '"totalGlobalMem": 84990623744, "computeMajor": 8, "computeMinor": 0, "numSms": 108}],\n'
                  ' "traceEvents": [\n')
        w = Writer(out, rnd)
        w.emit('{"name": "process_name", "ph": "M", "ts": 0, "pid": 1, "tid": 0, "args": {"name": "python3"}}')
        w.emit('{"name": "thread_name", "ph": "M", "ts": 0, "pid": 1, "tid": %d, "args": {"name": "main"}}' % main_tid)
        w.emit('{"name": "thread_name", "ph": "M", "ts": 0, "pid": 1, "tid": %d, "args": {"name": "autograd"}}'
               % engine_tid)
        t = 1_000_000_000
        step = reads = 0
        since_read = 0
        while w.written < target_bytes:
            t0 = t
            t += 5_000
            seqs = []
            for i in range(fwd):
                w.seq += 1
                seqs.append((w.seq, i % len(FWD)))
                name, kernel = FWD[i % len(FWD)]
                t = w.launching_op(name, kernel, main_tid, t, seq=w.seq)
                w.emit('{"ph": "s", "id": %d, "pid": 1, "tid": %d, "ts": %s, "cat": "fwdbwd", "name": "fwdbwd"}'
                       % (w.seq, main_tid, us(t - 2_000)))
            since_read += fwd
            # backward(): the engine thread runs the backward ops, the main thread is silent.
            t += 20_000
            for seq, k in reversed(seqs):
                bname, op, kernel = BWD[k]
                ev_start = t
                w.flow += 1
                t = w.launching_op(op, kernel, engine_tid, t + 2_000)
                w.x("cpu_op", bname, 1, engine_tid, ev_start + 1_000, t - ev_start - 1_500,
                    '"External id": %d, "Fwd thread id": 1, "Sequence number": %d' % (w.ext + 1, seq))
                w.x("cpu_op", "autograd::engine::evaluate_function: " + bname, 1, engine_tid, ev_start,
                    t - ev_start, '"External id": %d' % (w.ext + 2))
                w.emit('{"ph": "f", "id": %d, "pid": 1, "tid": %d, "ts": %s, "cat": "fwdbwd", "name": "fwdbwd", '
                       '"bp": "e"}' % (seq, engine_tid, us(ev_start)))
                w.ext += 2
                t += 1_000
            since_read += fwd
            t += 20_000
            for i in range(opt):
                t = w.launching_op(OPT[0], OPT[1], main_tid, t)
            since_read += opt
            if since_read >= every:
                t = w.item(main_tid, t)
                since_read = 0
                reads += 1
            t += 10_000 + rnd.randrange(20_000)
            w.x("user_annotation", "ProfilerStep#%d" % step, 1, main_tid, t0, t - t0, '"External id": 0')
            step += 1
        out.write('\n]}\n')
    return step, w.launches, reads


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--mb", type=float, required=True, help="approximate size of the file")
    ap.add_argument("--every", type=int, default=1200, help="launches between two loss.item() reads")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    steps, launches, reads = generate(args.out, int(args.mb * 1e6), args.every, args.seed)
    print(f"{args.out}: {steps} steps, {launches} launches, {reads} reads, {os.path.getsize(args.out)} bytes",
          file=sys.stderr)


if __name__ == "__main__":
    main()
