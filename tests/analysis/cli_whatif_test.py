#!/usr/bin/env python3
"""`syncscope-cli analyze --what-if` against the independent reference: for each
trace, several selections (one op, a sync name, a conjunction, a union of
specs, a user frame) are replayed by reference_stats.py without exactly the
calls they select, together, and every what_if.devices[].avoidable_us must
equal it to the ns. advice=ID selects the calls whose own rule is ID, by the
independent reference_advice.py. Also: a bad spec is one sentence.
Usage: cli_whatif_test.py CLI DATA_DIR SHARED_DIR"""
import json
import os
import subprocess
import sys
import tempfile
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_advice  # noqa: E402
import reference_job  # noqa: E402
import reference_stats  # noqa: E402

RULES = reference_advice.load_rules()

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def spec_selects(spec, call):
    for part in spec.split(","):
        key, value = part.split("=", 1)
        field = {"sync": call["ev"].name, "op": call["op"], "frame": call["user_frame"],
                 "advice": call.get("advice")}[key]
        if key == "advice":
            if field != value:
                return False
            continue
        if field is None or value not in field:
            return False
    return True


def specs_for(calls):
    """Selections drawn from what the trace has: its most frequent op, a sync
    name, op and sync together, two specs at once, and a user frame."""
    out = []
    ops = sorted({c["op"] for c in calls if c["op"]})
    syncs = sorted({c["ev"].name for c in calls})
    frames = sorted({c["user_frame"] for c in calls if c["user_frame"]})
    if ops:
        out.append(["op=" + ops[0]])
        out.append(["op=" + ops[-1], "sync=" + syncs[0]])
        out.append(["sync=" + syncs[0][:6] + ",op=" + ops[0][:5]])
    out.append(["sync=" + syncs[-1]])
    if frames:
        out.append(["frame=" + frames[0][:12]])
    advice = sorted({c["advice"] for c in calls if c.get("advice")})
    if advice:
        out.append(["advice=" + advice[0]])
        out.append(["advice=" + advice[-1] + ",sync=" + syncs[0][:5], "op=no-such-op-anywhere"])
    out.append(["op=no-such-op-anywhere"])
    return out


def run_case(cli, path, specs, tag):
    keep = {}
    reference_stats.analyse(path, 10, [], keep=keep)
    calls = keep["calls"]
    for c, a in zip(calls, reference_advice.advise(keep, RULES)):
        c["advice"] = a
    chosen = {i for i, c in enumerate(calls) if any(spec_selects(s, c) for s in specs)}
    want = reference_stats.replay(keep["acts"], keep["launch_of"], calls, chosen, len(keep["devices"]),
                                  keep["deps"], keep["prep"])
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "a.json")
        cmd = [cli, "analyze", path, "--json", out]
        for s in specs:
            cmd += ["--what-if", s]
        p = subprocess.run(cmd, capture_output=True, text=True)
        check(p.returncode == 0, f"{tag}: exit {p.returncode}: {p.stderr.strip()[-300:]}")
        if p.returncode != 0:
            return 0
        doc = json.load(open(out), parse_float=Decimal, parse_int=Decimal)
    w = doc.get("what_if")
    check(w is not None, f"{tag}: no what_if")
    if w is None:
        return 0
    check(w["specs"] == specs, f"{tag}: specs {w['specs']}")
    check(int(w["selected_calls"]) == len(chosen), f"{tag}: selected_calls {w['selected_calls']} != {len(chosen)}")
    got = {int(d["device"]): d["avoidable_us"] for d in w["devices"]}
    kinds = {"none", "gpu_busy", "resynchronized", "stream_wait", "independent_thread", "external_wait", "trace_end"}
    for d in w["devices"]:
        lim = d.get("limited_by", {})
        check(lim.get("kind") in kinds and bool(lim.get("text")), f"{tag}: device {d['device']}: limited_by {lim}")
        # "none" exactly when nothing of the file was removed.
        check((lim.get("kind") == "none") == (not chosen), f"{tag}: device {d['device']}: limited_by {lim} "
              f"with {len(chosen)} selected call(s)")
    for i, dev in enumerate(keep["devices"]):
        exp = Decimal(reference_stats.us(want[i]))
        check(got.get(dev) == exp, f"{tag}: device {dev}: cli {got.get(dev)} reference {exp}")
    return sum(1 for x in want if x > 0)


def job_case(cli, paths, specs, tag):
    """A job: what_if.job_avoidable_us against the reference job replay of
    every rank's selected calls removed together."""
    job = reference_job.Job(paths)
    removed = {}
    for f, ctx in enumerate(job.ctx):
        for c, a in zip(ctx["calls"], reference_advice.advise(ctx, RULES)):
            c["advice"] = a
        removed[f] = {i for i, c in enumerate(ctx["calls"]) if any(spec_selects(sp, c) for sp in specs)}
    want = Decimal(reference_stats.us(job.saving(removed)[0]))
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "a.json")
        cmd = [cli, "analyze", *paths, "--json", out]
        for sp in specs:
            cmd += ["--what-if", sp]
        p = subprocess.run(cmd, capture_output=True, text=True)
        check(p.returncode == 0, f"{tag}: exit {p.returncode}: {p.stderr.strip()[-300:]}")
        if p.returncode != 0:
            return 0
        doc = json.load(open(out), parse_float=Decimal, parse_int=Decimal)
    w = doc["what_if"]
    check(int(w["selected_calls"]) == sum(len(v) for v in removed.values()),
          f"{tag}: selected_calls {w['selected_calls']}")
    check(w.get("job_avoidable_us") == want, f"{tag}: job cli {w.get('job_avoidable_us')} reference {want}")
    return 1 if want > 0 else 0


def main(cli, data, shared):
    paths = [os.path.join(data, n) for n in sorted(os.listdir(data))
             if n.endswith(".json") and not n.startswith(("job_", "bad", "empty", "diff_"))]
    traces = os.path.join(shared, "traces")
    if os.path.isdir(traces):
        paths += [os.path.join(traces, n) for n in sorted(os.listdir(traces)) if n.endswith(".json.gz")]
    elif os.environ.get("CI"):
        check(False, f"shared traces missing under CI: {traces}")
    cases = moved = 0
    for path in paths:
        keep = {}
        try:
            reference_stats.analyse(path, 10, [], keep=keep)
        except Exception:  # not a trace the reference reads (a fixture of errors): not a case here
            continue
        if not keep.get("calls"):
            continue
        for c, a in zip(keep["calls"], reference_advice.advise(keep, RULES)):
            c["advice"] = a
        for specs in specs_for(keep["calls"]):
            moved += run_case(cli, path, specs, f"{os.path.basename(path)} {specs}")
            cases += 1
    check(cases >= 20, f"only {cases} what-if cases ran")
    check(moved >= 5, f"only {moved} selections moved a device: the test would not see a wrong replay")
    # Jobs: the hand-made ones and the 8-rank DLRM set.
    jobs = {}
    for n in sorted(os.listdir(data)):
        if n.startswith("job_") and "_rank" in n and "duplicate" not in n:
            jobs.setdefault(n.rsplit("_rank", 1)[0], []).append(os.path.join(data, n))
    dlrm = os.path.join(traces, "param_dlrm_8ranks")
    if os.path.isdir(dlrm):
        jobs["param_dlrm_8ranks"] = [os.path.join(dlrm, n) for n in sorted(os.listdir(dlrm)) if n.endswith(".json")]
    elif os.environ.get("CI"):
        check(False, f"shared job missing under CI: {dlrm}")
    job_cases = job_moved = 0
    for name, files in sorted(jobs.items()):
        if len(files) < 2:
            continue
        calls = []
        for f in files:
            keep = {}
            reference_stats.analyse(f, 10, [], keep=keep)
            for c, a in zip(keep["calls"], reference_advice.advise(keep, RULES)):
                c["advice"] = a
            calls += keep["calls"]
        if not calls:
            continue
        for specs in specs_for(calls):
            job_moved += job_case(cli, files, specs, f"job {name} {specs}")
            job_cases += 1
    check(job_cases >= 10, f"only {job_cases} job what-if cases ran")
    check(job_moved >= 3, f"only {job_moved} job selections moved the job")

    any_trace = paths[0]
    for bad, words in (("op", "not key=value"), ("op=", "has no value"), ("advice=no-such-rule", "there is no advice rule 'no-such-rule'"),
                       ("colour=red", "unknown key")):
        p = subprocess.run([cli, "analyze", any_trace, "--what-if", bad], capture_output=True, text=True)
        lines = [l for l in p.stderr.splitlines() if l.strip() and not l.startswith("[")]
        check(p.returncode != 0 and len(lines) == 1 and words in lines[0],
              f"--what-if {bad!r}: exit {p.returncode}, stderr {p.stderr.strip()[-200:]!r}")
    if failures:
        print("\n".join("FAIL: " + f for f in failures[:40]))
        print(f"{len(failures)} failure(s)")
        return 1
    print(f"what-if: {cases} selections on {len(paths)} files equal the reference ({moved} moved a device); "
          f"{job_cases} on {len(jobs)} jobs ({job_moved} moved the job)")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
