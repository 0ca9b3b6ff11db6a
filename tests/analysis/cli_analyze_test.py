#!/usr/bin/env python3
"""`syncscope-cli analyze --json` against its contract (docs/cli.md "analyze --json"),
and, to the ns, against the independent reference (reference_stats.py) on every
hand-made fixture and every shared real trace (limited_by: its kind, per device
and per sync source).
Usage: cli_analyze_test.py CLI DATA_DIR SHARED_DIR"""
import json
import os
import subprocess
import sys
import tempfile
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_stats  # noqa: E402

SHAPE = {
    "files": ["path", "rank", "format", "source", "torch_version", "runtime", "events", "flows", "instants", "counters", "warnings", "truncated_at_byte", "incomplete",
              "unplaced_gpu_events", "span_us", "wait_mode", "stream_dependencies", "thread_mode", "handoffs",
              "warning_kinds"],
    "devices": ["file", "device", "name", "kernels", "memcpys", "memsets", "busy_us", "idle_us", "span_us",
                "sync_gap_us", "avoidable_us", "limited_by"],
    "sync_calls": ["file", "name", "ts_us", "dur_us", "pid", "tid", "op", "root_op", "pageable_copy",
                   "blocks", "blocked_us", "avoidable_us", "py_frame", "user_frame", "step", "advice"],
    "cuda_sync_events": ["file", "kind", "ts_us", "dur_us", "device", "stream"],
    "handoffs": ["file", "from_tid", "to_tid", "at_us", "back_us"],
    "sync_gaps": ["file", "device", "start_us", "end_us", "dur_us", "sync", "op", "root_op",
                  "blocked_us", "avoidable_us", "py_frame", "user_frame", "step", "advice"],
    "idle_breakdown": ["file", "device", "stream", "host_wait_us", "kernel_wait_us", "other_us"],
    "steps": ["file", "device", "step", "start_us", "end_us", "gpu_busy_us", "sync_gaps",
              "sync_gap_us", "avoidable_us"],
    "sync_sources": ["file", "sync", "op", "user_frame", "count", "gaps", "gap_us", "avoidable_us", "advice",
                     "advice_calls", "limited_by"],
    "top_ops": ["name", "cat", "count", "total_us", "self_us", "gpu_count", "gpu_us"],
    "long_calls": ["file", "name", "ts_us", "dur_us", "pid", "tid", "op", "root_op"],
}
SECTIONS = ["devices", "sync_calls", "handoffs", "sync_gaps", "idle_breakdown", "steps", "sync_sources", "top_ops"]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def analyze(cli, files, extra=()):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.json")
        p = subprocess.run([cli, "analyze", *files, "--json", out, *extra],
                           capture_output=True, text=True, timeout=300)
        check(p.returncode == 0, f"analyze {files} exited {p.returncode}: {p.stderr.strip()}")
        check(os.listdir(tmp) == ["out.json"], "a temporary file was left behind")
        with open(out) as f:
            text = f.read()
        # Every *_us is a plain decimal with exactly 3 fractional digits.
        for line in text.splitlines():
            if '_us": ' in line:
                v = line.split('_us": ', 1)[1].rstrip(",")
                check(v == "null" or ("." in v and len(v.split(".")[1]) == 3 and "e" not in v.lower()),
                      f"not an exact 3-decimal time: {line.strip()}")
        return json.loads(text, parse_float=Decimal)


def check_shape(doc):
    keys = ["files", "categories", "devices", "sync_calls", "long_calls", "cuda_sync_events", "stream_waits",
            "handoffs", "sync_gaps", "idle_breakdown", "steps", "sync_sources", "top_ops"]
    if len(doc.get("files", [])) >= 2:
        keys += ["job", "ranks", "collective_blame", "rank_steps"]
    check(list(doc) == keys, f"top-level keys {list(doc)}")
    for key, fields in SHAPE.items():
        for row in doc.get(key, []):
            check(list(row) == fields, f"{key} row keys {list(row)}")


def main(cli, data, shared):
    doc = analyze(cli, [os.path.join(data, "gpu_sync_gaps.json")], ["--top", "2"])
    check_shape(doc)
    check(doc["files"][0]["rank"] == 3 and doc["files"][0]["events"] == 26, "files[0]")
    check(doc["categories"]["kernel"] == 6, "kernel count")
    d0 = doc["devices"][0]
    check((d0["busy_us"], d0["idle_us"], d0["span_us"], d0["sync_gap_us"]) ==
          (Decimal("465.000"), Decimal("580.000"), Decimal("1045.000"), Decimal("505.000")), f"device 0 {d0}")
    gaps = [(g["start_us"], g["end_us"], g["sync"], g["op"], g["root_op"]) for g in doc["sync_gaps"]]
    check(gaps == [(300, 535, "cudaStreamSynchronize", "aten::item", "step"),
                   (690, 910, "cudaEventSynchronize", None, None),
                   (950, 1000, "cudaStreamSynchronize", "step", "step")], f"sync gaps {gaps}")
    b = doc["idle_breakdown"][0]
    check((b["host_wait_us"], b["kernel_wait_us"], b["other_us"]) == (455, 5, 50), f"breakdown {b}")
    check(len(doc["top_ops"]) == 2, "--top 2")

    check(doc["files"][0]["truncated_at_byte"] is None, "a whole file has no truncated_at_byte")
    # A file that ends early says where and what the analysis covers.
    cut = os.path.join(data, "truncated.json")
    doc = analyze(cli, [cut])
    check(doc["files"][0]["truncated_at_byte"] == os.path.getsize(cut),
          f"truncated_at_byte {doc['files'][0]['truncated_at_byte']}, the file has {os.path.getsize(cut)} bytes")
    p = subprocess.run([cli, "analyze", cut], capture_output=True, text=True, timeout=60)
    check(f"the file ends early at byte {os.path.getsize(cut)}: the analysis covers its first 0.003 ms (2 events)"
          in p.stdout, f"text: {p.stdout[:400]!r}")

    check("in the part read" in p.stdout and "in this trace" not in p.stdout, f"text: {p.stdout[:400]!r}")
    check(doc["files"][0]["incomplete"] is None, "a file cut where every kind reached its end is not incomplete")
    # Long host calls that are not syncs: listed, with their op; the threshold is a flag.
    longs = os.path.join(data, "long_host_calls.json")
    doc = analyze(cli, [longs])
    got = [(c["name"], str(c["dur_us"]), c["op"]) for c in doc["long_calls"]]
    check(got == [("cudaLaunchKernel", "2000.000", "aten::mm")], f"long_calls {got}")
    check([c["name"] for c in doc["sync_calls"]] == ["cudaStreamSynchronize"], f"sync_calls {doc['sync_calls']}")
    doc = analyze(cli, [longs], ["--long-call-ms", "0.4"])
    check(len(doc["long_calls"]) == 2, f"--long-call-ms 0.4: {doc['long_calls']}")
    p = subprocess.run([cli, "analyze", longs], capture_output=True, text=True, timeout=60)
    check("    1 long host call(s) that are not syncs, 2.000 ms in all" in p.stdout
          and "the longest cudaLaunchKernel in aten::mm, 2.000 ms at 0.010 ms" in p.stdout, f"text: {p.stdout[:900]!r}")
    p = subprocess.run([cli, "analyze", longs, "--long-call-ms", "0"], capture_output=True, text=True, timeout=60)
    check(p.returncode != 0 and "--long-call-ms" in p.stderr and len(p.stderr.strip().splitlines()) == 1,
          f"--long-call-ms 0: exit {p.returncode}, {p.stderr!r}")
    # Cut inside its kinds of events: what is missing, and no busy or avoidable figure as a finding.
    cut = os.path.join(data, "truncated_by_kind.json")
    doc = analyze(cli, [cut])
    want = ("events stop early by kind (runtime calls at 0.086 ms, GPU activity at 0.058 ms, of the 0.990 ms read): "
            "the file lists events kind by kind and was cut inside them, so the later ones are missing and this "
            "analysis is incomplete")
    check(doc["files"][0]["incomplete"] == want, f"incomplete {doc['files'][0]['incomplete']!r}")
    p = subprocess.run([cli, "analyze", cut], capture_output=True, text=True, timeout=60)
    check("    INCOMPLETE: " + want + "\n" in p.stdout, f"text: {p.stdout[:600]!r}")
    check("would finish up to" not in p.stdout and "           busy " not in p.stdout and "(incomplete)" in p.stdout,
          f"text: {p.stdout[:900]!r}")
    # No single source near the total: said in words.
    p = subprocess.run([cli, "analyze", os.path.join(data, "resync.json")], capture_output=True, text=True, timeout=60)
    check("no single source saves much: the syncs re-synchronize each other; removing all 2 blocking call(s) "
          "together saves 0.012 ms" in p.stdout, f"resync text: {p.stdout[:600]!r}")

    # Errors: non-zero and one sentence on stderr.
    for args in (["analyze", os.path.join(data, "malformed.json")],
                 ["analyze", os.path.join(data, "no_such_file.json")],
                 ["analyze", os.path.join(data, "bare_array.json"), "--top", "many"],
                 ["analyze", os.path.join(data, "bare_array.json"), "--json", "/nonexistent-dir/x.json"]):
        p = subprocess.run([cli, *args], capture_output=True, text=True, timeout=60)
        lines = [l for l in p.stderr.splitlines() if l and not l.startswith("[")]
        check(p.returncode != 0 and len(lines) == 1, f"{args}: rc {p.returncode}, stderr {p.stderr!r}")

    # Every figure equals the independent reference, to the ns.
    fixtures = [os.path.join(data, n) for n in ("gpu_sync_gaps.json", "sync_replay.json",
                                                 "kineto_exact_times.json", "hip_item_sync.json",
                                                 "graph_launch.json")]
    traces = os.path.join(shared, "traces")
    if os.path.isdir(traces):
        for root, _, names in sorted(os.walk(traces)):
            fixtures += [os.path.join(root, n) for n in sorted(names) if n.endswith(".json.gz")]
    elif os.environ.get("CI"):
        check(False, f"shared traces missing under CI: {traces}")
    for path in fixtures:
        doc = analyze(cli, [path], ["--top", "100000"])
        check_shape(doc)
        want = reference_stats.analyse(path, 100000, [])
        check(doc["categories"] == want["categories"], f"{path}: categories")
        check(doc["files"][0]["runtime"] == want["runtime"],
              f"{path}: runtime {doc['files'][0]['runtime']}, reference {want['runtime']}")
        for k in ("thread_mode", "handoffs"):
            check(doc["files"][0][k] == want["files"][0][k],
                  f"{path}: files[0].{k} = {doc['files'][0][k]}, reference {want['files'][0][k]}")
        for sec in SECTIONS:
            got = doc[sec]
            check(len(got) == len(want[sec]), f"{path}: {sec}: {len(got)} rows, reference {len(want[sec])}")
            for i, (g, w) in enumerate(zip(got, want[sec])):
                for k, v in w.items():
                    gv = g.get(k)
                    if k == "limited_by":  # {kind, text}: the kind against the reference's
                        gv = gv.get("kind") if isinstance(gv, dict) else gv
                        check(gv == v["kind"], f"{path}: {sec}[{i}].limited_by.kind = {gv}, "
                                               f"reference {v['kind']}")
                        continue
                    same = (str(gv) == v) if k.endswith("_us") else (gv == v)
                    check(same, f"{path}: {sec}[{i}].{k} = {gv}, reference {v}")

    ranks = os.path.join(shared, "traces", "hta_trace_filter_2ranks")
    if os.path.isdir(ranks):
        doc = analyze(cli, [os.path.join(ranks, "sampled_rank-1.json.gz"),
                            os.path.join(ranks, "sampled_rank-0.json.gz")])
        check_shape(doc)
        check([f["rank"] for f in doc["files"]] == [0, 1], "files ordered by rank")
        check({d["file"]: d["device"] for d in doc["devices"]} == {0: 0, 1: 1}, "device per rank")
    else:
        print("shared traces absent: multi-rank part skipped")

    if failures:
        print("\n".join("FAIL: " + f for f in failures))
        return 1
    print("cli analyze: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
