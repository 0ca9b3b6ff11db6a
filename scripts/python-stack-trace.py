#!/usr/bin/env python3
"""A real PyTorch profiler trace with a Python stack, for the user guide's screenshot.

Trains a small MLP for a few steps with the article's naive balanced sampler
(nonzero + randperm) under torch.profiler with with_stack=True, and writes the
Chrome trace: ProfilerStep#N annotations, cpu_op events and python_function
frames (and the GPU tracks too when CUDA is available).
Usage: python3 scripts/python-stack-trace.py OUT.json   (needs torch >= 2.0)
"""
import sys

import torch
import torch.nn as nn
from torch.profiler import ProfilerActivity, profile, schedule


def balanced_naive(labels, k):
    pos = torch.nonzero(labels == 1).squeeze(1)
    neg = torch.nonzero(labels == 0).squeeze(1)
    pos = pos[torch.randperm(pos.numel(), device=labels.device)[: k // 2]]
    neg = neg[torch.randperm(neg.numel(), device=labels.device)[: k - pos.numel()]]
    return torch.cat([pos, neg])


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                          nn.Linear(512, 10)).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(20000, 256, device=device)
    labels = (torch.rand(20000, device=device) < 0.1).long()

    def step():
        idx = balanced_naive(labels, 256)
        loss = nn.functional.cross_entropy(model(x[idx]), labels[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.item()

    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
    with profile(activities=activities, with_stack=True, record_shapes=True,
                 schedule=schedule(wait=1, warmup=1, active=4)) as prof:
        for _ in range(6):
            step()
            prof.step()
    prof.export_chrome_trace(sys.argv[1])


if __name__ == "__main__":
    main()
