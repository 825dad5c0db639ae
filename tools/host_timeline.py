#!/usr/bin/env python3
"""Host time of repeated FlexSN calls on the CPU, kernel launches stubbed: stage stamps without GPU noise.

A per-call training step at ``T = 8`` is bound by the host: the GPU waits until Python,
autograd and the launches reach the backward kernel (``tools/host_probe.py`` measures that on a
CUDA host, where the host's speed moves the numbers by 2x between processes). Here the same
calls run on CPU tensors with every launch replaced by a time stamp (Triton's interpreter is
not run), so the host's own work is what is timed, repeatably on one machine: the median
microseconds from the start of a call to each stage, over ``--n`` calls after a warm-up.

Training (``reset()`` + forward + ``torch.autograd.backward``): ``fwd_launch``,
``module_done`` (the module returned), ``autograd_bwd`` (autograd entered the node's backward),
``bwd_launch``, ``step_done``. Inference (``reset()`` + forward under ``no_grad``):
``launch``, ``step_done``. A launch of the derived path (``ScanKernel.launch``) and one of a
launch plan (``ScanKernel.prepared``'s launcher) are stamped alike.

The neurons are ``tools/bench_static.py``'s ``overhead`` set (``LIFNode`` with constants, a
per-channel learnable threshold, PLIF with a scalar and a per-channel decay) on
``[T, B, 64, L]`` inputs, and ``floor``: a ``torch.autograd.Function`` that allocates what LIF's
kernels write and launches nothing, the least any custom autograd step costs.

``--compiled`` runs each neuron under ``torch.compile`` (default mode, Inductor on the CPU): its calls are
then the ``flexsn::*`` ops (``flexsn_runtime.op_plans``), and autograd enters the compiled backward, so
``autograd_bwd`` is not stamped. Writes ``host_timeline_compiled.json``.

Usage (from the repository root; the hatch environment sets ``TRITON_INTERPRET=1``)::

    PYTHONPATH=$(ls -d packages/*/src | paste -sd:) TRITON_INTERPRET=1 python tools/host_timeline.py --out OUT

Writes ``host_timeline.json`` to ``--out`` and prints a table.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_static import overhead_neurons  # noqa: E402

_now = time.perf_counter_ns
_STAMPS: list[tuple[str, int]] = []
#: the stage names of the launches of the calls being timed, in order (training: forward then backward)
_LAUNCHES = ["launch"]


def _stub_launches() -> None:
    """Replace every kernel launch by a stamp (``fwd_launch`` / ``bwd_launch`` by order, ``launch`` in inference)."""
    from flexsn_runtime import scan_kernel

    def stamp() -> None:
        n = sum(1 for k, _ in _STAMPS if k.endswith("launch"))
        _STAMPS.append((_LAUNCHES[n % len(_LAUNCHES)], _now()))

    def launch(self: Any, *args: Any, **kwargs: Any) -> None:
        stamp()

    def prepared(self: Any, *args: Any, **kwargs: Any) -> Callable[[list[torch.Tensor]], bool]:
        def run(tensors: list[torch.Tensor]) -> bool:
            stamp()
            return True

        return run

    scan_kernel.ScanKernel.launch = launch  # type: ignore[method-assign]
    scan_kernel.ScanKernel.prepared = prepared  # type: ignore[method-assign]


class _Floor(torch.autograd.Function):
    """LIF's allocations (spikes, final state; the input's gradient) and no launch: any custom autograd step's floor."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        s, v = torch.empty_like(x), x.new_empty(x.shape[1:])
        _STAMPS.append(("fwd_launch", _now()))
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(x)
        return s, v

    @staticmethod
    def backward(ctx: Any, gs: torch.Tensor | None, gv: torch.Tensor | None) -> torch.Tensor:
        _STAMPS.append(("autograd_bwd", _now()))
        (x,) = ctx.saved_tensors
        gx = torch.empty_like(x)
        _STAMPS.append(("bwd_launch", _now()))
        return gx


class _FloorModule(torch.nn.Module):
    def reset(self) -> None:
        pass

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _Floor.apply(x)[0]  # type: ignore[no-any-return]


def _stamp_autograd_entry() -> None:
    """Stamp ``autograd_bwd`` where autograd enters FlexSN's eager training node."""
    from flexsn_runtime import op_autograd

    cls = op_autograd.EagerTraining
    real = cls.backward

    def backward(ctx: Any, *grads: Any) -> Any:
        _STAMPS.append(("autograd_bwd", _now()))
        return real(ctx, *grads)

    cls.backward = staticmethod(backward)  # type: ignore[method-assign, assignment]


def timeline(m: torch.nn.Module, x: torch.Tensor, train: bool, n: int) -> dict[str, float]:
    """Median µs from a call's start to each stage (module docstring), over ``n`` calls after ``n // 5`` warm-up."""
    params = list(m.parameters())
    xl = x.clone().requires_grad_(train)
    g = torch.randn_like(x)
    rows: list[dict[str, float]] = []
    _LAUNCHES[:] = ["fwd_launch", "bwd_launch"] if train else ["launch"]
    for i in range(n + n // 5):
        _STAMPS.clear()
        t0 = _now()
        if train:
            xl.grad = None
            for p in params:
                p.grad = None
            m.reset()  # type: ignore[operator]
            out = m(xl)
            _STAMPS.append(("module_done", _now()))
            torch.autograd.backward([out], [g])
        else:
            with torch.no_grad():
                m.reset()  # type: ignore[operator]
                m(xl)
        _STAMPS.append(("step_done", _now()))
        if i >= n // 5:
            rows.append({k: (t - t0) / 1e3 for k, t in _STAMPS})
    keys = list(rows[-1])
    return {k: round(statistics.median(r[k] for r in rows if k in r), 2) for k in keys}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--T", type=int, default=8)
    p.add_argument("--batch", type=int, default=2)
    p.add_argument("--L", type=int, default=4, help="neurons per channel (64 channels)")
    p.add_argument("--n", type=int, default=2000, help="timed calls per neuron and mode")
    p.add_argument("--neurons", nargs="*", default=None, help="a subset of the neurons (default: all, and floor)")
    p.add_argument("--compiled", action="store_true",
                   help="each neuron under torch.compile (default mode): the flexsn::* ops' host path (no floor)")
    a = p.parse_args()
    if os.environ.get("TRITON_INTERPRET") != "1":
        raise SystemExit("host_timeline runs on CPU tensors: set TRITON_INTERPRET=1 (launches are stubbed, not interpreted)")
    _stub_launches()
    _stamp_autograd_entry()
    torch.manual_seed(0)
    C = 64
    x = torch.randn(a.T, a.batch, C, a.L) + 0.5
    neurons: dict[str, torch.nn.Module] = {"floor": _FloorModule(), **overhead_neurons(C, torch.device("cpu"))}
    if a.compiled:  # the compiled module forwards reset() and parameters() to the neuron
        neurons = {name: torch.compile(m) for name, m in neurons.items() if name != "floor"}  # type: ignore[misc]
    a.out.mkdir(parents=True, exist_ok=True)
    result: dict[str, Any] = {"T": a.T, "shape": list(x.shape), "n": a.n, "torch": torch.__version__, "compiled": a.compiled, "rows": []}
    for name, m in neurons.items():
        if a.neurons and name not in a.neurons:
            continue
        for train in (False, True):
            if name == "floor" and not train:
                continue
            row = {"neuron": name, "mode": "training" if train else "inference", **timeline(m, x, train, a.n)}
            result["rows"].append(row)
            stages = "  ".join(f"{k} {v:6.1f}" for k, v in row.items() if k not in ("neuron", "mode"))
            print(f"{name:22s} {row['mode']:9s}  {stages}", flush=True)
    (a.out / ("host_timeline_compiled.json" if a.compiled else "host_timeline.json")).write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
