#!/usr/bin/env python3
"""scripts/slurm-analyze without a cluster.

1. A fake sbatch on PATH records its arguments and prints job ids: the script
   submits one array of N tasks (0-(N-1)) and a merge job that depends on it
   (afterok:<array id>).
2. Every task body then runs here with SLURM_ARRAY_TASK_ID set, then the merge:
   its text and JSON equal plain analyze on the traces, byte for byte.
3. A task on a damaged rank file fails with one sentence naming it.
slurm_cluster_test.py runs the same on a real single-node cluster.
Usage: slurm_analyze_test.py SYNCSCOPE_CLI SCRIPT DATA_DIR SHARED_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


FAKE_SBATCH = """#!/usr/bin/env python3
import json, os, sys
log = os.environ["FAKE_SBATCH_LOG"]
calls = json.load(open(log)) if os.path.exists(log) else []
calls.append(sys.argv[1:])
json.dump(calls, open(log, "w"))
print(f"{4100 + len(calls)};testcluster")
"""


def one_job(cli, script, tmp, traces, label, extra=()):
    out = os.path.join(tmp, label)
    log = os.path.join(tmp, label + ".sbatch.json")
    env = dict(os.environ, FAKE_SBATCH_LOG=log, PATH=os.path.join(tmp, "bin") + os.pathsep + os.environ["PATH"])
    p = subprocess.run([script, "--cli", cli, *extra, out, *traces], env=env, capture_output=True, text=True,
                       timeout=60)
    check(p.returncode == 0, f"{label}: submit: {p.stderr}")
    calls = json.load(open(log)) if os.path.exists(log) else []
    check(len(calls) == 2, f"{label}: {len(calls)} sbatch calls")
    if len(calls) != 2:
        return
    array, merge = calls
    check(f"--array=0-{len(traces) - 1}" in array, f"{label}: array arguments {array}")
    check("--dependency=afterok:4101" in merge, f"{label}: merge arguments {merge}")
    check("--kill-on-invalid-dep=yes" in merge, f"{label}: a failed task leaves the merge queued: {merge}")
    check(any(a.startswith("--wrap=") and "--task" in a for a in array), f"{label}: array runs --task")
    check(any(a.startswith("--wrap=") and "--merge" in a for a in merge), f"{label}: merge runs --merge")
    check("4101" in p.stdout and "4102" in p.stdout, f"{label}: job ids not reported: {p.stdout!r}")

    # The bodies, as Slurm would run them.
    for i in range(len(traces)):
        t = subprocess.run([script, "--task", out], env=dict(os.environ, SLURM_ARRAY_TASK_ID=str(i)),
                           capture_output=True, text=True, timeout=600)
        check(t.returncode == 0, f"{label}: task {i}: {t.stderr}")
    m = subprocess.run([script, "--merge", out], capture_output=True, text=True, timeout=600)
    check(m.returncode == 0, f"{label}: merge: {m.stderr}")
    want_json = os.path.join(tmp, label + ".want.json")
    w = subprocess.run([cli, "analyze", *traces, *extra, "--json", want_json], capture_output=True, timeout=600)
    check(w.returncode == 0, f"{label}: plain analyze failed")
    with open(os.path.join(out, "analysis.txt"), "rb") as f:
        check(f.read() == w.stdout, f"{label}: merged text differs from plain analyze")
    with open(os.path.join(out, "analysis.json"), "rb") as f, open(want_json, "rb") as g:
        check(f.read() == g.read(), f"{label}: merged JSON differs from plain analyze")

    # A task past the end, and a merge with a summary missing: one sentence each.
    t = subprocess.run([script, "--task", out], env=dict(os.environ, SLURM_ARRAY_TASK_ID=str(len(traces))),
                       capture_output=True, text=True, timeout=60)
    check(t.returncode != 0 and len(t.stderr.strip().splitlines()) == 1, f"{label}: task past the end: {t.stderr!r}")
    os.remove(os.path.join(out, "summaries", "rank-00000.summary"))
    m = subprocess.run([script, "--merge", out], capture_output=True, text=True, timeout=60)
    check(m.returncode != 0 and "missing" in m.stderr, f"{label}: merge without a summary: {m.stderr!r}")


def damaged_task(cli, script, tmp, good):
    """A task whose rank file does not load fails with one sentence naming it, and writes no summary."""
    bad = os.path.join(tmp, "damaged.json")
    with open(bad, "w") as f:
        f.write('{"traceEvents": [{"ph": "X", "name" "x"}]}')
    out = os.path.join(tmp, "damaged")
    env = dict(os.environ, FAKE_SBATCH_LOG=os.path.join(tmp, "damaged.sbatch.json"),
               PATH=os.path.join(tmp, "bin") + os.pathsep + os.environ["PATH"])
    p = subprocess.run([script, "--cli", cli, out, good, bad], env=env, capture_output=True, text=True, timeout=60)
    check(p.returncode == 0, f"damaged: submit: {p.stderr}")
    t = subprocess.run([script, "--task", out], env=dict(os.environ, SLURM_ARRAY_TASK_ID="1"),
                       capture_output=True, text=True, timeout=60)
    want = ("slurm-analyze: rank file 1 did not summarize, so the merge will not run: "
            f"{bad}: not valid JSON at byte 36: expected ':' after a key (found '\"').")
    check(t.returncode != 0 and t.stderr.splitlines()[-1:] == [want], f"damaged: task: {t.stderr!r}")
    check(not os.path.exists(os.path.join(out, "summaries", "rank-00001.summary")), "damaged: a summary was written")


def main(cli, script, data, shared):
    tmp = tempfile.mkdtemp(prefix="syncscope-slurm-")
    try:
        os.makedirs(os.path.join(tmp, "bin"))
        sbatch = os.path.join(tmp, "bin", "sbatch")
        with open(sbatch, "w") as f:
            f.write(FAKE_SBATCH.replace("#!/usr/bin/env python3", "#!" + sys.executable, 1))
        os.chmod(sbatch, 0o755)
        fixtures = [os.path.join(data, n) for n in ("sync_replay.json", "gpu_sync_gaps.json",
                                                     "kineto_exact_times.json")]
        one_job(cli, script, tmp, fixtures, "fixtures", ["--top", "3"])
        damaged_task(cli, script, tmp, fixtures[0])
        ranks = os.path.join(shared, "traces", "param_dlrm_8ranks")
        if os.path.isdir(ranks):
            files = sorted(os.path.join(ranks, n) for n in os.listdir(ranks) if n.endswith(".json"))
            one_job(cli, script, tmp, files, "param_dlrm_8ranks")
        elif os.environ.get("CI"):
            check(False, f"shared traces missing under CI: {ranks}")
        else:
            print("shared traces absent: param_dlrm_8ranks skipped")
        # No sbatch: one sentence, nothing submitted. PATH has only what the
        # script needs to start (env and bash), since /usr/bin may have Slurm's.
        nobin = os.path.join(tmp, "no-sbatch-bin")
        os.makedirs(nobin)
        for tool in ("env", "bash"):
            os.symlink(shutil.which(tool), os.path.join(nobin, tool))
        p = subprocess.run([script, "--cli", cli, os.path.join(tmp, "none"), fixtures[0]],
                           env=dict(os.environ, PATH=nobin), capture_output=True, text=True, timeout=60)
        check(p.returncode != 0 and "sbatch" in p.stderr and len(p.stderr.strip().splitlines()) == 1,
              f"no sbatch: {p.stderr!r}")
    finally:
        shutil.rmtree(tmp)
    if failures:
        print("\n".join("FAIL: " + f for f in failures))
        return 1
    print("slurm-analyze: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:5]))
