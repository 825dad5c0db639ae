#!/usr/bin/env python3
"""ATen's sum of static partials ``[n, R, C]`` over ``R`` (what ``flexsn_runtime.statics`` runs), against the bytes it reads.

Per shape: µs (CUDA events, median of 50) for ``buf.view(n, R, C).sum(1)``, and the same data transposed
``[n, C, R]`` summed over its last dim; GB/s of each.
"""

from __future__ import annotations

import json

import torch


def timed(fn, n=50):  # type: ignore[no-untyped-def]
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(n):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        torch.cuda.synchronize()
        out.append(a.elapsed_time(b) * 1e3)
    out.sort()
    return out[len(out) // 2]


for n, R, C in [(4, 65536, 128), (4, 16384, 128), (4, 4096, 128), (4, 16384, 128), (4, 4096, 128), (4, 1024, 128), (1, 65536, 64)]:
    buf = torch.randn(n, R, C, device="cuda")
    tr = buf.transpose(1, 2).contiguous()
    mb = buf.numel() * 4 / 1e6
    t1 = timed(lambda: buf.sum(1))
    t2 = timed(lambda: tr.sum(-1))
    print(json.dumps({"n": n, "R": R, "C": C, "MB": round(mb, 1), "sum_R_us": round(t1, 1), "GBps": round(mb / t1 * 1e3, 0),
                      "transposed_us": round(t2, 1), "GBps_t": round(mb / t2 * 1e3, 0)}), flush=True)
