#!/usr/bin/env python3
"""The CUDA kernels one compiled convnet inference step launches at a second batch size (tools/bench_net.py's net,
T = 8, one step at B = 64, then B = 48), counted by name with their GPU time: ``kernels_per_step.py IMPL``."""

from __future__ import annotations

import collections
import sys
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import bench_net  # noqa: E402

impl = sys.argv[1]
dev = torch.device("cuda")
net, fwd = bench_net.setup(impl, bench_net.makers(), dev)
for B in (64, 48):
    x = torch.randn(8, B, 3, 32, 32, device=dev)
    step = bench_net.make_step(net, fwd, x, torch.randint(0, 10, (B,), device=dev), "infer")
    step()
for _ in range(3):
    step()
torch.cuda.synchronize()
with profile(activities=[ProfilerActivity.CUDA]) as prof:
    step()
    torch.cuda.synchronize()
kernels = [(e.name, e.device_time_total) for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
count: collections.Counter[str] = collections.Counter()
time_us: collections.Counter[str] = collections.Counter()
for name, t in kernels:
    count[name[:70]] += 1
    time_us[name[:70]] += t
print(f"kernels {len(kernels)} total_us {sum(t for _, t in kernels):.0f}")
for name, n in count.most_common(25):
    print(f"{n:5d} {time_us[name]:9.1f} {name}")
