#!/usr/bin/env python3
"""scripts/slurm-analyze on a real Slurm cluster of one node, started here.

munged, slurmctld and slurmd (Debian 12: munge, slurm-wlm) run as root from a
temporary folder: their own munge key and socket, their own ports, state,
spool, pid and log files. Nothing of the machine's munge or Slurm is used or
touched; the Slurm commands find the cluster by SLURM_CONF. Once the node is
idle (bounded wait):
1. scripts/slurm-analyze submits the 8 ranks of param_dlrm_8ranks with the real
   sbatch: the array and the merge complete, and analysis.txt and
   analysis.json equal plain analyze, byte for byte.
2. The same with rank file 3 damaged: that task fails and its log ends with
   one sentence naming it; the merge is cancelled without running, and no
   report is written.
Every wait is bounded. Every process started here is stopped by its pid,
whatever happened: the daemons, and any job process left behind (found by the
environment variable they all inherit).
Skips (77) where the cluster cannot start (not root, no Slurm, a container
without the rights), in one line; fails instead when CI is set.
Usage: slurm_cluster_test.py SYNCSCOPE_CLI SCRIPT SHARED_DIR
"""
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

MARK = "SYNCSCOPE_SLURM_TEST_CLUSTER"  # in the environment of every process this test starts
DONE = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE",
        "PREEMPTED"}
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


class CannotStart(Exception):
    pass


def free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def last_line(path):
    try:
        with open(path, errors="replace") as f:
            lines = [l.strip() for l in f if l.strip()]
        return lines[-1] if lines else "(no output)"
    except OSError:
        return "(no output)"


class Cluster:
    """One node: munged, slurmctld and slurmd in the foreground, all under tmp."""

    def __init__(self, tmp, tools):
        self.tmp, self.tools = tmp, tools
        self.procs = []  # (name, Popen, output file)
        self.host = socket.gethostname().split(".")[0]
        self.conf = os.path.join(tmp, "slurm.conf")
        self.env = dict(os.environ, SLURM_CONF=self.conf, **{MARK: tmp})

    def start_daemon(self, name, args):
        out = os.path.join(self.tmp, "log", name + ".out")
        with open(out, "wb") as f:
            p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=f, stderr=subprocess.STDOUT, env=self.env,
                                 start_new_session=True)
        self.procs.append((name, p, out))
        return p

    def dead(self):
        for name, p, out in self.procs:
            if p.poll() is not None:
                return f"{name} exited with {p.returncode}: {last_line(out)}"
        return None

    def start(self):
        t, host = self.tmp, self.host
        for d in ("munge", "state", "spool", "log"):
            os.makedirs(os.path.join(t, d))
        for d in (t, os.path.join(t, "munge")):
            os.chmod(d, 0o755)  # munged wants its socket's folders searchable
        key = os.path.join(t, "munge", "munge.key")
        k = subprocess.run([self.tools["mungekey"], "--create", f"--keyfile={key}"], capture_output=True, text=True,
                           timeout=30)
        if k.returncode != 0:
            raise CannotStart(f"mungekey: {k.stderr.strip()}")
        sock = os.path.join(t, "munge", "munge.socket")
        self.start_daemon("munged", [self.tools["munged"], "--force", "--foreground", f"--socket={sock}",
                                     f"--key-file={key}", f"--pid-file={t}/munge/munged.pid",
                                     f"--log-file={t}/log/munged.log", f"--seed-file={t}/munge/munged.seed"])
        deadline = time.monotonic() + 15
        while not os.path.exists(sock):
            if self.dead() or time.monotonic() > deadline:
                raise CannotStart(self.dead() or "munged made no socket in 15 s")
            time.sleep(0.1)

        ctld_port, slurmd_port = free_ports(2)
        cpus = len(os.sched_getaffinity(0))
        with open(self.conf, "w") as f:
            f.write(f"""ClusterName=syncscope
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={sock}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
SlurmdParameters=config_overrides
PropagateResourceLimits=NONE
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
StateSaveLocation={t}/state
SlurmdSpoolDir={t}/spool
SlurmctldPidFile={t}/slurmctld.pid
SlurmdPidFile={t}/slurmd.pid
SlurmctldLogFile={t}/log/slurmctld.log
SlurmdLogFile={t}/log/slurmd.log
NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} State=UNKNOWN
PartitionName=main Nodes={host} Default=YES MaxTime=INFINITE State=UP
""")
        self.start_daemon("slurmctld", [self.tools["slurmctld"], "-D", "-f", self.conf])
        self.start_daemon("slurmd", [self.tools["slurmd"], "-D", "-f", self.conf])
        started = time.monotonic()
        state = ""
        while state != "idle":
            if self.dead():
                raise CannotStart(self.dead())
            if time.monotonic() - started > 60:
                raise CannotStart(f"the node is not idle after 60 s (sinfo: {state or 'nothing'}; "
                                  f"slurmd: {last_line(os.path.join(t, 'log', 'slurmd.log'))})")
            time.sleep(0.2)
            s = self.run([self.tools["sinfo"], "-h", "-n", host, "-o", "%T"])
            state = s.stdout.strip() if s.returncode == 0 else ""
        return time.monotonic() - started

    def run(self, args, timeout=30):
        return subprocess.run(args, env=self.env, capture_output=True, text=True, timeout=timeout)

    def jobs(self, job):
        """{task or job id: (state, reason)} of a job or array, from scontrol."""
        s = self.run([self.tools["scontrol"], "-o", "show", "job", str(job)])
        out = {}
        for line in s.stdout.splitlines():
            f = dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
            key = f.get("ArrayTaskId", f.get("JobId"))
            out[key] = (f.get("JobState", "?"), f.get("Reason", "?"))
        return out

    def wait_done(self, jobs, seconds):
        """Waits until every task of jobs (an id or a list) is in a final state; False after seconds."""
        jobs = jobs if isinstance(jobs, list) else [jobs]
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            states = [self.jobs(j) for j in jobs]
            if all(s and all(st in DONE for st, _ in s.values()) for s in states):
                return True
            time.sleep(0.25)
        return False

    def stop(self):
        if any(name == "slurmctld" and p.poll() is None for name, p, _ in self.procs):
            try:
                self.run([self.tools["scancel"], f"--user={os.getuid()}"], timeout=15)
            except (subprocess.TimeoutExpired, OSError):
                pass
        for name, p, _ in reversed(self.procs):  # slurmd, slurmctld, then munged
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait(timeout=15)
        # slurmstepd and job processes outlive slurmd by design: each carries MARK.
        me = os.getpid()
        for pid in (int(d) for d in os.listdir("/proc") if d.isdigit()):
            if pid == me:
                continue
            try:
                with open(f"/proc/{pid}/environ", "rb") as f:
                    if f"{MARK}={self.tmp}".encode() in f.read().split(b"\0"):
                        os.kill(pid, signal.SIGKILL)
            except (OSError, ProcessLookupError):
                pass


def submit(cluster, cli, script, out, files, extra=()):
    p = cluster.run([script, "--cli", cli, *extra, out, *files], timeout=60)
    m = re.search(r"summarize array (\d+) \(\d+ task\(s\)\), merge job (\d+)", p.stdout)
    check(p.returncode == 0 and m, f"{out}: submit: rc {p.returncode}, {p.stdout!r} {p.stderr!r}")
    return (int(m.group(1)), int(m.group(2))) if m else (None, None)


def damage(src, dst):
    """A copy of src with the colon after one "ts" key, in the middle, made a space; the offset and the
    character the loader will name."""
    with open(src, "rb") as f:
        data = f.read()
    i = data.index(b'"ts":', len(data) // 2)
    data = data[:i] + b'"ts" ' + data[i + 5:]
    with open(dst, "wb") as f:
        f.write(data)
    at = i + 4
    while data[at:at + 1] in (b" ", b"\t", b"\r", b"\n"):
        at += 1
    return at, chr(data[at])


def main(cli, script, shared):
    ranks = os.path.join(shared, "traces", "param_dlrm_8ranks")
    if not os.path.isdir(ranks):
        skip(f"shared traces missing: {ranks}")
    files = sorted(os.path.join(ranks, n) for n in os.listdir(ranks) if n.endswith(".json"))
    if len(files) != 8:
        skip(f"param_dlrm_8ranks has {len(files)} files, not 8")
    if os.geteuid() != 0:
        skip("the one-node Slurm cluster runs its daemons as root (slurmd starts jobs as their user)")
    path = os.environ.get("PATH", "") + os.pathsep + "/usr/sbin:/sbin"
    tools = {t: shutil.which(t, path=path) for t in ("mungekey", "munged", "slurmctld", "slurmd", "sbatch", "sinfo",
                                                       "scontrol", "scancel")}
    missing = [t for t, p in tools.items() if not p]
    if missing:
        skip(f"no {', '.join(missing)} (Debian 12: apt-get install slurm-wlm munge, as scripts/setup-deps does)")

    tmp = tempfile.mkdtemp(prefix="syncscope-slurm-")
    cluster = Cluster(tmp, tools)
    status = None
    try:
        try:
            took = cluster.start()
        except (CannotStart, OSError, subprocess.TimeoutExpired) as e:
            status = f"the Slurm daemons cannot start here: {e}"
        else:
            print(f"slurm: node {cluster.host} idle {took:.1f} s after the daemons started")
            want_txt = subprocess.run([cli, "analyze", *files, "--json", os.path.join(tmp, "want.json")],
                                      capture_output=True, timeout=120)
            check(want_txt.returncode == 0 and want_txt.stdout, "plain analyze failed")

            # 1. The 8 ranks: array, then merge, equal to analyze.
            t0 = time.monotonic()
            out = os.path.join(tmp, "job")
            array, merge = submit(cluster, cli, script, out, files, ["--sbatch", "--time=00:10:00"])
            if merge is not None and check(cluster.wait_done(merge, 120), f"the merge {merge} did not end in 120 s"):
                print(f"slurm: 8-task array and merge done in {time.monotonic() - t0:.1f} s")
                tasks = cluster.jobs(array)
                check(len(tasks) == 8 and all(st == "COMPLETED" for st, _ in tasks.values()),
                      f"array {array}: {tasks}")
                check(cluster.jobs(merge).get(str(merge), ("?",))[0] == "COMPLETED",
                      f"merge {merge}: {cluster.jobs(merge)}")
                with open(os.path.join(out, "analysis.txt"), "rb") as f:
                    check(f.read() == want_txt.stdout, "analysis.txt differs from plain analyze")
                with open(os.path.join(out, "analysis.json"), "rb") as f, \
                        open(os.path.join(tmp, "want.json"), "rb") as g:
                    check(f.read() == g.read(), "analysis.json differs from plain analyze")

            # 2. Rank file 3 damaged: its task fails with one sentence, the merge never runs.
            bad = os.path.join(tmp, "worker3-damaged.json")
            at, found = damage(files[3], bad)
            out = os.path.join(tmp, "damaged")
            t0 = time.monotonic()
            array, merge = submit(cluster, cli, script, out, files[:3] + [bad] + files[4:])
            if merge is not None and check(cluster.wait_done([merge, array], 120),
                                           "the damaged job's array and merge did not end in 120 s"):
                tasks = cluster.jobs(array)
                check(tasks.get("3", ("?",))[0] == "FAILED", f"task 3 did not fail: {tasks}")
                check(all(st == "COMPLETED" for t, (st, _) in tasks.items() if t != "3"), f"other tasks: {tasks}")
                state, reason = cluster.jobs(merge).get(str(merge), ("?", "?"))
                check(state == "CANCELLED" and reason == "DependencyNeverSatisfied",
                      f"merge {merge}: {state} ({reason}), not cancelled for its dependency")
                logs = os.listdir(os.path.join(out, "logs"))
                check(not any(l.startswith("merge-") for l in logs), f"the merge ran: {logs}")
                check(not os.path.exists(os.path.join(out, "analysis.txt"))
                      and not os.path.exists(os.path.join(out, "analysis.json")), "a report was written")
                with open(os.path.join(out, "logs", f"summarize-{array}_3.log"), errors="replace") as f:
                    lines = f.read().splitlines()
                want = (f"slurm-analyze: rank file 3 did not summarize, so the merge will not run: "
                        f"{bad}: not valid JSON at byte {at}: expected ':' after a key (found '{found}').")
                others = [l for l in lines if not l.startswith("[")]
                if check(others == [want] and lines[-1] == want,
                         f"task 3's log: {lines!r}, wanted it to end with its one sentence {want!r}"):
                    print(f"slurm: rank file 3 damaged: task 3 {tasks['3'][0]}, merge {state} ({reason}) "
                          f"after {time.monotonic() - t0:.1f} s; the task's log ends: {want}")
    finally:
        cluster.stop()
        if failures or (status and os.environ.get("CI")):
            for name in ("slurmctld.log", "slurmd.log", "munged.out"):
                p = os.path.join(tmp, "log", name)
                if os.path.exists(p):
                    with open(p, errors="replace") as f:
                        print(f"--- {name} (last lines)\n" + "".join(f.readlines()[-15:]), end="")
        shutil.rmtree(tmp, ignore_errors=True)
    if status:
        skip(status)
    if failures:
        print("\n".join("FAIL: " + f for f in failures))
        return 1
    print("slurm-analyze on a one-node Slurm cluster: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
