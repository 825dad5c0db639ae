#!/usr/bin/env python3
"""Dynamo's guards on a compiled spiking convnet: how many, and how long checking them takes, FlexSN against the loop.

Every call of a ``torch.compile``-d network first checks the guards Dynamo installed while tracing it (in C++,
before a CUDA graph's replay or the compiled code's first launch), so their number is host time in every
per-call figure (``tools/bench_net.py``). A FlexSN neuron adds guards of its own: on its module's attributes and
on each number its core reads (``flexsn_trace.Constants.current``, traced so that a later change compiles again,
read along ``flexsn_trace.anchors``' constant paths).

The network is ``tools/bench_net.py``'s (three conv-BN-neuron blocks, a spiking readout; ``--channels`` wide on
``[T, B, 3, 32, 32]``), with FlexSN's LIF (``triton``) and the plain Python loop (``torch``: Dynamo traces the core
itself), compiled with ``backend="eager"`` (only Dynamo's part matters here) and called under ``no_grad`` after
``reset()``, on the GPU where there is one. For each: the guards' leaf count and the median over ``--rounds`` of the time of one check of the
compiled frame's guards (``GuardManager.check``, torch's private debugging API), in microseconds.

Usage (from the repository root; on a CPU the interpreter runs the kernels)::

    PYTHONPATH=$(ls -d packages/*/src | paste -sd:) TRITON_INTERPRET=1 python tools/guard_probe.py --out OUT

Writes ``guards.json`` (and each network's guard tree, ``guards_<backend>.txt``) to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import timeit
from pathlib import Path
from typing import Any

import torch

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")  # before triton is imported: the kernels run on CPU tensors

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_net import Net, makers, reset  # noqa: E402


def probe(backend: str, channels: int, rounds: int, number: int) -> tuple[dict[str, Any], str]:
    """Compile ``tools/bench_net.py``'s network with FlexSN's ``backend`` neurons; its guards' count and check time."""
    from torch._dynamo.eval_frame import _debug_get_cache_entry_list

    torch._dynamo.reset()
    torch.manual_seed(0)
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    net = Net(makers()[backend], channels=channels).to(dev)
    compiled = torch.compile(net, backend="eager")
    x = torch.randn(2, 2, 3, 32, 32, device=dev)
    with torch.no_grad():
        for _ in range(2):
            reset(net)
            compiled(x)
        entries = _debug_get_cache_entry_list(type(net).forward.__code__)
        if len(entries) != 1:
            raise RuntimeError(f"guard_probe: expected one compiled frame for Net.forward, found {len(entries)}")
        guards = entries[0].guard_manager
        reset(net)
        frame = {"self": net, "x": x}
        if not guards.check(frame):  # the state the next call meets: a stale frame would time the failing path
            raise RuntimeError("guard_probe: the guards fail for the next call's frame")
        times = [timeit.timeit(lambda: guards.check(frame), number=number) / number * 1e6 for _ in range(rounds)]
    tree = str(guards)
    leaves = sum(1 for line in tree.splitlines() if "+- " in line and "GuardManager" not in line)
    row = {"backend": backend, "channels": channels, "leaf_guards": leaves, "check_us": statistics.median(times),
           "check_us_min": min(times), "torch": torch.__version__}
    return row, tree


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="folder for guards.json and the guard trees")
    ap.add_argument("--channels", type=int, default=8, help="channels of the network's conv layers")
    ap.add_argument("--rounds", type=int, default=7, help="timed rounds (the median is reported)")
    ap.add_argument("--number", type=int, default=2000, help="guard checks per round")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for backend in ("triton", "torch"):
        row, tree = probe(backend, args.channels, args.rounds, args.number)
        (out / f"guards_{backend}.txt").write_text(tree)
        rows.append(row)
        print(f"{backend:7s} {row['leaf_guards']:5d} guards  {row['check_us']:6.1f} µs per check", flush=True)
    (out / "guards.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
