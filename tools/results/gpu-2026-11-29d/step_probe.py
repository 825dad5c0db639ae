#!/usr/bin/env python3
"""The compiled convnet's training step: copies to one memory order, GPU kernel time, wall time (one tree per process).

``tools/bench_net.py``'s network and step (T = 8, B = 64, training), per impl given in argv (``flexsn_compile``,
``flexsn_ro``): after warm-up,
- ``copies``: the tensors ``flexsn_runtime.layout.in_order`` copied in one step (shape, strides), where this
  tree's function exists (``fit_orders`` in the new tree calls it for the tensors it cannot read where they lie);
- ``gpu_ms``: CUDA kernel time per step and ``kernels`` per step (``torch.profiler``, 5 steps), and the
  ``copy_ms`` / ``copy_kernels`` of kernels whose names say copy or elementwise (`direct_copy`, ``elementwise``);
- ``wall_ms``: median of 41 steps each timed alone (a synchronize, CUDA events around the step).
Prints one JSON line per impl; ``TREE`` (env) labels it.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import bench_net  # noqa: E402
import flexsn_runtime.launch_plan as lp  # noqa: E402
import flexsn_runtime.launchers as la  # noqa: E402
import flexsn_runtime.layout as lay  # noqa: E402

copies: list[tuple] = []
real = lay.in_order


def spy(t, order):
    r = real(t, order)
    if r is not t and t.dim() >= 4:
        copies.append((tuple(t.shape), t.stride()))
    return r


lay.in_order = lp.in_order = la.in_order = spy
dev = torch.device("cuda")


def main() -> None:
    torch.manual_seed(0)
    x = torch.randn(8, 64, 3, 32, 32, device=dev)
    labels = torch.randint(0, 10, (64,), device=dev)
    for impl in sys.argv[1:]:
        net, fwd = bench_net.setup(impl, bench_net.makers(), dev)
        step = bench_net.make_step(net, fwd, x, labels, "train")
        for _ in range(6):
            step()
        torch.cuda.synchronize()
        copies.clear()
        step()
        torch.cuda.synchronize()
        n_copies = list(copies)
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as p:
            for _ in range(5):
                step()
            torch.cuda.synchronize()
        ev = [e for e in p.events() if e.device_type == torch.autograd.DeviceType.CUDA]
        gpu = sum(e.device_time for e in ev) / 5e3
        cp = [e for e in ev if "copy" in e.name.lower() or "elementwise_kernel" in e.name]
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        wall = []
        for _ in range(41):
            torch.cuda.synchronize()
            a.record()
            step()
            b.record()
            torch.cuda.synchronize()
            wall.append(a.elapsed_time(b))
        row = {"tree": os.environ.get("TREE", "?"), "impl": impl, "copies": len(n_copies), "copied": n_copies[:8],
               "gpu_ms": round(gpu, 3), "kernels": len(ev) / 5, "copy_ms": round(sum(e.device_time for e in cp) / 5e3, 3),
               "copy_kernels": len(cp) / 5, "wall_ms": round(statistics.median(wall), 3), "wall_min": round(min(wall), 3)}
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
