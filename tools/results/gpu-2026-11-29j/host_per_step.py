#!/usr/bin/env python3
"""Host time of one compiled convnet inference step at a second batch size (tools/bench_net.py's net, T = 8, a step
at B = 64, then B = 48), and where it goes: ``host_per_step.py IMPL [B0 B1]``; B1 = B0 times the first graph."""

from __future__ import annotations

import cProfile
import io
import pstats
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import bench_net  # noqa: E402

impl = sys.argv[1]
sizes = [int(b) for b in sys.argv[2:4]] or [64, 48]
dev = torch.device("cuda")
net, fwd = bench_net.setup(impl, bench_net.makers(), dev)
for B in sizes:
    x = torch.randn(8, B, 3, 32, 32, device=dev)
    step = bench_net.make_step(net, fwd, x, torch.randint(0, 10, (B,), device=dev), "infer")
    step()
for _ in range(5):
    step()
torch.cuda.synchronize()
host = []
for _ in range(31):
    t0 = time.perf_counter()
    step()
    host.append((time.perf_counter() - t0) * 1e6)
    torch.cuda.synchronize()
print(f"{impl} B={sizes[-1]} host_us_median {statistics.median(host):.0f}")
pr = cProfile.Profile()
pr.enable()
for _ in range(20):
    step()
pr.disable()
torch.cuda.synchronize()
out = io.StringIO()
pstats.Stats(pr, stream=out).sort_stats("tottime").print_stats(18)
print("\n".join(line[:200] for line in out.getvalue().splitlines()[:40]))
