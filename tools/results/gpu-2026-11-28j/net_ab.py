#!/usr/bin/env python3
"""The convnet's compiled training step (default mode), for an A/B of two trees in alternating fresh processes.

``tools/bench_net.py``'s network and step (T = 8, B = 64) on the tree ``PYTHONPATH`` points at. Per impl
(``argv``, e.g. ``flexsn_compile flexsn_compile_nofuse``): after 5 warm-up steps, 7 rounds of 20 steps back to back
(wall ms per step: each round's mean; the median and all rounds printed), then 5 steps under ``torch.profiler``:
GPU busy ms and kernels per step, and the kernels whose name holds ``sum`` or ``reduce`` per step.
``WHAT=infer`` times the inference step instead (``reset`` + a ``no_grad`` forward), ``WHAT=both`` each.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import bench_net  # noqa: E402


def main() -> None:
    dev = torch.device("cuda")
    make = bench_net.makers()
    torch.manual_seed(0)
    x = torch.randn(8, 64, 3, 32, 32, device=dev)
    labels = torch.randint(0, 10, (64,), device=dev)
    tree = next((p for p in sys.path if "packages" in p), "?")
    what = os.environ.get("WHAT", "train")
    for impl, mode in [(i, m) for i in sys.argv[1:] for m in (["train", "infer"] if what == "both" else [what])]:
        net, fwd = bench_net.setup(impl, make, dev)
        step = bench_net.make_step(net, fwd, x, labels, mode)  # (the same step the runs timed, written inline then)

        for _ in range(5):
            step()
        torch.cuda.synchronize()
        rounds = []
        for _ in range(7):
            t0 = time.perf_counter()
            for _ in range(20):
                step()
            torch.cuda.synchronize()
            rounds.append((time.perf_counter() - t0) / 20 * 1e3)
        acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        with torch.profiler.profile(activities=acts) as prof:
            for _ in range(5):
                step()
            torch.cuda.synchronize()
        names = [ev.name for ev in prof.events() if ev.device_type == torch.autograd.DeviceType.CUDA]
        busy = sum(ev.device_time_total for ev in prof.events() if ev.device_type == torch.autograd.DeviceType.CUDA)
        sums = sum(1 for n in names if "sum" in n.lower() or "reduce" in n.lower())
        print(json.dumps({"impl": impl, "what": mode, "tree": tree.split("/packages")[0][-12:], "wall_ms": round(statistics.median(rounds), 3),
                          "rounds": [round(r, 3) for r in rounds], "gpu_busy_ms": round(busy / 5 / 1e3, 3),
                          "kernels_per_step": len(names) / 5, "sum_kernels_per_step": sums / 5}), flush=True)


if __name__ == "__main__":
    main()
