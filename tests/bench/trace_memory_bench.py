#!/usr/bin/env python3
"""Peak memory of a trace load per trace shape: peak RSS / JSON size.

Generates, under a temp dir (never committed), one trace per shape of about
--mb megabytes, loads each with syncscope_trace_bench (our loader, the whole
model built) and reports peak RSS (GNU time %M) against the JSON size:
  one-track   all events on one (pid, tid)
  many-tracks one event per track, a new tid each (a million tracks at ~120 MB)
  long-names  every event has a unique 2 KB name
  many-args   every event carries 40 args
  tiny-events minimal events ("ph","name","pid","tid","ts","dur" only)
  1m-tracks   exactly a million tracks of one event each (a 79.8 MB file, any --mb)
The target is RSS / size <= 1.5 for every shape. With --cli, the peak RSS of
`syncscope-cli analyze` (load and the whole analysis) is reported beside it. The loader process itself
(code, libraries) is measured once on an empty trace and reported as "base".
Usage: tests/bench/trace_memory_bench.py BENCH_EXE [--mb 100] [--keep DIR] [--cli CLI]
                                         [--shapes one-track,1m-tracks]
BENCH_EXE is the syncscope_trace_bench target (build/<dir>/tests/trace/).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def peak_rss(cmd):
    p = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise SystemExit(f"{cmd} failed: {p.stderr.strip()}")
    return int(p.stderr.strip().splitlines()[-1]) * 1024


def write_shape(path, shape, target):
    with open(path, "w") as f:
        f.write('{"traceEvents":[\n')
        size, i = 0, 0
        while (i < 1000000) if shape == "1m-tracks" else (size < target):
            if shape == "1m-tracks":
                ev = '{"ph":"X","cat":"cpu_op","name":"op","pid":1,"tid":%d,"ts":%d,"dur":1}' % (i, i)
            elif shape == "one-track":
                ev = '{"ph":"X","cat":"cpu_op","name":"aten::op%d","pid":1,"tid":1,"ts":%d,"dur":1,' \
                     '"args":{"External id":%d}}' % (i % 50, i * 2, i)
            elif shape == "many-tracks":
                ev = '{"ph":"X","cat":"cpu_op","name":"aten::op","pid":1,"tid":%d,"ts":%d,"dur":1}' % (i, i)
            elif shape == "long-names":
                ev = '{"ph":"X","cat":"cpu_op","name":"%s%08d","pid":1,"tid":1,"ts":%d,"dur":1}' % (
                    "n" * 2040, i, i * 2)
            elif shape == "many-args":
                args = ",".join('"key%d":%d' % (k, i + k) for k in range(40))
                ev = '{"ph":"X","cat":"kernel","name":"k","pid":1,"tid":7,"ts":%d,"dur":1,"args":{%s}}' % (
                    i * 2, args)
            else:  # tiny-events
                ev = '{"ph":"X","name":"a","pid":1,"tid":1,"ts":%d,"dur":1}' % i
            line = ("," if i else "") + ev + "\n"
            f.write(line)
            size += len(line)
            i += 1
        f.write("]}\n")
    return os.path.getsize(path), i


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bench")
    ap.add_argument("--mb", type=float, default=100)
    ap.add_argument("--keep")
    ap.add_argument("--cli", help="syncscope-cli: also the peak RSS of analyze")
    ap.add_argument("--shapes", default="one-track,many-tracks,long-names,many-args,tiny-events,1m-tracks")
    a = ap.parse_args()
    tmp = a.keep or tempfile.mkdtemp(prefix="syncscope_membench_")
    os.makedirs(tmp, exist_ok=True)
    empty = os.path.join(tmp, "empty.json")
    with open(empty, "w") as f:
        f.write('{"traceEvents":[]}')
    base = peak_rss([a.bench, empty])
    rows = []
    print(f"{'shape':<12} {'events':>10} {'JSON MB':>9} {'peak RSS MB':>12} {'RSS/size':>9} "
          f"{'(RSS-base)/size':>16}" + (f" {'analyze RSS MB':>15} {'RSS/size':>9}" if a.cli else ""))
    print(f"{'base':<12} {0:>10} {0:>9.1f} {base / 1e6:>12.1f}")
    for shape in a.shapes.split(","):
        path = os.path.join(tmp, shape + ".json")
        size, events = write_shape(path, shape, int(a.mb * 1e6))
        rss = peak_rss([a.bench, path])
        row = {"shape": shape, "events": events, "json_bytes": size, "peak_rss": rss,
               "ratio": rss / size, "ratio_above_base": (rss - base) / size}
        line = (f"{shape:<12} {events:>10} {size / 1e6:>9.1f} {rss / 1e6:>12.1f} {rss / size:>9.2f} "
                f"{(rss - base) / size:>16.2f}")
        if a.cli:
            arss = peak_rss([a.cli, "analyze", path])
            row.update({"analyze_peak_rss": arss, "analyze_ratio": arss / size})
            line += f" {arss / 1e6:>15.1f} {arss / size:>9.2f}"
        rows.append(row)
        print(line, flush=True)
        if not a.keep:
            os.remove(path)
    print(json.dumps({"base_rss": base, "shapes": rows}), file=sys.stderr)


if __name__ == "__main__":
    main()
