#!/usr/bin/env python3
"""Which tensors the FlexSN ops of the compiled convnet step copy to their launch's memory order, and why.

run4 found 8 copy kernels per compiled training step (1.12 ms of 4.16 ms GPU busy) with neighbour fusion off and
13 (0.32 ms) with it on. This wraps ``flexsn_runtime.layout.in_order`` where the launchers and launch plans call it
and prints, for one step after warm-up, each call that copied: the caller, the tensor's shape and strides, the
launch's order, and the strides of the call's other sequences.
"""

from __future__ import annotations

import sys
import traceback
from pathlib import Path

import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import bench_net  # noqa: E402
from flexsn_runtime import launch_plan, launchers, layout  # noqa: E402

LOG: list[str] = []
ON = [False]
_real = layout.in_order


def logged(t: torch.Tensor, order: layout.Order) -> torch.Tensor:
    out = _real(t, order)
    if ON[0] and out is not t:
        caller = traceback.extract_stack(limit=3)[0]
        LOG.append(f"copy {tuple(t.shape)} strides {t.stride()} -> order {order} strides {out.stride()}  ({Path(caller.filename).name}:{caller.lineno} {caller.name})")
    return out


for mod in (launch_plan, launchers, layout):
    mod.in_order = logged  # type: ignore[attr-defined]


def main() -> None:
    dev = torch.device("cuda")
    make = bench_net.makers()
    x = torch.randn(8, 64, 3, 32, 32, device=dev)
    labels = torch.randint(0, 10, (64,), device=dev)
    for impl in sys.argv[1:] or ["flexsn_compile_nofuse", "flexsn_compile"]:
        for what in ("train", "infer"):
            net, fwd = bench_net.setup(impl, make, dev)
            opt = torch.optim.SGD(net.parameters(), lr=0.01)

            def step() -> None:
                bench_net.reset(net)
                if what == "infer":
                    with torch.no_grad():
                        fwd(x)
                    return
                loss = nn.functional.cross_entropy(fwd(x), labels)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()

            for _ in range(3):
                step()
            LOG.clear()
            ON[0] = True
            step()
            torch.cuda.synchronize()
            ON[0] = False
            print(f"== {impl} {what}: {len(LOG)} copies in one step", flush=True)
            for line in LOG:
                print("  ", line, flush=True)


if __name__ == "__main__":
    main()
