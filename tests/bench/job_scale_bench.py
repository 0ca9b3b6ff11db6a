#!/usr/bin/env python3
"""Job analysis at scale: memory and speed (a benchmark, not a test).

  big:   --big-ranks ranks of --big-mb MB each (default 64 x 100 MB), written by
         job_gen.py; `analyze` on the traces runs once under GNU time: peak RSS
         against the bound 1.5 x the largest file + the summaries' bytes.
  small: --small-ranks small ranks (default 1,024 of 0.05 MB); each is
         summarized, then `analyze` merges the summaries --runs times: the
         median wall time and its spread (min-max).
Also the summaries' bytes per trace event. The generated files go under
--workdir and are deleted afterwards (6.4 GB for the default big job: check
`df -h` first).
Usage: tests/bench/job_scale_bench.py SYNCSCOPE_CLI [--workdir DIR] [--skip-big] [--skip-small] ...
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def timed(cmd, stdout=subprocess.DEVNULL):
    """Wall seconds, CPU seconds and peak RSS (bytes) of one child (GNU time's %M)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(["/usr/bin/time", "-f", "%M", *cmd], stdout=stdout, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{cmd[:3]}... failed: {err.strip()[-500:]}")
    return wall, usage.ru_utime + usage.ru_stime, int(err.strip().splitlines()[-1]) * 1024


def generate(outdir, ranks, mb, coupled=False):
    subprocess.run([sys.executable, os.path.join(HERE, "job_gen.py"), outdir, "--ranks", str(ranks),
                    "--mb", str(mb)] + (["--coupled"] if coupled else []), check=True)
    return sorted(os.path.join(outdir, n) for n in os.listdir(outdir) if n.endswith(".json"))


def summarize_all(cli, files, outdir):
    os.makedirs(outdir, exist_ok=True)
    out, t0 = [], time.perf_counter()
    for i, f in enumerate(files):
        s = os.path.join(outdir, "rank-%05d.summary" % i)
        subprocess.run([cli, "summarize", f, "-o", s], check=True, stderr=subprocess.DEVNULL)
        out.append(s)
    return out, time.perf_counter() - t0


def events_of(json_path):
    with open(json_path) as f:
        return sum(x["events"] for x in json.load(f)["files"])


def mib(b):
    return b / 2**20


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cli")
    ap.add_argument("--workdir", default=tempfile.gettempdir())
    ap.add_argument("--big-ranks", type=int, default=64)
    ap.add_argument("--big-mb", type=float, default=100)
    ap.add_argument("--small-ranks", type=int, default=1024)
    ap.add_argument("--small-mb", type=float, default=0.05)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--skip-big", action="store_true")
    ap.add_argument("--coupled", action="store_true",
                    help="big ranks whose hosts wait for each all-reduce (job_gen.py --coupled)")
    ap.add_argument("--skip-small", action="store_true")
    ap.add_argument("--keep", action="store_true", help="keep the generated files")
    args = ap.parse_args()
    cli = os.path.abspath(args.cli)
    work = tempfile.mkdtemp(prefix="syncscope-jobbench-", dir=args.workdir)
    print(f"load average at start: {os.getloadavg()}", file=sys.stderr)
    try:
        if not args.skip_big:
            files = generate(os.path.join(work, "big"), args.big_ranks, args.big_mb, args.coupled)
            sizes = [os.path.getsize(f) for f in files]
            summaries, map_s = summarize_all(cli, files, os.path.join(work, "big-summaries"))
            sbytes = sum(os.path.getsize(s) for s in summaries)
            load0 = os.getloadavg()[0]
            out = os.path.join(work, "big.json")
            wall, cpu, rss = timed([cli, "analyze", *files, "--json", out])
            events = events_of(out)
            bound = 1.5 * max(sizes) + sbytes
            print(f"big: {len(files)} ranks, {sum(sizes) / 1e9:.2f} GB of traces (largest {mib(max(sizes)):.1f} MiB), "
                  f"{events} events")
            print(f"big: analyze on the traces: wall {wall:.1f} s, cpu {cpu:.1f} s, peak RSS {mib(rss):.1f} MiB; "
                  f"bound 1.5 x largest + summaries = {mib(bound):.1f} MiB -> {'within' if rss <= bound else 'OVER'} "
                  f"({rss / bound:.2f} of it); load average {load0:.2f}")
            print(f"big: summarize one by one: {map_s:.1f} s; summaries {mib(sbytes):.2f} MiB = "
                  f"{sbytes / events:.1f} bytes per event ({100 * sbytes / sum(sizes):.2f}% of the traces)")
            w2, c2, r2 = timed([cli, "analyze", *summaries])
            print(f"big: analyze on the summaries: wall {w2:.2f} s, peak RSS {mib(r2):.1f} MiB")
            if not args.keep:
                shutil.rmtree(os.path.join(work, "big"))
        if not args.skip_small:
            files = generate(os.path.join(work, "small"), args.small_ranks, args.small_mb)
            sizes = [os.path.getsize(f) for f in files]
            summaries, map_s = summarize_all(cli, files, os.path.join(work, "small-summaries"))
            sbytes = sum(os.path.getsize(s) for s in summaries)
            walls, rss = [], 0
            load0 = os.getloadavg()[0]
            out = os.path.join(work, "small.json")
            for _ in range(args.runs):
                w, _, r = timed([cli, "analyze", *summaries, "--json", out])
                walls.append(w)
                rss = max(rss, r)
            events = events_of(out)
            print(f"small: {len(files)} ranks of {mib(sum(sizes) / len(sizes)) * 1024:.0f} KiB, {events} events; "
                  f"summarize one by one {map_s:.1f} s; summaries {sbytes / events:.1f} bytes per event")
            print(f"small: analyze on {len(files)} summaries, {args.runs} runs: median {statistics.median(walls):.2f} s "
                  f"(min {min(walls):.2f}, max {max(walls):.2f}), peak RSS {mib(rss):.1f} MiB; "
                  f"load average {load0:.2f} -> {os.getloadavg()[0]:.2f}")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print(f"load average at end: {os.getloadavg()}", file=sys.stderr)


if __name__ == "__main__":
    main()
