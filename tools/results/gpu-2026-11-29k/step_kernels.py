#!/usr/bin/env python3
"""The CUDA kernels one compiled convnet step launches (tools/bench_net.py's net, T = 8, B = 64), by name with their
GPU time, and the step's total: ``step_kernels.py IMPL WHATS``. Run it with ``TORCHINDUCTOR_KEEP_OUTPUT_STRIDE=0`` and
``=1`` to see what Inductor's copies of graph outputs to their traced strides cost (``keep_output_stride``)."""

from __future__ import annotations

import collections
import json
import os
import sys
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import bench_net  # noqa: E402

impl, whats = sys.argv[1], sys.argv[2].split(",")
dev = torch.device("cuda")
x = torch.randn(8, 64, 3, 32, 32, device=dev)
labels = torch.randint(0, 10, (64,), device=dev)
for what in whats:
    net, fwd = bench_net.setup(impl, bench_net.makers(), dev)
    step = bench_net.make_step(net, fwd, x, labels, what)
    for _ in range(4):
        step()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        step()
        torch.cuda.synchronize()
    kernels = [(e.name, e.device_time_total) for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    by_name: dict[str, list[float]] = collections.defaultdict(list)
    for name, us in kernels:
        by_name[name[:90]].append(us)
    copies = {n: round(sum(v), 1) for n, v in by_name.items() if "clone" in n or "copy" in n.lower()}
    print(json.dumps({"impl": impl, "what": what, "keep_output_stride": os.environ.get("TORCHINDUCTOR_KEEP_OUTPUT_STRIDE", "1"),
                      "kernels": len(kernels), "gpu_us": round(sum(us for _, us in kernels), 1), "copy_like_us": copies}), flush=True)
    for n, v in sorted(by_name.items(), key=lambda kv: -sum(kv[1]))[:14]:
        print(f"  {len(v):3d} {sum(v):8.1f} us  {n}")
