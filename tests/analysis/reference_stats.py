#!/usr/bin/env python3
"""Independent reference of syncscope's trace analysis, with only json + gzip.

The C++ tests compare the engine's figures with this script's, so it must not
share code or shortcuts with the engine: it follows the definitions of docs/analysis.md
directly, in the plainest way (no early stops, no indexes).

Times are exact: the file's decimal microseconds are parsed as Decimal and
rounded half-to-even to integer nanoseconds. The output mirrors the JSON of
`syncscope-cli analyze --json` for one file, with every *_us value written as a
string of exact microseconds with 3 decimals.

Usage: reference_stats.py TRACE [--top N] [--lib-prefix P ...]  -> JSON on stdout.
With several traces (the ranks of one job) it writes the job keys instead
(reference_job.py).
"""
import bisect
import gzip
import json
import re
import sys
from decimal import Decimal, ROUND_HALF_EVEN

LEGACY = {"Operator": "cpu_op", "Runtime": "cuda_runtime", "Driver": "cuda_driver",
          "Kernel": "kernel", "Memcpy": "gpu_memcpy", "Memset": "gpu_memset"}
BLOCKING = {"cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize",
            "cudaMemcpy", "cuStreamSynchronize", "cuCtxSynchronize", "cuEventSynchronize",
            "cuMemcpyDtoH", "cuMemcpyDtoH_v2",
            "hipStreamSynchronize", "hipDeviceSynchronize", "hipEventSynchronize",
            "hipCtxSynchronize"}
ASYNC_COPY = {"cudaMemcpyAsync", "hipMemcpyAsync"}
BLOCKS = {}
for _n in ("cudaStreamSynchronize", "cuStreamSynchronize", "hipStreamSynchronize"):
    BLOCKS[_n] = "stream"
for _n in ("cudaDeviceSynchronize", "cuCtxSynchronize", "hipDeviceSynchronize", "hipCtxSynchronize"):
    BLOCKS[_n] = "device"
for _n in ("cudaEventSynchronize", "cuEventSynchronize", "hipEventSynchronize"):
    BLOCKS[_n] = "event"
HANDOFF_SLACK = 1_000_000  # ns: an inferred handoff's group this close to the silence's ends
MODE_RANK = {"flows": 3, "frames": 2, "inferred": 1}


def is_blocking(name):
    # ... and every synchronous HIP copy: hipMemcpy* without "Async".
    return name in BLOCKING or (name.startswith("hipMemcpy") and "Async" not in name)


def blocks_of(name):
    """What a blocking call waits for: "stream", "device", "event" or "copy"."""
    return BLOCKS.get(name, "copy")


def runtime_of(name):
    if name.startswith("hip"):
        return "hip"
    if name.startswith("cuda") or re.match(r"cu[A-Z]", name):
        return "cuda"
    return None
GPU = {"kernel", "gpu_memcpy", "gpu_memset"}
OPS = {"cpu_op", "user_annotation"}
TOP_CATS = {"cpu_op", "user_annotation", "kernel", "gpu_memcpy", "gpu_memset"}
SKEW = 10_000        # ns: a call may return this long before its gap starts
KERNEL_WAIT = 30_000  # ns
NEAR = 2_000         # ns: an activity this close after what it follows was bound by it
LATE_LAUNCH = 20_000  # ns: an activity this late after its launch call waited for something
EXTERNAL_WAIT = 20_000  # ns: a kept latency over this is a wait the trace does not explain


def ns(value):
    """Decimal microseconds (number or numeric string) -> integer ns, half-to-even."""
    d = Decimal(str(value)) if not isinstance(value, Decimal) else value
    return int((d * 1000).quantize(Decimal(1), rounding=ROUND_HALF_EVEN))


def us(v):
    sign = "-" if v < 0 else ""
    v = abs(v)
    return "%s%d.%03d" % (sign, v // 1000, v % 1000)


def as_int(v):
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, int):
        return v
    try:
        d = Decimal(str(v))
    except Exception:
        return None
    return int(d) if d == d.to_integral_value() else None


def is_library(name, extra):
    if name.startswith(("<built-in", "threading.py", "multiprocessing/")):
        return True
    if any(p and name.startswith(p) for p in extra):
        return True
    path = name.split("(", 1)[0]
    parts = path.split("/")[:-1]  # directories only
    for d in parts:
        if d in ("torch", "site-packages", "dist-packages") or re.fullmatch(r"python\d+\.\d+", d):
            return True
    return False


class Ev:
    __slots__ = ("cat", "name", "start", "dur", "pid", "tid", "args", "seq", "parent")

    def __init__(self, cat, name, start, dur, pid, tid, args, seq):
        self.cat, self.name, self.start, self.dur = cat, name, start, dur
        self.pid, self.tid, self.args, self.seq = pid, tid, args, seq
        self.parent = None

    @property
    def end(self):
        return self.start + self.dur


def load(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    doc = json.loads(raw, parse_float=Decimal)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    out, open_b, pname = [], {}, {}
    seq = 0
    for e in events:
        ph = e.get("ph")
        if ph == "M" and e.get("name") == "process_name":
            pname[str(e.get("pid"))] = str((e.get("args") or {}).get("name", ""))
        if ph == "X" and "ts" in e:
            cat = LEGACY.get(e.get("cat", ""), e.get("cat", ""))
            out.append(Ev(cat, e.get("name", ""), ns(e["ts"]), ns(e.get("dur", 0)), e.get("pid"),
                          e.get("tid"), e.get("args") or {}, seq))
            seq += 1
        elif ph in ("B", "E") and "ts" in e:
            open_b.setdefault((str(e.get("pid", "")), str(e.get("tid", ""))), []).append((seq, e))
            seq += 1
    for lst in open_b.values():
        lst.sort(key=lambda x: ns(x[1]["ts"]))  # stable: file order on ties
        stack = []
        for s, e in lst:
            if e["ph"] == "B":
                stack.append((s, e))
            elif stack:
                s0, b = stack.pop()
                cat = LEGACY.get(b.get("cat", ""), b.get("cat", ""))
                out.append(Ev(cat, b.get("name", ""), ns(b["ts"]), ns(e["ts"]) - ns(b["ts"]),
                              b.get("pid"), b.get("tid"), b.get("args") or {}, s0))
    return out, pname


def device_names(path):
    """deviceProperties: id -> name, for entries with an integer id and a non-empty name."""
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    doc = json.loads(raw, parse_float=Decimal)
    props = doc.get("deviceProperties") if isinstance(doc, dict) else None
    out = {}
    for p in props if isinstance(props, list) else []:
        if isinstance(p, dict) and type(p.get("id")) is int and isinstance(p.get("name"), str) and p["name"]:
            out.setdefault(p["id"], p["name"])
    return out


def norm_id(v):
    i = as_int(v)
    return str(i) if i is not None else str(v)


def fwdbwd_flows(path):
    """The fwdbwd flow events: [(ph, pid, tid, id)], "s" or "f", ids normalised."""
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    doc = json.loads(raw, parse_float=Decimal)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    out = []
    for e in events:
        if isinstance(e, dict) and e.get("ph") in ("s", "f") and e.get("cat") == "fwdbwd":
            out.append((e["ph"], norm_id(e.get("pid")), norm_id(e.get("tid")), norm_id(e.get("id"))))
    return out


def trace_runtime(events):
    """The runtime that names more runtime/driver calls (CUDA on a tie), else None."""
    n = {"cuda": 0, "hip": 0}
    for e in events:
        if e.cat in ("cuda_runtime", "cuda_driver"):
            r = runtime_of(e.name)
            if r:
                n[r] += 1
    if n["hip"] > n["cuda"]:
        return "hip"
    return "cuda" if n["cuda"] else None


def track_key(e):
    return (norm_id(e.pid), norm_id(e.tid))


def nest(events):
    """parent = the latest event before it (by start, longer first, file order)
    that is still open at its start; a zero-length event at a parent's end
    still belongs to it."""
    tracks = {}
    for e in events:
        tracks.setdefault(track_key(e), []).append(e)
    for lst in tracks.values():
        lst.sort(key=lambda e: (e.start, -e.dur, e.seq))
        stack = []
        for e in lst:
            while stack:
                top = stack[-1]
                if e.start < top.end or (e.start == top.end and e.dur == 0 and top.dur > 0):
                    break
                stack.pop()
            e.parent = stack[-1] if stack else None
            stack.append(e)
    return tracks


def enclosing(track, c, pred):
    """Innermost event on c's track with start <= c.start, end >= c.end: latest start,
    then shortest."""
    best = None
    for e in track:
        if e is c or not pred(e) or e.start > c.start or e.end < c.end:
            continue
        if best is None or e.start > best.start or (e.start == best.start and e.dur < best.dur):
            best = e
    return best


def prepare(acts, launch_of, calls, handoffs=()):
    """What every replay of one rank walks: its items in host order, each
    activity's predecessor on its stream and what each blocking call waits for."""
    # Host order: by time; at one time a handoff's "back" (class 0), then its "wake"
    # (class 1), then the rest (class 2): by end (a call that ended when another
    # began came first); a launch before a blocking call that is the same call (a
    # blocking copy waits for its own copy). Handoffs of one time and class keep
    # their order.
    items = []
    for i, a in enumerate(acts):
        L = launch_of.get(a["corr"]) if a["corr"] is not None else None
        if L is not None:
            items.append((L[1], 2, L[2], 0, a["start"], 0, i, L[0]))
        else:
            items.append((a["start"], 2, a["start"], 0, a["start"], 1, i, None))
    for k, c in enumerate(calls):
        items.append((c["start"], 2, c["end"], 1, 0, 0, k, c["thread"]))
    for h, (frm, to, at, back) in enumerate(handoffs):
        items.append((back, 0, h, 0, 0, 0, h, (frm, to)))
        items.append((at, 1, h, 0, 0, 0, h, (frm, to)))
    items.sort(key=lambda x: x[:7])
    prev_on_stream = {}
    order = sorted(range(len(acts)), key=lambda i: (acts[i]["sid"], acts[i]["start"], acts[i]["end"], i))
    for x, y in zip(order, order[1:]):
        if acts[x]["sid"] == acts[y]["sid"]:
            prev_on_stream[y] = x
    # W(c): per stream c waits on, the last activity item of that stream before c
    # in host order (with a cut time: the last one whose host time is <= it).
    dev_sids, on_sid = {}, {}
    for a in acts:
        dev_sids.setdefault(a["dev"], set()).add(a["sid"])
    for x in items:
        if x[1] == 2 and x[3] == 0:
            on_sid.setdefault(acts[x[6]]["sid"], []).append((x[0], x[6]))
    wait_on = {}
    last_on, last_launch = {}, {}
    for x in items:
        if x[1] != 2:
            continue
        if x[3] == 0:
            last_on[acts[x[6]]["sid"]] = x[6]
            if x[7] is not None:
                last_launch[x[7]] = x[6]
            continue
        c = calls[x[6]]
        kind = c.get("blocks", "device")
        spec = c.get("wait_streams")
        if spec is None:  # fallback: what the thread launched last
            last = last_launch.get(c["thread"])
            if last is None:
                spec = [(sid, None) for d in dev_sids for sid in dev_sids[d]] if kind == "device" else []
            elif kind == "device":
                spec = [(sid, None) for sid in dev_sids[acts[last]["dev"]]]
            else:
                spec = [(acts[last]["sid"], None)]
        w = set()
        for sid, cut in spec:
            if cut is None:
                got = last_on.get(sid)
            else:
                before = [i for t, i in on_sid.get(sid, []) if t <= cut]
                got = before[-1] if before else None
            if got is not None:
                w.add(got)
        wait_on[x[6]] = sorted(w)
    return items, prev_on_stream, wait_on


def walk(acts, calls, prep, removed, deps, coupled=(), rec=None):
    """The sync-free replay of one rank without the calls `removed`, as a
    generator: at each activity in `coupled` it yields (activity, new start) and
    takes the activity's new end back. Returns every activity's new end.
    With `rec` (a dict) it also records what limited_by needs: per activity its
    host-order position, the head start it used, its binding constraint, the
    latency that constraint keeps, and its launching thread's last cut and
    whether that thread had had a head start; and per removed call its position."""
    items, prev_on_stream, wait_on = prep
    head, new_end, head_used = {}, {}, {}
    last_cut, had = {}, {}  # per thread (limited_by only)
    if rec is not None:
        for k in ("pos", "h", "binding", "kept", "cut", "had", "removed_pos"):
            rec[k] = {}
    for pos, (t, cls, t_end, kind, _s, _o, ref, thread) in enumerate(items):
        if cls == 0:  # control comes back to the handing thread: S_T := S_U
            head[thread[0]] = head.get(thread[1], 0)
            last_cut[thread[0]] = last_cut.get(thread[1])
            had[thread[0]] = had.get(thread[1], False)
            continue
        if cls == 1:  # the woken thread takes the head start: S_U := S_T
            head[thread[1]] = head.get(thread[0], 0)
            last_cut[thread[1]] = last_cut.get(thread[0])
            had[thread[1]] = had.get(thread[0], False)
            continue
        if kind == 0:
            a = acts[ref]
            p = prev_on_stream.get(ref)
            on = deps.get(ref, ())
            # Each constraint's old ready time: the launch (its call's end, or the
            # start if earlier), the stream predecessor's end, each dependency's end.
            # The measured latency after the last-ready ones stays with them.
            if thread is not None:
                h = head.get(thread, 0)
                r_launch = min(a["start"], t_end)
            else:
                h = head_used.get(p, 0) if p is not None else 0
                r_launch = a["start"]
            ready = r_launch
            if p is not None:
                ready = max(ready, acts[p]["end"])
            for d in on:
                ready = max(ready, acts[d]["end"])
            lat = a["start"] - ready
            s = r_launch - h + (lat if r_launch == ready else 0)
            if p is not None:
                s = max(s, new_end.get(p, acts[p]["end"]) + (lat if acts[p]["end"] == ready else 0))
            for d in on:
                s = max(s, new_end.get(d, acts[d]["end"]) + (lat if acts[d]["end"] == ready else 0))
            if rec is not None:
                # The binding constraint: the largest value; on a tie the lower
                # rank, (measured ? 0 : 3) + (predecessor 0, dependency 1, launch 2).
                cands = [(r_launch - h + (lat if r_launch == ready else 0),
                          (0 if r_launch == ready else 3) + 2, ("launch", None), r_launch == ready)]
                if p is not None:
                    m = acts[p]["end"] == ready
                    cands.append((new_end.get(p, acts[p]["end"]) + (lat if m else 0), (0 if m else 3) + 0,
                                  ("pred", p), m))
                for d in on:
                    m = acts[d]["end"] == ready
                    cands.append((new_end.get(d, acts[d]["end"]) + (lat if m else 0), (0 if m else 3) + 1,
                                  ("dep", d), m))
                best = max(cands, key=lambda c: (c[0], -c[1]))
                rec["pos"][ref] = pos
                rec["h"][ref] = h
                rec["binding"][ref] = best[2]
                rec["kept"][ref] = lat if best[3] else 0
                if thread is not None:
                    rec["cut"][ref] = last_cut.get(thread)
                    rec["had"][ref] = had.get(thread, False)
            s = min(a["start"], s)
            if ref in coupled:
                new_end[ref] = yield (ref, s)
            else:
                new_end[ref] = s + (a["end"] - a["start"])
            head_used[ref] = h
        else:
            c = calls[ref]
            h = head.get(thread, 0)
            if ref in removed:
                head[thread] = h + c["end"] - c["start"]
                if rec is not None:
                    rec["removed_pos"][ref] = pos
            else:
                w = wait_on[ref]
                if w:
                    old = min(max(acts[i]["end"] for i in w), c["end"])
                    new = min(max(new_end.get(i, acts[i]["end"]) for i in w), old)
                    wait = max(0, old - c["start"])
                    ret = max(0, c["end"] - max(c["start"], old))
                    ne = max(c["start"] - h + (c["end"] - c["start"] - wait), new + ret)
                    head[thread] = c["end"] - ne
                    if head[thread] < h:  # a kept call that lowered the head start: the last cut
                        last_cut[thread] = ref
            had[thread] = had.get(thread, False) or head.get(thread, 0) != 0
    return new_end


def walk_alone(acts, calls, prep, removed, deps, rec=None):
    gen = walk(acts, calls, prep, removed, deps, rec=rec)
    try:
        next(gen)
    except StopIteration as stop:
        return stop.value
    raise AssertionError("an uncoupled replay yielded")


def replay(acts, launch_of, calls, removed, ndev, deps=None, prep=None):
    """Sync-free replay without the calls `removed` (indices); per device saving."""
    if prep is None:
        prep = prepare(acts, launch_of, calls)
    new_end = walk_alone(acts, calls, prep, removed, deps or {})
    out = [0] * ndev
    for d in range(ndev):
        mine = [i for i, a in enumerate(acts) if a["dev_i"] == d]
        if mine:
            out[d] = max(0, max(acts[i]["end"] for i in mine) - max(new_end.get(i, acts[i]["end"]) for i in mine))
    return out


def limited_by(acts, calls, prep, removed, deps, devs):
    """Where the head start stopped when the calls `removed` go, for each device
    index in `devs`: {device index: kind}. The walk back from the activity that
    ends the device last in the replay follows each activity's binding constraint
    (README "Why a figure is small")."""
    if not removed:
        return {d: "none" for d in devs}
    rec = {}
    # The walk starts at the first item, not at the first removed call: before
    # that call every head start is 0, every kept call leaves it 0 (no cut, no
    # head start had) and every activity keeps its measured times, so what it
    # records from the first removed call on is what a walk from there records.
    new_end = walk_alone(acts, calls, prep, removed, deps, rec)
    first = min(rec["removed_pos"].values())
    walked = {i for i, p in rec["pos"].items() if p >= first}
    prev_on_stream = prep[1]
    out = {}
    for d in devs:
        mine = [i for i, a in enumerate(acts) if a["dev_i"] == d]
        if not any(i in walked for i in mine):
            out[d] = "trace_end"
            continue
        z = max(mine, key=lambda i: (new_end.get(i, acts[i]["end"]), rec["pos"][i]))
        if z not in walked:
            out[d] = "trace_end"
            continue
        moved = acts[z]["end"] - new_end.get(z, acts[z]["end"])
        a = z
        while True:
            if a not in walked:
                kind = "gpu_busy"
                break
            if rec["kept"][a] > EXTERNAL_WAIT:
                kind = "external_wait"
                break
            how, to = rec["binding"][a]
            if how == "pred":
                a = to
                continue
            if how == "dep":
                kind = "stream_wait"
                break
            if a not in rec["cut"]:  # no launch (rec["cut"] holds every launched walked activity)
                p = prev_on_stream.get(a)
                if p is not None:
                    a = p
                    continue
                kind = "trace_end"
                break
            if a != z and rec["h"][a] > 0 and moved < rec["h"][a]:
                kind = "gpu_busy"
            elif rec["cut"][a] is not None:
                kind = "resynchronized"
            elif not rec["had"][a]:
                kind = "independent_thread"
            else:
                kind = "trace_end"
            break
        out[d] = kind
    return out


def gpu_device(e, pname):
    """The device of a GPU-side event: args.device, else a numeric pid, else "GPU n" in
    its process name."""
    dev = as_int(e.args.get("device"))
    if dev is None:
        dev = as_int(e.pid)
    if dev is None:
        m = re.search(r"GPU[ :]*(\d+)", pname.get(str(e.pid), ""))
        dev = int(m.group(1)) if m else None
    return dev


def stream_dependencies(events, pname, acts, launch_of, prep):
    """(mode, {activity: [activities it waits for]}, sorted [(activity, on)]).

    Exact, from the profiler's `Stream Wait Event` records: the first activity
    launched on the waiting stream at or after the cudaStreamWaitEvent call waits
    for the last activity launched on `wait_on_stream` at or before the
    cudaEventRecord call. Inferred otherwise: an activity that started more than
    20 us after its launch call ended and more than 2 us after its stream
    predecessor ended waited for the activity of another stream of its device that
    ended last in [its start - 2 us, its start]."""
    prev_on_stream = prep[1]
    pairs = set()
    waits = [e for e in events if e.cat == "cuda_sync" and e.name == "Stream Wait Event"]
    if waits:
        mode = "exact"
        by_stream = {}
        for i, a in enumerate(acts):
            L = launch_of.get(a["corr"]) if a["corr"] is not None else None
            if L is not None:
                by_stream.setdefault((a["dev"], a["stream"]), []).append((L[1], L[2], a["start"], i))
        for lst in by_stream.values():
            lst.sort()
        for e in waits:
            dev = gpu_device(e, pname)
            rec = launch_of.get(as_int(e.args.get("wait_on_cuda_event_record_corr_id")))
            wait = launch_of.get(as_int(e.args.get("correlation")))
            if dev is None or rec is None or wait is None:
                continue
            src = [x for x in by_stream.get((dev, as_int(e.args.get("wait_on_stream"))), [])
                   if x[0] <= rec[1]]
            dst = [x for x in by_stream.get((dev, as_int(e.args.get("stream"))), [])
                   if x[0] >= wait[1]]
            if src and dst:
                if dst[0][3] != src[-1][3]:
                    pairs.add((dst[0][3], src[-1][3]))
    else:
        mode = "inferred"
        position, by_dev = {}, {}
        streams = {}
        for i, a in enumerate(acts):
            streams.setdefault(a["sid"], []).append(i)
        for lst in streams.values():
            lst.sort(key=lambda i: (acts[i]["start"], acts[i]["end"], i))
            for k, i in enumerate(lst):
                position[i] = k
        none = -2**63
        for i, a in enumerate(acts):
            sid = a["stream"] if a["stream"] is not None else none
            by_dev.setdefault(a["dev"], []).append((a["end"], a["start"], position[i], sid, i))
        ends = {}
        for d, lst in by_dev.items():
            lst.sort()
            ends[d] = [x[0] for x in lst]
        for i, a in enumerate(acts):
            L = launch_of.get(a["corr"]) if a["corr"] is not None else None
            if L is None or not a["start"] > L[2] + LATE_LAUNCH:
                continue
            p = prev_on_stream.get(i)
            if p is not None and not a["start"] > acts[p]["end"] + NEAR:
                continue
            lst, e = by_dev[a["dev"]], ends[a["dev"]]
            k = bisect.bisect_right(e, a["start"]) - 1
            while k >= 0 and e[k] >= a["start"] - NEAR:
                if acts[lst[k][4]]["sid"] != a["sid"]:
                    pairs.add((i, lst[k][4]))
                    break
                k -= 1
    deps = {}
    for x, on in sorted(pairs):
        deps.setdefault(x, []).append(on)
    return mode, deps, sorted(pairs)


def tid_out(v):
    """A tid as a number where it is an integer (written as one or as a decimal
    string), else as the trace writes it."""
    i = as_int(v) if not isinstance(v, bool) else None
    return i if i is not None else v


def covered(lst, at, end):
    """Whether some event of lst (sorted by start, with its prefix maximum of
    ends) has start <= at and end >= end."""
    starts, best = lst
    k = bisect.bisect_right(starts, at)
    return k > 0 and best[k - 1] >= end


def by_start(events):
    events = sorted(events, key=lambda e: e.start)
    best, m = [], None
    for e in events:
        m = e.end if m is None else max(m, e.end)
        best.append(m)
    return [e.start for e in events], best


def thread_handoffs(tracks, thread_keys, flows, pairs=None):
    """Handoffs between the host threads of one process, as [{from, to, at, back,
    mode}] sorted by (at, back, from tid, to tid): at the first start of a group
    of U's top-level events that falls in the silence (b, back) of T's own events,
    T hands its head start to U, and takes U's back at `back`."""
    info = {}
    for key in thread_keys:
        track = tracks[key]
        own = []
        for e in track:
            p, out = e, False
            while p is not None:
                if p.name.startswith("autograd::engine::evaluate_function"):
                    out = True
                    break
                p = p.parent
            if not out:
                own.append(e)
        roots = set()
        for e in track:
            if e.cat in ("cuda_runtime", "cuda_driver"):
                p = e
                while p.parent is not None:
                    p = p.parent
                roots.add(id(p))
        top = [e for e in track if e.parent is None]
        info[key] = {
            "bounds": sorted({e.start for e in own} | {e.end for e in own}),
            "top": top,
            "top_by_start": by_start(top),
            "runtime": by_start([e for e in track if e.cat in ("cuda_runtime", "cuda_driver")]),
            "frames": by_start([e for e in track if e.cat == "python_function" and (
                e.name.endswith(": backward") or e.name.startswith("<built-in method run_backward"))]),
            "seq_own": {norm_id(e.args["Sequence number"]) for e in own if "Sequence number" in e.args},
            "seq_bwd": {norm_id(e.args["Sequence number"]) for e in track
                        if "Backward" in e.name and "Sequence number" in e.args},
            "rt_roots": roots,
            "tid": tid_out(min(track, key=lambda e: e.seq).tid),
        }
    flow_ends = {}
    for ph, pid, tid, fid in flows:
        flow_ends.setdefault((pid, fid), {"s": [], "f": []})[ph].append((pid, tid))
    candidates = {}  # U -> [(T, mode, flows, [groups])]
    for T in thread_keys:
        for U in thread_keys:
            if U == T or U[0] != T[0]:
                continue
            it, iu = info[T], info[U]
            bounds = it["bounds"]
            groups, where = {}, {}
            for e in iu["top"]:
                k = bisect.bisect_right(bounds, e.start)
                if k == 0 or k == len(bounds):
                    continue
                groups.setdefault((bounds[k - 1], bounds[k]), []).append(e)
                where[id(e)] = (bounds[k - 1], bounds[k])
            rows = []
            for (b, n), evs in groups.items():
                at = min(e.start for e in evs)
                end = max(e.end for e in evs)
                starts, best = iu["top_by_start"]
                j = bisect.bisect_left(starts, b)  # top-level events with start < b
                busy = j > 0 and best[j - 1] > b
                valid = (all(e.end <= n for e in evs) and not busy
                         and not covered(it["runtime"], at, end))
                rows.append({"b": b, "n": n, "at": at, "end": end, "valid": valid,
                             "busy": sum(e.end - e.start for e in evs),
                             "frame": covered(it["frames"], at, end),
                             "rt": any(id(e) in iu["rt_roots"] for e in evs)})
            nflows = 0
            for pair in flow_ends.values():
                nflows += sum(1 for x in pair["s"] if x == T) * sum(1 for x in pair["f"] if x == U)
            nflows += len(it["seq_own"] & iu["seq_bwd"])
            if nflows > 0:
                mode, hs = "flows", [g for g in rows if g["valid"]]
            elif any(g["valid"] and g["frame"] for g in rows):
                mode, hs = "frames", [g for g in rows if g["valid"] and g["frame"]]
            else:
                tight = {(g["b"], g["n"]) for g in rows if g["valid"] and g["at"] - g["b"] <= HANDOFF_SLACK
                         and g["n"] - g["end"] <= HANDOFF_SLACK}
                ok = all(where.get(id(e)) in tight for e in iu["top"]) and any(g["rt"] for g in rows)
                mode, hs = "inferred", (rows if ok else [])
            if pairs is not None:  # what each pair found, for a look by hand
                pairs.append({"from": T, "to": U, "flows": nflows, "mode": mode if hs else None,
                              "groups": len(rows), "valid": sum(1 for g in rows if g["valid"]),
                              "handoffs": len(hs)})
            if hs:
                candidates.setdefault(U, []).append((T, mode, nflows, hs))
    # Only each process's strongest signal counts, and two threads that each
    # look woken by the other (inferred) are not told apart.
    strongest = {}
    for U, cands in candidates.items():
        for c in cands:
            strongest[U[0]] = max(strongest.get(U[0], 0), MODE_RANK[c[1]])
    inferred = {(c[0], U) for U, cands in candidates.items() for c in cands if c[1] == "inferred"}
    kept = []
    for U, cands in candidates.items():
        cands = [c for c in cands if MODE_RANK[c[1]] == strongest[U[0]]
                 and not (c[1] == "inferred" and (U, c[0]) in inferred)]
        if not cands:
            continue
        T, mode, _n, hs = min(cands, key=lambda c: (-MODE_RANK[c[1]], -c[2], -len(c[3]),
                                                    min(g["at"] for g in c[3]), c[0][1]))
        kept += [dict(g, frm=T, to=U, mode=mode) for g in hs]
    silence = {}
    for h in kept:
        key = (h["frm"], h["b"], h["n"])
        if key not in silence or (-h["busy"], -h["end"], h["at"], h["to"][1]) < (
                -silence[key]["busy"], -silence[key]["end"], silence[key]["at"], silence[key]["to"][1]):
            silence[key] = h
    out = sorted(silence.values(), key=lambda h: (h["at"], h["n"], h["frm"][1], h["to"][1]))
    return [{"from": h["frm"], "to": h["to"], "at": h["at"], "back": h["n"], "mode": h["mode"],
             "from_tid": info[h["frm"]]["tid"], "to_tid": info[h["to"]]["tid"]} for h in out]


def analyse(path, top, lib_prefixes, keep=None):
    events, pname = load(path)
    tracks = nest(events)
    categories = {}
    for e in events:
        categories[e.cat] = categories.get(e.cat, 0) + 1

    # GPU activity.
    acts, copy_name = [], {}
    for e in events:
        if e.cat not in GPU:
            continue
        dev = gpu_device(e, pname)
        if dev is None:
            continue
        stream = as_int(e.args.get("stream"))
        if stream is None:
            stream = as_int(e.tid)
        corr = as_int(e.args.get("correlation"))
        acts.append({"dev": dev, "stream": stream, "start": e.start, "end": e.end, "corr": corr,
                     "cat": e.cat, "name": e.name})
        if e.cat == "gpu_memcpy" and corr is not None:
            copy_name.setdefault(corr, e.name)
    devices = sorted({a["dev"] for a in acts})
    dindex = {d: i for i, d in enumerate(devices)}
    sids = {}
    for a in acts:
        a["sid"] = sids.setdefault((a["dev"], a["stream"]), len(sids))
        a["dev_i"] = dindex[a["dev"]]

    # Host calls: launches and blocking calls.
    thread_ids = {}
    launch_of = {}
    calls = []
    runtime = [e for e in events if e.cat in ("cuda_runtime", "cuda_driver")]
    runtime.sort(key=lambda e: (track_key(e), e.start, -e.dur, e.seq))
    for e in runtime:
        thread = thread_ids.setdefault(track_key(e), len(thread_ids))
        corr = as_int(e.args.get("correlation"))
        if corr is not None and corr not in launch_of:
            launch_of[corr] = (thread, e.start, e.end)
        blocking = is_blocking(e.name)
        pageable = False
        if e.name in ASYNC_COPY and corr is not None:
            n = copy_name.get(corr, "")
            # A pageable copy either way syncs: CUDA syncs the stream before a
            # pageable host-to-device copy, and a pageable device-to-host one
            # returns when it is done.
            pageable = "Pageable" in n and ("DtoH" in n or "HtoD" in n)
        if blocking or pageable:
            calls.append({"ev": e, "start": e.start, "end": e.end, "thread": thread,
                          "pageable": pageable, "blocks": blocks_of(e.name)})
    calls.sort(key=lambda c: c["start"])

    # What each blocking call waits for: the streams its cuda_sync record names,
    # or its copy's stream; None: the fallback (what its thread launched last).
    record = {}
    for e in sorted((e for e in events if e.cat == "cuda_sync"), key=lambda e: e.seq):
        corr = as_int(e.args.get("correlation"))
        if corr is not None:
            record.setdefault(corr, e)
    first_act = {}
    for a in acts:
        if a["corr"] is not None:
            first_act.setdefault(a["corr"], a)
    for c in calls:
        corr = as_int(c["ev"].args.get("correlation"))
        r = record.get(corr) if corr is not None else None
        rkind = rdev = rstream = None
        if r is not None:
            k = r.args.get("cuda_sync_kind")
            rkind = k if isinstance(k, str) else r.name
            rdev = as_int(r.args.get("device"))
            if rdev is None:
                rdev = as_int(r.pid)
            rstream = as_int(r.args.get("stream"))
            if rstream is None:
                rstream = as_int(r.tid)
        spec = None
        if c["blocks"] == "stream":
            if rkind == "Stream Sync" and rdev is not None and (rdev, rstream) in sids:
                spec = [(sids[(rdev, rstream)], None)]
        elif c["blocks"] == "event":
            wos = as_int(r.args.get("wait_on_stream")) if rkind == "Event Sync" else None
            if wos is not None and rdev is not None and (rdev, wos) in sids:
                rec = launch_of.get(as_int(r.args.get("wait_on_cuda_event_record_corr_id")))
                spec = [(sids[(rdev, wos)], rec[1] if rec is not None else c["start"])]
        elif c["blocks"] == "copy":
            a = first_act.get(corr) if corr is not None else None
            if a is not None:
                spec = [(a["sid"], None)]
        elif c["blocks"] == "device":
            if rkind == "Context Sync" and rdev is not None and rdev in dindex:
                spec = [(a_sid, None) for (d, _q), a_sid in sorted(sids.items(), key=lambda kv: kv[1]) if d == rdev]
        c["wait_streams"] = spec

    # Handoffs between the host threads of each process.
    flows = fwdbwd_flows(path)
    handoffs = thread_handoffs(tracks, sorted(thread_ids), flows)
    prep = prepare(acts, launch_of, calls,
                   [(thread_ids[h["from"]], thread_ids[h["to"]], h["at"], h["back"]) for h in handoffs])
    wait_mode, deps, dep_pairs = stream_dependencies(events, pname, acts, launch_of, prep)

    steps = [e for e in events if e.cat in OPS | {""} and e.name.startswith("ProfilerStep#")]
    steps.sort(key=lambda e: e.start)

    for c in calls:
        ev = c["ev"]
        chain = []
        p = ev.parent
        while p is not None:
            if p.cat in OPS:
                chain.append(p)
            p = p.parent
        c["op"] = chain[0].name if chain else None
        c["root_op"] = chain[-1].name if chain else None
        track = tracks[track_key(ev)]
        py = enclosing(track, ev, lambda e: e.cat == "python_function")
        user = enclosing(track, ev, lambda e: e.cat == "python_function" and not is_library(e.name, lib_prefixes))
        c["py_frame"] = py.name if py else None
        c["user_frame"] = user.name if user else None
        c["step"] = None
        for s in steps:
            if s.start <= c["end"] < s.end:
                c["step"] = s  # the latest-starting step wins
    # Busy pieces and idle intervals per device.
    pieces, idle = {}, {}
    for d in devices:
        iv = sorted((a["start"], a["end"]) for a in acts if a["dev"] == d)
        ps = []
        for s, e in iv:
            if ps and s <= ps[-1][1]:
                ps[-1][1] = max(ps[-1][1], e)
            else:
                ps.append([s, e])
        pieces[d] = ps
        idle[d] = [(ps[k][1], ps[k + 1][0]) for k in range(len(ps) - 1)]

    ndev = len(devices)
    whole = replay(acts, launch_of, calls, set(range(len(calls))), ndev, deps, prep)
    whole_limit = limited_by(acts, calls, prep, set(range(len(calls))), deps, range(ndev))
    per_call = [replay(acts, launch_of, calls, {k}, ndev, deps, prep) for k in range(len(calls))]

    gaps = []
    for d in devices:
        for g0, g1 in idle[d]:
            cand = [k for k, c in enumerate(calls) if g0 - SKEW <= c["end"] <= g1]
            if not cand:
                continue
            early = [k for k in cand if calls[k]["start"] <= g0]
            pool = early if early else cand
            cause = max(pool, key=lambda k: (calls[k]["end"], k))
            gaps.append({"device": d, "start": g0, "end": g1, "cause": cause})

    # Sync sources.
    sources, skey = [], {}
    for k, c in enumerate(calls):
        key = (c["ev"].name, c["op"], c["user_frame"])
        if key not in skey:
            skey[key] = len(sources)
            sources.append({"key": key, "calls": [], "gaps": 0, "gap": 0})
        sources[skey[key]]["calls"].append(k)
        c["source"] = skey[key]
    for g in gaps:
        s = sources[calls[g["cause"]]["source"]]
        s["gaps"] += 1
        s["gap"] += g["end"] - g["start"]
    for s in sources:
        saved = replay(acts, launch_of, calls, set(s["calls"]), ndev, deps, prep)
        s["avoidable"] = sum(saved)
        # limited_by on the device the source saves the most on (the first on ties).
        d = max(range(ndev), key=lambda i: (saved[i], -i)) if ndev else None
        s["limited_by"] = limited_by(acts, calls, prep, set(s["calls"]), deps, [d])[d] if ndev else "none"
    sources.sort(key=lambda s: -s["avoidable"])  # stable

    # Idle breakdown per (device, stream).
    breakdown = []
    for (d, stream), sid in sorted(sids.items(), key=lambda kv: (kv[0][0], kv[0][1] if kv[0][1] is not None else -2**63)):
        lst = sorted((a for a in acts if a["sid"] == sid), key=lambda a: a["start"])
        hw = kw = other = 0
        for prev, a in zip(lst, lst[1:]):
            gap = a["start"] - prev["end"]
            if gap <= 0:
                continue
            L = launch_of.get(a["corr"]) if a["corr"] is not None else None
            if L is not None and L[1] > prev["end"]:
                hw += gap
            elif gap < KERNEL_WAIT:
                kw += gap
            else:
                other += gap
        breakdown.append({"device": d, "stream": stream, "host_wait_us": us(hw),
                          "kernel_wait_us": us(kw), "other_us": us(other)})

    # Op statistics: count every instance, total over outermost ones, self minus
    # direct children.
    stats = {}
    child = {}
    for e in events:
        if e.parent is not None:
            child[id(e.parent)] = child.get(id(e.parent), 0) + e.dur
    for e in events:
        st = stats.setdefault((e.name, e.cat), [0, 0, 0])
        st[0] += 1
        p, nested = e.parent, False
        while p is not None:
            if p.name == e.name and p.cat == e.cat:
                nested = True
                break
            p = p.parent
        if not nested:
            st[1] += e.dur
        st[2] += max(0, e.dur - child.get(id(e), 0))
    # GPU work per op: an activity is launched by the first runtime/driver call
    # with its correlation (a graph launch: every kernel of the graph); each
    # distinct (name, cat) on that call's chain of parents, itself included, gets it once.
    first_call, gpu_work = {}, {}
    for e in runtime:
        corr = as_int(e.args.get("correlation"))
        if corr is not None:
            first_call.setdefault(corr, e)
    for e in events:
        corr = as_int(e.args.get("correlation")) if e.cat in GPU else None
        if corr is None or corr not in first_call:
            continue
        keys, p = set(), first_call[corr]
        while p is not None:
            keys.add((p.name, p.cat))
            p = p.parent
        for k in keys:
            w = gpu_work.setdefault(k, [0, 0])
            w[0] += 1
            w[1] += e.dur
    ops = sorted(((k, v) for k, v in stats.items() if k[1] in TOP_CATS),
                 key=lambda kv: (-kv[1][1], kv[0][0].encode("utf-8", "surrogatepass"), kv[0][1]))

    out = {
        "devices": [], "sync_calls": [], "sync_gaps": [], "idle_breakdown": breakdown,
        "steps": [], "sync_sources": [], "top_ops": [], "categories": categories,
        "runtime": trace_runtime(events),
    }
    names = device_names(path)
    for i, d in enumerate(devices):
        ps = pieces[d]
        busy = sum(e - s for s, e in ps)
        span = ps[-1][1] - ps[0][0]
        gap_time = sum(g["end"] - g["start"] for g in gaps if g["device"] == d)
        da = [a for a in acts if a["dev"] == d]
        out["devices"].append({
            "device": d, "name": names.get(d),
            "kernels": sum(1 for a in da if a["cat"] == "kernel"),
            "memcpys": sum(1 for a in da if a["cat"] == "gpu_memcpy"),
            "memsets": sum(1 for a in da if a["cat"] == "gpu_memset"),
            "busy_us": us(busy), "idle_us": us(span - busy), "span_us": us(span),
            "sync_gap_us": us(gap_time), "avoidable_us": us(whole[i]),
            "limited_by": {"kind": whole_limit[i]}})
    for k, c in enumerate(calls):
        out["sync_calls"].append({
            "name": c["ev"].name, "ts_us": us(c["start"]), "dur_us": us(c["end"] - c["start"]),
            "op": c["op"], "root_op": c["root_op"], "pageable_copy": c["pageable"],
            "blocks": c["blocks"],
            "blocked_us": us(c["end"] - c["start"]), "avoidable_us": us(sum(per_call[k])),
            "py_frame": c["py_frame"], "user_frame": c["user_frame"],
            "step": c["step"].name if c["step"] else None})
    gaps.sort(key=lambda g: (g["device"], g["start"]))
    for g in gaps:
        c = calls[g["cause"]]
        out["sync_gaps"].append({
            "device": g["device"], "start_us": us(g["start"]), "end_us": us(g["end"]),
            "dur_us": us(g["end"] - g["start"]), "sync": c["ev"].name, "op": c["op"],
            "root_op": c["root_op"], "blocked_us": us(c["end"] - c["start"]),
            "avoidable_us": us(per_call[g["cause"]][dindex[g["device"]]]),
            "py_frame": c["py_frame"], "user_frame": c["user_frame"],
            "step": c["step"].name if c["step"] else None})
    for s in steps:
        inside = {k for k, c in enumerate(calls) if s.start <= c["end"] < s.end}
        saved = replay(acts, launch_of, calls, inside, ndev, deps, prep)
        for i, d in enumerate(devices):
            busy = sum(max(0, min(e, s.end) - max(b, s.start)) for b, e in pieces[d])
            mine = [g for g in gaps if g["device"] == d and g["cause"] in inside]
            out["steps"].append({
                "device": d, "step": s.name, "start_us": us(s.start), "end_us": us(s.end),
                "gpu_busy_us": us(busy), "sync_gaps": len(mine),
                "sync_gap_us": us(sum(g["end"] - g["start"] for g in mine)),
                "avoidable_us": us(saved[i])})
    for s in sources:
        sync, op, user = s["key"]
        out["sync_sources"].append({
            "sync": sync, "op": op, "user_frame": user, "count": len(s["calls"]),
            "gaps": s["gaps"], "gap_us": us(s["gap"]), "avoidable_us": us(s["avoidable"]),
            "limited_by": {"kind": s["limited_by"]}})
    for (name, cat), (count, total, self_) in ops[:top]:
        out["top_ops"].append({"name": name, "cat": cat, "count": count,
                               "total_us": us(total), "self_us": us(self_),
                               "gpu_count": gpu_work.get((name, cat), [0, 0])[0],
                               "gpu_us": us(gpu_work.get((name, cat), [0, 0])[1])})
    modes = [h["mode"] for h in handoffs]
    out["files"] = [{"wait_mode": wait_mode, "stream_dependencies": len(dep_pairs),
                     "thread_mode": max(modes, key=lambda m: MODE_RANK[m]) if modes else "none",
                     "handoffs": len(handoffs)}]
    out["handoffs"] = [{"file": 0, "from_tid": h["from_tid"], "to_tid": h["to_tid"],
                        "at_us": us(h["at"]), "back_us": us(h["back"])} for h in handoffs]
    out["stream_waits"] = stream_wait_rows(0, acts, dep_pairs) if wait_mode == "exact" else []
    if keep is not None:
        keep.update(events=events, tracks=tracks, pname=pname, acts=acts, launch_of=launch_of,
                    calls=calls, prep=prep, deps=deps, dep_pairs=dep_pairs, wait_mode=wait_mode,
                    devices=devices, whole=whole, sources=sources, steps=steps, handoffs=handoffs)
    return out


def stream_wait_rows(file, acts, pairs):
    rows = [{"file": file, "device": acts[x]["dev"], "stream": acts[x]["stream"],
             "wait_on_stream": acts[on]["stream"], "from_correlation": acts[on]["corr"],
             "to_correlation": acts[x]["corr"]} for x, on in pairs]
    rows.sort(key=lambda r: (r["to_correlation"], r["from_correlation"]))
    return rows


def main(argv):
    paths, top, libs = [], 10, []
    i = 0
    while i < len(argv):
        if argv[i] == "--top":
            top = int(argv[i + 1])
            i += 2
        elif argv[i] == "--lib-prefix":
            libs.append(argv[i + 1])
            i += 2
        else:
            paths.append(argv[i])
            i += 1
    if len(paths) > 1:
        import reference_job  # the job mode: one trace per rank
        try:
            doc = reference_job.analyse_job(paths, libs)
        except reference_job.JobError as e:
            sys.stderr.write("%s\n" % e)
            return 1
    else:
        doc = analyse(paths[0], top, libs)
    json.dump(doc, sys.stdout, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
