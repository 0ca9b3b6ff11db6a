#!/usr/bin/env python3
"""Trace load benchmark: our loader vs Python's json.load (and nlohmann SAX).

One run measures, side by side, load throughput (MB/s of decompressed JSON,
median of several runs, wall time of the whole process) and peak RSS for
  - the 26 MB hta_16rank_job_rank0 trace (decompressed to a temp dir), and
  - a ~1 GB trace generated now under /tmp from it (ranks' events repeated with
    shifted timestamps and ids: a GPU-bound trace); never committed.
With --analyze CLI it also times `CLI analyze FILE` end to end on those and on
a host-bound trace of the same size (tests/bench/hostbound_gen.py: the GPU
waits for the host, a blocking read every --every launches), each CLI in turn
within every run; --json writes those runs for docs/bench (scripts/gen-benchmarks).
Usage: tests/bench/trace_load_bench.py BENCH_EXE [--shared DIR] [--size-gb 1.0] [--runs 5]
       [--analyze CLI [--baseline-cli CLI] [--analyze-runs 3] [--every 1200] [--json OUT]] [--skip-loaders]
BENCH_EXE is the syncscope_trace_bench target (build/<dir>/tests/trace/).
"""
import argparse
import gzip
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hostbound_gen  # noqa: E402

PY_LOAD = "import json,sys\nwith open(sys.argv[1],'rb') as f: json.load(f)\n"


def run(cmd):
    """Wall seconds, CPU seconds and peak RSS (bytes) of one child process.

    Peak RSS comes from GNU time's %M: a child forked from this (large) Python
    process would report our own RSS as its high-water mark, which survives exec.
    CPU time (user + sys) is reported too because this machine is shared: wall
    time alone measures the neighbours as well.
    """
    t0 = time.perf_counter()
    p = subprocess.Popen(["/usr/bin/time", "-f", "%M", *cmd], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{cmd} failed: {err.strip()}")
    rss_kb = int(err.strip().splitlines()[-1])
    return wall, usage.ru_utime + usage.ru_stime, rss_kb * 1024


def measure(label, cmd, size, runs):
    walls, cpus, rss = [], [], 0
    for _ in range(runs):
        w, c, r = run(cmd)
        walls.append(w)
        cpus.append(c)
        rss = max(rss, r)
    med = statistics.median(walls)
    cpu = statistics.median(cpus)
    return {"label": label, "runs": runs, "seconds": med, "mbps": size / med / 1e6,
            "cpu": cpu, "cpu_mbps": size / cpu / 1e6, "rss": rss, "rss_ratio": rss / size}


def generate(src_json, dst, target_bytes):
    """Repeat the source's events with shifted ts and ids until dst is ~target_bytes."""
    with open(src_json, "rb") as f:
        text = f.read()
    start = text.index(b"[", text.index(b'"traceEvents"')) + 1
    end = text.rindex(b"]")
    body = text[start:end].strip().rstrip(b",")
    ts = [int(m) for m in re.findall(rb'"ts": (\d+)', body)]
    span = max(ts) - min(ts) + 1000
    copies = max(1, int(target_bytes // len(body)))
    num = re.compile(rb'("ts": |"id": |"External id": |"correlation": )(\d+)')
    with open(dst, "wb") as out:
        out.write(text[:start] + b"\n")
        for k in range(copies):
            if k:
                out.write(b",\n")
            shift_ts, shift_id = k * span, k * 10_000_000
            out.write(num.sub(lambda m: m.group(1) + str(int(m.group(2)) + (
                shift_ts if m.group(1) == b'"ts": ' else shift_id)).encode(), body))
        out.write(b"\n" + text[end:])
    return copies


def analyze_table(args, files):
    """`analyze` end to end, each CLI in turn within every run (so both see the same machine)."""
    clis = [("this build", args.analyze)] + ([("baseline", args.baseline_cli)] if args.baseline_cli else [])
    load_before = os.getloadavg()
    print("| file | size | cli | runs | min s | median s | max s | MB/s (median) | peak RSS | RSS / size |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    rows = []
    for name, path in files:
        size = os.path.getsize(path)
        walls = {label: [] for label, _ in clis}
        rss = {label: 0 for label, _ in clis}
        for _ in range(args.analyze_runs):
            for label, cli in clis:
                w, _, r = run([cli, "analyze", path])
                walls[label].append(w)
                rss[label] = max(rss[label], r)
        for label, _ in clis:
            v = walls[label]
            med = statistics.median(v)
            rows.append({"file": name, "size_bytes": size, "cli": label, "walls_s": v,
                         "median_s": med, "peak_rss_bytes": rss[label]})
            print(f"| {name} | {size / 1e6:.0f} MB | {label} | {len(v)} | {min(v):.3f} | {med:.3f} | "
                  f"{max(v):.3f} | {size / med / 1e6:.0f} | {rss[label] / 1e6:.0f} MB | {rss[label] / size:.2f} |")
    load_after = os.getloadavg()
    print(f"\nload average before / after the analyze runs: {load_before[0]:.2f} / {load_after[0]:.2f} "
          f"on {os.cpu_count()} CPUs\n")
    if args.json:
        doc = {"kind": "analyze", "command": " ".join(sys.argv), "cpus": os.cpu_count(),
               "load_before": list(load_before), "load_after": list(load_after),
               "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY", ""), "rows": rows}
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bench_exe")
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--shared", default=os.path.join(here, "..", "..", "..", "shared"))
    ap.add_argument("--size-gb", type=float, default=1.0)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--big-runs", type=int, default=3)
    ap.add_argument("--no-python-big", action="store_true",
                    help="skip json.load on the big file (needs ~10x its size in RAM)")
    ap.add_argument("--analyze", metavar="CLI",
                    help="also time `CLI analyze FILE` end to end on both files")
    ap.add_argument("--baseline-cli", metavar="CLI",
                    help="with --analyze: another syncscope-cli timed in the same runs, interleaved")
    ap.add_argument("--analyze-runs", type=int, default=6)
    ap.add_argument("--every", type=int, default=1200,
                    help="the host-bound trace's launches between two blocking reads")
    ap.add_argument("--json", metavar="OUT", help="with --analyze: write its runs as JSON")
    ap.add_argument("--skip-loaders", action="store_true", help="only the --analyze table")
    args = ap.parse_args()

    src = os.path.join(args.shared, "traces", "hta_16rank_job_rank0.json.gz")
    if not os.path.exists(src):
        raise SystemExit(f"{src} not found (pass --shared)")
    tmp = tempfile.mkdtemp(prefix="syncscope-bench-", dir="/tmp")
    try:
        small = os.path.join(tmp, "rank0.json")
        with gzip.open(src, "rb") as f, open(small, "wb") as out:
            shutil.copyfileobj(f, out)
        big = os.path.join(tmp, "generated.json")
        t0 = time.perf_counter()
        copies = generate(small, big, args.size_gb * 1e9)
        print(f"generated {os.path.getsize(big) / 1e9:.2f} GB ({copies} copies of rank0) "
              f"in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
        os.sync()  # the written gigabyte's writeback would otherwise run during the first timings
        time.sleep(5)

        if args.analyze:
            host = os.path.join(tmp, "hostbound.json")
            t0 = time.perf_counter()
            steps, launches, reads = hostbound_gen.generate(host, int(os.path.getsize(big)), args.every)
            print(f"generated {os.path.getsize(host) / 1e9:.2f} GB host-bound ({steps} steps, {launches} launches, "
                  f"{reads} reads) in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
            os.sync()
            time.sleep(5)
            analyze_table(args, [("rank0 26 MB", small), ("GPU-bound (generated)", big),
                                 (f"host-bound (a read every {args.every} launches)", host)])
            os.remove(host)
        if args.skip_loaders:
            return
        rows = []
        for name, path, runs in (("rank0 26 MB", small, args.runs), ("generated", big, args.big_runs)):
            size = os.path.getsize(path)
            rows.append((name, size, measure("syncscope loader", [args.bench_exe, path], size, runs)))
            rows.append((name, size, measure("nlohmann SAX (parse only)",
                                             [args.bench_exe, "--nlohmann-sax", path], size,
                                             runs if path == small else 1)))
            if path == small or not args.no_python_big:
                rows.append((name, size, measure("python json.load", [sys.executable, "-c", PY_LOAD, path],
                                                 size, runs if path == small else 1)))
            print(f"done: {name}", file=sys.stderr)

        print("| file | size | loader | runs | median wall s | MB/s (wall) | median CPU s | MB/s (CPU) "
              "| peak RSS | RSS / size |")
        print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|")
        for name, size, r in rows:
            print(f"| {name} | {size / 1e6:.0f} MB | {r['label']} | {r['runs']} | {r['seconds']:.3f} | "
                  f"{r['mbps']:.0f} | {r['cpu']:.3f} | {r['cpu_mbps']:.0f} | {r['rss'] / 1e6:.0f} MB | "
                  f"{r['rss_ratio']:.2f} |")
        print(f"\nload average while measuring: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
