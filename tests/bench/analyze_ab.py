#!/usr/bin/env python3
"""Times two builds' `syncscope-cli analyze FILE` (or a loader bench) on one file, interleaved.

Each round runs both, in alternating order, so that both see the same phases of
a noisy machine; prints each build's median and p10-p90 of the wall seconds and
the ratio of the medians.

Usage: analyze_ab.py [--load] [--old-flag F] OLD NEW FILE [--runs N]
  --load: OLD and NEW are syncscope_trace_bench binaries (loading only).
  --old-flag F: passed to OLD before FILE; with OLD and NEW the same binary it
    compares two modes of one build (`--load --old-flag=--read B B FILE`:
    reading in chunks against scanning through a map).
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
    ap.add_argument("--old-flag", action="append", default=[], help="an argument for OLD before FILE")
    args = ap.parse_args()
    sides = {"old": (args.old, args.old_flag), "new": (args.new, [])}
    walls = {side: [] for side in sides}
    for i in range(args.runs):
        for side in ("old", "new") if i % 2 == 0 else ("new", "old"):
            exe, flags = sides[side]
            cmd = [exe] + flags + [args.file] if args.load else [exe, "analyze"] + flags + [args.file]
            t0 = time.perf_counter()
            subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            walls[side].append(time.perf_counter() - t0)
    med = {}
    for side, (exe, flags) in sides.items():
        v = sorted(walls[side])
        med[side] = statistics.median(v)
        print(f"{' '.join([exe] + flags)}: median {med[side]:.3f} s, p10 {v[len(v) // 10]:.3f}, "
              f"p90 {v[len(v) * 9 // 10]:.3f} ({len(v)} runs)")
    print(f"new / old = {med['new'] / med['old']:.3f}")


if __name__ == "__main__":
    main()
