#!/usr/bin/env python3
"""Per-call timing: each layer call as a training loop meets it, next to its peers.

``tools/bench.py`` times calls back to back, where the host time of one call overlaps the GPU
work of the previous ones. A user's loop calls each layer once per step: ``reset()`` + forward
(+ backward), and the host time of that call shows. Here each call is timed ALONE: a
synchronize, CUDA events around the call, median of ``--rep`` (the method of
``../shared/bench/bench_anchors.py``). Copy ratio = ``x.clone()`` time / call time, fp32 or bf16.

Cases: ``lif`` (1 input, 1 state, 1 output) and ``2x2`` (2 inputs, 2 states, 2 outputs), each in
inference (under ``no_grad``, entered once outside the timed calls, as the anchors enter it) and
training (forward + backward of all outputs). Implementations:
``flexsn`` (``FlexSN(backend="triton")``, final states only), ``eager`` (the Python loop over the
same core), ``compile`` (``torch.compile(fullgraph=True)`` of it; ``--compile``), and, when
SpikingJelly 2.0 is importable, ``sj_flexsn`` (its ``FlexSN``) and ``sj_lif`` (its hand-written
``LIFNode``, LIF only); ``--peers`` picks them.

GPU::

    PYTHONPATH=$(ls -d packages/*/src | paste -sd:) python3 tools/bench_per_call.py --out OUT

``--autograd-threads off`` times training with the backward on the calling thread
(``torch.autograd.set_multithreading_enabled(False)``, PyTorch's API), as a loop driving one
GPU per process may run it. Writes ``per_call.json``; the last lines printed are a table of
copy ratios.

``--processes N`` runs the whole measurement in N fresh processes, one after another, and writes
``per_call_processes.json``: per row, the copy ratio's median, min and max over the processes. At
``T = 8`` a training call is host-bound, and one host gave the same call 0.19-0.34 of copy from one
process to the next (``tools/results/gpu-2026-11-28e/``): compare trees by these spreads, not by one
process each.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Sequence

import torch

ROWS: list[dict[str, Any]] = []

AUTOGRAD_THREADS_HELP = (
    "on: PyTorch's default, CUDA backward passes run on autograd's device thread; off: on the calling thread "
    "(torch.autograd.set_multithreading_enabled(False)), which spares each training call the hand-off there and back"
)


def per_call(fn: Callable[[], object], warm: int, rep: int) -> float:
    """Median ms of ``fn`` timed alone (synchronize first, CUDA events around it)."""
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(rep):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        torch.cuda.synchronize()
        times.append(a.elapsed_time(b))
    times.sort()
    return times[len(times) // 2]


def back_to_back(fn: Callable[[], object], warm: int, n: int) -> float:
    """Mean ms of ``fn`` over ``n`` calls with no synchronize between them (the GPU's pace, unless the host is slower):
    the host's time before each call's first launch hides behind the previous call's GPU work, unlike :func:`per_call`."""
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(n):
        fn()
    b.record()
    torch.cuda.synchronize()
    return a.elapsed_time(b) / n


def cores(spike: Callable[[torch.Tensor], torch.Tensor]) -> dict[str, tuple[Callable[..., Any], int, int, int]]:
    """The two neurons: ``name -> (core, num_inputs, num_states, num_outputs)``."""

    def lif(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) / 2.0
        s = spike(h - 1.0)
        return s, h * (1.0 - s)

    def two_by_two(x: torch.Tensor, y: torch.Tensor, v: torch.Tensor, rho: torch.Tensor) -> tuple[torch.Tensor, ...]:
        h = 0.5 * v + x
        s1 = spike(h - (rho + 1.0))
        s2 = spike(h - 1.0)
        g = torch.sigmoid(y)
        return s1, s2, (h * (1.0 - s1)) * g + (h - s2) * (1.0 - g), 0.9 * rho + s1

    return {"lif": (lif, 1, 1, 1), "2x2": (two_by_two, 2, 2, 2)}


def loop_of(core: Callable[..., Any], ns: int, no: int) -> Callable[..., tuple[torch.Tensor, ...]]:
    def loop(*seqs: torch.Tensor) -> tuple[torch.Tensor, ...]:
        states = [torch.zeros_like(seqs[0][0]) for _ in range(ns)]
        outs: list[list[torch.Tensor]] = [[] for _ in range(no)]
        for t in range(seqs[0].shape[0]):
            r = core(*(s[t] for s in seqs), *states)
            for i in range(no):
                outs[i].append(r[i])
            states = list(r[no:])
        return tuple(torch.stack(o) for o in outs)

    return loop


def impls_for(name: str, core: Callable[..., Any], ni: int, ns: int, no: int, args: argparse.Namespace) -> dict[str, Callable[..., Any]]:
    import flexsn_nn

    loop = loop_of(core, ns, no)
    out: dict[str, Callable[..., Any]] = {"eager": loop}
    if args.compile:
        out["compile"] = torch.compile(loop, fullgraph=True)
    m = flexsn_nn.FlexSN(core, ni, ns, no).cuda()
    out["flexsn"] = lambda *xs, m=m: (m.reset(), m(*xs))[1]
    try:
        from spikingjelly.activation_based import neuron as sjn
        from spikingjelly.activation_based import surrogate as sjs
        from spikingjelly.activation_based.neuron.flexsn import FlexSN as SJFlexSN
    except ImportError:
        return out
    if "sj_flexsn" in args.peers:
        sj = SJFlexSN(core=core, num_states=ns, step_mode="m").cuda()
        out["sj_flexsn"] = lambda *xs, m=sj: (m.reset(), m(*xs))[1]
    if "sj_lif" in args.peers and name == "lif":
        lif = sjn.LIFNode(tau=2.0, surrogate_function=sjs.Sigmoid(alpha=4.0), step_mode="m").cuda()
        out["sj_lif"] = lambda x, m=lif: (m.reset(), m(x))[1]
    return out


#: what names a row across processes (the measured fields and the host's speed vary)
ROW_KEY = ("case", "mode", "impl", "T", "dtype", "autograd_threads")


def spread(runs: Sequence[Sequence[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Per row of the processes' ``per_call.json`` lists: the copy ratio's median, min and max, and the
    ``ms`` median, over the processes that measured it (rows in first-seen order)."""
    by_key: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for rows in runs:
        for row in rows:
            by_key.setdefault(tuple(row[k] for k in ROW_KEY), []).append(row)
    out = []
    for key, rows in by_key.items():
        ratios = [r["copy_ratio"] for r in rows]
        out.append(dict(zip(ROW_KEY, key), processes=len(rows), copy_ratio_median=statistics.median(ratios),
                        copy_ratio_min=min(ratios), copy_ratio_max=max(ratios),
                        ms_median=statistics.median(r["ms"] for r in rows)))
    return out


def _in_processes(n: int, out: Path, argv: list[str]) -> None:
    """Run this script ``n`` times in fresh processes (``--out out/p<k>``), then write the spread."""
    runs = []
    for k in range(n):
        sub = out / f"p{k}"
        subprocess.run([sys.executable, __file__, *argv, "--out", str(sub), "--processes", "1"], check=True)
        runs.append(json.loads((sub / "per_call.json").read_text()))
    rows = spread(runs)
    (out / "per_call_processes.json").write_text(json.dumps(rows, indent=1))
    for r in rows:
        print(f"{r['case'] + ' ' + r['mode']:<16}{r['T']:>4}  {r['impl']:>10}  median {r['copy_ratio_median']:.3f}  "
              f"min {r['copy_ratio_min']:.3f}  max {r['copy_ratio_max']:.3f}  ({r['processes']} processes)")


def _strip_out_and_processes(argv: list[str]) -> list[str]:
    """``argv`` without ``--out X`` / ``--processes N`` (either spelling), for the child processes."""
    kept, skip = [], False
    for a in argv:
        if skip:
            skip = False
            continue
        if a in ("--out", "--processes"):
            skip = True
            continue
        if a.startswith(("--out=", "--processes=")):
            continue
        kept.append(a)
    return kept


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--T", type=int, nargs="+", default=[8, 32])
    p.add_argument("--ncl", type=int, default=1 << 22)
    p.add_argument("--dtype", choices=["fp32", "bf16"], default="fp32")
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--rep", type=int, default=15)
    p.add_argument("--compile", action="store_true", help="add the torch.compile peer (slow to build)")
    p.add_argument("--peers", nargs="*", default=["sj_flexsn", "sj_lif"], choices=["sj_flexsn", "sj_lif"])
    p.add_argument("--impls", nargs="*", default=None, help="time only these implementations (default: all)")
    p.add_argument("--cases", nargs="*", default=None, choices=["lif", "2x2"], help="only these neurons (default: both)")
    p.add_argument("--autograd-threads", choices=["on", "off"], default="on", help=AUTOGRAD_THREADS_HELP)
    p.add_argument("--processes", type=int, default=1,
                   help="run the measurement in this many fresh processes and write the spread (module docstring)")
    args = p.parse_args()
    if args.processes < 1:
        p.error(f"--processes must be >= 1, got {args.processes}")
    args.out.mkdir(parents=True, exist_ok=True)
    if args.processes > 1:
        _in_processes(args.processes, args.out, _strip_out_and_processes(sys.argv[1:]))
        return
    torch.autograd.set_multithreading_enabled(args.autograd_threads == "on")  # this (the calling) thread's setting
    from flexsn_nn.surrogate import Sigmoid

    dtype = torch.bfloat16 if args.dtype == "bf16" else torch.float32
    from host_probe import host_speed  # tools/ is this script's folder on sys.path

    host = host_speed()  # per-call ratios at T = 8 move with the host's speed between processes: recorded with each row
    for T in args.T:
        xs = [(torch.randn(T, args.ncl, device="cuda") + 0.5).to(dtype) for _ in range(2)]
        t_copy = per_call(lambda: xs[0].clone(), args.warmup, args.rep)
        for name, (core, ni, ns, no) in cores(Sigmoid(4.0)).items():
            if args.cases and name not in args.cases:
                continue
            for impl, fn in impls_for(name, core, ni, ns, no, args).items():
                if args.impls and impl not in args.impls:
                    continue
                grads = [torch.ones_like(xs[0]) for _ in range(no)]  # made once: not part of a call
                for mode in ("inference", "training"):
                    leaves = [x.clone().requires_grad_(mode == "training") for x in xs[:ni]]

                    def call(fn: Callable[..., Any] = fn, leaves: list[torch.Tensor] = leaves, mode: str = mode) -> None:
                        if mode == "inference":
                            fn(*leaves)
                            return
                        for leaf in leaves:
                            leaf.grad = None  # a fresh gradient per call, as after zero_grad(set_to_none=True)
                        out = fn(*leaves)
                        outs = out if isinstance(out, (tuple, list)) else (out,)
                        torch.autograd.backward(list(outs[:no]), grads)

                    # inference runs under no_grad entered once, outside the timed calls, as
                    # ../shared/bench/bench_anchors.py times it (an evaluation loop's torch.no_grad())
                    with torch.set_grad_enabled(mode == "training"):
                        t0 = time.perf_counter()
                        call()
                        torch.cuda.synchronize()
                        first = time.perf_counter() - t0
                        ms = per_call(call, args.warmup, args.rep)
                    row = dict(case=name, mode=mode, impl=impl, T=T, dtype=args.dtype, ms=ms, copy_ratio=t_copy / ms, first_s=first,
                               autograd_threads=args.autograd_threads, **host)
                    ROWS.append(row)
                    print(json.dumps(row), flush=True)
                    (args.out / "per_call.json").write_text(json.dumps(ROWS, indent=1))
    print(f"{'case':<16}{'T':>4}  " + "  ".join(f"{i:>10}" for i in dict.fromkeys(r["impl"] for r in ROWS)))
    for key in dict.fromkeys((r["case"], r["mode"], r["T"]) for r in ROWS):
        cells = {r["impl"]: r["copy_ratio"] for r in ROWS if (r["case"], r["mode"], r["T"]) == key}
        line = "  ".join(f"{cells.get(i, float('nan')):>10.3f}" for i in dict.fromkeys(r["impl"] for r in ROWS))
        print(f"{key[0] + ' ' + key[1]:<16}{key[2]:>4}  {line}")


if __name__ == "__main__":
    main()
