#!/usr/bin/env python3
"""Host time of the compiled convnet step under cProfile (``tools/bench_net.py``'s network, T = 8, B = 64).

For each impl in argv and ``what`` in env ``WHAT`` (default ``infer``): after warm-up, 200 steps each followed by a
synchronize (as a per-call timing runs them) under ``cProfile``; prints the per-step wall time without the profiler
and the 30 functions of most own time, and the cumulative time of the entries that matter (Dynamo's guards, the
CUDA-graph tree's run, the replay).
"""

from __future__ import annotations

import cProfile
import io
import os
import pstats
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import bench_net  # noqa: E402


def main() -> None:
    dev = torch.device("cuda")
    torch.manual_seed(0)
    x = torch.randn(8, 64, 3, 32, 32, device=dev)
    labels = torch.randint(0, 10, (64,), device=dev)
    what = os.environ.get("WHAT", "infer")
    for impl in sys.argv[1:]:
        net, fwd = bench_net.setup(impl, bench_net.makers(), dev)
        step = bench_net.make_step(net, fwd, x, labels, what)
        for _ in range(10):
            step()
        torch.cuda.synchronize()
        host = []
        for _ in range(100):
            torch.cuda.synchronize()
            t = time.perf_counter()
            step()
            host.append(time.perf_counter() - t)
            torch.cuda.synchronize()
        host.sort()
        print(f"== {impl} {what}: host µs per step (call returns) median {host[50] * 1e6:.0f} min {host[0] * 1e6:.0f}", flush=True)
        pr = cProfile.Profile()
        for _ in range(200):
            torch.cuda.synchronize()
            pr.enable()
            step()
            pr.disable()
        torch.cuda.synchronize()
        s = io.StringIO()
        pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(30)
        s2 = io.StringIO()
        pstats.Stats(pr, stream=s2).sort_stats("cumulative").print_stats(45)
        print(s.getvalue()[-9000:], flush=True)
        print(s2.getvalue()[-12000:], flush=True)


if __name__ == "__main__":
    main()
