#!/usr/bin/env python3
"""Start-up and footprint benchmark of the viewer (not a test: timings vary).

Measures, each over RUNS runs, median and best:
  - `syncscope-cli --version`: wall time and peak RSS;
  - `syncscope-cli analyze TRACE`: wall time from process start to exit, as MB/s
    of decompressed JSON (the 26 MB hta_16rank_job_rank0 trace by default),
    with its CPU time and peak RSS;
  - `syncscope --timing TRACE` (offscreen): when the window was shown and when
    the first frame with the trace was drawn, in ms since the process started.
Prints a Markdown table with the targets and the command line that made it.

Usage: tests/bench/startup_bench.py BUILD_DIR [--trace FILE] [--runs 10]
Wall time: time.perf_counter around the child. Peak RSS: GNU time's %M in a
separate run (a child spawned from this Python reports Python's RSS otherwise).
"""
import argparse
import gzip
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_TRACE = os.path.normpath(os.path.join(HERE, "../../../shared/traces/hta_16rank_job_rank0.json.gz"))


def wall(cmd, env=None):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"startup_bench: {' '.join(cmd)} exited {p.returncode}: {p.stderr.decode()[-500:]}")
    return dt, p.stdout.decode()


def rusage(cmd, env=None):
    """(peak RSS in MB, user+sys CPU seconds) from GNU time."""
    p = subprocess.run(["/usr/bin/time", "-f", "%M %U %S"] + cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, env=env)
    kb, user, system = p.stderr.decode().strip().splitlines()[-1].split()
    return int(kb) / 1024.0, float(user) + float(system)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--trace", default=DEFAULT_TRACE)
    ap.add_argument("--runs", type=int, default=10)
    a = ap.parse_args()
    cli = os.path.join(a.build, "app", "syncscope-cli")
    gui = os.path.join(a.build, "app", "syncscope")
    if not os.path.isfile(a.trace):
        sys.exit(f"startup_bench: the trace '{a.trace}' does not exist (give --trace)")
    with gzip.open(a.trace, "rb") if a.trace.endswith(".gz") else open(a.trace, "rb") as f:
        json_mb = len(f.read()) / 1e6
    env = dict(os.environ, OMP_WAIT_POLICY="passive")
    load_before = os.getloadavg()

    rows = []
    # --version
    v_wall = [wall([cli, "--version"], env)[0] * 1e3 for _ in range(a.runs)]
    v_rss = [rusage([cli, "--version"], env)[0] for _ in range(3)]
    rows.append(("`syncscope-cli --version` wall", "≤ 30 ms", v_wall, "ms", lambda x: x <= 30, min))
    rows.append(("`syncscope-cli --version` peak RSS", "≤ 30 MB", v_rss, "MB", lambda x: x <= 30, min))
    # analyze
    an_wall = [wall([cli, "analyze", a.trace], env)[0] for _ in range(a.runs)]
    an_mbs = [json_mb / t for t in an_wall]
    an_ru = [rusage([cli, "analyze", a.trace], env) for _ in range(3)]
    rows.append((f"`analyze` ({json_mb:.1f} MB JSON) end to end", "≥ 150 MB/s", an_mbs, "MB/s",
                 lambda x: x >= 150, max))
    rows.append(("`analyze` CPU time (user+sys)", "", [c * 1e3 for _, c in an_ru], "ms", None, min))
    rows.append(("`analyze` peak RSS", "", [r for r, _ in an_ru], "MB", None, min))
    # --timing
    genv = dict(env, QT_QPA_PLATFORM="offscreen")
    shown, frame = [], []
    for _ in range(a.runs):
        _, out = wall([gui, "--timing", a.trace], genv)
        for line in out.splitlines():
            if line.startswith("window shown at "):
                shown.append(float(line.split()[3]))
            elif line.startswith("first frame with "):
                frame.append(float(line.split()[-2]))
    rows.append(("`syncscope --timing`: window shown", "", shown, "ms", None, min))
    rows.append(("`syncscope --timing`: first frame with the trace", "≤ 1000 ms", frame, "ms",
                 lambda x: x <= 1000, min))

    print(f"Command: {' '.join([os.path.relpath(sys.argv[0])] + sys.argv[1:])}")
    print(f"Machine: {os.cpu_count()} CPUs; load average {load_before[0]:.1f} before, "
          f"{os.getloadavg()[0]:.1f} after (shared: other builds ran); {a.runs} runs; "
          f"trace {os.path.basename(a.trace)}\n")
    print("| Measure | Target | Median | Best | Median meets target |")
    print("|---|---|---|---|---|")
    for name, target, xs, unit, ok, best in rows:
        med = statistics.median(xs)
        verdict = "" if ok is None else ("yes" if ok(med) else "**no**")
        print(f"| {name} | {target} | {med:.0f} {unit} | {best(xs):.0f} {unit} | {verdict} |")


if __name__ == "__main__":
    main()
