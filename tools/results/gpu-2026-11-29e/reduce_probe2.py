#!/usr/bin/env python3
"""Static partial sums ``[n, R, C]`` over ``R``: ATen in one reduction against two (``[n, R/k, k, C]``: sum ``k``, then ``R/k``).

``run2``'s ``reduce_probe.py`` found ATen's ``buf.sum(1)`` at 1.35 TB/s for a layer-1 buffer (``[4, 65536, 128]``)
and 0.07-0.9 TB/s for smaller ones. Per shape and variant: GPU kernel µs per call (``torch.profiler``, 20 calls) and
event-timed µs per call (median of 50, launch latency included). One JSON line per (shape, variant).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench_per_call import per_call  # noqa: E402


def event_us(fn, n=50):  # type: ignore[no-untyped-def]
    """Median µs of ``fn`` timed alone (``tools/bench_per_call.per_call`` after 5 warm-up calls)."""
    return per_call(fn, 5, n) * 1e3


def kernel_us(fn, n=20):  # type: ignore[no-untyped-def]
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as p:
        for _ in range(n):
            fn()
        torch.cuda.synchronize()
    ev = [e for e in p.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    return sum(e.device_time for e in ev) / n, len(ev) / n


for n, R, C in [(4, 65536, 128), (4, 16384, 128), (4, 4096, 128), (4, 1024, 128), (1, 65536, 128), (1, 16384, 64)]:
    buf = torch.randn(n, R, C, 1, device="cuda")
    ref = buf.double().sum((1, 3))
    variants = {"one": lambda: buf.sum((1, 3))}
    for k in (16, 32, 64, 128, 256):
        if R % k == 0 and R // k >= 2:
            variants[f"two_k{k}"] = (lambda k=k: buf.view(n, R // k, k, C).sum(2).sum(1))
    for name, fn in variants.items():
        err = (fn().double() - ref).abs().max().item()
        ku, kc = kernel_us(fn)
        print(json.dumps({"n": n, "R": R, "C": C, "MB": round(buf.numel() * 4 / 1e6, 1), "variant": name, "kernel_us": round(ku, 1),
                          "kernels": kc, "event_us": round(event_us(fn), 1), "max_err": err}), flush=True)
