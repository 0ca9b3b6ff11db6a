#!/usr/bin/env python3
"""Nsight Systems SQLite exports in `syncscope-cli analyze` and `diff`: on the
shared real exports every GPU process is a rank whose devices and blocking
calls equal the independent reading (nsys_reference.py) to the ns; a hand-made
export checks the mapping (names, copies, syncs, NVTX ops, steps); bad input
gives one sentence and the exit status of other load errors.
Usage: cli_nsys_test.py CLI DATA_DIR SHARED_DIR"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nsys_reference  # noqa: E402
import reference_stats  # noqa: E402

SECTIONS = ["devices", "sync_calls", "handoffs", "sync_gaps", "idle_breakdown", "steps", "sync_sources", "top_ops"]

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def run(cli, args, env=None):
    return subprocess.run([cli, *args], capture_output=True, text=True, timeout=300, env=env)


def analyze(cli, files, tmp):
    out = os.path.join(tmp, "out.json")
    p = run(cli, ["analyze", *files, "--json", out, "--top", "100000"])
    check(p.returncode == 0, f"analyze {files} exited {p.returncode}: {p.stderr.strip()}")
    if p.returncode != 0:
        return None
    with open(out) as f:
        return json.load(f, parse_float=Decimal)


def one_sentence(cli, what, args, expect_rc, needle, env=None):
    p = run(cli, args, env)
    lines = [l for l in p.stderr.splitlines() if l and not l.startswith("[")]
    check(p.returncode == expect_rc and len(lines) == 1,
          f"{what}: rc {p.returncode} (want {expect_rc}), stderr {p.stderr!r}")
    check(bool(lines) and needle in lines[-1], f"{what}: {needle!r} not in {lines!r}")


# The few tables and columns of a 2026 export the loader reads.
SCHEMA = """
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER,
  globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER, callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL,
  copyKind INTEGER NOT NULL{kinds});
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
  globalPid INTEGER, syncType INTEGER NOT NULL, eventId INTEGER, eventSyncId INTEGER);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, text TEXT,
  globalTid INTEGER, textId INTEGER, domainId INTEGER);
"""
PID, TID = 4242, 4243
G_TID = (PID << 24) | TID
G_PID = PID << 24


def make_export(path, with_kinds=True):
    db = sqlite3.connect(path)
    db.executescript(SCHEMA.replace("{kinds}", ", srcKind INTEGER, dstKind INTEGER" if with_kinds else ""))
    strings = {1: "cudaLaunchKernel_v7000", 2: "cudaMemcpyAsync_v3020", 3: "cudaStreamSynchronize_v3020",
               4: "void gemm_kernel<float>(float*)", 5: "gemm_kernel", 6: "ProfilerStep#7"}
    db.executemany("INSERT INTO StringIds VALUES (?, ?)", strings.items())
    # Thread: launch (0-1000), pageable copy HtoD (2000-9000), sync (10000-60000).
    db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 0, ?, ?, ?, 0, NULL)", [
        (1000, 2000, G_TID, 11, 1), (3000, 9000, G_TID, 12, 2), (10001, 60003, G_TID, 13, 3)])
    db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1500, 40000, 0, 1, 7, 11, ?, 4, 5)", (G_PID,))
    kinds = ", 0, 2" if with_kinds else ""
    db.execute(f"INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (40100, 50000, 0, 1, 7, 12, ?, 4096, 1{kinds})",
               (G_PID,))
    db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (10500, 60000, 0, 1, 7, 13, ?, 3, 0, NULL)",
               (G_PID,))
    db.executemany("INSERT INTO NVTX_EVENTS VALUES (?, ?, 59, ?, ?, ?, 0)", [
        (500, 70000, None, G_TID, 6),
        (900, 9500, "aten::copy_, seq = 46174, op_id = 993406", G_TID, None),
        (10000, 60010, "aten::item, op_id = 993407", G_TID, None)])
    db.commit()
    db.close()


def hand_made(cli, tmp):
    path = os.path.join(tmp, "hand.sqlite")
    make_export(path)
    doc = analyze(cli, [path], tmp)
    if doc is None:
        return
    f = doc["files"][0]
    check(len(doc["files"]) == 1 and f["source"] == "nsys" and f["format"] == "sqlite", f"hand-made files {f}")
    d = doc["devices"][0]
    check((d["kernels"], d["memcpys"], str(d["busy_us"]), str(d["span_us"])) == (1, 1, "48.400", "48.500"),
          f"hand-made device {d}")
    calls = [(c["name"], str(c["ts_us"]), str(c["blocked_us"]), c["pageable_copy"], c["op"], c["step"], c["tid"])
             for c in doc["sync_calls"]]
    check(calls == [("cudaMemcpyAsync", "3.000", "6.000", True, "aten::copy_", "ProfilerStep#7", TID),
                    ("cudaStreamSynchronize", "10.001", "50.002", False, "aten::item", "ProfilerStep#7", TID)],
          f"hand-made sync calls {calls}")
    kinds = [(e["kind"], e["device"], e["stream"]) for e in doc["cuda_sync_events"]]
    check(kinds == [("Stream Sync", 0, 7)], f"hand-made cuda_sync_events {kinds}")
    check([s["step"] for s in doc["steps"]] == ["ProfilerStep#7"], f"hand-made steps {doc['steps']}")
    check(doc["categories"].get("cpu_op") == 3, f"hand-made categories {doc['categories']}")

    # An export without memory kinds: said, and no copy is taken for pageable.
    old = os.path.join(tmp, "nokinds.sqlite")
    make_export(old, with_kinds=False)
    doc = analyze(cli, [old], tmp)
    if doc is not None:
        kinds = [k["example"] for k in doc["files"][0]["warning_kinds"]]
        check(any("pageable copies cannot be told apart" in k for k in kinds), f"no-kinds warnings {kinds}")
        check([c["name"] for c in doc["sync_calls"]] == ["cudaStreamSynchronize"],
              f"no-kinds sync calls {doc['sync_calls']}")


def bad_input(cli, data, tmp, shared_export):
    # The exit status of any load error, for comparison.
    rc = run(cli, ["analyze", os.path.join(data, "malformed.json")]).returncode
    check(rc != 0, "malformed.json loads")
    other = os.path.join(tmp, "other.sqlite")
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE notes (id INTEGER, body TEXT)")
    db.commit()
    db.close()
    one_sentence(cli, "not an export", ["analyze", other], rc, "not an Nsight Systems export")

    older = os.path.join(tmp, "older.sqlite")
    make_export(older)
    db = sqlite3.connect(older)
    db.executescript("DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL;"
                     "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER,"
                     " streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER);")
    db.commit()
    db.close()
    one_sentence(cli, "older schema", ["analyze", older], rc, 'has no column "shortName"')

    garbage = os.path.join(tmp, "garbage.sqlite")
    with open(garbage, "wb") as f:
        f.write(b"SQLite format 3\0" + b"\xff" * 4000)
    one_sentence(cli, "corrupt file", ["analyze", garbage], rc, "garbage.sqlite")

    if shared_export:
        cut = os.path.join(tmp, "cut.sqlite")
        with open(shared_export, "rb") as src, open(cut, "wb") as dst:
            dst.write(src.read(os.path.getsize(shared_export) // 3))
        one_sentence(cli, "truncated export", ["analyze", cut], rc, "cut.sqlite")

    rep = os.path.join(tmp, "run.nsys-rep")
    with open(rep, "wb") as f:
        f.write(b"not really a report")
    env = dict(os.environ, PATH=tmp)  # no nsys there
    one_sentence(cli, "report without nsys", ["analyze", rep], rc,
                 "nsys export --type sqlite --output", env)


def reports(cli, tmp, export):
    """A .nsys-rep goes through `nsys export` once (a stand-in nsys here that
    copies an export), into a temporary file that is gone afterwards."""
    bin_dir = os.path.join(tmp, "bin")
    os.makedirs(bin_dir, exist_ok=True)
    log = os.path.join(tmp, "nsys.log")
    fake = os.path.join(bin_dir, "nsys")
    with open(fake, "w") as f:
        f.write("#!/bin/sh\n"
                f"echo \"$*\" >> '{log}'\n"
                "echo 'exporting' \n"  # its stdout must not reach ours
                "case \"$6\" in *broken*) exit 3;; esac\n"
                f"cp '{export}' \"$5\"\n")
    os.chmod(fake, 0o755)
    scratch = os.path.join(tmp, "scratch")
    os.makedirs(scratch, exist_ok=True)
    env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""), TMPDIR=scratch)
    rep = os.path.join(tmp, "run.nsys-rep")
    with open(rep, "wb") as f:
        f.write(b"a report")
    out = os.path.join(tmp, "rep.json")
    p = run(cli, ["analyze", rep, "--json", "-"], env)
    check(p.returncode == 0, f"report: rc {p.returncode}, {p.stderr!r}")
    if p.returncode == 0:
        doc = json.loads(p.stdout)
        pids = sorted(nsys_reference.analyse(export))
        names = [f["path"] for f in doc["files"]]
        want = [f"{rep}#{pid}" for pid in pids] if len(pids) >= 2 else [rep]
        check(names == want, f"report ranks {names}, want {want}")
    with open(log) as f:
        calls = f.read().splitlines()
    check(len(calls) == 1 and calls[0].startswith("export --type sqlite --output ") and calls[0].endswith(rep),
          f"nsys calls {calls}")
    check(os.listdir(scratch) == [], f"temporary export left behind: {os.listdir(scratch)}")
    broken = os.path.join(tmp, "broken.nsys-rep")
    with open(broken, "wb") as f:
        f.write(b"x")
    rc = run(cli, ["analyze", os.path.join(tmp, "does-not-exist.json")]).returncode
    one_sentence(cli, "failed export", ["analyze", broken], rc, "failed on it (exit status 3)", env)
    check(os.listdir(scratch) == [], f"temporary export left behind: {os.listdir(scratch)}")


def shared_exports(cli, tmp, before, after):
    for path in (before, after):
        want = nsys_reference.analyse(path)
        doc = analyze(cli, [path], tmp)
        if doc is None:
            continue
        files = doc["files"]
        check([f["path"] for f in files] == [f"{path}#{pid}" for pid in sorted(want)],
              f"{path}: one rank per GPU process: {[f['path'] for f in files]}")
        check(all(f["source"] == "nsys" for f in files), f"{path}: source")
        check("job" in doc, f"{path}: no job analysis for {len(files)} ranks")
        for i, pid in enumerate(sorted(want)):
            got_dev = [{k: d[k] for k in ("device", "kernels", "memcpys", "memsets", "busy_us", "span_us",
                                          "idle_us")} for d in doc["devices"] if d["file"] == i]
            got_dev = [{k: (str(v) if k.endswith("_us") else v) for k, v in d.items()} for d in got_dev]
            check(got_dev == want[pid]["devices"], f"{path}#{pid}: devices {got_dev}, reference {want[pid]['devices']}")
            got = [{"name": c["name"], "tid": c["tid"], "ts_us": c["ts_us"], "blocked_us": c["blocked_us"],
                    "pageable_copy": c["pageable_copy"]} for c in doc["sync_calls"] if c["file"] == i]
            got.sort(key=lambda c: (c["ts_us"], c["tid"]))
            for c in got:
                c["ts_us"], c["blocked_us"] = str(c["ts_us"]), str(c["blocked_us"])
            ref = want[pid]["sync_calls"]
            for c in ref:
                c["ts_us"] = str(c["ts_us"])
            check(len(got) == len(ref), f"{path}#{pid}: {len(got)} sync calls, reference {len(ref)}")
            for g, w in zip(got, ref):
                check(g == w, f"{path}#{pid}: sync call {g}, reference {w}")
            print(f"{os.path.basename(path)}#{pid}: {want[pid]['devices']}, "
                  f"{len(ref)} blocking calls ({sum(c['pageable_copy'] for c in ref)} pageable copies)")
    # One process alone: every figure of the reference, on the process written
    # as the Chrome trace Kineto would have written.
    for path in (before, after):
        for pid in sorted(nsys_reference.analyse(path)):
            chrome = os.path.join(tmp, f"{pid}.json")
            nsys_reference.to_chrome(path, pid, chrome)
            want = reference_stats.analyse(chrome, 100000, [])
            doc = analyze(cli, [f"{path}#{pid}"], tmp)
            if doc is None:
                continue
            check(doc["categories"] == want["categories"],
                  f"{path}#{pid}: categories {doc['categories']}, reference {want['categories']}")
            for sec in SECTIONS:
                got = doc[sec]
                check(len(got) == len(want[sec]), f"{path}#{pid}: {sec}: {len(got)} rows, reference {len(want[sec])}")
                for i, (g, w) in enumerate(zip(got, want[sec])):
                    for k, v in w.items():
                        gv = g.get(k)
                        if k.endswith("_us"):
                            same = str(gv) == v
                        elif k == "limited_by":  # the reference gives the kind; the sentence is the engine's
                            same = isinstance(gv, dict) and gv.get("kind") == v.get("kind") and bool(gv.get("text"))
                        else:
                            same = gv == v
                        check(same, f"{path}#{pid}: {sec}[{i}].{k} = {gv}, reference {v}")
            print(f"{os.path.basename(path)}#{pid}: {len(want['sync_gaps'])} sync gaps, "
                  f"{len(want['sync_sources'])} sources, {len(want['steps'])} steps as the reference")
    # summarize: one process at a time; analyze on the summaries is analyze on
    # the export, byte for byte.
    one_sentence(cli, "summarize of two ranks", ["summarize", before, "-o", os.path.join(tmp, "x.sum")],
                 run(cli, ["analyze", os.path.join(tmp, "does-not-exist.json")]).returncode,
                 "holds 2 ranks (GPU processes): summarize one at a time")
    sums = []
    for pid in sorted(nsys_reference.analyse(before)):
        sums.append(os.path.join(tmp, f"{pid}.sum"))
        p = run(cli, ["summarize", f"{before}#{pid}", "-o", sums[-1]])
        check(p.returncode == 0, f"summarize #{pid}: {p.stderr.strip()}")
    texts = []
    for files in (sums, [before]):
        out = os.path.join(tmp, "same.json")
        p = run(cli, ["analyze", *files, "--json", out])
        check(p.returncode == 0, f"analyze {files}: {p.stderr.strip()}")
        with open(out) as f:
            texts.append(f.read())
    check(texts[0] == texts[1], "analyze on the summaries differs from analyze on the export")
    # report: the ranks of the export, and --compare on the pair.
    md = os.path.join(tmp, "report.md")
    p = run(cli, ["report", after, "--compare", before, after, "--md", md])
    check(p.returncode == 0, f"report exited {p.returncode}: {p.stderr.strip()}")
    if p.returncode == 0:
        with open(md) as f:
            text = f.read()
        check("2 trace(s): mfu\\_2gpu\\_after.sqlite\\#" in text, f"report headline: {text[:300]!r}")
    # Compare: the pair diffs.
    out = os.path.join(tmp, "diff.json")
    p = run(cli, ["diff", before, after, "--json", out])
    check(p.returncode == 0, f"diff exited {p.returncode}: {p.stderr.strip()}")


def main(cli, data, shared):
    with tempfile.TemporaryDirectory() as tmp:
        hand_made(cli, tmp)
        nsys = os.path.join(shared, "traces", "nsys")
        before = os.path.join(nsys, "mfu_2gpu_before.sqlite")
        after = os.path.join(nsys, "mfu_2gpu_after.sqlite")
        have = os.path.isfile(before) and os.path.isfile(after)
        if not have:
            if os.environ.get("CI"):
                check(False, f"shared Nsight Systems exports missing under CI: {nsys}")
            else:
                print("shared exports absent: their part skipped")
        bad_input(cli, data, tmp, before if have else None)
        if have:
            shared_exports(cli, tmp, before, after)
        reports(cli, tmp, before if have else os.path.join(tmp, "hand.sqlite"))
        leftovers = [n for n in os.listdir(tempfile.gettempdir()) if n.startswith("syncscope-nsys-")]
        check(not leftovers, f"temporary exports left behind: {leftovers}")
    if failures:
        print("\n".join("FAIL: " + f for f in failures))
        return 1
    print("cli nsys: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3]))
