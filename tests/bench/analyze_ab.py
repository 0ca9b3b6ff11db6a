#!/usr/bin/env python3
"""Times two builds' `syncscope-cli analyze FILE` (or a loader bench) on one file, interleaved.

Each round runs both, in alternating order, so that both see the same phases of
a noisy machine; prints each build's median and p10-p90 of the wall seconds and
the ratio of the medians.

Usage: analyze_ab.py [--load] OLD NEW FILE [--runs N]
  --load: OLD and NEW are syncscope_trace_bench binaries (loading only).
"""
import argparse
import statistics
import subprocess
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("file")
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--load", action="store_true", help="time syncscope_trace_bench FILE instead of analyze")
    args = ap.parse_args()
    exes = [args.old, args.new]
    walls = {e: [] for e in exes}
    for i in range(args.runs):
        for exe in exes if i % 2 == 0 else exes[::-1]:
            cmd = [exe, args.file] if args.load else [exe, "analyze", args.file]
            t0 = time.perf_counter()
            subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            walls[exe].append(time.perf_counter() - t0)
    med = {}
    for exe in exes:
        v = sorted(walls[exe])
        med[exe] = statistics.median(v)
        print(f"{exe}: median {med[exe]:.3f} s, p10 {v[len(v) // 10]:.3f}, p90 {v[len(v) * 9 // 10]:.3f} "
              f"({len(v)} runs)")
    print(f"new / old = {med[args.new] / med[args.old]:.3f}")


if __name__ == "__main__":
    main()
