#!/usr/bin/env python3
"""Host time of one compiled convnet inference step (tools/bench_net.py's net, T = 8, B = 64, default mode), fused
and not, alternated in ONE process, and the cumulative profile of the FlexSN ops' host path in each:
``host_split.py``."""

from __future__ import annotations

import cProfile
import io
import pstats
import statistics
import sys
import time
from pathlib import Path

import torch
import torch._dynamo.utils

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import bench_net  # noqa: E402

import flexsn_hop  # noqa: E402

dev = torch.device("cuda")
make = bench_net.makers()
steps = {}
torch._dynamo.reset()
for impl, fuse in (("flexsn_compile", True), ("flexsn_compile_nofuse", False)):
    # no torch._dynamo.reset() between the two (bench_net.setup's): it would drop the first graph, which compiles
    # again at its next call under the second one's setting
    flexsn_hop.enable_neighbour_fusion(fuse)
    torch.manual_seed(0)
    net = bench_net.Net(make["triton"]).to(dev)
    fwd = torch.compile(net)
    x = torch.randn(8, 64, 3, 32, 32, device=dev)
    steps[impl] = bench_net.make_step(net, fwd, x, torch.randint(0, 10, (64,), device=dev), "infer")
    for _ in range(5):
        steps[impl]()
print("scans fused:", dict(torch._dynamo.utils.counters["flexsn"]))
torch.cuda.synchronize()
host: dict[str, list[float]] = {k: [] for k in steps}
for _ in range(41):
    for impl, step in steps.items():
        t0 = time.perf_counter()
        step()
        host[impl].append((time.perf_counter() - t0) * 1e6)
        torch.cuda.synchronize()
for impl in steps:
    print(f"{impl} host_us_median {statistics.median(host[impl]):.0f}")
for impl, step in steps.items():
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(20):
        step()
    pr.disable()
    torch.cuda.synchronize()
    out = io.StringIO()
    pstats.Stats(pr, stream=out).sort_stats("cumulative").print_stats("flexsn|torchinductor|_ops.py", 30)
    print(f"===== {impl}")
    print("\n".join(line[:190] for line in out.getvalue().splitlines() if "(" in line)[:6000])
