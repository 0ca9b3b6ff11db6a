#!/usr/bin/env python3
"""Independent reference figures for a Chrome trace, with only json + gzip.

The C++ tests compare the loader and the analysis against these numbers, so this
file must not share code or shortcuts with the engine. It follows the definitions
of issue 3 directly:
  - categories: duration events (X, plus B/E pairs matched per (pid, tid)) per
    normalized category;
  - kernels per device (device = args.device, else the numeric pid);
  - busy time per device: union length of kernel/gpu_memcpy/gpu_memset intervals;
  - blocking sync calls by name.
Times are reported in microseconds as floats.
Usage: reference_stats.py TRACE  -> one JSON object on stdout.
"""
import gzip
import json
import sys

LEGACY = {"Operator": "cpu_op", "Runtime": "cuda_runtime", "Driver": "cuda_driver",
          "Kernel": "kernel", "Memcpy": "gpu_memcpy", "Memset": "gpu_memset"}
BLOCKING = {"cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize",
            "cudaMemcpy", "cuStreamSynchronize", "cuCtxSynchronize", "cuEventSynchronize",
            "cuMemcpyDtoH", "cuMemcpyDtoH_v2"}
GPU = {"kernel", "gpu_memcpy", "gpu_memset"}


def as_int(v):
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return int(f) if f == int(f) else None


def main(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    doc = json.loads(raw)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc

    durations = []  # (cat, name, ts, dur, pid, args)
    open_b = {}
    for e in events:
        ph = e.get("ph")
        if ph == "X" and "ts" in e:
            durations.append((e.get("cat", ""), e.get("name", ""), float(e["ts"]),
                              float(e.get("dur", 0)), e.get("pid"), e.get("args") or {}))
        elif ph in ("B", "E") and "ts" in e:
            open_b.setdefault((str(e.get("pid", "")), str(e.get("tid", ""))), []).append(e)
    for stack_events in open_b.values():
        stack_events.sort(key=lambda e: float(e["ts"]))  # stable: file order on ties
        stack = []
        for e in stack_events:
            if e["ph"] == "B":
                stack.append(e)
            elif stack:
                b = stack.pop()
                durations.append((b.get("cat", ""), b.get("name", ""), float(b["ts"]),
                                  float(e["ts"]) - float(b["ts"]), b.get("pid"),
                                  b.get("args") or {}))

    categories = {}
    kernels = {}
    intervals = {}
    sync_calls = {}
    for cat, name, ts, dur, pid, args in durations:
        cat = LEGACY.get(cat, cat)
        categories[cat] = categories.get(cat, 0) + 1
        if cat in GPU:
            dev = as_int(args.get("device")) if isinstance(args, dict) else None
            if dev is None:
                dev = as_int(pid)
            if dev is None:
                continue
            if cat == "kernel":
                kernels[dev] = kernels.get(dev, 0) + 1
            intervals.setdefault(dev, []).append((ts, ts + dur))
        elif cat in ("cuda_runtime", "cuda_driver") and name in BLOCKING:
            sync_calls[name] = sync_calls.get(name, 0) + 1

    busy = {}
    for dev, iv in intervals.items():
        iv.sort()
        total = 0.0
        cur_s, cur_e = iv[0]
        for s, e in iv[1:]:
            if s > cur_e:
                total += cur_e - cur_s
                cur_s, cur_e = s, e
            else:
                cur_e = max(cur_e, e)
        total += cur_e - cur_s
        busy[str(dev)] = total

    json.dump({"categories": categories,
               "kernels": {str(k): v for k, v in kernels.items()},
               "busy_us": busy,
               "sync_calls": sync_calls}, sys.stdout, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
