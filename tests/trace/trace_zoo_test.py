#!/usr/bin/env python3
"""The trace zoo: `syncscope-cli analyze --json` on every real trace in
SHARED_DIR/traces. The 8-rank DLRM job and the 2-rank HTA set run as one job
each, every other file alone. Each file must load with no warning of a kind not
expected for it, name the runtime it was recorded with, and place all its GPU
events on a device; a file the table below does not know fails, so a new trace
in the zoo gets its row (and its line in docs/trace-support.md's table).
Under env CI a missing shared folder fails; elsewhere the test skips.
Usage: trace_zoo_test.py CLI SHARED_DIR"""
import json
import os
import subprocess
import sys
import tempfile

# file (relative to traces/) -> (runtime, blocking calls, warning kinds expected); the
# blocking calls count pageable copies both ways (CUDA syncs the stream before a
# pageable host-to-device copy)
EXPECTED = {
    "hta_cuda_event_sync.json.gz": ("cuda", 4, set()),
    "hta_alexnet_cuda_sync.json.gz": ("cuda", 37, set()),
    "hta_nccl_data.json.gz": ("cuda", 25, set()),
    "hta_16rank_job_rank0.json.gz": ("cuda", 151, set()),
    "hta_trace_filter_2ranks/sampled_rank-0.json.gz": ("cuda", 24, set()),
    "hta_trace_filter_2ranks/sampled_rank-1.json.gz": ("cuda", 24, set()),
    "kineto_resnet50_worker0.1623143089861.pt.trace.json.gz": ("cuda", 25, set()),
    "tracelens_mi300_resnet_act_checkpoint.json.gz": ("hip", 1, set()),
    "tracelens_vllm_hip_graph_execution.json.gz": ("hip", 1, set()),
}
# Graph replays: (launch call, launches, GPU activities sharing their correlations),
# counted with plain json + gzip; top_ops must give all of them to the launch call.
GRAPHS = {
    "tracelens_vllm_hip_graph_execution.json.gz": ("hipGraphLaunch", 25, 361),
    "hta_16rank_job_rank0.json.gz": ("cudaGraphLaunch", 70, 345),
}
JOBS = ["param_dlrm_8ranks", "hta_trace_filter_2ranks"]  # folders analysed as one job
for r in range(8):
    EXPECTED[f"param_dlrm_8ranks/worker{r}"] = ("cuda", 21, set())

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def expected(rel):
    if rel in EXPECTED:
        return EXPECTED[rel]
    for k, v in EXPECTED.items():  # DLRM: worker<r>_step_12.<ts>.pt.trace.json
        if rel.startswith(k + "_"):
            return v
    return None


def analyze(cli, paths):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "zoo.json")
        p = subprocess.run([cli, "analyze", *paths, "--json", out, "--top", "1000000",
                            "--cat", "cuda_runtime"],
                           capture_output=True, text=True, timeout=600)
        check(p.returncode == 0, f"analyze {paths}: exit {p.returncode}: {p.stderr.strip()}")
        if p.returncode != 0:
            return None
        with open(out) as f:
            return json.load(f)


def main(cli, shared):
    traces = os.path.join(shared, "traces")
    if not os.path.isdir(traces):
        if os.environ.get("CI"):
            print(f"FAIL: shared traces missing under CI: {traces}")
            return 1
        print(f"shared traces absent ({traces}): skipped")
        return 0
    runs = []
    for name in sorted(os.listdir(traces)):
        path = os.path.join(traces, name)
        if name in JOBS and os.path.isdir(path):
            runs.append(sorted(os.path.join(path, n) for n in os.listdir(path) if ".json" in n))
        elif ".json" in name:
            runs.append([path])
    seen = set()
    for paths in runs:
        doc = analyze(cli, paths)
        if doc is None:
            continue
        check(len(doc["files"]) == len(paths), f"{paths}: {len(doc['files'])} files in the report")
        calls = {}
        for c in doc["sync_calls"]:
            calls[c["file"]] = calls.get(c["file"], 0) + 1
        for i, f in enumerate(doc["files"]):
            rel = os.path.relpath(f["path"], traces)
            seen.add(rel)
            want = expected(rel)
            if want is None:
                check(False, f"{rel}: not in the zoo's table (add its runtime and its row in docs/trace-support.md)")
                continue
            runtime, blocking, kinds = want
            print(f"{rel}: runtime {f['runtime']}, {f['events']} events, {f['warnings']} warning(s), "
                  f"{calls.get(i, 0)} blocking call(s)")
            check(f["runtime"] == runtime, f"{rel}: runtime {f['runtime']}, expected {runtime}")
            unexpected = [k for k in f["warning_kinds"] if k["kind"] not in kinds]
            check(not unexpected, f"{rel}: unexpected load warnings {unexpected}")
            check(f["unplaced_gpu_events"] == 0, f"{rel}: {f['unplaced_gpu_events']} GPU events on no device")
            if blocking is not None:
                check(calls.get(i, 0) == blocking, f"{rel}: {calls.get(i, 0)} blocking calls, expected {blocking}")
            if rel in GRAPHS and len(doc["files"]) == 1:
                launch, launches, acts = GRAPHS[rel]
                row = [o for o in doc["top_ops"] if o["name"] == launch and o["cat"] == "cuda_runtime"]
                check(len(row) == 1 and (row[0]["count"], row[0]["gpu_count"]) == (launches, acts),
                      f"{rel}: {launch} row {row}, expected {launches} launches of {acts} activities")
        devices = {d["file"] for d in doc["devices"]}
        check(devices == set(range(len(doc["files"]))), f"{paths}: files without GPU activity {devices}")
    for k in EXPECTED:
        if not any(s == k or s.startswith(k + "_") for s in seen):
            check(False, f"{k}: in the table but not in the zoo")
    if failures:
        print("\n".join("FAIL: " + f for f in failures))
        return 1
    print(f"trace zoo: {len(seen)} files in {len(runs)} runs, all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
