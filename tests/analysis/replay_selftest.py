#!/usr/bin/env python3
"""Checks of the independent reference (reference_stats.py) and of syncscope-cli
on traces whose answers are known without either of them:

1. A queue simulation: a random host program (host work, kernel launches, syncs
   that wait for every launched kernel) runs once as measured, and again with a
   random subset R of its syncs removed (each removed sync takes no time). The
   true saving is how much earlier the last kernel ends. The sync-free replay of
   the measured trace without R must give exactly that, for every R.
2. The hand-made trace tests/data/sync_replay.json, whose figures are worked out
   by hand in tests/analysis/exact_test.cpp.
3. syncscope-cli analyze on simulated traces equals the reference, to the ns.

Usage: replay_selftest.py CLI DATA_DIR
"""
import json
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_stats as ref  # noqa: E402

LAUNCH_LATENCY = 1  # us from the launch call's start to the kernel's earliest start
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def random_program(rng, launches=(5, 40), syncs=(1, 8)):
    ops = []
    for _ in range(rng.randint(*launches)):
        ops.append(("work", rng.randint(0, 50)))
        ops.append(("launch", rng.randint(1, 5), rng.randint(1, 80)))
    # 1 to 8 syncs at random places.
    for _ in range(rng.randint(*syncs)):
        ops.insert(rng.randint(1, len(ops)), ("sync", rng.randint(0, 3)))
    return ops


def steady_program(rng, steps):
    """A training loop: per step host work, a few launches and one sync; the
    host-bound ones keep a head start to the end (the replay's shortcut)."""
    ops = []
    work, kernels = rng.randint(20, 200), [rng.randint(5, 60) for _ in range(rng.randint(1, 4))]
    for _ in range(steps):
        ops.append(("work", work))
        for k in kernels:
            ops.append(("launch", 2, k))
        ops.append(("sync", 1))
    return ops


def simulate(ops, removed=frozenset()):
    """Runs the program; returns (trace events, last kernel end). Times in us."""
    h, free, events, corr, sync_no = 0, 0, [], 0, 0
    for op in ops:
        if op[0] == "work":
            h += op[1]
        elif op[0] == "launch":
            corr += 1
            start = max(h + LAUNCH_LATENCY, free)
            events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
                           "tid": 1, "ts": h, "dur": op[1], "args": {"correlation": corr}})
            events.append({"ph": "X", "cat": "kernel", "name": "k%d" % corr, "pid": 0, "tid": 7,
                           "ts": start, "dur": op[2],
                           "args": {"device": 0, "stream": 7, "correlation": corr}})
            free = start + op[2]
            h += op[1]
        else:
            if sync_no not in removed:
                end = max(h, free) + op[1]
                events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize",
                               "pid": 1, "tid": 1, "ts": h, "dur": end - h})
                h = end
            sync_no += 1
    return events, free


def reference_saving(events, removed):
    """The reference's replay on the measured trace, in us."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"traceEvents": events}, f)
        path = f.name
    try:
        evs, _ = ref.load(path)
    finally:
        os.unlink(path)
    acts, launch_of, calls = [], {}, []
    for e in sorted(evs, key=lambda e: (e.start, e.seq)):
        if e.cat == "kernel":
            acts.append({"dev": 0, "dev_i": 0, "sid": 0, "start": e.start, "end": e.end,
                         "corr": e.args["correlation"]})
        elif e.name == "cudaLaunchKernel":
            launch_of[e.args["correlation"]] = (0, e.start, e.end)
        elif e.name == "cudaDeviceSynchronize":
            calls.append({"start": e.start, "end": e.end, "thread": 0})
    return ref.replay(acts, launch_of, calls, set(removed), 1)[0] // 1000


def queue_simulation(rng, programs=300):
    for p in range(programs):
        ops = random_program(rng)
        n = sum(1 for o in ops if o[0] == "sync")
        events, last = simulate(ops)
        for _ in range(4):
            removed = frozenset(i for i in range(n) if rng.random() < 0.5)
            _, last_without = simulate(ops, removed)
            truth = last - last_without
            got = reference_saving(events, removed)
            check(got == truth, f"program {p}, removed {sorted(removed)} of {n}: replay {got} us, "
                                f"true saving {truth} us")


def hand_worked(data):
    out = ref.analyse(os.path.join(data, "sync_replay.json"), 10, [])
    check(out["devices"][0]["avoidable_us"] == "47.000", f"device avoidable {out['devices'][0]}")
    per_call = [c["avoidable_us"] for c in out["sync_calls"]]
    check(per_call == ["30.000", "1.000", "3.000", "1.000"], f"per call {per_call}")
    check([s["avoidable_us"] for s in out["sync_sources"]] == ["38.000", "3.000"], "sources")
    check([s["avoidable_us"] for s in out["steps"]] == ["37.000", "10.000"], "steps")
    check([g["sync"] for g in out["sync_gaps"]] ==
          ["cudaStreamSynchronize", "cudaStreamSynchronize", "cudaMemcpyAsync"], "gap causes")
    check(out["sync_calls"][0]["user_frame"] == "train.py(20): step", "user frame")


def cli_matches_reference(cli, rng, traces=12):
    programs = [random_program(rng) for _ in range(traces)]
    programs += [random_program(rng, (300, 600), (20, 60)) for _ in range(3)]
    programs += [steady_program(rng, 400) for _ in range(3)]
    for p, ops in enumerate(programs):
        events, _ = simulate(ops)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "sim.json")
            with open(path, "w") as f:
                json.dump({"traceEvents": events}, f)
            want = ref.analyse(path, 100000, [])
            p_ = subprocess.run([cli, "analyze", path, "--json", "-", "--top", "100000"],
                                capture_output=True, text=True, timeout=120)
            check(p_.returncode == 0, f"cli on simulated trace {p}: {p_.stderr}")
            got = json.loads(p_.stdout, parse_float=str)
        for sec in ("devices", "sync_calls", "sync_gaps", "sync_sources"):
            for i, (a, b) in enumerate(zip(want[sec], got[sec])):
                for k, v in a.items():
                    gv = b.get(k)
                    if k == "limited_by":  # {kind, text}: the kind against the reference's
                        gv = gv.get("kind") if isinstance(gv, dict) else gv
                        v = v["kind"]
                    check(str(gv) == str(v), f"simulated trace {p}: {sec}[{i}].{k} "
                                             f"reference {v}, cli {gv}")
            check(len(want[sec]) == len(got[sec]), f"simulated trace {p}: {sec} count")


def main(cli, data):
    rng = random.Random(20261201)
    queue_simulation(rng)
    hand_worked(data)
    cli_matches_reference(cli, rng)
    if failures:
        print("\n".join("FAIL: " + f for f in failures[:30]))
        print(f"{len(failures)} failure(s)")
        return 1
    print("replay self-test: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
