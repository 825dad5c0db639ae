#!/usr/bin/env python3
"""Why the compiled convnet's reduce-overhead inference step is bimodal between processes (0.93 or 1.16-1.19 ms).

One process: ``tools/bench_net.py``'s network, ``flexsn_ro`` (or argv[1]), ``WHAT`` (env, default infer); after
warm-up, the step's wall time per call (median of 41, each after a synchronize) and back to back (41 steps / 41),
then 10 steps under ``torch.profiler``: GPU time per step and the kernels grouped by name (time and count per step,
the top 14). ``PRE`` (env, ``impl:what,...``): steps run before in the same process (10 each, kept alive), as
``tools/bench_net.py`` runs its rows. Prints one JSON line; compare the lines of fast and slow processes.
"""

from __future__ import annotations

import collections
import json
import os
import statistics
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import bench_net  # noqa: E402


def main() -> None:
    impl = sys.argv[1] if len(sys.argv) > 1 else "flexsn_ro"
    what = os.environ.get("WHAT", "infer")
    dev = torch.device("cuda")
    torch.manual_seed(0)
    x = torch.randn(8, 64, 3, 32, 32, device=dev)
    labels = torch.randint(0, 10, (64,), device=dev)
    keep = []  # what ran before in this process (PRE="impl:what,..."), kept alive as bench_net's earlier rows are
    for item in filter(None, os.environ.get("PRE", "").split(",")):
        pre_impl, pre_what = item.split(":")
        pnet, pfwd = bench_net.setup(pre_impl, bench_net.makers(), dev)
        pstep = bench_net.make_step(pnet, pfwd, x, labels, pre_what)
        for _ in range(10):
            pstep()
        keep.append((pnet, pfwd, pstep))
    torch.cuda.synchronize()
    net, fwd = bench_net.setup(impl, bench_net.makers(), dev)
    step = bench_net.make_step(net, fwd, x, labels, what)
    for _ in range(8):
        step()
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    wall = []
    for _ in range(41):
        torch.cuda.synchronize()
        a.record()
        step()
        b.record()
        torch.cuda.synchronize()
        wall.append(a.elapsed_time(b))
    a.record()
    for _ in range(41):
        step()
    b.record()
    torch.cuda.synchronize()
    b2b = a.elapsed_time(b) / 41
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as p:
        for _ in range(10):
            step()
        torch.cuda.synchronize()
    ev = [e for e in p.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    by: dict[str, list[float]] = collections.defaultdict(list)
    for e in ev:
        by[e.name[:70]].append(e.device_time)
    top = sorted(by.items(), key=lambda kv: -sum(kv[1]))[:14]
    row = {"pre": os.environ.get("PRE", ""), "impl": impl, "what": what, "wall_ms": round(statistics.median(wall), 3), "b2b_ms": round(b2b, 3),
           "gpu_ms": round(sum(e.device_time for e in ev) / 1e4, 3), "kernels": len(ev) / 10,
           "top": [[name, round(sum(ts) / 1e4, 4), len(ts) / 10] for name, ts in top]}
    print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
