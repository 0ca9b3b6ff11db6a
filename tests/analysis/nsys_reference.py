#!/usr/bin/env python3
"""An independent reading of an Nsight Systems SQLite export (stdlib sqlite3):
per process that launched GPU work and per device, the kernel, copy and set
counts, the busy time (the union of the device's activities), the span and the
idle time; and the blocking calls with their blocked time. Integer ns
throughout, written as exact decimal microseconds like `analyze --json`.

to_chrome() writes one process of an export as the Chrome trace Kineto would
have written (its own reading of the tables, as the README's mapping states),
so that reference_stats.py can check every further figure (sync gaps, their
causes and ops, steps, sources) on it.
Usage: nsys_reference.py EXPORT.sqlite  (prints the figures as JSON)"""
import json
import re
import sqlite3
import sys

# The calls that block their thread until the device is done (the README's
# "What blocks"), by their name without nsys's version suffix.
BLOCKING = {"cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize",
            "cudaMemcpy", "cuStreamSynchronize", "cuCtxSynchronize", "cuEventSynchronize",
            "cuMemcpyDtoH", "cuMemcpyDtoH_v2"}
ASYNC_COPY = {"cudaMemcpyAsync"}
PAGEABLE = 0      # ENUM_CUDA_MEM_KIND
HTOD, DTOH = 1, 2  # ENUM_CUDA_MEMCPY_OPER


def us(v):
    sign = "-" if v < 0 else ""
    v = abs(v)
    return "%s%d.%03d" % (sign, v // 1000, v % 1000)


def plain_name(name):
    m = re.fullmatch(r"(.*)_v\d+", name)
    return m.group(1) if m else name


def pid_of(g):
    return (g >> 24) & 0xFFFFFF


def tables(db):
    return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def analyse(path):
    """{pid: {"devices": [...], "sync_calls": [...]}} for every GPU process."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    have = tables(db)
    acts = {}  # pid -> [(device, start, end, kind)]
    for table, kind in (("CUPTI_ACTIVITY_KIND_KERNEL", "kernel"), ("CUPTI_ACTIVITY_KIND_MEMCPY", "memcpy"),
                        ("CUPTI_ACTIVITY_KIND_MEMSET", "memset")):
        if table not in have:
            continue
        for dev, start, end, gpid in db.execute(f"SELECT deviceId, start, end, globalPid FROM {table}"):
            acts.setdefault(pid_of(gpid), []).append((dev, start, end, kind))
    pageable = {}  # (pid, correlation) -> copy that syncs
    if "CUPTI_ACTIVITY_KIND_MEMCPY" in have:
        for corr, gpid, copy, src, dst in db.execute(
                "SELECT correlationId, globalPid, copyKind, srcKind, dstKind FROM CUPTI_ACTIVITY_KIND_MEMCPY"):
            if (copy == HTOD and src == PAGEABLE) or (copy == DTOH and dst == PAGEABLE):
                pageable[(pid_of(gpid), corr)] = True
    names = dict(db.execute("SELECT id, value FROM StringIds"))
    calls = {}
    if "CUPTI_ACTIVITY_KIND_RUNTIME" in have:
        for start, end, gtid, corr, name_id in db.execute(
                "SELECT start, end, globalTid, correlationId, nameId FROM CUPTI_ACTIVITY_KIND_RUNTIME"):
            pid = pid_of(gtid)
            name = plain_name(names[name_id])
            is_pageable = name in ASYNC_COPY and (pid, corr) in pageable
            if name in BLOCKING or is_pageable:
                calls.setdefault(pid, []).append({
                    "name": name, "tid": gtid & 0xFFFFFF, "start": start, "end": end,
                    "pageable_copy": is_pageable})
    out = {}
    for pid in sorted(acts):
        devices = []
        for dev in sorted({a[0] for a in acts[pid]}):
            mine = [a for a in acts[pid] if a[0] == dev]
            busy, cur = 0, None
            for _, s, e, _ in sorted(mine, key=lambda a: (a[1], a[2])):
                if cur and s <= cur[1]:
                    cur[1] = max(cur[1], e)
                else:
                    if cur:
                        busy += cur[1] - cur[0]
                    cur = [s, e]
            busy += cur[1] - cur[0]
            span = max(a[2] for a in mine) - min(a[1] for a in mine)
            devices.append({"device": dev,
                            "kernels": sum(a[3] == "kernel" for a in mine),
                            "memcpys": sum(a[3] == "memcpy" for a in mine),
                            "memsets": sum(a[3] == "memset" for a in mine),
                            "busy_us": us(busy), "span_us": us(span), "idle_us": us(span - busy)})
        rows = sorted(calls.get(pid, []), key=lambda c: (c["start"], c["tid"]))
        out[pid] = {"devices": devices,
                    "sync_calls": [{"name": c["name"], "tid": c["tid"], "ts_us": us(c["start"]),
                                    "blocked_us": us(c["end"] - c["start"]),
                                    "pageable_copy": c["pageable_copy"]} for c in rows]}
    return out


COPY = {1: "HtoD", 2: "DtoH", 3: "HtoA", 4: "AtoH", 5: "AtoA", 6: "AtoD", 7: "DtoA", 8: "DtoD", 9: "HtoH",
        10: "PtoP", 11: "HtoD", 12: "DtoH", 13: "DtoD"}
MEM = {0: "Pageable", 1: "Pinned", 2: "Device", 3: "Array", 4: "Managed", 5: "Device Static",
       6: "Managed Static"}
SYNC = {1: "Event Sync", 2: "Stream Wait Event", 3: "Stream Sync", 4: "Context Sync"}


def ts(v):
    return "%d.%03d" % (v // 1000, v % 1000)


def to_chrome(path, pid, out_path):
    """Process pid of the export as a Chrome trace at out_path."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    names = dict(db.execute("SELECT id, value FROM StringIds"))
    mine = f"((%s >> 24) & 16777215) = {int(pid)}"
    events = []

    def x(cat, name, start, end, p, t, args):
        events.append({"ph": "X", "cat": cat, "name": name, "ts": ts(start), "dur": ts(end - start),
                       "pid": p, "tid": t, "args": args})

    for start, end, g, corr, name_id in db.execute(
            "SELECT start, end, globalTid, correlationId, nameId FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE "
            + mine % "globalTid"):
        x("cuda_runtime", plain_name(names[name_id]), start, end, pid, g & 0xFFFFFF,
          {} if corr is None else {"correlation": corr})
    for start, end, g, text, text_id, domain in db.execute(
            "SELECT start, end, globalTid, text, textId, domainId FROM NVTX_EVENTS WHERE eventType = 59 AND "
            "end IS NOT NULL AND " + mine % "globalTid"):
        text = text if text is not None else names.get(text_id)
        if text is None:
            continue
        name = re.split(r", (?:seq|op_id|sizes) = ", text, maxsplit=1)[0]
        args = {}
        m = re.search(r", seq = (\d+)", text)
        if m:
            args["Sequence number"] = int(m.group(1))
        x("cpu_op" if not domain else "user_annotation", name, start, end, pid, g & 0xFFFFFF, args)
    for start, end, dev, stream, corr, dname, sname in db.execute(
            "SELECT start, end, deviceId, streamId, correlationId, demangledName, shortName "
            "FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE " + mine % "globalPid"):
        x("kernel", names[dname], start, end, dev, stream, {"device": dev, "stream": stream, "correlation": corr})
    for start, end, dev, stream, corr, nbytes, copy, src, dst in db.execute(
            "SELECT start, end, deviceId, streamId, correlationId, bytes, copyKind, srcKind, dstKind "
            "FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE " + mine % "globalPid"):
        name = "Memcpy %s (%s -> %s)" % (COPY.get(copy, "Unknown"), MEM.get(src, "Unknown"), MEM.get(dst, "Unknown"))
        x("gpu_memcpy", name, start, end, dev, stream,
          {"device": dev, "stream": stream, "correlation": corr, "bytes": nbytes})
    for start, end, dev, stream, corr, nbytes, kind in db.execute(
            "SELECT start, end, deviceId, streamId, correlationId, bytes, memKind "
            "FROM CUPTI_ACTIVITY_KIND_MEMSET WHERE " + mine % "globalPid"):
        x("gpu_memset", "Memset (%s)" % MEM.get(kind, "Unknown"), start, end, dev, stream,
          {"device": dev, "stream": stream, "correlation": corr, "bytes": nbytes})
    # A stream wait names its event record only through the CUDA_EVENT table;
    # without it a wait is left out (this reading handles only exports without).
    tables_here = tables(db)
    if "CUPTI_ACTIVITY_KIND_CUDA_EVENT" in tables_here:
        n = db.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_CUDA_EVENT").fetchone()[0]
        if n:
            raise NotImplementedError(f"{path}: event records (CUPTI_ACTIVITY_KIND_CUDA_EVENT)")
    for start, end, dev, stream, corr, kind in db.execute(
            "SELECT start, end, deviceId, streamId, correlationId, syncType "
            "FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION WHERE " + mine % "globalPid"):
        if kind in (1, 3, 4):
            x("cuda_sync", SYNC[kind], start, end, dev, stream,
              {"cuda_sync_kind": SYNC[kind], "device": dev, "stream": stream, "correlation": corr})
    with open(out_path, "w") as f:
        json.dump({"traceEvents": events}, f)


if __name__ == "__main__":
    json.dump({str(k): v for k, v in analyse(sys.argv[1]).items()}, sys.stdout, indent=1)
    print()
