"""Dynamo's guards on a compiled network of two FlexSN layers whose core captures its module's parameters.

Each layer is a PLIF-like neuron written as a method, ``FlexSN(self.step)``, reading ``self.w`` (a scalar decay
parameter) and ``self.th`` (a per-channel threshold parameter); the core's captured tensors are lifted into the
kernels' static inputs (``flexsn_trace.find_captures``) and read at every call (``Captures.values``). Prints the
guards' leaf count, how many of them sit under ``captures``, and one check's time (µs, the best of 5 rounds of 2000).
"""

from __future__ import annotations

import json
import os
import sys
import timeit

import torch
from torch import nn

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")

from flexsn_nn import FlexSN  # noqa: E402
from flexsn_nn.surrogate import Sigmoid  # noqa: E402


class PLIF(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.w = nn.Parameter(torch.tensor(0.0))
        self.th = nn.Parameter(torch.ones(4, 1))
        self.spike = Sigmoid()
        self.sn = FlexSN(self.step, 1, 1, 1, step_mode="m")

    def step(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) * torch.sigmoid(self.w)
        s = self.spike(h - self.th)
        return s, h * (1 - s)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.sn(x)  # type: ignore[no-any-return]


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a, self.b = PLIF(), PLIF()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.b(self.a(x))  # type: ignore[no-any-return]


def main() -> None:
    from torch._dynamo.eval_frame import _debug_get_cache_entry_list

    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    net = Net().to(dev)
    f = torch.compile(net, backend="eager")
    x = torch.rand(4, 2, 4, 3, device=dev)

    def reset() -> None:
        net.a.sn.reset()
        net.b.sn.reset()

    with torch.no_grad():
        for _ in range(2):
            reset()
            f(x)
        guards = _debug_get_cache_entry_list(Net.forward.__code__)[0].guard_manager
        reset()
        frame = {"self": net, "x": x}
        assert guards.check(frame)
        us = min(timeit.timeit(lambda: guards.check(frame), number=2000) / 2000 * 1e6 for _ in range(5))
    leaves = [line for line in str(guards).splitlines() if "+- " in line and "GuardManager" not in line]
    row = {"leaf_guards": len(leaves), "under_captures": sum("captures" in line for line in leaves), "check_us": round(us, 2)}
    print(json.dumps(row))
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as fh:
            json.dump(row, fh)


if __name__ == "__main__":
    main()
