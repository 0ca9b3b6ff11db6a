#!/usr/bin/env python3
"""C++ syncscope variants vs the Python reference, side by side in one run.

Run it with the Python whose torch matches the C++ build:
  Debian 1.13:  /usr/bin/python3 tests/bench/compare_python.py --cli build/deb/app/syncscope-cli
  pip 2.11:     ~/.cache/syncscope/torch211/bin/python tests/bench/compare_python.py --cli build/pt211/app/syncscope-cli
It times the Python side here with time.perf_counter and the C++ side through
`syncscope-cli bench` (a steady clock around each step), with the same N, K,
D, p, thread count, warm-up and iteration counts, and prints a Markdown table of
medians (p5-p95) and ratios.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_sampler as ref  # noqa: E402


def quantile(xs, q):
    xs = sorted(xs)
    pos = q * (len(xs) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def make_inputs(b, n, d, p, seed, sets):
    out = []
    for s in range(sets):
        g = torch.Generator().manual_seed(seed + s)
        u = torch.rand((b, n), generator=g)
        labels = (u < p).long()
        feats = torch.randn((b, n, d), generator=g)
        out.append((feats, labels))
    return out


def time_python(fn, inputs, warmup, iters):
    samples = []
    for it in range(warmup + iters):
        f, l = inputs[it % len(inputs)]
        t0 = time.perf_counter()
        fn(f, l)
        dt = (time.perf_counter() - t0) * 1e3
        if it >= warmup:
            samples.append(dt)
    return {"median": statistics.median(samples), "min": min(samples), "p5": quantile(samples, 0.05),
            "p95": quantile(samples, 0.95)}


def iters_for(n, b):
    work = n * b
    if work <= 1e5:
        return 5, 50
    if work <= 1e6:
        return 3, 20
    if work <= 5e6:
        return 2, 10
    return 2, 7


def run_cli(cli, n, k, b, d, p, threads, warmup, iters):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as tmp:
        path = tmp.name
    try:
        subprocess.run([cli, "bench", "--variants", "naive,static,article-static,fused", "--n", str(n), "--k", str(k),
                        "--batch", str(b), "--dim", str(d), "--pos-frac", str(p), "--threads", str(threads),
                        "--warmup", str(warmup), "--iters", str(iters), "--json", path],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(path) as fh:
            rep = json.load(fh)
    finally:
        os.unlink(path)
    return {r["variant"]: {"median": r["median_ms"], "min": r["min_ms"], "p5": r["p5_ms"], "p95": r["p95_ms"],
                           "floor": r["floor_ms"], "gather_floor": r.get("gather_floor_ms")}
            for r in rep["results"]}, rep["torch_version"]


def fmt(t):
    return f"{t['min']:.3g} / {t['median']:.4g} ({t['p5']:.3g}–{t['p95']:.3g})"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", required=True, help="path to syncscope-cli built against this torch")
    ap.add_argument("--n", default="1e3,1e4,1e5,1e6,1e7")
    ap.add_argument("--batch-point", default="32:1e5", help="B:N row for the batched comparison ('' to skip)")
    ap.add_argument("--dim", type=int, default=16)
    ap.add_argument("--pos-frac", type=float, default=0.5)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--no-compile", action="store_true", help="skip torch.compile even where available")
    ap.add_argument("--json", help="also write the raw numbers here")
    args = ap.parse_args()

    torch.set_num_threads(args.threads)
    use_compile = hasattr(torch, "compile") and not args.no_compile
    compiled = torch.compile(ref.static_sample, dynamic=False) if use_compile else None
    points = [(1, int(float(n))) for n in args.n.split(",") if n]
    if args.batch_point:
        b, n = args.batch_point.split(":")
        points.append((int(b), int(float(n))))

    rows = []
    for b, n in points:
        k = max(1, round(n * 0.1))
        warmup, iters = iters_for(n, b)
        # as many input sets as the C++ harness rotates (up to 4 within 2 GiB),
        # so neither side's caches are flattered more than the other's
        sets = int(max(1, min(4, (2 * 1024 ** 3) // max(1, b * n * (args.dim * 4 + 8)))))
        inputs = make_inputs(b, n, args.dim, args.pos_frac, 1234, sets)
        py = {}
        if b == 1:
            py["naive"] = time_python(lambda f, l: ref.naive_sample(f[0], l[0], k), inputs, warmup, iters)
        else:
            py["naive"] = time_python(lambda f, l: ref.naive_batched(f, l, k), inputs, warmup, iters)
        py["static"] = time_python(lambda f, l: ref.static_sample(f, l, k), inputs, warmup, iters)
        if b == 1:
            py["article_static"] = time_python(lambda f, l: ref.article_static_sample(f[0], l[0], k), inputs,
                                               warmup, iters)
        else:
            py["article_static"] = time_python(lambda f, l: ref.article_static_sample(f, l, k), inputs,
                                               warmup, iters)
        if compiled is not None:
            py["static_compiled"] = time_python(lambda f, l: compiled(f, l, k), inputs, warmup + 3, iters)
        cpp, tv = run_cli(args.cli, n, k, b, args.dim, args.pos_frac, args.threads, warmup, iters)
        best_py_name = min(py, key=lambda v: py[v]["median"])
        rows.append({"b": b, "n": n, "k": k, "iters": iters, "py": py, "cpp": cpp, "best_py": best_py_name,
                     "torch": tv})
        print(f"done B={b} N={n}", file=sys.stderr, flush=True)

    print(f"torch {torch.__version__} (Python) / LibTorch {rows[0]['torch']} (C++), {args.threads} threads, "
          f"D={args.dim}, p={args.pos_frac}, K=N/10; ms per step as min / median (p5–p95)\n")
    head = "| B | N | Py naive | Py static | Py article static |" + (" Py static compiled |" if compiled else "") + \
           " C++ naive | C++ static | C++ article-static | C++ fused | floor | gather floor | fused ÷ floor |" \
           " fused ÷ gather floor | fused vs best Python | C++/Py naive | C++/Py static |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for r in rows:
        py, cpp = r["py"], r["cpp"]
        best = py[r["best_py"]]["median"]
        cells = [str(r["b"]), f"{r['n']:.0e}", fmt(py["naive"]), fmt(py["static"]), fmt(py["article_static"])]
        if compiled:
            cells.append(fmt(py["static_compiled"]))
        gf = cpp["fused"]["gather_floor"]
        cells += [fmt(cpp["naive"]), fmt(cpp["static"]), fmt(cpp["article-static"]), fmt(cpp["fused"]),
                  f"{cpp['fused']['floor']:.3g}", f"{gf:.3g}" if gf else "n/a",
                  f"{cpp['fused']['median'] / cpp['fused']['floor']:.2f}×",
                  f"{cpp['fused']['median'] / gf:.2f}×" if gf else "n/a",
                  f"{best / cpp['fused']['median']:.1f}× ({r['best_py'].replace('_', ' ')})",
                  f"{py['naive']['median'] / cpp['naive']['median']:.2f}×",
                  f"{py['static']['median'] / cpp['static']['median']:.2f}×"]
        print("| " + " | ".join(cells) + " |")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
