#!/usr/bin/env python3
"""Job mode of the independent reference (reference_stats.py): several traces,
one per rank of a job, coupled through their collective kernels.

It follows the definitions of docs/analysis.md ("Job scale: what a sync costs the job") in
the plainest way, sharing nothing with the engine:
  - a collective is a GPU kernel whose name contains "nccl" or "rccl" (any case),
    in the group of its own "Process Group Name" arg, else that of the innermost
    cpu_op around its launch call that has one, else "stream <id>"; seq is its
    order by start among the rank's collectives of the group;
  - (group, seq) is matched when every rank that has a collective of the group
    has it, under one kernel name; else it is counted as unmatched and replayed as
    an ordinary activity;
  - matched collective c: dur_j on rank j, d = min dur_j, w_j = dur_j - d; the last
    rank has w_j = 0 (the lowest such rank); lateness = the second smallest w;
  - the job replay walks every rank's sync-free replay together; once every rank
    of c has c's new start (delta_j = new start - start), c ends
    Delta = max_j (delta_j - w_j) later than measured on every rank;
  - clock offset of rank r: over the matched collectives it shares with the
    lowest rank, the nearest-rank median, p5 and p95 of
    (end on r - end on the lowest rank); job end: the latest GPU end over ranks
    minus their offsets.

Usage: reference_stats.py TRACE TRACE... [--lib-prefix P ...] -> JSON on stdout.
"""
import gzip
import json
import re

import reference_stats as ref

COLLECTIVE = re.compile("nccl|rccl", re.IGNORECASE)


class JobError(Exception):
    """A job that cannot be analysed; the message is one sentence."""


def file_rank(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    doc = json.loads(raw)
    if not isinstance(doc, dict):
        return None
    info = doc.get("distributedInfo")
    return ref.as_int(info.get("rank")) if isinstance(info, dict) else None


def group_text(v):
    return v if isinstance(v, str) else str(ref.as_int(v) if ref.as_int(v) is not None else v)


def rank_context(path, lib_prefixes):
    """One rank: its single-rank analysis, the internals the replay needs and its
    collectives."""
    ctx = {"path": path}
    ctx["out"] = ref.analyse(path, 0, lib_prefixes, ctx)
    # The launch call of each correlation, as the analysis picks it.
    runtime = [e for e in ctx["events"] if e.cat in ("cuda_runtime", "cuda_driver")]
    runtime.sort(key=lambda e: (ref.track_key(e), e.start, -e.dur, e.seq))
    launch_ev = {}
    for e in runtime:
        corr = ref.as_int(e.args.get("correlation"))
        if corr is not None and corr not in launch_ev:
            launch_ev[corr] = e
    kernel_args = {}
    for e in ctx["events"]:
        if e.cat == "kernel":
            kernel_args[(ref.as_int(e.args.get("correlation")), e.start, e.end, e.name)] = e.args
    acts = ctx["acts"]
    colls = []
    for i, a in enumerate(acts):
        if a["cat"] != "kernel" or not COLLECTIVE.search(a["name"]):
            continue
        args = kernel_args.get((a["corr"], a["start"], a["end"], a["name"]), {})
        group = None
        if "Process Group Name" in args:
            group = group_text(args["Process Group Name"])
        else:
            p = launch_ev[a["corr"]].parent if a["corr"] in launch_ev else None
            while p is not None:
                if p.cat == "cpu_op" and "Process Group Name" in p.args:
                    group = group_text(p.args["Process Group Name"])
                    break
                p = p.parent
        if group is None:
            group = "stream %s" % a["stream"]
        colls.append((group, a["start"], a["end"], i))
    colls.sort()
    ctx["collectives"] = []  # (group, seq, activity)
    seq = {}
    for group, _s, _e, i in colls:
        ctx["collectives"].append((group, seq.get(group, 0), i))
        seq[group] = seq.get(group, 0) + 1
    # The rank's device: that of most of its collectives, else its busiest; ties the lowest id.
    count = {}
    for _g, _q, i in ctx["collectives"]:
        count[acts[i]["dev"]] = count.get(acts[i]["dev"], 0) + 1
    if not count:
        for a in acts:
            count[a["dev"]] = count.get(a["dev"], 0) + 1
    ctx["device"] = min(count, key=lambda d: (-count[d], d)) if count else None
    return ctx


def nearest_rank(v):
    """(median, p5, p95) of a sorted list by nearest rank, in integers."""
    n1 = len(v) - 1
    return v[n1 // 2], v[n1 * 5 // 100], v[-(-n1 * 95 // 100)]


class Job:
    def __init__(self, paths, lib_prefixes=()):
        given = [file_rank(p) for p in paths]
        # Files in the loader's order: by rank, files without one last as given.
        order = sorted(range(len(paths)), key=lambda i: (given[i] is None, given[i] or 0, i))
        self.paths = [paths[i] for i in order]
        self.rank = [given[i] if given[i] is not None else pos for pos, i in enumerate(order)]
        seen = {}
        for f, r in enumerate(self.rank):
            if r in seen:
                raise JobError("%s and %s are both rank %d of the job." % (self.paths[seen[r]], self.paths[f], r))
            seen[r] = f
        self.ctx = [rank_context(p, lib_prefixes) for p in self.paths]
        self.by_rank = sorted(range(len(self.paths)), key=lambda f: self.rank[f])
        self._match()
        self._offsets()
        self.old_end, self.old_first = self._ends([None] * len(self.ctx))
        self.forced = 0

    def _match(self):
        groups = {}
        for f, c in enumerate(self.ctx):
            for group, seq, i in c["collectives"]:
                groups.setdefault(group, {}).setdefault(f, []).append(i)
        self.matched, self.unmatched = [], 0
        for group in sorted(groups):
            members = groups[group]
            for seq in range(max(len(v) for v in members.values())):
                parts = {f: v[seq] for f, v in members.items() if seq < len(v)}
                names = {self.ctx[f]["acts"][i]["name"] for f, i in parts.items()}
                # A group on one rank only couples nothing.
                if len(parts) != len(members) or len(names) != 1 or len(members) < 2:
                    self.unmatched += 1
                    continue
                dur = {f: self.ctx[f]["acts"][i]["end"] - self.ctx[f]["acts"][i]["start"]
                       for f, i in parts.items()}
                d = min(dur.values())
                w = {f: dur[f] - d for f in parts}
                ws = sorted(w.values())
                last = min((f for f in parts if w[f] == 0), key=lambda f: self.rank[f])
                self.matched.append({"group": group, "seq": seq, "name": names.pop(), "parts": parts,
                                     "w": w, "last": last, "lateness": ws[1] if len(ws) > 1 else 0})
        for c in self.ctx:
            c["coupled"] = {}
        for k, m in enumerate(self.matched):
            for f, i in m["parts"].items():
                self.ctx[f]["coupled"][i] = k

    def _offsets(self):
        first = self.by_rank[0]
        self.offset = [0] * len(self.ctx)
        self.offset_stats = [None] * len(self.ctx)
        for f, c in enumerate(self.ctx):
            v = sorted(self.ctx[f]["acts"][m["parts"][f]]["end"] - self.ctx[first]["acts"][m["parts"][first]]["end"]
                       for m in self.matched if f in m["parts"] and first in m["parts"])
            if v:
                self.offset_stats[f] = nearest_rank(v)
                self.offset[f] = self.offset_stats[f][0]

    def _ends(self, new_end):
        """(job end, job start) on the aligned clock; new_end[f] None: as measured."""
        end = start = None
        for f, c in enumerate(self.ctx):
            acts = c["acts"]
            if not acts:
                continue
            ne = new_end[f]
            e = max((ne.get(i, a["end"]) if ne is not None else a["end"]) for i, a in enumerate(acts))
            s = min(a["start"] for a in acts)
            e -= self.offset[f]
            s -= self.offset[f]
            end = e if end is None else max(end, e)
            start = s if start is None else min(start, s)
        return end, start

    def replay(self, removed):
        """The job replay without the calls removed[f] of each file f: (new ends per
        file, Delta per matched collective)."""
        n = len(self.ctx)
        gens = [ref.walk(c["acts"], c["calls"], c["prep"], removed.get(f, set()), c["deps"], c["coupled"])
                for f, c in enumerate(self.ctx)]
        new_end, pending, delta = [None] * n, {}, {}

        def advance(f, value):
            while True:
                try:
                    act, s = gens[f].send(value)
                except StopIteration as stop:
                    new_end[f] = stop.value
                    return
                k = self.ctx[f]["coupled"][act]
                if k in delta:  # resolved without this rank (see below)
                    value = self.ctx[f]["acts"][act]["end"] + delta[k]
                    continue
                pending.setdefault(k, {})[f] = s - self.ctx[f]["acts"][act]["start"]
                return

        for f in range(n):
            advance(f, None)
        while pending:
            ready = [k for k, got in pending.items() if len(got) == len(self.matched[k]["parts"])]
            if not ready:
                # Ranks that wait on each other's collectives in opposite orders: take
                # the first, with the ranks not there yet as measured (delta 0).
                ready = [min(pending)]
                self.forced += 1
            for k in sorted(ready):
                got = pending.pop(k)
                m = self.matched[k]
                delta[k] = max(got.get(f, 0) - m["w"][f] for f in m["parts"])
                for f in got:
                    advance(f, self.ctx[f]["acts"][m["parts"][f]]["end"] + delta[k])
        return new_end, delta

    def saving(self, removed):
        """How much earlier the job ends without the calls removed[f]; and Delta per collective."""
        if not any(removed.values()):
            return 0, {}
        new_end, delta = self.replay(removed)
        return self.old_end - self._ends(new_end)[0], delta

    def step_of(self, f, t):
        inside = [s for s in self.ctx[f]["steps"] if s.start <= t < s.end]
        return inside[-1] if inside else None

    def analyse(self):
        us = ref.us
        out = {"files": [], "stream_waits": []}
        for f, c in enumerate(self.ctx):
            out["files"].append({"path": c["path"], "rank": self.rank[f], "wait_mode": c["wait_mode"],
                                 "stream_dependencies": len(c["dep_pairs"])})
            if c["wait_mode"] == "exact":
                out["stream_waits"] += ref.stream_wait_rows(f, c["acts"], c["dep_pairs"])
        every = {f: set(range(len(c["calls"]))) for f, c in enumerate(self.ctx)}
        out["job"] = {"ranks": len(self.ctx), "collectives": len(self.matched),
                      "unmatched_collectives": self.unmatched,
                      "span_us": us(self.old_end - self.old_first) if self.old_end is not None else us(0),
                      "avoidable_us": us(self.saving(every)[0])}
        out["ranks"] = []
        for f in self.by_rank:
            c = self.ctx[f]
            st = self.offset_stats[f]
            dev = c["device"]
            local = c["whole"][c["devices"].index(dev)] if dev is not None else 0
            out["ranks"].append({
                "rank": self.rank[f], "file": f, "device": dev,
                "clock_offset_us": us(st[0]) if st else None,
                "clock_offset_p5_us": us(st[1]) if st else None,
                "clock_offset_p95_us": us(st[2]) if st else None,
                "local_avoidable_us": us(local),
                "job_avoidable_us": us(self.saving({f: every[f]})[0]),
                "last_arrivals": sum(1 for m in self.matched if m["last"] == f),
                "wait_us": us(sum(m["w"][f] for m in self.matched if f in m["parts"]))})
        # The cause of each collective's lateness: the late rank's source whose removal
        # alone moves the collective's end earliest (first in the sources' order on ties).
        by_source = {}
        blame = []
        for k, m in enumerate(self.matched):
            f = m["last"]
            best = None
            for j, s in enumerate(self.ctx[f]["sources"]):
                if (f, j) not in by_source:
                    by_source[(f, j)] = self.saving({f: set(s["calls"])})[1]
                d = by_source[(f, j)].get(k, 0)
                if d < 0 and (best is None or d < best[1]):
                    best = (s, d)
            cause = None
            if best is not None:
                sync, op, user = best[0]["key"]
                cause = {"sync": sync, "op": op, "user_frame": user, "saves_us": us(-best[1])}
            blame.append((m, {"group": m["group"], "seq": m["seq"], "name": m["name"],
                              "last_rank": self.rank[f], "lateness_us": us(m["lateness"]), "cause": cause}))
        blame.sort(key=lambda x: (-x[0]["lateness"], x[0]["group"], x[0]["seq"]))
        out["collective_blame"] = [row for _m, row in blame]
        out["rank_steps"] = []
        for f in self.by_rank:
            c = self.ctx[f]
            launch = {}
            for k, m in enumerate(self.matched):
                if f in m["parts"]:
                    L = c["launch_of"].get(c["acts"][m["parts"][f]]["corr"])
                    st = self.step_of(f, L[1]) if L is not None else None
                    if st is not None:
                        launch.setdefault(id(st), []).append(m)
            for s in c["steps"]:
                inside = {j for j, call in enumerate(c["calls"]) if s.start <= call["end"] < s.end}
                mine = launch.get(id(s), [])
                out["rank_steps"].append({
                    "rank": self.rank[f], "step": s.name, "dur_us": us(s.end - s.start),
                    "avoidable_us": us(self.saving({f: inside})[0]),
                    "lateness_us": us(sum(m["lateness"] for m in mine if m["last"] == f)),
                    "wait_us": us(sum(m["w"][f] for m in mine))})
        return out


def analyse_job(paths, lib_prefixes=()):
    return Job(paths, lib_prefixes).analyse()
