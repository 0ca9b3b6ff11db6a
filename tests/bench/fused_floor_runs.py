#!/usr/bin/env python3
"""The fused sampler against the gather floor, run after run.

Runs `syncscope-cli bench --variants fused` RUNS times (each run times fused and
the gather floor on the same inputs, in one process) and prints, per N, the
ratio fused median / gather floor of every run with its median, p95 and spread
across runs, so a target such as "at most 1.5x, p95 of 10 runs" is read off one
table. Set OMP_WAIT_POLICY=passive for LibTorch builds, as docs/benchmarks.md does.
Usage: tests/bench/fused_floor_runs.py CLI [--runs 10] [--n 1e5,1e6,1e7] [--threads 2]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile


def percentile(values, q):
    """Linear interpolation between closest ranks, as numpy's default."""
    v = sorted(values)
    if len(v) == 1:
        return v[0]
    pos = (len(v) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cli")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--n", default="1e5,1e6,1e7")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--iters", type=int, default=50)
    args = ap.parse_args()
    ratios, fused, floors = {}, {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "bench.json")
        for run in range(args.runs):
            cmd = [args.cli, "bench", "--variants", "fused", "--n", args.n, "--threads", str(args.threads),
                   "--iters", str(args.iters), "--json", out]
            p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if p.returncode != 0:
                sys.exit(f"{' '.join(cmd)} failed: {p.stderr.strip()}")
            with open(out) as f:
                doc = json.load(f)
            for r in doc["results"]:
                n = int(r["n"])
                ratios.setdefault(n, []).append(r["median_ms"] / r["gather_floor_ms"])
                fused.setdefault(n, []).append(r["median_ms"])
                floors.setdefault(n, []).append(r["gather_floor_ms"])
            print(f"run {run + 1} of {args.runs} done", file=sys.stderr)
    print(f"load average after the runs: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    print("| N | runs | fused median ms (median of runs) | gather floor ms (median of runs) "
          "| fused / gather floor: median | p95 | min | max |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n in sorted(ratios):
        r = ratios[n]
        print(f"| {n:.0e} | {len(r)} | {statistics.median(fused[n]):.4g} | {statistics.median(floors[n]):.4g} "
              f"| {statistics.median(r):.2f}x | {percentile(r, 0.95):.2f}x | {min(r):.2f}x | {max(r):.2f}x |")


if __name__ == "__main__":
    main()
