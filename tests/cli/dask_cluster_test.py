#!/usr/bin/python3
"""scripts/dask-analyze on a Dask cluster of separate processes, started here
as a user starts one: `dask scheduler --scheduler-file F` and two
`dask worker --scheduler-file F` (each a nanny and its worker process).
1. --scheduler-file F on the 8 ranks of param_dlrm_8ranks: the report equals
   plain analyze, byte for byte.
2. 64 generated ranks (tests/bench/job_gen.py), and one worker killed (its
   whole process group, SIGKILL) once 8 ranks are summarized, choosing one with
   tasks in flight: the report still equals plain analyze (the scheduler gives
   the lost tasks to the other worker), or the run ends with one sentence and
   writes no report. It must end within its time limit.
3. The same with the last worker killed: one sentence within --timeout, and
   no report.
4. The scheduler with no worker left: one sentence after --timeout.
Every process started here is stopped by its pid, whatever happened.
Run by a Python that has dask and distributed (Debian's python3). Skips (77)
without dask or the shared traces, fails under CI instead.
Usage: dask_cluster_test.py SYNCSCOPE_CLI SCRIPT SHARED_DIR
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
RANKS, KILL_AT = 64, 8
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
    return cond


def skip(why):
    if os.environ.get("CI"):
        print(f"FAIL under CI: {why}")
        sys.exit(1)
    print(f"skipped: {why}")
    sys.exit(77)


def stop(procs):
    """SIGTERM to each process group started here, then SIGKILL to what is left."""
    for _, p in procs:
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
    deadline = time.monotonic() + 15
    for _, p in procs:
        try:
            p.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
        try:  # the group's other processes (a nanny's worker, a summarize) too
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait()


def main(cli, script, shared):
    try:
        from dask.distributed import Client
    except ImportError:
        skip(f"{sys.executable} has no dask.distributed (apt-get install python3-dask python3-distributed)")
    dask = os.path.join(os.path.dirname(sys.executable), "dask")
    if not os.access(dask, os.X_OK):
        dask = shutil.which("dask")
    if not dask:
        skip("no dask command beside the Python or on PATH (Debian 12: python3-distributed)")
    ranks = os.path.join(shared, "traces", "param_dlrm_8ranks")
    if not os.path.isdir(ranks):
        skip(f"shared traces missing: {ranks}")
    files = sorted(os.path.join(ranks, n) for n in os.listdir(ranks) if n.endswith(".json"))
    check(len(files) == 8, f"param_dlrm_8ranks has {len(files)} files")

    tmp = tempfile.mkdtemp(prefix="syncscope-dask-cluster-")
    procs = []  # (name, Popen), each the leader of its own process group
    client = None

    def start(name, args):
        # A worker killed mid-task leaves that task's temporary folder: here, under tmp.
        own_tmp = os.path.join(tmp, name + ".tmp")
        os.makedirs(own_tmp)
        with open(os.path.join(tmp, name + ".log"), "wb") as log:
            p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                 start_new_session=True, cwd=tmp, env=dict(os.environ, TMPDIR=own_tmp))
        procs.append((name, p))
        return p

    def plain(label, traces):
        want_json = os.path.join(tmp, label + ".want.json")
        w = subprocess.run([cli, "analyze", *traces, "--top", "5", "--json", want_json], capture_output=True,
                           timeout=120)
        check(w.returncode == 0 and w.stdout, f"{label}: plain analyze failed")
        with open(want_json, "rb") as f:
            return w.stdout, f.read()

    try:
        sched = os.path.join(tmp, "scheduler.json")
        t0 = time.monotonic()
        start("scheduler", [dask, "scheduler", "--scheduler-file", sched, "--host", "127.0.0.1", "--port", "0",
                            "--no-dashboard"])
        for i in range(2):
            start(f"worker{i}", [dask, "worker", "--scheduler-file", sched, "--name", f"w{i}", "--nthreads", "1",
                                 "--no-dashboard", "--local-directory", os.path.join(tmp, f"w{i}"),
                                 "--death-timeout", "60"])
        deadline = time.monotonic() + 60
        while not os.path.exists(sched):
            dead = [n for n, p in procs if p.poll() is not None]
            if dead or time.monotonic() > deadline:
                raise RuntimeError(f"no scheduler file after 60 s (exited: {dead})")
            time.sleep(0.1)
        client = Client(scheduler_file=sched, timeout="30s")
        client.wait_for_workers(2, timeout=60)
        print(f"dask: scheduler and 2 workers up in {time.monotonic() - t0:.1f} s")

        def dask_run(label, traces, want, on_progress=None, limit=120, extra=()):
            got_json = os.path.join(tmp, label + ".json")
            args = [script, "--cli", cli, "--scheduler-file", sched, *extra, "--top", "5", "--json", got_json,
                    *traces]
            p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
            procs.append((label, p))
            err, out, hung = [], [], []

            def watchdog():
                hung.append(True)
                os.killpg(p.pid, signal.SIGKILL)

            timer = threading.Timer(limit, watchdog)
            timer.start()
            reader = threading.Thread(target=lambda: out.append(p.stdout.read()), daemon=True)
            reader.start()
            t = time.monotonic()
            for line in iter(p.stderr.readline, b""):
                err.append(line.decode(errors="replace"))
                if on_progress:
                    on_progress(err[-1])
            rc = p.wait()
            timer.cancel()
            if hung:
                check(False, f"{label}: still running after {limit} s, killed: {''.join(err[-5:])!r}")
                return None
            reader.join(timeout=30)
            took = time.monotonic() - t
            stdout = b"".join(out)
            if rc == 0:
                check(stdout == want[0], f"{label}: text differs from plain analyze")
                with open(got_json, "rb") as f:
                    check(f.read() == want[1], f"{label}: JSON differs from plain analyze")
                check(any(f"[{len(traces)}/{len(traces)}] summarized" in l for l in err), f"{label}: no progress")
                return ("report", took)
            said = [l.strip() for l in err
                    if l.startswith("dask-analyze: ") and not re.match(r"dask-analyze: (summarizing|merging)", l)]
            check(len(said) == 1, f"{label}: rc {rc} without one sentence: {''.join(err)!r}")
            check(not stdout and not os.path.exists(got_json), f"{label}: rc {rc} with a report written")
            return (said[0] if said else f"rc {rc}", took)

        # 1. The 8 DLRM ranks on the running cluster.
        r = dask_run("dlrm", files, plain("dlrm", files))
        check(r is not None and r[0] == "report", f"dlrm: {r}")
        if r:
            print(f"dask: 8 DLRM ranks by scheduler file: {r[0]} in {r[1]:.1f} s")

        # 2. 64 generated ranks, one worker killed in the middle.
        gen = os.path.join(tmp, "ranks")
        g = subprocess.run([sys.executable, os.path.join(HERE, "..", "bench", "job_gen.py"), gen, "--ranks",
                            str(RANKS), "--mb", "4"], capture_output=True, timeout=120)
        check(g.returncode == 0, f"job_gen.py failed: {g.stderr[-500:]!r}")
        generated = sorted(os.path.join(gen, n) for n in os.listdir(gen))
        want = plain("generated", generated)
        killed = []

        def kill_one(line):
            if len(killed) != kills or not line.startswith(f"[{KILL_AT}/{RANKS}] summarized"):
                return
            busy = {a: ks for a, ks in client.processing().items() if ks}
            workers = client.scheduler_info()["workers"]
            addr = next(iter(busy), None) or next(iter(workers))
            name = workers[addr]["name"]
            victim = dict(procs)[f"worker{name[1:]}"]
            os.killpg(victim.pid, signal.SIGKILL)
            killed.append((name, len(busy.get(addr, ()))))

        kills = 0
        r = dask_run("generated", generated, want, on_progress=kill_one)
        check(killed and killed[0][1] > 0, f"no worker killed with a task in flight: {killed}")
        if r and killed:
            print(f"dask: {RANKS} generated ranks, worker {killed[0][0]} killed with {killed[0][1]} task(s) in "
                  f"flight after {KILL_AT} ranks: {r[0]} in {r[1]:.1f} s")
            left = list(client.scheduler_info()["workers"].values())
            check(len(left) == 1 and left[0]["name"] != killed[0][0],
                  f"workers after the kill: {[w['name'] for w in left]}")

        # 3. The last worker killed the same way: one sentence within --timeout, no report.
        kills = 1
        r = dask_run("last-worker", generated, want, on_progress=kill_one, limit=60, extra=["--timeout", "5"])
        check(len(killed) == 2, "the last worker was not killed")
        said = re.escape(f"dask-analyze: the Dask scheduler of '{sched}' has had no worker for 5 s, with ")
        said += rf"\d+ of {RANKS} rank\(s\) summarized"
        check(r is not None and re.fullmatch(said, r[0]), f"last worker killed: {r}")
        if r:
            print(f"dask: the last worker killed after {KILL_AT} ranks: {r[0]!r} after {r[1]:.1f} s")

        # 4. A scheduler with no worker at all: one sentence after --timeout.
        r = dask_run("no-worker", files, None, limit=60, extra=["--timeout", "3"])
        check(r is not None and r[0] == f"dask-analyze: the Dask scheduler of '{sched}' has no worker after 3 s",
              f"no worker: {r}")
    finally:
        if client is not None:
            client.close()
        stop(procs)
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print("\n".join("FAIL: " + f for f in failures))
        return 1
    print("dask-analyze on a scheduler and two worker processes: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
