#!/usr/bin/env python3
"""`analyze` of a large Nsight Systems export against the same events as
Kineto JSON traces, in one run.

    tests/bench/nsys_bench.py build/deb/app/syncscope-cli [--size-gb 1] [--runs 3]

1. The export: the shared before-export's activity rows (runtime calls,
   kernels, copies, memsets, syncs, NVTX ranges) are repeated with their
   times shifted by the capture's span and their correlation ids by a fixed
   stride, until the file is about --size-gb.
2. The equivalent JSON: each GPU process of the shared export, written as a
   Kineto trace by tests/analysis/nsys_reference.py (an independent reader),
   then repeated the same number of times with the same shifts: one JSON per
   process, opened together as the ranks of one job, as the export is.
3. `analyze` on each, alternating within every run so both see the same
   machine; wall time median (min, max), CPU time, peak RSS (GNU time's %M).

Python 3 standard library only. The files go into --dir (default: a
temporary folder) and are removed afterwards unless --keep.
"""
import argparse
import json
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "analysis"))
import nsys_reference  # noqa: E402

TABLES = ["CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
          "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "NVTX_EVENTS"]
CORR_STRIDE = 10_000_000


def span_of(db):
    lo, hi = None, None
    for t in TABLES:
        a, b = db.execute(f"SELECT min(start), max(coalesce(end, start)) FROM {t}").fetchone()
        if a is not None:
            lo = a if lo is None else min(lo, a)
            hi = b if hi is None else max(hi, b)
    return hi - lo + 1_000_000


def make_export(src, dst, target_bytes):
    """dst: src with its activity rows repeated; returns (copies, time shift)."""
    shutil.copyfile(src, dst)
    db = sqlite3.connect(dst)
    shift = span_of(db)
    copies = max(1, round(target_bytes / os.path.getsize(src)))
    db.execute("PRAGMA journal_mode = OFF")
    db.execute("PRAGMA synchronous = OFF")
    for t in TABLES:
        cols = [r[1] for r in db.execute(f"PRAGMA table_info({t})")]
        last = db.execute(f"SELECT max(rowid) FROM {t}").fetchone()[0] or 0
        for k in range(1, copies):
            exprs = []
            for c in cols:
                if c in ("start", "end"):
                    exprs.append(f'"{c}" + {k * shift}')
                elif c == "correlationId":
                    exprs.append(f'"{c}" + {k * CORR_STRIDE}')
                else:
                    exprs.append(f'"{c}"')
            names = ", ".join(f'"{c}"' for c in cols)
            db.execute(f"INSERT INTO {t} ({names}) SELECT {', '.join(exprs)} FROM {t} WHERE rowid <= {last}")
        db.commit()
    db.close()
    return copies, shift


def make_json(src, pid, dst, copies, shift):
    """Process pid of src as a Kineto trace, repeated like the export."""
    one = dst + ".one"
    nsys_reference.to_chrome(src, pid, one)
    with open(one) as f:
        events = json.load(f)["traceEvents"]
    os.remove(one)
    num = re.compile(r'("ts": ")(\d+)\.(\d{3})"|("correlation": )(\d+)')

    def shifted(k):
        ts_shift, corr_shift = k * shift, k * CORR_STRIDE

        def sub(m):
            if m.group(1):
                v = int(m.group(2)) * 1000 + int(m.group(3)) + ts_shift
                return f'{m.group(1)}{v // 1000}.{v % 1000:03d}"'
            return f"{m.group(4)}{int(m.group(5)) + corr_shift}"
        return sub

    body = ",\n".join(json.dumps(e) for e in events)
    with open(dst, "w") as out:
        out.write('{"traceEvents": [\n')
        for k in range(copies):
            if k:
                out.write(",\n")
            out.write(num.sub(shifted(k), body) if k else body)
        out.write("\n]}\n")


def run(cmd):
    t0 = time.perf_counter()
    p = subprocess.Popen(["/usr/bin/time", "-f", "%M", *cmd], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {err.strip()}")
    return wall, usage.ru_utime + usage.ru_stime, int(err.strip().splitlines()[-1]) * 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cli")
    ap.add_argument("--shared", default=os.path.join(HERE, "..", "..", "..", "shared"))
    ap.add_argument("--size-gb", type=float, default=1.0)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--dir")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    src = os.path.join(args.shared, "traces", "nsys", "mfu_2gpu_before.sqlite")
    if not os.path.exists(src):
        raise SystemExit(f"{src}: not found (give --shared)")
    work = args.dir or tempfile.mkdtemp(prefix="nsys-bench-")
    os.makedirs(work, exist_ok=True)
    try:
        export = os.path.join(work, "big.sqlite")
        t0 = time.perf_counter()
        copies, shift = make_export(src, export, args.size_gb * 1e9)
        print(f"export: {copies} copies of {os.path.basename(src)}, {os.path.getsize(export) / 1e6:.0f} MB "
              f"({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
        db = sqlite3.connect(f"file:{src}?mode=ro", uri=True)
        pids = sorted({(g >> 24) & 0xFFFFFF for (g,) in db.execute(
            "SELECT DISTINCT globalPid FROM CUPTI_ACTIVITY_KIND_KERNEL")})
        db.close()
        jsons = []
        for pid in pids:
            path = os.path.join(work, f"rank{pid}.json")
            make_json(src, pid, path, copies, shift)
            jsons.append(path)
        json_size = sum(os.path.getsize(p) for p in jsons)
        print(f"json: {len(jsons)} files, {json_size / 1e6:.0f} MB", file=sys.stderr)
        cases = [("nsys export", [args.cli, "analyze", export], os.path.getsize(export)),
                 ("Kineto JSON, same events", [args.cli, "analyze", *jsons], json_size)]
        walls = {c[0]: [] for c in cases}
        cpus = {c[0]: [] for c in cases}
        rss = {c[0]: 0 for c in cases}
        for _ in range(args.runs):
            for label, cmd, _ in cases:
                w, c, r = run(cmd)
                walls[label].append(w)
                cpus[label].append(c)
                rss[label] = max(rss[label], r)
        print(f"{copies} copies of the shared before-export, {len(pids)} processes; median of {args.runs} runs\n")
        print("| input | size | wall s, median (min–max) | CPU s | peak RSS | RSS / size |")
        print("|---|---:|---:|---:|---:|---:|")
        for label, _, size in cases:
            v = walls[label]
            print(f"| {label} | {size / 1e6:,.0f} MB | {statistics.median(v):.2f} ({min(v):.2f}–{max(v):.2f}) | "
                  f"{statistics.median(cpus[label]):.2f} | {rss[label] / 2**20:,.0f} MiB | "
                  f"{rss[label] / size:.2f} |")
        ratio = statistics.median(walls[cases[0][0]]) / statistics.median(walls[cases[1][0]])
        print(f"\nnsys / JSON wall time: {ratio:.2f}×; load average {os.getloadavg()[0]:.2f} on "
              f"{os.cpu_count()} CPUs")
    finally:
        if not args.keep and not args.dir:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
