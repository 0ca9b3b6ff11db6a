#!/usr/bin/env python3
"""The advice of `syncscope-cli analyze --json` against the independent
reference (reference_advice.py, which reads resources/advice.json itself):
every blocking call's rule id, every source's rule and how many of its calls
match it, on the fixtures and every shared trace; the shape of an advice
object; the text report's "what to change" line under each listed source.
Usage: cli_advice_test.py CLI DATA_DIR SHARED_DIR"""
import json
import os
import subprocess
import sys
import tempfile
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_advice  # noqa: E402
import reference_stats  # noqa: E402

failures = []
ADVICE_KEYS = ["id", "class", "title", "why", "rewrite", "min_torch", "refs", "needs_newer_torch"]


def check(cond, what):
    if not cond:
        failures.append(what)


def run(cli, path):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "a.json")
        p = subprocess.run([cli, "analyze", path, "--json", out, "--top", "1000"], capture_output=True,
                           text=True)
        check(p.returncode == 0, f"{path}: exit {p.returncode}: {p.stderr.strip()[-300:]}")
        if p.returncode != 0:
            return None, ""
        return json.load(open(out), parse_float=Decimal), p.stdout


def main(cli, data, shared):
    rules = reference_advice.load_rules()
    by_id = {r["id"]: r for r in rules}
    paths = [os.path.join(data, n) for n in sorted(os.listdir(data))
             if n.endswith(".json") and not n.startswith(("bad", "empty"))]
    traces = os.path.join(shared, "traces")
    if os.path.isdir(traces):
        for root, _, names in sorted(os.walk(traces)):
            paths += [os.path.join(root, n) for n in sorted(names) if n.endswith((".json.gz", ".json"))]
    elif os.environ.get("CI"):
        check(False, f"shared traces missing under CI: {traces}")
    calls_seen, advised, ids_seen = 0, 0, set()
    for path in paths:
        keep = {}
        try:
            reference_stats.analyse(path, 10, [], keep=keep)
        except Exception:  # a fixture of errors: not a case here
            continue
        if not keep.get("calls"):
            continue
        tag = os.path.relpath(path, os.path.dirname(path.rstrip("/")))
        want = reference_advice.advise(keep, rules)
        doc, text = run(cli, path)
        if doc is None:
            continue
        ref_calls = sorted((c["ev"].name, reference_stats.us(c["start"]), a or "")
                           for c, a in zip(keep["calls"], want))
        got_calls = sorted((c["name"], str(c["ts_us"]), c["advice"] or "") for c in doc["sync_calls"])
        check(got_calls == ref_calls, f"{tag}: calls' advice differ: cli {got_calls[:4]} reference {ref_calls[:4]}")
        calls_seen += len(want)
        advised += sum(1 for a in want if a)
        ids_seen |= {a for a in want if a}
        # Sources: the rule most of their calls match, and how many do.
        groups = {}
        for c, a in zip(keep["calls"], want):
            groups.setdefault((c["ev"].name, c["op"], c["user_frame"]), []).append(a)
        for s in doc["sync_sources"]:
            key = (s["sync"], s["op"], s["user_frame"])
            ids = groups.get(key)
            check(ids is not None, f"{tag}: source {key} not in the reference")
            if ids is None:
                continue
            rid, n = reference_advice.source_advice(ids, rules)
            got = s["advice"]["id"] if s["advice"] else None
            check(got == rid and int(s["advice_calls"]) == n,
                  f"{tag}: source {key}: cli {got} x{s['advice_calls']} reference {rid} x{n}")
            if s["advice"]:
                a = s["advice"]
                check(list(a) == ADVICE_KEYS, f"{tag}: advice keys {list(a)}")
                r = by_id[a["id"]]
                check(a["title"] == r["title"] and a["rewrite"]["after"] == r["rewrite"]["after"]
                      and a["class"] == r["class"] and a["refs"] == r["refs"],
                      f"{tag}: advice {a['id']} is not the rule's text")
                check(a["needs_newer_torch"] is False or r["min_torch"],
                      f"{tag}: needs_newer_torch without a min_torch")
        # The text: one "what to change" line per listed source.
        listed = text.count(" call(s): ")
        check(text.count("what to change: ") == listed,
              f"{tag}: {listed} sources listed, {text.count('what to change: ')} advice lines")
    check(calls_seen >= 100, f"only {calls_seen} calls compared")
    check(advised >= 50, f"only {advised} calls had advice: the comparison would not see a wrong rule")
    check(len(ids_seen) >= 6, f"only rules {sorted(ids_seen)} fired")
    if failures:
        print("\n".join("FAIL: " + f for f in failures[:40]))
        print(f"{len(failures)} failure(s)")
        return 1
    print(f"advice: {calls_seen} calls on {len(paths)} files equal the reference "
          f"({advised} advised, rules {sorted(ids_seen)})")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
