#!/usr/bin/env python3
"""article-static (C++) against the article's published opt_sample_data (Python).

Runs `syncscope-cli sample --variant article-static` on generated inputs and
the published Python code on the same inputs with the same seed (both draw
their keys from a fresh CPU generator seeded with it), and checks that the
indices, labels and feature column 0 agree exactly. Exit 77 (skipped) where
this Python has no torch.
  python3 tests/bench/check_article_static.py --cli build/deb/app/syncscope-cli
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

try:
    import torch
except ImportError:
    print("skipped: this Python has no torch")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_sampler as ref  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    args = ap.parse_args()
    cases = [(1, 200, 20, 4, 0.5, 5), (1, 1000, 101, 3, 0.1, 7), (3, 500, 50, 2, 0.3, 11), (2, 64, 64, 1, 0.5, 3)]
    failures = 0
    for b, n, k, d, p, seed in cases:
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "s.json")
            subprocess.run([args.cli, "sample", "--variant", "article-static", "--n", str(n), "--k", str(k),
                            "--batch", str(b), "--dim", str(d), "--pos-frac", str(p), "--seed", str(seed),
                            "--json", out], check=True, stdout=subprocess.DEVNULL)
            with open(out) as fh:
                j = json.load(fh)
        labels = torch.tensor(j["input"]["labels"], dtype=torch.int64)
        features = torch.tensor(j["input"]["features"], dtype=torch.float32)
        torch.manual_seed(seed)
        if b == 1:
            f_out, l_out = ref.article_static_sample(features[0], labels[0], k)
            f_out, l_out = f_out.unsqueeze(0), l_out.unsqueeze(0)
        else:
            f_out, l_out = ref.article_static_sample(features, labels, k)
        got_idx = torch.tensor(j["output"]["indices"], dtype=torch.int64)
        got_lab = torch.tensor(j["output"]["labels"], dtype=torch.int64)
        got_f = torch.tensor(j["output"]["features"], dtype=torch.float32)
        ok = (got_f.shape == f_out.shape and torch.equal(got_f, f_out) and torch.equal(got_lab, l_out)
              and torch.equal(torch.gather(labels, 1, got_idx), got_lab))
        print(f"B={b} N={n} K={k} D={d} p={p} seed={seed}: {'same' if ok else 'DIFFERENT'}")
        failures += 0 if ok else 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
