#!/usr/bin/env python3
"""Compiled FlexSN training: ``backend="hop"`` next to ``backend="triton"`` (issue 4, item 5).

For each backend (default ``hop`` and ``triton``) and each ``T`` (default 4
and 64) it compiles a small training network with
``torch.compile(fullgraph=True)`` (Inductor by default) and measures:

* the compile time: wall seconds of the first compiled forward call
  (``first_call_s``) and of the first forward + backward step
  (``first_step_s``), in a fresh Dynamo state (``torch._dynamo.reset()``),
  Inductor's caches in a fresh folder; ``compile_s`` is ``first_step_s``
  less one steady-state step (what compiling added);
* the step time: median ms of one forward + backward step
  (``triton.testing.do_bench`` on CUDA, ``time.perf_counter`` on the CPU);
* what was captured: Dynamo graphs (1 = no graph break), ``flex_sn_scan``
  nodes in the Dynamo graph, and the ``flexsn::training*`` /
  ``flexsn::backward`` ops in AOTAutograd's forward / backward graphs (for
  ``hop``, exactly one training op means the fused kernel path was taken
  instead of ``T`` unrolled steps; ``fw_final_state_ops`` counts the
  ``flexsn::training_final_state`` ones: both backends keep no state
  sequences, so hop must take the final-state form, like triton);
* a numerical check of the loss and the input gradient against the eager
  ``torch`` backend.

The network (``--net``): ``sn`` is ``x [T, NCL] -> LIFNode -> sum()``
(``NCL`` neurons per step); ``linear`` is ``x [T, B, F] -> Linear(F, F) ->
LIFNode -> sum()`` with ``B * F = NCL``. Before a module is called its
states are reset, as in a training loop.

Before the timed compiles, every (backend, T) is compiled once at a small
size (untimed): that pays the process's one-time costs and compiles
FlexSN's own Triton kernels for each ``T`` specialization, so the timed
compile is torch.compile's work (Dynamo, AOTAutograd, Inductor and its
generated kernels, and for ``hop`` the tracing of the scan body).

Results go to ``--out``/``compile_bench.json`` (rewritten after every
measurement); the last lines of stdout are a compact table and the targets:
hop step time within 15% of triton (ratio <= 1.15) for every ``T``; hop
``compile_s`` independent of ``T`` (largest / smallest ``T``: ratio <= 1.3,
or at most 1 s more); hop fused (one training op, one graph) for every ``T``.

GPU (torch 2.11 + triton 3.6, no network, about 2 minutes)::

    PYTHONPATH=$(ls -d packages/*/src | tr '\\n' ':') python3 tools/compile_bench.py --out OUT

CPU (Triton interpreter, tiny)::

    TRITON_INTERPRET=1 python3 tools/compile_bench.py --out OUT --device cpu \\
        --ncl 256 --T 4 64 --warmup 0 --rep 1
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
import time
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import torch
from torch import nn

from bench_measure import cpu_bench_median, do_bench_median, free_memory, sync  # tools/bench.py's timing rules

DTYPES: dict[str, torch.dtype] = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}
BACKENDS = ("hop", "triton", "inductor", "torch")
#: hop step time / triton step time must not exceed this.
STEP_RATIO_TARGET = 1.15
#: hop compile time at the largest T / at the smallest T must not exceed this ...
COMPILE_RATIO_TARGET = 1.3
#: ... unless it is at most this many seconds longer (compile-time noise floor).
COMPILE_SLACK_S = 1.0
#: the small per-step size of the untimed warm-up compiles.
WARM_NCL = 4096
TRAINING_OPS = ("flexsn.training", "flexsn.training_final_state")


@dataclass
class Options:
    """Command-line options (see :func:`parse_args`)."""

    out: Path
    T: list[int]
    ncl: int
    backends: list[str]
    net: str
    features: int
    dtype: str
    device: str
    compiler: str
    warmup: int
    rep: int
    warm_compile: bool
    deadline_s: float
    check: bool


def parse_args(argv: Sequence[str] | None = None) -> Options:
    """Parse the command line into :class:`Options`."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--out", type=Path, required=True, help="output folder (compile_bench.json)")
    p.add_argument("--T", type=int, nargs="+", default=[4, 64], help="time steps (default: 4 64)")
    p.add_argument("--ncl", type=int, default=4_194_304, help="neurons per time step (default 4M)")
    p.add_argument("--backends", nargs="+", default=["hop", "triton"], choices=BACKENDS)
    p.add_argument("--net", default="sn", choices=("sn", "linear"), help="sn: x -> LIF -> sum; linear: Linear -> LIF -> sum")
    p.add_argument("--features", type=int, default=1024, help="--net linear: Linear(F, F) width (NCL / F rows)")
    p.add_argument("--dtype", default="fp32", choices=sorted(DTYPES))
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--compiler", default="inductor", choices=("inductor", "aot_eager"), help="torch.compile backend")
    p.add_argument("--warmup", type=int, default=25, help="do_bench warm-up (ms)")
    p.add_argument("--rep", type=int, default=100, help="do_bench repetitions (ms)")
    p.add_argument("--no-warm-compile", dest="warm_compile", action="store_false", help="skip the untimed warm-up compiles")
    p.add_argument("--deadline-s", type=float, default=270.0, help="skip measurements that start after this many seconds")
    p.add_argument("--no-check", dest="check", action="store_false", help="skip the check against the eager torch backend")
    a = p.parse_args(argv)
    if any(t < 1 for t in a.T):
        p.error("--T values must be >= 1")
    if a.ncl < 1 or (a.net == "linear" and (a.features < 1 or a.ncl % a.features)):
        p.error("--ncl must be >= 1 (and a multiple of --features with --net linear)")
    return Options(
        out=a.out, T=sorted(set(a.T)), ncl=a.ncl, backends=list(dict.fromkeys(a.backends)), net=a.net,
        features=a.features, dtype=a.dtype, device=a.device, compiler=a.compiler, warmup=a.warmup, rep=a.rep,
        warm_compile=a.warm_compile, deadline_s=a.deadline_s, check=a.check,
    )


class SNNet(nn.Module):
    """``x -> [Linear ->] LIFNode -> sum()``: a scalar loss for one training step."""

    def __init__(self, backend: str, net: str, features: int) -> None:
        super().__init__()
        from flexsn_nn.neurons import LIFNode
        from flexsn_nn.surrogate import Sigmoid

        self.fc = nn.Linear(features, features) if net == "linear" else None
        self.sn = LIFNode(tau=2.0, surrogate_function=Sigmoid(), backend=backend, step_mode="m")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``x``: ``[T, NCL]`` (``sn``) or ``[T, B, F]`` (``linear``); returns the summed spikes (fp32)."""
        h = self.fc(x) if self.fc is not None else x
        spikes: torch.Tensor = self.sn(h)
        return spikes.float().sum()


class Recorder:
    """A Dynamo backend that records the Dynamo graph and AOTAutograd's forward / backward graphs, then compiles."""

    def __init__(self, compiler: str) -> None:
        self.compiler = compiler
        self.graphs: list[torch.fx.GraphModule] = []
        self.aot: dict[str, list[torch.fx.GraphModule]] = {"fw": [], "bw": []}

    def _record(self, graph: torch.fx.GraphModule, is_backward: bool | None) -> None:
        kind = "bw" if (is_backward if is_backward is not None else bool(self.aot["fw"])) else "fw"
        self.aot[kind].append(graph)

    def __call__(self, gm: torch.fx.GraphModule, example_inputs: list[torch.Tensor]) -> Any:
        """Record ``gm``; compile it with Inductor or AOTAutograd + no-op compilers (``aot_eager``)."""
        self.graphs.append(gm)
        if self.compiler == "inductor":
            from torch._inductor.compile_fx import compile_fx, compile_fx_inner

            def inner(graph: torch.fx.GraphModule, inputs: Any, **kwargs: Any) -> Any:
                self._record(graph, kwargs.get("is_backward"))
                return compile_fx_inner(graph, inputs, **kwargs)

            return compile_fx(gm, example_inputs, inner_compile=inner)
        from functorch.compile import make_boxed_func, min_cut_rematerialization_partition
        from torch._dynamo.backends.common import aot_autograd

        def keep(kind: str) -> Callable[..., Any]:
            def compiler(graph: torch.fx.GraphModule, inputs: Any) -> Any:
                self._record(graph, kind == "bw")
                return make_boxed_func(graph.forward)

            return compiler

        return aot_autograd(
            fw_compiler=keep("fw"), bw_compiler=keep("bw"),
            partition_fn=min_cut_rematerialization_partition, keep_inference_input_mutations=True,
        )(gm, example_inputs)


def _target_name(node: torch.fx.Node) -> str:
    target = node.target
    if isinstance(target, torch._ops.OpOverload):
        name = f"{target.namespace}.{target._opname}"
        # the final-state variant of flexsn::inference / flexsn::training (final_state=True)
        final = node.args[2] if len(node.args) > 2 else node.kwargs.get("final_state", False)
        return f"{name}_final_state" if name in ("flexsn.inference", "flexsn.training") and final else name
    return str(getattr(target, "__name__", target))


def _count(gm: torch.fx.GraphModule | None, names: Sequence[str]) -> int:
    if gm is None:
        return 0
    return sum(1 for n in gm.graph.nodes if n.op == "call_function" and _target_name(n) in names)


def graph_summary(rec: Recorder) -> dict[str, Any]:
    """What was captured: graph count, node counts, flex_sn_scan / flexsn op counts."""
    gm = rec.graphs[0] if rec.graphs else None
    fw = rec.aot["fw"][0] if rec.aot["fw"] else None
    bw = rec.aot["bw"][0] if rec.aot["bw"] else None
    return {
        "dynamo_graphs": len(rec.graphs),
        "dynamo_nodes": len(gm.graph.nodes) if gm is not None else 0,
        "flex_sn_scan_nodes": _count(gm, ("flex_sn_scan",)),
        "dynamo_flexsn_ops": _count(gm, TRAINING_OPS),
        "fw_graphs": len(rec.aot["fw"]),
        "fw_nodes": len(fw.graph.nodes) if fw is not None else 0,
        "fw_training_ops": _count(fw, TRAINING_OPS),
        "fw_final_state_ops": _count(fw, ("flexsn.training_final_state",)),
        "bw_backward_ops": _count(bw, ("flexsn.backward",)),
    }


def warm_ncl(opts: Options) -> int:
    """The per-step size of the warm-up compiles: small, and never the timed size (no Inductor cache hit)."""
    unit = opts.features if opts.net == "linear" else 1
    rows = opts.ncl // unit
    warm = max(1, min(rows, max(1, WARM_NCL // unit)) // 2)
    if warm == rows:
        warm = rows + 1
    return warm * unit


def _input(opts: Options, T: int, ncl: int, device: torch.device, seed: int) -> torch.Tensor:
    gen = torch.Generator(device="cpu").manual_seed(seed)
    shape = (T, ncl // opts.features, opts.features) if opts.net == "linear" else (T, ncl)
    x = (torch.rand(shape, generator=gen) * 2.0).to(device=device, dtype=DTYPES[opts.dtype])
    return x.requires_grad_()


def _make_net(opts: Options, backend: str, device: torch.device) -> SNNet:
    torch.manual_seed(0)
    return SNNet(backend, opts.net, opts.features).to(device=device, dtype=DTYPES[opts.dtype])


def _check(opts: Options, compiled_net: SNNet, loss: torch.Tensor, x: torch.Tensor, device: torch.device) -> dict[str, Any]:
    """Loss and input gradient of the compiled step against the eager ``torch`` backend (same parameters)."""
    ref = _make_net(opts, "torch", device)
    ref.load_state_dict(compiled_net.state_dict())
    xr = x.detach().clone().requires_grad_()
    ref.sn.reset()
    ref_loss = ref(xr)
    ref_loss.backward()
    assert x.grad is not None and xr.grad is not None
    diff = (x.grad.float() - xr.grad.float()).abs()
    tol = 1e-3 if opts.dtype == "fp32" else 5e-2
    result = {
        "loss": float(loss.detach()),
        "ref_loss": float(ref_loss),
        "grad_max_abs_err": float(diff.max()),
        "grad_frac_gt_tol": float((diff > tol * (1.0 + xr.grad.float().abs())).float().mean()),
    }
    del ref, xr, ref_loss, diff
    return result


def _cache_counters() -> dict[str, int]:
    """Inductor / AOTAutograd cache hit and miss counters (a timed compile should show misses only)."""
    try:
        from torch._dynamo.utils import counters
    except Exception:  # noqa: BLE001 - diagnostics only
        return {}
    return {
        f"{group}.{name}": int(value)
        for group in ("inductor", "aot_autograd")
        for name, value in counters[group].items()
        if "cache" in name
    }


def measure(opts: Options, backend: str, T: int, device: torch.device, timed: bool = True) -> dict[str, Any]:
    """Compile one (backend, T) after ``torch._dynamo.reset()``: compile seconds, graphs, step ms, check."""
    ncl = opts.ncl if timed else warm_ncl(opts)
    row: dict[str, Any] = {"backend": backend, "T": T, "ncl": ncl, "status": "ok", "note": ""}
    torch._dynamo.reset()
    free_memory(device)
    net = _make_net(opts, backend, device)
    x = _input(opts, T, ncl, device, seed=T)
    rec = Recorder(opts.compiler)
    compiled = torch.compile(net, backend=rec, fullgraph=True, dynamic=False)
    before = _cache_counters()
    sync(device)
    t0 = time.perf_counter()
    net.sn.reset()
    loss = compiled(x)
    sync(device)
    t1 = time.perf_counter()
    loss.backward()
    sync(device)
    t2 = time.perf_counter()
    row.update(first_call_s=round(t1 - t0, 3), first_step_s=round(t2 - t0, 3))
    after = _cache_counters()
    row["cache_hits"] = {k: after[k] - before.get(k, 0) for k in after if after[k] - before.get(k, 0)}
    row.update(graph_summary(rec))
    row["fused"] = (
        row["dynamo_graphs"] == 1 and row["fw_training_ops"] == 1 and row["bw_backward_ops"] == 1
        and (backend != "hop" or row["flex_sn_scan_nodes"] == 1)
    )
    if not timed:
        return row
    if opts.check:
        row["check"] = _check(opts, net, loss, x, device)
    del loss

    def step() -> None:
        net.sn.reset()
        x.grad = None
        compiled(x).backward()

    bench = do_bench_median if device.type == "cuda" else cpu_bench_median
    row["ms"] = round(bench(step, opts.warmup, opts.rep), 4)
    row["compile_s"] = round(max(0.0, row["first_step_s"] - row["ms"] / 1e3), 3)
    row["recompiles"] = len(rec.graphs) - 1
    del x, net, compiled, rec
    free_memory(device)
    return row


def targets(results: list[dict[str, Any]], opts: Options) -> list[dict[str, Any]]:
    """PASS / FAIL / n/a of the issue's targets."""
    rows = {(r["backend"], r["T"]): r for r in results if r.get("status") == "ok"}
    out: list[dict[str, Any]] = []
    for T in opts.T:
        hop, tri = rows.get(("hop", T)), rows.get(("triton", T))
        if hop and tri and hop.get("ms") and tri.get("ms"):
            ratio = hop["ms"] / tri["ms"]
            out.append({"target": f"step hop/triton T={T} <= {STEP_RATIO_TARGET}", "value": round(ratio, 3),
                        "status": "PASS" if ratio <= STEP_RATIO_TARGET else "FAIL"})
        else:
            out.append({"target": f"step hop/triton T={T} <= {STEP_RATIO_TARGET}", "value": None, "status": "n/a"})
    lo, hi = rows.get(("hop", opts.T[0])), rows.get(("hop", opts.T[-1]))
    name = f"compile hop T={opts.T[-1]}/T={opts.T[0]} <= {COMPILE_RATIO_TARGET} (or +{COMPILE_SLACK_S:g} s)"
    if lo and hi and len(opts.T) > 1:
        a, b = lo["compile_s"], hi["compile_s"]
        ratio = b / a if a > 0 else float("inf")
        ok = ratio <= COMPILE_RATIO_TARGET or b - a <= COMPILE_SLACK_S
        out.append({"target": name, "value": round(ratio, 3), "status": "PASS" if ok else "FAIL"})
    else:
        out.append({"target": name, "value": None, "status": "n/a"})
    for T in opts.T:
        hop = rows.get(("hop", T))
        out.append({"target": f"hop fused (1 graph, 1 flex_sn_scan, 1 training op) T={T}",
                    "value": None if hop is None else hop["fused"],
                    "status": "n/a" if hop is None else ("PASS" if hop["fused"] else "FAIL")})
    return out


def compact_table(results: list[dict[str, Any]], opts: Options) -> str:
    """The results, one line per (T, backend)."""
    by = {(r["backend"], r["T"]): r for r in results}
    lines = [
        f"COMPACT compile_bench ({opts.device}, {opts.dtype}, ncl={opts.ncl}, net={opts.net}, compiler={opts.compiler})",
        f"{'T':>4} {'backend':<8} {'step_ms':>9} {'vs_triton':>9} {'compile_s':>9} {'1st_fwd_s':>9} "
        f"{'graphs':>6} {'scan':>4} {'train_op':>8} {'fused':>5} {'grad_err':>9}",
    ]
    for T in opts.T:
        tri = by.get(("triton", T))
        for backend in opts.backends:
            r = by.get((backend, T))
            if r is None:
                continue
            if r["status"] != "ok":
                lines.append(f"{T:>4} {backend:<8} {r['status']}: {r['note'][:80]}")
                continue
            ms = r.get("ms")
            rel = f"{ms / tri['ms']:.3f}" if ms and tri and tri.get("status") == "ok" and tri.get("ms") else "-"
            err = r.get("check", {}).get("grad_max_abs_err")
            lines.append(
                f"{T:>4} {backend:<8} {ms if ms is not None else '-':>9} {rel:>9} {r['compile_s']:>9.2f} "
                f"{r['first_call_s']:>9.2f} {r['dynamo_graphs']:>6} {r['flex_sn_scan_nodes']:>4} "
                f"{r['fw_training_ops']:>8} {str(r['fused']):>5} {'-' if err is None else f'{err:.1e}':>9}"
            )
    return "\n".join(lines)


def targets_table(rows: list[dict[str, Any]]) -> str:
    """One line per target: status, value, name."""
    lines = ["TARGETS"]
    for t in rows:
        lines.append(f"{t['status']:<5} {str(t['value']):>7}  {t['target']}")
    return "\n".join(lines)


def _meta(opts: Options) -> dict[str, Any]:
    import triton

    meta: dict[str, Any] = {
        "torch": torch.__version__, "triton": triton.__version__, "python": platform.python_version(),
        "device": opts.device, "triton_interpret": os.environ.get("TRITON_INTERPRET", ""),
        "inductor_cache": os.environ.get("TORCHINDUCTOR_CACHE_DIR", ""),
    }
    if opts.device.startswith("cuda"):
        meta["gpu"] = torch.cuda.get_device_name(torch.device(opts.device))
    opts_dict = asdict(opts)
    opts_dict["out"] = str(opts.out)
    meta["options"] = opts_dict
    return meta


@dataclass
class Report:
    """Everything written to ``compile_bench.json``."""

    meta: dict[str, Any]
    warm: list[dict[str, Any]] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)
    targets: list[dict[str, Any]] = field(default_factory=list)

    def write(self, out: Path) -> None:
        """Rewrite ``out/compile_bench.json``."""
        out.mkdir(parents=True, exist_ok=True)
        tmp = out / "compile_bench.json.tmp"
        tmp.write_text(json.dumps(asdict(self), indent=2, default=str), encoding="utf-8")
        tmp.replace(out / "compile_bench.json")


def _guarded(fn: Callable[[], dict[str, Any]], backend: str, T: int) -> dict[str, Any]:
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - one failing case must not lose the others
        traceback.print_exc()
        return {"backend": backend, "T": T, "status": "error", "note": f"{type(exc).__name__}: {exc}"}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; returns the exit status (0 unless nothing could be measured)."""
    opts = parse_args(argv)
    own_cache = None
    if "TORCHINDUCTOR_CACHE_DIR" not in os.environ:  # fresh: compile times must not come from a disk cache
        own_cache = tempfile.mkdtemp(prefix="flexsn-compile-bench-inductor-")
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = own_cache
    try:
        return _run(opts)
    finally:
        if own_cache is not None:
            shutil.rmtree(own_cache, ignore_errors=True)


def _run(opts: Options) -> int:
    """Warm-up compiles, timed compiles and steps, then the report (JSON, compact table, targets)."""
    start = time.perf_counter()
    device = torch.device(opts.device)
    import flexsn_nn  # noqa: F401 - import (and flexsn_hop's Dynamo registration) before timing

    report = Report(meta=_meta(opts))
    print(f"compile_bench: {report.meta}", flush=True)
    if opts.warm_compile:
        for backend in opts.backends:
            for T in opts.T:
                if time.perf_counter() - start > opts.deadline_s / 2:
                    print("warm-up compiles stopped at half the deadline", flush=True)
                    break
                row = _guarded(lambda: measure(opts, backend, T, device, timed=False), backend, T)
                report.warm.append(row)
                print(f"warm  {backend:<8} T={T:<4} first step {row.get('first_step_s', '-')} s  {row['note']}", flush=True)
        report.write(opts.out)
    for T in opts.T:
        for backend in opts.backends:
            if time.perf_counter() - start > opts.deadline_s:
                row = {"backend": backend, "T": T, "status": "skipped", "note": f"past --deadline-s {opts.deadline_s:g}"}
            else:
                row = _guarded(lambda: measure(opts, backend, T, device), backend, T)
            report.results.append(row)
            report.write(opts.out)
            print(
                f"timed {backend:<8} T={T:<4} {row['status']} ms={row.get('ms', '-')} "
                f"compile={row.get('compile_s', '-')} s fused={row.get('fused', '-')} {row['note']}",
                flush=True,
            )
    report.targets = targets(report.results, opts)
    report.meta["total_s"] = round(time.perf_counter() - start, 1)
    report.write(opts.out)
    print(f"wrote {opts.out / 'compile_bench.json'} ({report.meta['total_s']} s)")
    print(compact_table(report.results, opts))
    print(targets_table(report.targets), flush=True)
    return 0 if any(r.get("status") == "ok" for r in report.results) else 1


if __name__ == "__main__":
    sys.exit(main())
