#!/usr/bin/python3
"""scripts/dask-analyze on a LocalCluster, and on a scheduler given by address
and by scheduler file: the report equals plain analyze on the traces, byte for
byte, for the 8 ranks of ../shared/traces/param_dlrm_8ranks. Errors are one
sentence. Run by a Python that has dask and distributed (Debian's python3).
Skips (77) without dask or the shared traces, fails under CI instead.
Usage: dask_analyze_test.py SYNCSCOPE_CLI SCRIPT SHARED_DIR
"""
import os
import shutil
import subprocess
import sys
import tempfile

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def skip(why):
    if os.environ.get("CI"):
        print(f"FAIL under CI: {why}")
        sys.exit(1)
    print(f"skipped: {why}")
    sys.exit(77)


def main(cli, script, shared):
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        skip(f"{sys.executable} has no dask.distributed (apt-get install python3-dask python3-distributed)")
    ranks = os.path.join(shared, "traces", "param_dlrm_8ranks")
    if not os.path.isdir(ranks):
        skip(f"shared traces missing: {ranks}")
    files = sorted(os.path.join(ranks, n) for n in os.listdir(ranks) if n.endswith(".json"))
    check(len(files) == 8, f"param_dlrm_8ranks has {len(files)} files")
    tmp = tempfile.mkdtemp(prefix="syncscope-dask-test-")
    try:
        want_json = os.path.join(tmp, "want.json")
        w = subprocess.run([cli, "analyze", *files, "--top", "5", "--json", want_json], capture_output=True,
                           timeout=600)
        check(w.returncode == 0 and w.stdout, "plain analyze failed")
        with open(want_json, "rb") as f:
            want = f.read()

        def dask_run(label, extra, keep=None):
            got_json = os.path.join(tmp, label + ".json")
            args = [script, "--cli", cli, *extra, "--top", "5", "--json", got_json, *files]
            if keep:
                args[1:1] = ["--keep-summaries", keep]
            p = subprocess.run(args, capture_output=True, timeout=600)
            check(p.returncode == 0, f"{label}: rc {p.returncode}: {p.stderr.decode(errors='replace')}")
            check(p.stdout == w.stdout, f"{label}: text differs from plain analyze")
            with open(got_json, "rb") as f:
                check(f.read() == want, f"{label}: JSON differs from plain analyze")
            check(b"[8/8] summarized" in p.stderr, f"{label}: no progress on stderr")

        keep = os.path.join(tmp, "kept")
        dask_run("local", ["--workers", "2"], keep)
        check(sorted(os.listdir(keep)) == [f"rank-{i:05d}.summary" for i in range(8)], "kept summaries")

        # A running cluster, by address and by scheduler file.
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp",
                          dashboard_address=None) as cluster, \
                Client(cluster) as client:
            dask_run("address", ["--scheduler", cluster.scheduler_address])
            sched = os.path.join(tmp, "scheduler.json")
            client.write_scheduler_file(sched)
            dask_run("scheduler-file", ["--scheduler-file", sched])

        def one_sentence(label, args, needle):
            p = subprocess.run([script, "--cli", cli, *args], capture_output=True, text=True, timeout=120)
            lines = [l for l in p.stderr.splitlines() if l.startswith("dask-analyze: ") and "summarizing" not in l]
            check(p.returncode != 0 and len(lines) == 1 and needle in lines[0],
                  f"{label}: rc {p.returncode}, stderr {p.stderr!r}")

        one_sentence("bad rank file", ["--workers", "1", files[0], os.path.join(shared, "no-such.json")],
                     "no-such.json")
        bad = os.path.join(tmp, "bad.json")
        with open(bad, "w") as f:
            f.write('{"traceEvents": [{"ph": "X", "name" "x"}]}')
        one_sentence("malformed rank file", ["--workers", "1", files[0], bad], "bad.json")
        one_sentence("no scheduler", ["--scheduler", "tcp://127.0.0.1:1", "--timeout", "2", files[0]],
                     "cannot reach the Dask scheduler at tcp://127.0.0.1:1")
        one_sentence("no scheduler file", ["--scheduler-file", os.path.join(tmp, "none.json"), files[0]],
                     "none.json")
    finally:
        shutil.rmtree(tmp)
    if failures:
        print("\n".join("FAIL: " + f for f in failures))
        return 1
    print("dask-analyze: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
