#!/usr/bin/env python3
"""`syncscope-cli diff BEFORE AFTER --json --csv` against its contract, on the
hand-made pair tests/data/diff_before.json, diff_after.json (the expected values
are worked out in tests/analysis/tracediff_test.cpp).
Usage: cli_diff_test.py CLI DATA_DIR"""
import csv
import json
import os
import subprocess
import sys
import tempfile

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


SIDES = {
    "devices": ["busy_us", "idle_us", "span_us", "sync_gap_us", "avoidable_us"],
    "sync_sources": ["count", "gap_us", "avoidable_us"],
    "steps": ["step", "dur_us", "gpu_busy_us", "sync_gaps", "avoidable_us"],
    "ops": ["count", "total_us", "self_us"],
    "kernels": ["count", "total_us"],
}
IDS = {"devices": ["device"], "sync_calls": ["name"], "sync_sources": ["sync", "op", "user_frame"],
       "steps": ["index"], "ops": ["name", "cat"], "kernels": ["name"]}


def run(cli, *args):
    return subprocess.run([cli, *args], capture_output=True, text=True, timeout=120)


def main(cli, data):
    before = os.path.join(data, "diff_before.json")
    after = os.path.join(data, "diff_after.json")
    with tempfile.TemporaryDirectory() as tmp:
        out_json = os.path.join(tmp, "d.json")
        out_csv = os.path.join(tmp, "d.csv")
        p = run(cli, "diff", before, after, "--json", out_json, "--csv", out_csv, "--top", "3")
        check(p.returncode == 0, f"diff exited {p.returncode}: {p.stderr.strip()}")
        check(sorted(os.listdir(tmp)) == ["d.csv", "d.json"], "a temporary file was left behind")
        with open(out_json) as f:
            doc = json.load(f)
        with open(out_csv, newline="") as f:
            rows = list(csv.reader(f))
        text = p.stdout

    # The contract's keys, in its order; additions only after them.
    keys = list(doc)
    contract = ["before", "after", "devices", "sync_calls", "sync_sources", "steps", "step_time", "ops", "kernels"]
    check(keys[:len(contract)] == contract, f"top-level keys {keys}")
    for side in ("before", "after"):
        check(list(doc[side])[:3] == ["path", "events", "span_us"], f"{side} keys {list(doc[side])}")
    for section, ids in IDS.items():
        for row in doc[section]:
            check(list(row)[:len(ids) + 2] == ids + ["before", "after"], f"{section} row keys {list(row)}")
            for side in ("before", "after"):
                v = row[side]
                if section in SIDES and v is not None:
                    check(list(v)[:len(SIDES[section])] == SIDES[section], f"{section}.{side} keys {list(v)}")
    check(list(doc["step_time"]["before"])[:4] == ["median_us", "p5_us", "p95_us", "count"], "step_time keys")

    check(doc["before"]["events"] == 14 and doc["after"]["events"] == 16, "events")
    check((doc["before"]["span_us"], doc["after"]["span_us"]) == (900, 700), "spans")
    dev = doc["devices"][0]
    check(dev["device"] == 0 and dev["before"]["avoidable_us"] == 140 and dev["after"]["avoidable_us"] == 40,
          f"device {dev}")
    check(dev["before"]["sync_gap_us"] == 50 and dev["after"]["busy_us"] == 500, f"device {dev}")
    calls = {c["name"]: (c["before"], c["after"]) for c in doc["sync_calls"]}
    check(calls == {"cudaStreamSynchronize": (1, None), "cudaDeviceSynchronize": (None, 1)}, f"sync_calls {calls}")

    src = [(s["sync"], s["op"], s["user_frame"], s["before"] is None, s["after"] is None) for s in doc["sync_sources"]]
    check(src == [("cudaStreamSynchronize", "aten::item", "train.py(10): step", False, True),
                  ("cudaDeviceSynchronize", "aten::copy_", "train.py(20): log", True, False)], f"sources {src}")
    s0 = doc["sync_sources"][0]["before"]
    check((s0["count"], s0["gap_us"], s0["avoidable_us"]) == (1, 50, 140), f"removed source {s0}")

    steps = [(s["index"], s["before"]["dur_us"], s["after"]["dur_us"]) for s in doc["steps"]]
    check(steps == [(0, 500, 300), (1, 400, 400)], f"steps {steps}")
    st = doc["step_time"]
    check((st["before"]["median_us"], st["before"]["p5_us"], st["before"]["p95_us"], st["before"]["count"])
          == (450, 400, 500, 2), f"step_time {st}")
    check(st["after"]["median_us"] == 350, f"step_time {st}")

    ops = {(o["name"], o["cat"]): o for o in doc["ops"]}
    old, new = ops.get(("aten::old_name", "cpu_op")), ops.get(("aten::new_name", "cpu_op"))
    check(old is not None and old["after"] is None and old["before"]["self_us"] == 60, f"renamed op old {old}")
    check(new is not None and new["before"] is None and new["after"]["count"] == 2, f"renamed op new {new}")
    check(doc["ops"][0]["name"] == "train.py(10): step", "ops sorted by |delta self|")
    check([k["name"] for k in doc["kernels"]] == ["K2", "K1"], "kernels sorted by |delta total|")

    check(rows[0] == ["section", "key", "metric", "before", "after", "delta"], f"csv header {rows[0]}")
    check(["steps", "0", "dur_us", "500.000", "300.000", "-200.000"] in rows, "csv step row")
    check(["sync_calls", "cudaDeviceSynchronize", "count", "", "1", "1"] in rows, "csv missing side")

    # The text: headline first, then sources, then ops and kernels.
    order = [text.find(s) for s in ("step time (each step, 2 -> 2 steps)", "GPU busy", "sync-gap time", "avoidable time",
                                    "sync calls", "Sync sources that disappeared", "Sync sources that appeared",
                                    "Top op changes", "Top kernel changes")]
    check(all(i >= 0 for i in order) and order == sorted(order), f"text order {order}:\n{text}")
    # Two steps a side: each step's change, no median that would hide one.
    check("400.000 ms" not in text and "#0: 0.500 ms -> 0.300 ms (-0.200 ms, -40.0%)" in text
          and "#1: 0.400 ms -> 0.400 ms (0.000 ms, +0.0%)" in text and "median" not in text, f"step lines:\n{text}")
    check("66.7% -> 92.6%" in text, f"GPU busy line:\n{text}")

    # Errors: a file that does not load names it, exit 1, one line.
    for args, needle in ((["diff", os.path.join(data, "malformed.json"), after], "malformed.json"),
                         (["diff", before, os.path.join(data, "no_such_file.json")], "no_such_file.json"),
                         (["diff", before, after, "--top", "x"], "--top"),
                         (["diff", before, after, "--csv", "/nonexistent-dir/x.csv"], "/nonexistent-dir")):
        p = run(cli, *args)
        lines = [l for l in p.stderr.splitlines() if l and not l.startswith("[")]
        check(p.returncode == 1 and len(lines) == 1 and needle in lines[0],
              f"{args}: rc {p.returncode}, stderr {p.stderr!r}")

    # --json - writes only the document.
    p = run(cli, "diff", before, after, "--json", "-")
    check(p.returncode == 0 and json.loads(p.stdout)["steps"][0]["before"]["dur_us"] == 500, "--json -")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)
