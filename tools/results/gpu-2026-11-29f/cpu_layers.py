#!/usr/bin/env python3
"""Host µs of a LIF inference call on the CPU, entered at each layer (``tools/per_call_floor.py``'s cuts),
launches stubbed as ``tools/host_timeline.py`` stubs them: best of 5 loops of 20,000 calls.

    PYTHONPATH=$(ls -d packages/*/src | paste -sd:) TRITON_INTERPRET=1 python tools/results/gpu-2026-11-29f/cpu_layers.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any, Callable

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import host_timeline  # noqa: E402


class _NoStamps(list):  # type: ignore[type-arg]
    """The stub's stamp list, kept empty (this timing needs no stages)."""

    def append(self, item: Any) -> None:
        pass


def main() -> None:
    host_timeline._stub_launches()
    host_timeline._STAMPS = _NoStamps()
    from flexsn_nn import LIFNode
    from flexsn_runtime import launch_plan as lp

    x = torch.randn(8, 4, 64, 16) + 0.5
    m = LIFNode(tau=2.0, step_mode="m", backend="triton", store_v_seq=False)
    caught: list[tuple[Any, list[torch.Tensor]]] = []
    real = lp.LaunchPlan.run

    def spy(self: Any, flat: list[torch.Tensor]) -> Any:
        caught.append((self, list(flat)))
        return real(self, flat)

    lp.LaunchPlan.run = spy  # type: ignore[method-assign]
    with torch.no_grad():
        for _ in range(3):  # checked call, plan built, plan run
            m.reset()
            m(x)
    lp.LaunchPlan.run = real  # type: ignore[method-assign]
    plan, flat = caught[-1]
    ng = torch.no_grad()

    def module() -> None:
        with ng:
            m.reset()
            m(x)

    def forward() -> None:
        with ng:
            m.reset()
            m.forward(x)

    def run_cached() -> None:
        with ng:
            m.kernel.run_cached((x,), (), (), True)

    def planned() -> None:
        with ng:
            plan.run(flat)

    def no_grad() -> None:
        with ng:
            pass

    cuts: dict[str, Callable[[], None]] = {
        "module": module, "forward": forward, "run_cached": run_cached, "plan": planned, "no_grad": no_grad, "reset": m.reset,
    }
    for name, f in cuts.items():
        best = float("inf")
        for _ in range(5):
            t0 = time.perf_counter_ns()
            for _ in range(20000):
                f()
            best = min(best, (time.perf_counter_ns() - t0) / 20000 / 1e3)
        print(f"{name:12s} {best:6.2f} us")


if __name__ == "__main__":
    main()
