#!/usr/bin/env python3
"""syncscope-cli's sync-free replay on multi-threaded training loops whose
answers are known without it: a queue simulation.

The program (one process, pid 1; one GPU, device 0, no resource contention
between streams). Every GPU activity starts at max(its launch call's end + LL,
its stream predecessor's end + BB); LL (3-8 us) and BB (0 in half the programs,
1-2 us in the others: the replay infers a wait on another stream for an
activity that starts more than 2 us after its predecessor, which is not what
this test is about) are constants of the program. 2-6 training steps:

- the main thread (tid 100), per step: data loading (host work); a pageable
  host-to-device copy (`cudaMemcpyAsync`, "Memcpy HtoD (Pageable -> Device)" on
  stream 7), which first drains its stream: the call waits until stream 7 is
  idle, the copy runs, the call returns when it ends; `cudaStreamSynchronize` on
  stream 7; forward: 5-30 kernels, each launched inside a cpu_op, with 0-3
  `item()` reads among them (aten::item > aten::_local_scalar_dense >
  `cudaMemcpyAsync`, "Memcpy DtoH (Device -> Pageable)", which waits for
  stream 7 the same way); backward: one kernel inside aten::ones_like, then
  silence;
- the autograd engine thread (tid 200) wakes W us after the main thread's last
  event, launches the backward kernels (each inside "autograd::engine::
  evaluate_function: XBackward0" > "XBackward0"), and the main thread resumes R
  us after the engine thread's last event, for the optimizer (3-10 small
  kernels);
- an independent thread (tid 300) on its own absolute schedule: every P us a
  pinned copy ("Memcpy HtoD (Pinned -> Device)", non-blocking) on stream 13. In
  about one program of five its last copy starts after the main thread's last
  kernel ended, so it ends the device with or without syncs;
- at the end the main thread calls `cudaDeviceSynchronize`.

Truth: the same program run again with a set X of blocking calls taking no
time (a removed sync does nothing; a removed pageable copy is issued at its
call's start and the call returns at once), with the same host work, the same
W and R (the handoff moves with the host) and the independent thread's
schedule unchanged in absolute time. The true saving is how much earlier the
device's last activity ends.

Each program is written in three variants of the same measured run:
  flows:   forward ops carry "Sequence number"/"Fwd thread id", backward ops
           the matching "Sequence number", linked by `fwdbwd` flow events;
  frames:  `python_function` frames: the step, and torch's backward frames
           (ending in run_backward) over the main thread's silence;
  neither: no flows, no sequence numbers, no frames.
Checks per program and variant (syncscope-cli analyze --json -):
  1. X = every blocking call: devices[0].avoidable_us;
  2. X = the item() calls: what_if.devices[0].avoidable_us with
     --what-if op=aten::item --what-if op=aten::_local_scalar_dense (the copy's
     innermost op is the latter), in the same run; programs with an item() call;
  both within 10% of the truth + 10 us; equal to it to the ns when BB = 0 and
  the replay's latency rule is unambiguous (see build), and
  exactly 0 where the independent thread ends the device;
  3. files[0].thread_mode is flows / frames / inferred, and the handoffs from
     the main thread to the engine thread are one per step (backward); with
     flows or frames there are no others, inferred may add some to the
     independent thread (counted in the summary).
The simulator checks itself first (an empty X reruns the measured run to the
ns, handoffs and the independent thread behave as stated, events nest).

Usage: thread_selftest.py CLI [--report-only] [--programs N] [--seed S] [--keep DIR]
  --report-only  print the summary, exit 0 whatever the results
  --keep DIR     also write every trace there (program seed and variant in the name)
"""
import argparse
import itertools
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_stats as ref  # noqa: E402

US = 1000  # times are integer ns; the trace has us with 3 decimals
T0 = 1_000 * US
MAIN, ENGINE, SIDE = 100, 200, 300
COMPUTE, COPY = 7, 13
VARIANTS = (("flows", "flows"), ("frames", "frames"), ("neither", "inferred"))
ITEM_SPECS = ("op=aten::item", "op=aten::_local_scalar_dense")
FORWARD = {"aten::linear": "AddmmBackward0", "aten::conv2d": "ConvolutionBackward0",
           "aten::relu": "ReluBackward0", "aten::layer_norm": "NativeLayerNormBackward0",
           "aten::matmul": "MmBackward0", "aten::softmax": "SoftmaxBackward0"}
OPTIMIZER = ("aten::add_", "aten::mul_", "aten::addcmul_", "aten::sqrt")
H2D_PAGEABLE = "Memcpy HtoD (Pageable -> Device)"
D2H_PAGEABLE = "Memcpy DtoH (Device -> Pageable)"
H2D_PINNED = "Memcpy HtoD (Pinned -> Device)"

failures = []
REFERENCE_TRACES = 60  # (program, variant) pairs also checked against reference_stats.py
EXTRA_INFERRED = [0]  # programs where inferred mode took the independent thread as woken


def check(cond, what):
    if not cond:
        failures.append(what)
    return cond


# ---------------------------------------------------------------- the program

def launch_op(rng, corr, name, kernel, kernel_ns, seq=None):
    """A kernel launch inside a cpu_op: host work before and after the call."""
    return {"op": name, "corr": next(corr), "pre": rng.randint(1 * US, 8 * US),
            "call": rng.randint(4 * US, 10 * US), "post": rng.randint(1 * US, 5 * US),
            "kernel": kernel, "kernel_ns": kernel_ns, "seq": seq}


def copy_call(rng, corr, blocking, kind, copy_ns):
    blocking.append(kind)
    return {"id": len(blocking) - 1, "corr": next(corr), "pre": rng.randint(1 * US, 3 * US),
            "post": rng.randint(1 * US, 3 * US), "copy_ns": copy_ns, "ret": rng.randint(1 * US, 5 * US)}


def random_program(seed):
    """The host programs of the main and engine threads; the independent
    thread's schedule is added by side_schedule once the measured run is known."""
    rng = random.Random(seed)
    p = {"seed": seed, "ll": rng.randint(3 * US, 8 * US),
         "bb": 0 if rng.random() < 0.5 else rng.randint(1 * US, 2 * US),
         "sync_events": rng.random() < 0.5, "ends_device": rng.random() < 0.2, "rng": rng}
    corr, seqs = itertools.count(1), itertools.count(1)
    blocking, ops = [], []  # blocking: the kind of each blocking call, by id
    p["steps"] = rng.randint(2, 6)
    for s in range(p["steps"]):
        ops.append(("step_begin", s))
        ops.append(("work", rng.randint(50 * US, 3000 * US)))  # data loading
        ops.append(("h2d", copy_call(rng, corr, blocking, "h2d", rng.randint(10 * US, 300 * US))))
        blocking.append("stream_sync")
        ops.append(("stream_sync", {"id": len(blocking) - 1, "corr": next(corr), "ret": rng.randint(2 * US, 8 * US)}))
        n_fwd = rng.randint(5, 30)
        items = [rng.randrange(n_fwd) for _ in range(rng.randint(0, 3))]
        fwd = []
        for i in range(n_fwd):
            ops.append(("work", rng.randint(0, 100 * US)))
            name = rng.choice(sorted(FORWARD))
            seq = next(seqs)
            fwd.append((seq, name))
            ops.append(("launch", launch_op(rng, corr, name, "fwd_kernel_%d" % seq, rng.randint(5 * US, 400 * US), seq)))
            for _ in range(items.count(i)):
                ops.append(("work", rng.randint(0, 30 * US)))
                ops.append(("item", copy_call(rng, corr, blocking, "item", rng.randint(2 * US, 5 * US))))
        # Backward: each backward op matches a forward op of the step, latest first.
        engine = []
        for seq, name in sorted(rng.sample(fwd, rng.randint(5, n_fwd)), reverse=True):
            bwd = FORWARD[name]
            if engine:  # the engine thread's first event starts W after it wakes
                engine.append(("work", rng.randint(0, 80 * US)))
            op = launch_op(rng, corr, bwd, "bwd_kernel_%d" % seq, rng.randint(5 * US, 400 * US), seq)
            op["outer_pre"], op["outer_post"] = rng.randint(1 * US, 4 * US), rng.randint(1 * US, 4 * US)
            engine.append(("bwd", op))
        ops.append(("backward", {"ones_like": launch_op(rng, corr, "aten::ones_like", "fill_kernel",
                                                        rng.randint(2 * US, 6 * US)),
                                 "w": rng.randint(20 * US, 300 * US), "r": rng.randint(20 * US, 300 * US),
                                 "engine": engine}))
        for k in range(rng.randint(3, 10)):
            if k:  # the main thread's first event after backward starts R after the engine's last
                ops.append(("work", rng.randint(0, 20 * US)))
            ops.append(("launch", launch_op(rng, corr, rng.choice(OPTIMIZER), "optimizer_kernel",
                                            rng.randint(5 * US, 40 * US))))
        ops.append(("work", rng.randint(1 * US, 5 * US)))
        ops.append(("step_end", s))
    ops.append(("work", rng.randint(1 * US, 20 * US)))
    blocking.append("device_sync")
    ops.append(("device_sync", {"id": len(blocking) - 1, "corr": next(corr), "ret": rng.randint(2 * US, 8 * US)}))
    p["ops"], p["blocking"], p["corr"] = ops, blocking, corr
    return p


def side_schedule(p, measured):
    """The independent thread: a pinned copy every P us from its own start, for a
    random time that stops 1 ms before the measured run's last stream-7 activity
    ends (a run without syncs may still end on it); where it is to end the
    device, one more copy launched after that activity ended (stream 7 cannot
    end later without syncs)."""
    rng, corr = p["rng"], p["corr"]
    span = measured["host_end"] - T0
    period = rng.randint(500 * US, 5000 * US)
    first = T0 + rng.randint(0, span // 2)
    total = rng.randint(0, max(0, measured["last"][COMPUTE] - 1000 * US - first))
    times = list(range(first, first + total + 1, period))
    if p["ends_device"]:
        times.append(max(times[-1] + period if times else 0, measured["last"][COMPUTE] + rng.randint(1 * US, 50 * US)))
    p["side"] = [{"t": t, "corr": next(corr), "pre": rng.randint(1 * US, 5 * US), "call": rng.randint(4 * US, 10 * US),
                  "post": rng.randint(1 * US, 5 * US), "copy_ns": rng.randint(5 * US, 500 * US)} for t in times]


# ---------------------------------------------------------------- the run

def simulate(p, removed=frozenset(), side=True):
    """Runs the program with the blocking calls `removed` taking no time.
    Returns the trace events (ns times; `_seq`: the op's sequence number,
    `_frame`: a Python frame), the activities and the device's last end."""
    ll, bb = p["ll"], p["bb"]
    events, acts, stream_end, marks = [], [], {}, {"handoffs": [], "ambiguous": 0}

    def place(stream, ready, dur):
        start = max(ready, stream_end[stream] + bb) if stream in stream_end else ready
        stream_end[stream] = start + dur
        return start

    def host(cat, name, tid, ts, dur, args=None, **extra):
        e = {"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": tid, "ts": ts, "dur": dur}
        if args is not None:
            e["args"] = args
        e.update(extra)
        events.append(e)
        return e

    def activity(cat, name, stream, ts, dur, corr, call_start):
        events.append({"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": stream, "ts": ts, "dur": dur,
                       "args": {"device": 0, "stream": stream, "correlation": corr}})
        acts.append({"stream": stream, "start": ts, "end": ts + dur, "call_start": call_start})

    def launch(tid, op, h, seq_on=None):
        """A kernel launched inside its cpu_op; returns the host time after it."""
        start = h
        h += op["pre"]
        host("cuda_runtime", "cudaLaunchKernel", tid, h, op["call"], {"correlation": op["corr"]})
        pred_end = stream_end.get(COMPUTE)
        k = place(COMPUTE, h + op["call"] + ll, op["kernel_ns"])
        if pred_end is not None and h + op["call"] <= pred_end < k:
            marks["ambiguous"] += 1
        activity("kernel", op["kernel"], COMPUTE, k, op["kernel_ns"], op["corr"], h)
        h += op["call"] + op["post"]
        e = host("cpu_op", op["op"], tid, start, h - start)
        if seq_on is not None:
            e["_seq"] = seq_on
        return h

    def blocking_copy(tid, c, name, h):
        """A copy that drains stream 7 first and returns after it (unless removed:
        then it is issued at the call's start and the call takes no time)."""
        start = place(COMPUTE, h + ll, c["copy_ns"])
        activity("gpu_memcpy", name, COMPUTE, start, c["copy_ns"], c["corr"], h)
        end = h if c["id"] in removed else start + c["copy_ns"] + c["ret"]
        host("cuda_runtime", "cudaMemcpyAsync", tid, h, end - h, {"correlation": c["corr"]})
        return end

    # The independent thread first: nothing on the main and engine threads moves it.
    for s in p["side"] if side else ():
        h = s["t"] + s["pre"]
        host("cuda_runtime", "cudaMemcpyAsync", SIDE, h, s["call"], {"correlation": s["corr"]})
        c = place(COPY, h + s["call"] + ll, s["copy_ns"])
        activity("gpu_memcpy", H2D_PINNED, COPY, c, s["copy_ns"], s["corr"], h)
        host("cpu_op", "aten::copy_", SIDE, s["t"], s["pre"] + s["call"] + s["post"])

    h, step_start = T0, None
    for kind, op in p["ops"]:
        if kind == "work":
            h += op
        elif kind == "step_begin":
            step_start = h
        elif kind == "step_end":
            host("python_function", "train.py(40): train_step", MAIN, step_start, h - step_start, _frame=True)
        elif kind == "launch":
            h = launch(MAIN, op, h, op["seq"])
        elif kind in ("h2d", "item"):
            outer, inner, copy = (("aten::to", "aten::copy_", H2D_PAGEABLE) if kind == "h2d" else
                                  ("aten::item", "aten::_local_scalar_dense", D2H_PAGEABLE))
            t_outer = h
            t_inner = h + op["pre"]
            h = blocking_copy(MAIN, op, copy, t_inner + op["pre"])
            h += op["post"]
            host("cpu_op", inner, MAIN, t_inner, h - t_inner)
            h += op["post"]
            host("cpu_op", outer, MAIN, t_outer, h - t_outer)
        elif kind in ("stream_sync", "device_sync"):
            if op["id"] in removed:
                continue
            if kind == "stream_sync":
                drained = stream_end.get(COMPUTE, h)
                name = "cudaStreamSynchronize"
            else:  # the whole device, as far as it was submitted before the call
                drained = max([a["end"] for a in acts if a["call_start"] < h], default=h)
                name = "cudaDeviceSynchronize"
            end = max(h, drained) + op["ret"]
            host("cuda_runtime", name, MAIN, h, end - h, {"correlation": op["corr"]})
            if kind == "stream_sync" and p["sync_events"]:
                events.append({"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": 0, "tid": COMPUTE,
                               "ts": h, "dur": end - h,
                               "args": {"stream": COMPUTE, "correlation": op["corr"], "device": 0}})
            h = end
        elif kind == "backward":
            t_call = h  # torch/_tensor.py backward is called here
            h = launch(MAIN, op["ones_like"], t_call + 2 * US)
            silent = h  # the main thread's last event ends: it waits in run_backward
            e = silent + op["w"]
            first = e
            for ekind, eop in op["engine"]:
                if ekind == "work":
                    e += eop
                    continue
                t_eval = e
                e = launch(ENGINE, eop, e + eop["outer_pre"], eop["seq"])
                e += eop["outer_post"]
                host("cpu_op", "autograd::engine::evaluate_function: " + eop["op"], ENGINE, t_eval, e - t_eval)
            h = e + op["r"]  # the main thread resumes
            marks["handoffs"].append((silent, first, e, h))
            host("python_function", "torch/_tensor.py(521): backward", MAIN, t_call, h - 500 - t_call, _frame=True)
            host("python_function", "torch/autograd/__init__.py(267): backward", MAIN, t_call + 1 * US,
                 h - 1 * US - (t_call + 1 * US), _frame=True)
            host("python_function", "<built-in method run_backward of torch._C._EngineBase object at 0x7f>", MAIN,
                 silent + 500, h - 1500 - (silent + 500), _frame=True)
        else:
            raise ValueError(kind)
    last = {}
    for a in acts:
        last[a["stream"]] = max(last.get(a["stream"], 0), a["end"])
    return {"events": events, "acts": acts, "last": last, "end": max(last.values()), "host_end": h, **marks}


def renumber(p, run):
    """Correlation ids in the order of the measured run's runtime calls, as the
    runtime hands them out."""
    calls = sorted((e["ts"], e["tid"], e["args"]["correlation"]) for e in run["events"]
                   if e["cat"] == "cuda_runtime")
    new = {c: i for i, (_, _, c) in enumerate(calls, 1)}
    holders = list(p["side"])
    for kind, op in p["ops"]:
        if kind == "backward":
            holders.append(op["ones_like"])
            holders += [eop for ekind, eop in op["engine"] if ekind == "bwd"]
        elif isinstance(op, dict):
            holders.append(op)
    for op in holders:
        op["corr"] = new[op["corr"]]


def build(seed):
    """A program with its independent thread's schedule and its measured run.
    `exact`: the replay's rules meet the truth to the ns (docs/analysis.md: the measured
    latency after an activity's last-ready constraints stays with them). That
    holds when BB = 0 and no kernel's stream predecessor ended at or after its
    launch call's end while the kernel waited for the launch latency: there the
    replay gives that latency to the predecessor, which the truth does not."""
    p = random_program(seed)
    p["side"] = []
    side_schedule(p, simulate(p, side=False))
    renumber(p, simulate(p))
    m = p["measured"] = simulate(p)
    # The independent thread ends the device (by design or by chance): then it
    # does so in every rerun too, and every saving is 0.
    p["side_ends"] = m["last"].get(COPY, 0) >= m["last"][COMPUTE]
    p["exact"] = (p["bb"] == 0 and m["ambiguous"] == 0) or p["side_ends"]
    return p


def truth(p, removed):
    return p["measured"]["end"] - simulate(p, frozenset(removed))["end"]


# ---------------------------------------------------------------- the traces

def us(ns):
    return "%d.%03d" % divmod(ns, 1000)


def dump(events, path):
    def one(e):
        return "{" + ", ".join('"%s": %s' % (k, us(v) if k in ("ts", "dur") else json.dumps(v))
                               for k, v in e.items()) + "}"
    with open(path, "w") as f:
        f.write('{"traceEvents": [\n' + ",\n".join(one(e) for e in events) + "\n]}\n")


def variant_events(measured, variant):
    out, fwd_start, bwd = [], {}, []
    for e in measured["events"]:
        if e.get("_frame") and variant != "frames":
            continue
        x = {k: v for k, v in e.items() if not k.startswith("_")}
        if variant == "flows" and "_seq" in e:
            x["args"] = {"Sequence number": e["_seq"]}
            if e["tid"] == MAIN:
                x["args"]["Fwd thread id"] = 0
                fwd_start[e["_seq"]] = e["ts"]
            else:
                bwd.append(e)
        out.append(x)
    for flow_id, e in enumerate(sorted(bwd, key=lambda e: e["ts"]), 1):
        out.append({"ph": "s", "id": flow_id, "pid": 1, "tid": MAIN, "ts": fwd_start[e["_seq"]],
                    "cat": "fwdbwd", "name": "fwdbwd"})
        out.append({"ph": "f", "id": flow_id, "pid": 1, "tid": ENGINE, "ts": e["ts"],
                    "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"})
    return sorted(out, key=lambda e: (e["pid"], e["tid"], e["ts"], -e.get("dur", 0)))


# ---------------------------------------------------------------- the simulator's own rules

def nests(events):
    """Per host thread, every two events are disjoint or one holds the other."""
    by_tid = {}
    for e in events:
        if e["pid"] == 1 and e["ph"] == "X":
            by_tid.setdefault(e["tid"], []).append(e)
    for evs in by_tid.values():
        stack = []
        for e in sorted(evs, key=lambda e: (e["ts"], -e["dur"])):
            while stack and stack[-1] <= e["ts"]:
                stack.pop()
            if stack and e["ts"] + e["dur"] > stack[-1]:
                return False
            stack.append(e["ts"] + e["dur"])
    return True


def rules_hold(p, run, removed):
    """The run's events, read back as a trace would be, obey the queue's rules:
    every activity starts at max(ready + LL, its predecessor's end + BB), where
    ready is its launch call's end, or its call's start for a blocking copy;
    a kept blocking call returns after everything it waits for."""
    ll, bb = p["ll"], p["bb"]
    calls = {e["args"]["correlation"]: e for e in run["events"] if e["cat"] == "cuda_runtime"}
    acts = sorted((e for e in run["events"] if e["pid"] == 0 and e["cat"] != "cuda_sync"), key=lambda e: e["ts"])
    prev = {}
    for a in acts:
        c = calls[a["args"]["correlation"]]
        blocking = a["name"] in (H2D_PAGEABLE, D2H_PAGEABLE)
        ready = (c["ts"] if blocking else c["ts"] + c["dur"]) + ll
        want = max(ready, prev[a["tid"]] + bb) if a["tid"] in prev else ready
        if a["ts"] != want:
            return f"activity {a['name']} starts at {a['ts']}, want {want}"
        prev[a["tid"]] = a["ts"] + a["dur"]
        if blocking and c["dur"] > 0 and c["ts"] + c["dur"] <= a["ts"] + a["dur"]:
            return f"blocking copy call {c['args']['correlation']} returns before its copy ends"
    for c in calls.values():
        if c["name"] in ("cudaStreamSynchronize", "cudaDeviceSynchronize"):
            waited = [a for a in acts if calls[a["args"]["correlation"]]["ts"] < c["ts"] and
                      (a["tid"] == COMPUTE or c["name"] == "cudaDeviceSynchronize")]
            if any(a["ts"] + a["dur"] > c["ts"] + c["dur"] for a in waited):
                return f"{c['name']} returns before what it waits for ends"
    kept = sum(1 for i in range(len(p["blocking"])) if i not in removed)
    got = sum(1 for c in calls.values() if c["tid"] == MAIN and c["dur"] > 0 and
              c["name"] in ("cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaMemcpyAsync"))
    if got != kept:
        return f"{got} blocking calls took time, {kept} kept"
    return None


def round_trip(p):
    """The written trace holds the simulated times exactly."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "t.json")
        events = variant_events(p["measured"], "flows")
        dump(events, path)
        back = json.load(open(path), parse_float=Decimal)["traceEvents"]
    return all(Decimal(b["ts"]) * 1000 == e["ts"] and Decimal(b.get("dur", 0)) * 1000 == e.get("dur", 0)
               for b, e in zip(back, events)) and len(back) == len(events)


def self_check(p):
    seed, m = p["seed"], p["measured"]
    every = range(len(p["blocking"]))
    items = [i for i, k in enumerate(p["blocking"]) if k == "item"]
    again = simulate(p)
    check(again["events"] == m["events"] and again["end"] == m["end"],
          f"simulator {seed}: the run without removals differs from the measured run")
    check(nests(m["events"]), f"simulator {seed}: host events do not nest")
    check(round_trip(p), f"simulator {seed}: the written trace does not hold the simulated times")
    rerun = simulate(p, frozenset(every))
    for run, removed in ((m, ()), (rerun, every), (simulate(p, frozenset(items)), items)):
        why = rules_hold(p, run, set(removed))
        check(why is None, f"simulator {seed}, {len(removed)} calls removed: {why}")
    backward = [op for kind, op in p["ops"] if kind == "backward"]
    for run in (m, rerun):  # the handoff moves with the host: W and R hold in the events
        main = [e for e in run["events"] if e["tid"] == MAIN and e["pid"] == 1 and not e.get("_frame")]
        engine = [e for e in run["events"] if e["tid"] == ENGINE]
        for (_, first, back, _), op in zip(run["handoffs"], backward):
            burst = [e for e in engine if first <= e["ts"] <= back]
            before = max(e["ts"] + e["dur"] for e in main if e["ts"] < first)
            after = min(e["ts"] for e in main if e["ts"] >= back)
            check(min(e["ts"] for e in burst) - before == op["w"] and
                  after - max(e["ts"] + e["dur"] for e in burst) == op["r"] and
                  not any(before < e["ts"] < after for e in main), f"simulator {seed}: handoff timing")
        check(len(engine) == sum(3 * sum(k == "bwd" for k, _ in op["engine"]) for op in backward),
              f"simulator {seed}: engine thread events")
    side = [e for e in m["events"] if e["tid"] in (SIDE, COPY)]
    check(side == [e for e in rerun["events"] if e["tid"] in (SIDE, COPY)],
          f"simulator {seed}: the independent thread moved")
    t_all, t_items = m["end"] - rerun["end"], truth(p, items)
    check(t_all >= t_items >= 0, f"simulator {seed}: savings not monotone ({t_all}, {t_items})")
    check(not p["ends_device"] or p["side_ends"], f"simulator {seed}: the independent thread does not end the device")
    if p["side_ends"]:
        check(t_all == 0 and t_items == 0, f"simulator {seed}: a saving where the independent thread ends the device")


# ---------------------------------------------------------------- against the CLI

def run_cli(cli, path):
    cmd = [cli, "analyze", path, "--json", "-", "--top", "100000"]
    for s in ITEM_SPECS:
        cmd += ["--what-if", s]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        return None, f"exit {r.returncode}: {r.stderr.strip()[-300:]}"
    return json.loads(r.stdout, parse_float=Decimal, parse_int=Decimal), None


def device0(entries):
    for d in entries or []:
        if int(d.get("device", -1)) == 0:
            return Decimal(d["avoidable_us"])
    return None


def flags(p):
    out = ["BB=0" if p["bb"] == 0 else "BB>0"]
    if p["side_ends"]:
        out.append("independent thread ends the device")
    out.append("exact" if p["exact"] else "within 10% + 10 us")
    return ", ".join(out)


def judge(p, variant, mode, doc, err, results):
    seed, tag = p["seed"], f"program {p['seed']} ({variant})"
    if not check(err is None, f"{tag}: cli {err}"):
        return
    f0 = (doc.get("files") or [{}])[0]
    check(f0.get("thread_mode") == mode, f"{tag}: thread_mode {f0.get('thread_mode')!r}, want {mode!r}")
    handoffs = f0.get("handoffs")
    rows = doc.get("handoffs") or []
    backward = [h for h in rows if h.get("from_tid") == 100 and h.get("to_tid") == 200]
    check(handoffs is not None and int(handoffs) == len(rows), f"{tag}: files[0].handoffs {handoffs}, {len(rows)} rows")
    check(len(backward) == p["steps"], f"{tag}: {len(backward)} handoffs to the engine thread, want {p['steps']}")
    # Timing alone cannot tell an independent thread whose every burst falls in
    # the main thread's silences from a woken one: inferred mode may take it as
    # woken (counted and reported); the stronger signals may not.
    extra = len(rows) - len(backward)
    if mode == "inferred":
        EXTRA_INFERRED[0] += extra > 0
    else:
        check(extra == 0, f"{tag}: {extra} handoff(s) besides backward's")
    items = [i for i, k in enumerate(p["blocking"]) if k == "item"]
    cases = [("all", range(len(p["blocking"])), device0(doc.get("devices")))]
    if items:
        w = doc.get("what_if") or {}
        cases.append(("item", items, device0(w.get("devices"))))
        sel = w.get("selected_calls")
        check(sel is not None and int(sel) == len(items), f"{tag}: what-if selected {sel} calls, want {len(items)}")
    for name, removed, got in cases:
        t = Decimal(truth(p, removed)).scaleb(-3)
        ok = got is not None and (got == t if p["exact"] else abs(got - t) <= t / 10 + 10)
        results.append({"variant": variant, "check": name, "seed": seed, "truth": t, "got": got, "ok": ok,
                        "exact": got == t, "flags": flags(p)})
        check(ok, f"{tag}, {'every blocking call' if name == 'all' else 'item() calls'} ({flags(p)}): "
                  f"cli {got} us, true saving {t} us")
    found = len(doc.get("sync_calls") or [])
    results.append({"variant": variant, "check": "calls", "seed": seed, "found": found, "want": len(p["blocking"])})


def summary(results, programs):
    for variant, mode in VARIANTS:
        rs = [r for r in results if r["variant"] == variant]
        calls = [r for r in rs if r["check"] == "calls"]
        print(f"{variant} (thread_mode {mode}): {len({r['seed'] for r in rs})} of {programs} programs; "
              f"blocking calls found = simulated in {sum(r['found'] == r['want'] for r in calls)} of {len(calls)}")
        for name, what in (("all", "every blocking call (devices[0].avoidable_us)"),
                           ("item", "item() calls (what_if.devices[0].avoidable_us)")):
            cs = [r for r in rs if r["check"] == name]
            if not cs:
                continue
            ratios = [r["got"] / r["truth"] for r in cs if r["got"] is not None and r["truth"] > 0]
            median = f"{statistics.median(ratios):.3f}" if ratios else "n/a"
            ok, exact = sum(r["ok"] for r in cs), sum(r["exact"] for r in cs)
            want_exact = sum(r["flags"].endswith(", exact") for r in cs)
            print(f"  {what}: {len(cs)} cases, median cli/truth {median}, passed "
                  f"{ok}/{len(cs)} ({ok / len(cs):.0%}), exact {exact}/{len(cs)} ({exact / len(cs):.0%}; "
                  f"{want_exact} must be)")
            worst = sorted(cs, key=lambda r: -(abs(r["got"] - r["truth"]) if r["got"] is not None else Decimal(10**12)))
            for r in worst[:5]:
                print(f"    seed {r['seed']}: truth {r['truth']} us, cli {r['got']} us ({r['flags']})")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cli")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--programs", type=int, default=200)
    ap.add_argument("--seed", type=int, default=20261301, help="the first program's seed (program i: seed + i)")
    ap.add_argument("--keep", help="write the traces into this folder")
    args = ap.parse_args(argv)

    progs = [build(args.seed + i) for i in range(args.programs)]
    for p in progs:
        self_check(p)
    if args.programs >= 50:  # both kinds of program are there
        check(sum(p["side_ends"] for p in progs) >= args.programs // 10,
              "too few programs whose independent thread ends the device")
        check(sum(p["bb"] == 0 for p in progs) >= args.programs // 4, "too few programs with BB = 0")
    if failures:  # a wrong simulator makes every comparison meaningless
        print("\n".join("FAIL: " + f for f in failures[:30]))
        print(f"{len(failures)} failure(s) of the simulator itself")
        return 0 if args.report_only else 1
    print(f"simulator: {len(progs)} programs obey their own rules "
          f"({sum(p['side_ends'] for p in progs)} end on the independent thread, "
          f"{sum(p['bb'] == 0 for p in progs)} with BB = 0, {sum(p['exact'] for p in progs)} exact, "
          f"{sum(1 for p in progs if 'item' in p['blocking'])} with item() calls)")

    results = []
    with tempfile.TemporaryDirectory() as tmp:
        out = args.keep or tmp
        os.makedirs(out, exist_ok=True)
        jobs = []
        for p in progs:
            for variant, mode in VARIANTS:
                path = os.path.join(out, f"thread_{p['seed']}_{variant}.json")
                dump(variant_events(p["measured"], variant), path)
                jobs.append((p, variant, mode, path))
        with ThreadPoolExecutor(2) as pool:
            docs = list(pool.map(lambda j: run_cli(args.cli, j[3]), jobs))
        # The independent reference follows the same rules: on the first
        # programs it equals the CLI to the ns (devices, calls' kinds, handoffs, limited_by kinds).
        for (p, variant, _, path), (doc, err) in list(zip(jobs, docs))[:REFERENCE_TRACES]:
            if err is not None:
                continue
            want = ref.analyse(path, 100000, [])
            tag = f"program {p['seed']} ({variant}) against the reference"
            check([str(d["avoidable_us"]) for d in doc["devices"]] == [d["avoidable_us"] for d in want["devices"]],
                  f"{tag}: devices")
            check([c["blocks"] for c in doc["sync_calls"]] == [c["blocks"] for c in want["sync_calls"]],
                  f"{tag}: sync_calls[].blocks")
            check([(int(h["from_tid"]), int(h["to_tid"]), str(h["at_us"]), str(h["back_us"])) for h in doc["handoffs"]]
                  == [(h["from_tid"], h["to_tid"], h["at_us"], h["back_us"]) for h in want["handoffs"]],
                  f"{tag}: handoffs")
            check(doc["files"][0]["thread_mode"] == want["files"][0]["thread_mode"], f"{tag}: thread_mode")
            for sec in ("devices", "sync_sources"):
                check([r["limited_by"]["kind"] for r in doc[sec]] == [r["limited_by"]["kind"] for r in want[sec]],
                      f"{tag}: {sec}[].limited_by.kind {[r['limited_by']['kind'] for r in doc[sec]]}, "
                      f"reference {[r['limited_by']['kind'] for r in want[sec]]}")
    for (p, variant, mode, _), (doc, err) in zip(jobs, docs):
        judge(p, variant, mode, doc, err, results)
    summary(results, len(progs))
    print(f"inferred mode took the independent thread as woken in {EXTRA_INFERRED[0]} of {len(progs)} programs")
    if failures:
        print("\n".join("FAIL: " + f for f in failures[:30]))
        print(f"{len(failures)} failure(s)")
        return 0 if args.report_only else 1
    print("thread self-test: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
