#!/usr/bin/env python3
"""Where the convnet's compiled training step goes, neighbour fusion on and off (default mode, no CUDA graphs).

``tools/bench_net.py``'s network and step (T = 8, B = 64), compiled by Inductor with ``enable_neighbour_fusion``
True / False; after warm-up, 10 steps under ``torch.profiler``: per step, the GPU's busy time (sum of kernel
durations), the kernel count, the wall time, and the kernels that take the most; with ``CPU_TABLE=N`` also the N
ops of most own CPU time (over the 10 steps). Writes ``net_profile.json``.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import bench_net  # noqa: E402

STEPS = 10


def main() -> None:
    dev = torch.device("cuda")
    make = bench_net.makers()
    x = torch.randn(8, 64, 3, 32, 32, device=dev)
    labels = torch.randint(0, 10, (64,), device=dev)
    rows = []
    order = sys.argv[1:] or ["flexsn_compile", "flexsn_compile_nofuse", "flexsn_compile", "flexsn_compile_nofuse"]
    for impl in order:
        net, fwd = bench_net.setup(impl, make, dev)
        opt = torch.optim.SGD(net.parameters(), lr=0.01)

        def step() -> None:
            bench_net.reset(net)
            loss = nn.functional.cross_entropy(fwd(x), labels)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()

        for _ in range(5):
            step()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(STEPS):
            step()
        torch.cuda.synchronize()
        wall = (time.perf_counter() - t0) / STEPS * 1e3
        acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        with torch.profiler.profile(activities=acts) as prof:
            for _ in range(STEPS):
                step()
            torch.cuda.synchronize()
        kernels: dict[str, list[float]] = {}
        for ev in prof.events():
            if ev.device_type == torch.autograd.DeviceType.CUDA:
                kernels.setdefault(ev.name, []).append(ev.device_time_total)
        busy = sum(sum(v) for v in kernels.values()) / STEPS / 1e3
        count = sum(len(v) for v in kernels.values()) / STEPS
        top = sorted(((sum(v) / STEPS, len(v) / STEPS, k[:140]) for k, v in kernels.items()), reverse=True)[:14]
        row = {"impl": impl, "wall_ms": round(wall, 3), "gpu_busy_ms": round(busy, 3), "kernels_per_step": count,
               "top": [{"us": round(u, 1), "n": n, "name": k} for u, n, k in top]}
        rows.append(row)
        print(json.dumps({k: v for k, v in row.items() if k != "top"}), flush=True)
        if os.environ.get("CPU_TABLE"):  # the host's side: ops by their own CPU time, per step
            print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=int(os.environ["CPU_TABLE"])), flush=True)
        for t in row["top"]:
            print(f"   {t['us']:8.1f} us  x{t['n']:.0f}  {t['name']}", flush=True)
    out = os.environ.get("OUT")
    if out:
        Path(out, "net_profile.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
