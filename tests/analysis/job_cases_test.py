#!/usr/bin/env python3
"""The job analysis of `syncscope-cli analyze --json` on hand-made jobs
(tests/data/job_*_rank*.json), against figures worked out by hand below, and the
independent reference (reference_job.py) against the same figures.

Every file: one host thread (pid 100 + rank), kernels on device = rank, a compute
stream 7 and a communication stream 13, one ProfilerStep#1 window [0, 200).
Times below are us after the rank's clock base B (B = 1700000000000000, plus the
rank's clock offset). The activity rule moves an activity to
max(its launch end or start - head start, its predecessor's new end); no file
has stream waits (no activity starts 20 us after its launch call).

Usage: job_cases_test.py CLI DATA_DIR
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_job as rj  # noqa: E402

AR = "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
    return cond


def rank(r, file, device, offset, local, job, last, wait):
    o = None if offset is None else offset
    return {"rank": r, "file": file, "device": device, "clock_offset_us": o, "clock_offset_p5_us": o,
            "clock_offset_p95_us": o, "local_avoidable_us": local, "job_avoidable_us": job,
            "last_arrivals": last, "wait_us": wait}


def step(r, avoidable, lateness, wait):
    return {"rank": r, "step": "ProfilerStep#1", "dur_us": "200.000", "avoidable_us": avoidable,
            "lateness_us": lateness, "wait_us": wait}


CASES = {
    # A rank that is never last.
    #  rank 0: launch k1 [0,5) -> k1 [5,55); aten::item > cudaDeviceSynchronize [5,60)
    #          (waits for k1, returns 5 later); launch [60,65) -> all-reduce [65,200).
    #  rank 1: launch k1 [100,105) -> k1 [105,145); launch [150,155) -> all-reduce [155,200).
    #  dur 135 and 45: d = 45, w = (90, 0); rank 1 is last, lateness 90.
    #  Without rank 0's sync: head start 55, its all-reduce may start at 65 - 55 = 10
    #  (delta_0 = -55), but Delta = max(-55 - 90, 0 - 0) = 0: the job ends at 200 as
    #  measured, so rank 0 saves the job 0 although alone its GPU would end at
    #  10 + 135 = 145, 55 earlier (local). Rank 1 has no blocking call: 0; job 0.
    #  span: first activity 5 (rank 0's k1) to 200 = 195. No source on rank 1: cause null.
    "never_last": {
        "files": ["job_never_last_rank0.json", "job_never_last_rank1.json"],
        "job": {"ranks": 2, "collectives": 1, "unmatched_collectives": 0, "span_us": "195.000",
                "avoidable_us": "0.000"},
        "ranks": [rank(0, 0, 0, "0.000", "55.000", "0.000", 0, "90.000"),
                  rank(1, 1, 1, "0.000", "0.000", "0.000", 1, "0.000")],
        "collective_blame": [{"group": "stream 13", "seq": 0, "name": AR, "last_rank": 1,
                              "lateness_us": "90.000", "cause": None}],
        "rank_steps": [step(0, "0.000", "0.000", "90.000"), step(1, "0.000", "90.000", "0.000")],
    },
    # A straggler caused by one sync; clocks: rank 1 runs 1 s ahead, rank 2 1 s behind.
    #  Each all-reduce launch sits in record_param_comms with Process Group Name "0".
    #  rank 0: launch k1 [0,5) -> k1 [5,45); launch [50,55) -> all-reduce [55,165).
    #  rank 1: launch k1 [0,5) -> k1 [5,45); launch [60,65) -> all-reduce [65,165).
    #  rank 2: launch k1 [0,5) -> k1 [5,15); aten::nonzero > cudaDeviceSynchronize [10,130)
    #          (returned 115 after k1); launch [140,145) -> all-reduce [145,165);
    #          aten::item > cudaDeviceSynchronize [150,170) (waits for the all-reduce).
    #  Offsets from the all-reduce ends: 0, +1000000, -1000000 us (one collective:
    #  median = p5 = p95). dur 110, 100, 20: d = 20, w = (90, 80, 0); rank 2 is last,
    #  lateness = second smallest w = 80.
    #  Without rank 2's calls: head start 120 at its all-reduce, which may start at
    #  145 - 120 = 25 (delta_2 = -120); Delta = max(0 - 90, 0 - 80, -120 - 0) = -80:
    #  the all-reduce ends at 85 on every rank, the job ends at 85 (k1s end by 45):
    #  the job saves 165 - 85 = 80 (ranks 0 and 1 arrive only 80 earlier). Alone,
    #  rank 2's GPU would end at 25 + 20 = 45: local 120. The sync after the
    #  all-reduce alone moves nothing: the cause is aten::nonzero's, saving 80.
    #  span: 5 to 165 = 160 on the aligned clock.
    "straggler": {
        "files": ["job_straggler_rank0.json", "job_straggler_rank1.json", "job_straggler_rank2.json"],
        "job": {"ranks": 3, "collectives": 1, "unmatched_collectives": 0, "span_us": "160.000",
                "avoidable_us": "80.000"},
        "ranks": [rank(0, 0, 0, "0.000", "0.000", "0.000", 0, "90.000"),
                  rank(1, 1, 1, "1000000.000", "0.000", "0.000", 0, "80.000"),
                  rank(2, 2, 2, "-1000000.000", "120.000", "80.000", 1, "0.000")],
        "collective_blame": [{"group": "0", "seq": 0, "name": AR, "last_rank": 2, "lateness_us": "80.000",
                              "cause": {"sync": "cudaDeviceSynchronize", "op": "aten::nonzero",
                                        "user_frame": None, "saves_us": "80.000"}}],
        "rank_steps": [step(0, "0.000", "0.000", "90.000"), step(1, "0.000", "0.000", "80.000"),
                       step(2, "80.000", "80.000", "0.000")],
    },
    # A collective missing on one rank.
    #  rank 0: launch [0,5) -> all-reduce [5,50); aten::item > cudaDeviceSynchronize
    #          [10,55); launch [60,65) -> all-reduce [65,80) (seq 1: not on rank 1).
    #  rank 1: launch [20,25) -> all-reduce [25,50).
    #  (stream 13, 0) is matched: dur 45 and 25, d = 25, w = (20, 0), rank 1 last,
    #  lateness 20; (stream 13, 1) is unmatched and replays as an ordinary kernel.
    #  Without rank 0's sync: head start 45; seq 0 does not move (launched before);
    #  seq 1 may start at 65 - 45 = 20 but not before its predecessor's end, 50:
    #  [50,65). The job ended at 80 (rank 0), now 65: 15, for the job and alone.
    #  span: 5 to 80 = 75.
    "missing": {
        "files": ["job_missing_rank0.json", "job_missing_rank1.json"],
        "job": {"ranks": 2, "collectives": 1, "unmatched_collectives": 1, "span_us": "75.000",
                "avoidable_us": "15.000"},
        "ranks": [rank(0, 0, 0, "0.000", "15.000", "15.000", 0, "20.000"),
                  rank(1, 1, 1, "0.000", "0.000", "0.000", 1, "0.000")],
        "collective_blame": [{"group": "stream 13", "seq": 0, "name": AR, "last_rank": 1,
                              "lateness_us": "20.000", "cause": None}],
        "rank_steps": [step(0, "15.000", "0.000", "20.000"), step(1, "0.000", "20.000", "0.000")],
    },
}
KEYS = ("job", "ranks", "collective_blame", "rank_steps")


def compare(tag, want, got):
    for key in KEYS:
        w, g = want[key], got.get(key)
        if isinstance(w, dict):
            w, g = [w], [g]
        if not check(isinstance(g, list) and len(g) == len(w), f"{tag}: {key}: {g!r}, want {w!r}"):
            continue
        for i, (a, b) in enumerate(zip(w, g)):
            for k, v in a.items():
                gv = b.get(k, "<missing>") if isinstance(b, dict) else "<missing>"
                if isinstance(v, dict) and isinstance(gv, dict):
                    gv = {kk: (str(x) if kk.endswith("_us") else x) for kk, x in gv.items()}
                elif k.endswith("_us") and gv is not None:
                    gv = str(gv)
                check(gv == v, f"{tag}: {key}[{i}].{k} = {gv}, worked by hand {v}")


def main(cli, data):
    for name, case in CASES.items():
        # Given out of rank order: both order the files by distributedInfo.rank.
        paths = [os.path.join(data, f) for f in reversed(case["files"])]
        compare(f"reference, {name}", case, rj.analyse_job(paths))
        p = subprocess.run([cli, "analyze", *paths, "--json", "-"], capture_output=True, text=True, timeout=120)
        if check(p.returncode == 0, f"cli, {name}: exit {p.returncode}: {p.stderr.strip()}"):
            compare(f"cli, {name}", case, json.loads(p.stdout, parse_float=str))

    # Two files with one rank: an error, one sentence, for both.
    paths = [os.path.join(data, f) for f in ("job_never_last_rank0.json", "job_never_last_rank1.json",
                                             "job_duplicate_rank1.json")]
    try:
        rj.analyse_job(paths)
        check(False, "reference: duplicated rank 1 accepted")
    except rj.JobError as e:
        check("rank 1" in str(e), f"reference: duplicated rank: {e}")
    p = subprocess.run([cli, "analyze", *paths, "--json", "-"], capture_output=True, text=True, timeout=120)
    lines = [line for line in p.stderr.splitlines() if line and not line.startswith("[")]
    check(p.returncode != 0 and len(lines) == 1 and "rank" in lines[0] and p.stdout == "",
          f"cli, duplicated rank 1: exit {p.returncode}, stdout {p.stdout[:80]!r}, stderr {p.stderr!r}")

    if failures:
        print("\n".join("FAIL: " + f for f in failures))
        print(f"{len(failures)} failure(s)")
        return 1
    print("job cases: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
