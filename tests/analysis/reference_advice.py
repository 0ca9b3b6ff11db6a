#!/usr/bin/env python3
"""Independent reference of syncscope's advice matching (docs/analysis.md "What
to change"): reads resources/advice.json itself and matches the blocking calls
reference_stats.analyse found, from the events' nesting, in the plainest way.

advise(keep, rules) -> one rule id (or None) per call, in keep["calls"] order.
source_advice(ids) -> (id, count) for a source's calls: the most common id,
ties to the earlier rule, None counting as a choice that comes last.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
RULES = os.path.join(HERE, "..", "..", "resources", "advice.json")
OPS = ("cpu_op", "user_annotation")


def load_rules(path=RULES):
    with open(path) as f:
        return json.load(f)["rules"]


def track_order(keep):
    """Each event's track list (sorted as nest() sorted it) and its index there."""
    where = {}
    for lst in keep["tracks"].values():
        for i, e in enumerate(lst):
            where[id(e)] = (lst, i)
    return where


def facts(call, keep, where, copy_name):
    ev = call["ev"]
    chain, frames = [], []
    p = ev.parent
    while p is not None:
        if p.cat in OPS:
            chain.append(p)
        elif p.cat == "python_function":
            frames.append(p.name)
        p = p.parent
    lst, i = where[id(ev)]

    def copy_of(e):
        corr = e.args.get("correlation")
        try:
            corr = int(corr)
        except (TypeError, ValueError):
            return None
        return copy_name.get(corr)

    copy = copy_of(ev)
    if copy is None:
        # The last copy launched before it by a call with the same parent:
        # within its op (at most 64 events back), or, outside any event, within
        # the 8 events before it.
        if ev.parent is not None:
            lowest = where[id(ev.parent)][1] + 1
        else:
            lowest = max(0, i - 8)
        j = i - 1
        while j >= lowest and i - j <= 64:
            e = lst[j]
            if e.parent is ev.parent:
                copy = copy_of(e)
                if copy is not None:
                    break
            j -= 1
    return chain, frames, copy or ""


def next_op(op, keep, where):
    lst, i = where[id(op)]
    for e in lst[i + 1:]:
        if e.parent is op.parent and e.cat == "cpu_op" and e.start >= op.end:
            return e.name
    return ""


def holds(rule, call, chain, frames, copy, at, keep, where):
    m = rule["match"]
    if m.get("sync") and call["ev"].name not in m["sync"]:
        return False
    if any(s not in copy for s in m.get("copy", [])):
        return False
    if m.get("frames") and not any(n in f for f in frames for n in m["frames"]):
        return False
    if m.get("no_aten_parent") and any(o.name.startswith("aten::") for o in chain):
        return False
    if at is None:
        return True
    if m.get("inner") and not any(o.name in m["inner"] for o in chain[:at]):
        return False
    if m.get("input_types"):
        types = chain[at].args.get("Input type") or []
        if any(t not in types for t in m["input_types"]):
            return False
    if m.get("followed_by") and next_op(chain[at], keep, where) not in m["followed_by"]:
        return False
    return True


def advise(keep, rules):
    copy_name = {}
    for e in keep["events"]:
        if e.cat == "gpu_memcpy":
            try:
                copy_name.setdefault(int(e.args.get("correlation")), e.name)
            except (TypeError, ValueError):
                pass
    where = track_order(keep)
    out = []
    for c in keep["calls"]:
        chain, frames, copy = facts(c, keep, where, copy_name)
        found = None
        for at in range(len(chain) - 1, -1, -1):
            for r in rules:
                if chain[at].name in r["match"].get("ops", []) and holds(r, c, chain, frames, copy, at,
                                                                          keep, where):
                    found = r["id"]
                    break
            if found:
                break
        if not found:
            for r in rules:
                if not r["match"].get("ops") and holds(r, c, chain, frames, copy, None, keep, where):
                    found = r["id"]
                    break
        out.append(found)
    return out


def source_advice(ids, rules):
    order = {r["id"]: k for k, r in enumerate(rules)}
    counts = {}
    for a in ids:
        counts[a] = counts.get(a, 0) + 1
    # Most calls first; on a tie the earlier rule, and any rule before none.
    return max(counts.items(), key=lambda kv: (kv[1], -order[kv[0]] if kv[0] else -len(rules) - 1))
