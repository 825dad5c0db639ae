#!/usr/bin/env python3
"""Which tensors the compiled convnet's backward ops copy to their launch order (``layout.in_order`` copies), on CUDA.

``tools/bench_net.py``'s network, compiled (default mode, neighbour fusion on), one training step after warm-up:
prints each copy's shape, strides and the launch order, and whether it was a gradient or a saved tensor.
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import bench_net  # noqa: E402
import flexsn_runtime.launch_plan as lp  # noqa: E402

real_in_order, real_fitted = lp.in_order, lp.BackwardPlan._fitted
log: list[tuple] = []


def spy(t, order):
    r = real_in_order(t, order)
    if r is not t:
        log.append(("copy", tuple(t.shape), t.stride(), order))
    return r


def fitted(self, grads, saved, strides):
    n0 = len(log)
    out = real_fitted(self, grads, saved, strides)
    kinds = ["grad"] * sum(g is not None for g, st in zip(grads, strides[0]) if st == lp._COPY) + ["saved"] * sum(st == lp._COPY for st in strides[1])
    for i, k in enumerate(kinds):
        if n0 + i < len(log):
            log[n0 + i] = (*log[n0 + i], k)
    return out


lp.in_order, lp.BackwardPlan._fitted = spy, fitted
dev = torch.device("cuda")
torch.manual_seed(0)
net, fwd = bench_net.setup("flexsn_compile", bench_net.makers(), dev)
x = torch.randn(8, 64, 3, 32, 32, device=dev)
labels = torch.randint(0, 10, (64,), device=dev)
step = bench_net.make_step(net, fwd, x, labels, "train")
for _ in range(4):
    step()
log.clear()
step()
torch.cuda.synchronize()
for row in log:
    print(row)
print("copies per step:", len(log))
