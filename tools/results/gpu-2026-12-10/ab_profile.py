"""Per-call LIF training at T = 8 on CUDA (CUDA events, median of 61) and a cProfile of 300 calls: where host time goes.

Run with one tree's packages on PYTHONPATH: ``python3 ab_profile.py OUT_PREFIX``.
"""
import cProfile
import pstats
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import bench_per_call as b  # noqa: E402
from flexsn_nn import FlexSN  # noqa: E402
from flexsn_nn.surrogate import Sigmoid  # noqa: E402

core = b.cores(Sigmoid(4.0))["lif"][0]
m = FlexSN(core, 1, 1, 1).cuda()
x = (torch.randn(8, 1 << 22, device="cuda") + 0.5).requires_grad_()


def train() -> None:
    x.grad = None
    m.reset()
    m(x).sum().backward()


print("median ms", b.per_call(train, 20, 61), "kernel calls", len(m.kernel.calls))
pr = cProfile.Profile()
pr.enable()
for _ in range(300):
    train()
    torch.cuda.synchronize()
pr.disable()
with open(sys.argv[1] + ".txt", "w") as f:
    pstats.Stats(pr, stream=f).sort_stats("tottime").print_stats(25)
