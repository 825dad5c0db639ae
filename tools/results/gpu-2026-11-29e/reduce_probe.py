#!/usr/bin/env python3
"""ATen's sum of static partials ``[n, R, C]`` over ``R`` (what ``flexsn_runtime.statics`` runs), against the bytes it reads.

Per shape: µs (CUDA events, median of 50) for ``buf.view(n, R, C).sum(1)``, and the same data transposed
``[n, C, R]`` summed over its last dim; GB/s of each.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench_per_call import per_call  # noqa: E402


def timed(fn, n=50):  # type: ignore[no-untyped-def]
    """Median µs of ``fn`` timed alone (``tools/bench_per_call.per_call`` after 5 warm-up calls)."""
    return per_call(fn, 5, n) * 1e3


for n, R, C in [(4, 65536, 128), (4, 16384, 128), (4, 4096, 128), (4, 16384, 128), (4, 4096, 128), (4, 1024, 128), (1, 65536, 64)]:
    buf = torch.randn(n, R, C, device="cuda")
    tr = buf.transpose(1, 2).contiguous()
    mb = buf.numel() * 4 / 1e6
    t1 = timed(lambda: buf.sum(1))
    t2 = timed(lambda: tr.sum(-1))
    print(json.dumps({"n": n, "R": R, "C": C, "MB": round(mb, 1), "sum_R_us": round(t1, 1), "GBps": round(mb / t1 * 1e3, 0),
                      "transposed_us": round(t2, 1), "GBps_t": round(mb / t2 * 1e3, 0)}), flush=True)
