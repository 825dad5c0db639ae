#!/usr/bin/env python3
"""Why a small LIF layer's training call takes ~450 µs on the H200 host (``../shared/bench/bench_small.py``, NCL 8,192,
T = 8; run5), where the CPU with launches stubbed ends the step in ~40 µs (``tools/host_timeline.py``).

Per call as bench_small times it (reset + forward + ``backward(g)``, CUDA events after a synchronize, median of 41):
with autograd's device threads (default) and with the backward on the calling thread
(``torch.autograd.set_multithreading_enabled(False)``); then a cProfile of 100 calls (functions by own time) and a
``torch.profiler`` trace of 20 calls (CUDA runtime calls on the host, kernels on the GPU), per call.
"""

from __future__ import annotations

import cProfile
import io
import os
import pstats
import statistics
import sys

import torch

NCL = int(os.environ.get("NCL", "8192"))


def per_call(fn, warm: int = 10, reps: int = 41) -> float:
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        torch.cuda.synchronize()
        ts.append(a.elapsed_time(b) * 1e3)
    return statistics.median(ts)


def main() -> None:
    from flexsn_nn import FlexSN
    from flexsn_nn.surrogate import Sigmoid

    spike = Sigmoid()

    def lif(x, v):
        h = v + (x - v) / 2.0
        s = spike(h - 1.0)
        return s, h * (1.0 - s)

    dev = torch.device("cuda")
    fm = FlexSN(lif, 1, 1, 1, step_mode="m", backend="triton").to(dev)
    x = torch.randn(8, NCL, device=dev) + 0.5
    g = torch.randn(8, NCL, device=dev)
    xl = x.clone().requires_grad_(True)

    def step() -> None:
        xl.grad = None
        fm.reset()
        fm(xl).backward(g)

    def infer() -> None:
        with torch.no_grad():
            fm.reset()
            fm(x)

    print(f"NCL {NCL}: clone {per_call(lambda: x.clone()):.1f} us, inference {per_call(infer):.1f} us, "
          f"training {per_call(step):.1f} us", flush=True)
    torch.autograd.set_multithreading_enabled(False)
    print(f"  backward on the calling thread: training {per_call(step):.1f} us", flush=True)
    torch.autograd.set_multithreading_enabled(True)
    print(f"  again with device threads: training {per_call(step):.1f} us", flush=True)

    prof = cProfile.Profile()
    for _ in range(100):
        torch.cuda.synchronize()
        prof.enable()
        step()
        prof.disable()
    torch.cuda.synchronize()
    s = io.StringIO()
    pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(25)
    print("--- cProfile, 100 calls, by own time (s)")
    print("\n".join(s.getvalue().splitlines()[4:36]), flush=True)

    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p:
        for _ in range(20):
            torch.cuda.synchronize()
            step()
        torch.cuda.synchronize()
    print("--- torch.profiler, 20 calls")
    print(p.key_averages().table(sort_by="self_cpu_time_total", row_limit=25, max_name_column_width=60), flush=True)


if __name__ == "__main__":
    main()
