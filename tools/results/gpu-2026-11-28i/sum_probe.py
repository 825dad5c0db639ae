#!/usr/bin/env python3
"""How long the statics' gradient sums take on the GPU, by the view they sum over.

run4's profile: 12 ``sum`` kernels per compiled convnet step, 0.40 ms (33 µs each), the per-channel partials
of channels-last launches, ``[programs, C]`` viewed ``[programs, C, 1]`` and summed over dims (0, 2) by
``flexsn_runtime.statics``. Times (CUDA events, median of 200) that sum, the same over dim 0 of ``[programs, C]``,
and per layer size of the convnet (programs = NCL / 1024).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench_per_call import per_call  # noqa: E402


def timed(fn: Callable[[], object], reps: int = 200) -> float:
    """Median µs of ``fn`` timed alone: ``tools/bench_per_call.per_call`` after 10 warm-up calls."""
    return per_call(fn, 10, reps) * 1e3


def main() -> None:
    C = 128
    for P in (8192, 2048, 512, 128):
        buf = torch.randn(P * C, device="cuda")
        a = timed(lambda: buf.view(P, C, 1).sum((0, 2)))
        b = timed(lambda: buf.view(P, C).sum(0))
        c = timed(lambda: buf.view(P, 1, C).sum((0, 1)))
        four = torch.randn(4, P * C, device="cuda")
        d = timed(lambda: four.view(4, P, C).sum(1))
        print(f"P={P:5d} C={C}: [P,C,1].sum((0,2)) {a:6.1f} us  [P,C].sum(0) {b:6.1f} us  [P,1,C].sum((0,1)) {c:6.1f} us  "
              f"four at once [4,P,C].sum(1) {d:6.1f} us", flush=True)


if __name__ == "__main__":
    main()
