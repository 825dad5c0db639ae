#!/usr/bin/env python3
"""FlexSN benchmark: our Triton scan next to the torch loop, ``torch.compile`` and ``x.clone()``.

One process, one device. For a LIF neuron (1 input, 1 state, 1 output) and
an adaptive-threshold LIF with 2 inputs, 2 states and 2 outputs ("2x2"),
each in inference and training (forward + backward with random output
gradients), over ``T`` and dtypes, it times:

* ``triton``  -- FlexSN's generated kernels (``flexsn_nn.FlexSN`` when that
  layer is importable and passes a numerical check, else
  ``flexsn_runtime.FlexSNKernel``), final states only (no state sequences);
* ``torch``   -- the eager Python loop over ``T`` calling the same core;
* ``compile`` -- ``torch.compile`` of that loop (one compile per case);
* ``clone``   -- ``x.clone()`` of one ``[T, NCL]`` input: the bandwidth
  floor (read once, write once).

The copy ratio of an impl is ``time(x.clone()) / time(impl)`` in the same
dtype and ``T``; 1.0 for LIF inference means copy bandwidth.

Also measured: construction-to-first-result time in fresh processes (cold:
empty ``FLEXSN_CACHE_DIR`` and ``TRITON_CACHE_DIR``; warm: the same folders
again), and, on CUDA, the memory one training step holds (in units of one
``[T, NCL]`` tensor).

Results go to ``--out``: ``bench.json`` (rewritten after every measurement,
so a run cut short keeps what it had) and ``bench.png``. The last lines of
stdout are a compact results table and a PASS/FAIL targets table.

GPU::

    PYTHONPATH=$(ls -d packages/*/src | tr '\\n' ':') python3 tools/bench.py --out OUT

A run keeps to ``--budget-s`` (measurements that would overrun it are
skipped, ``torch.compile`` ones last and first to go) and stops at
``--deadline-s`` in any case, reporting what it has. Where compile
measurements get skipped, measure them in a second command:
``--impls compile clone --no-startup``.

CPU (Triton interpreter, tiny)::

    TRITON_INTERPRET=1 python3 tools/bench.py --out OUT --ncl 300 --T 4 \\
        --dtypes fp32 --impls triton torch clone --warmup 0 --rep 1
"""

from __future__ import annotations

import argparse
import gc
import inspect
import json
import math
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import torch

TOOLS_DIR = Path(__file__).resolve().parent

Tensor = torch.Tensor
ImplFn = Callable[..., Sequence[Tensor]]

CASES = ("lif-inference", "lif-training", "2x2-inference", "2x2-training")
IMPLS = ("triton", "torch", "compile", "clone")
DTYPES: dict[str, torch.dtype] = {"fp32": torch.float32, "bf16": torch.bfloat16}
DEFAULT_T = (4, 8, 32, 128)
QUICK_T = (8, 32)
DEFAULT_NCL = 4_194_304

#: (case, T, minimum copy ratio); applied to every dtype ("bf16 >= the fp32 targets").
RATIO_TARGETS: tuple[tuple[str, int, float], ...] = (
    ("lif-inference", 32, 0.90),
    ("lif-inference", 8, 0.75),
    ("lif-training", 32, 0.30),
    ("lif-training", 8, 0.25),
    ("2x2-inference", 32, 0.45),
    ("2x2-training", 32, 0.15),
)
#: neuron -> (cold seconds, warm seconds) limits for construction-to-first-result.
STARTUP_TARGETS: dict[str, tuple[float, float]] = {"lif": (3.0, 1.0), "2x2": (5.0, 1.0)}
#: assumed seconds for a first torch.compile of a case (before one was measured), for the time budget.
COMPILE_GUESS_S = 20.0
#: extra [T, NCL] units tolerated above "one saved tensor per state sequence".
MEMORY_SLACK_UNITS = 0.05

# --------------------------------------------------------------------------- neurons

TAU = 2.0
V_TH = 1.0
ALPHA = 4.0
RHO = 0.9
BETA = 0.2


class SigmoidSurrogate(torch.autograd.Function):
    """Heaviside spike with a sigmoid surrogate gradient (``alpha = 4``)."""

    @staticmethod
    def forward(x: Tensor) -> Tensor:  # type: ignore[override, unused-ignore]
        """``(x >= 0)`` in ``x``'s dtype."""
        return (x >= 0).to(x.dtype)

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
        """Save the input for the surrogate gradient."""
        (x,) = inputs
        ctx.save_for_backward(x)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:  # type: ignore[override, unused-ignore]
        """``grad * alpha * sigmoid(alpha x) * (1 - sigmoid(alpha x))``."""
        (x,) = ctx.saved_tensors
        sg = torch.sigmoid(ALPHA * x)
        return grad * ALPHA * sg * (1.0 - sg)


def _own_spike(x: Tensor) -> Tensor:
    out: Tensor = SigmoidSurrogate.apply(x)  # type: ignore[no-untyped-call, unused-ignore]
    return out


_spike: Callable[[Tensor], Tensor] = _own_spike
_surrogate_name = "own"


def _nn_spike_fn() -> Callable[[Tensor], Tensor] | None:
    """``flexsn_nn.surrogate.Sigmoid`` as a callable spike function, if it exists and behaves."""
    try:
        from flexsn_nn import surrogate as sur  # type: ignore[attr-defined, unused-ignore]
    except Exception:
        return None
    cls = getattr(sur, "Sigmoid", None)
    if cls is None:
        return None
    candidates: list[Callable[[Tensor], Tensor]] = []
    if isinstance(cls, type) and issubclass(cls, torch.autograd.Function):
        candidates.append(lambda x: cls.apply(x))  # type: ignore[no-untyped-call, no-any-return, unused-ignore]
    else:
        for ctor_args in ((ALPHA,), ()):
            try:
                inst = cls(*ctor_args)
            except Exception:
                continue
            if callable(inst):
                candidates.append(inst)
                break
        if callable(cls) and not isinstance(cls, type):
            candidates.append(cls)
    for fn in candidates:
        try:
            x = torch.tensor([-1.0, -0.1, 0.0, 0.1, 1.0], requires_grad=True)
            y = fn(x)
            if not torch.equal(y.detach(), (x.detach() >= 0).float()):
                continue
            torch.autograd.backward([y.sum()])
            g = x.grad
            if g is None or not bool(torch.isfinite(g).all()) or float(g.abs().sum()) <= 0:
                continue
            return fn
        except Exception:
            continue
    return None


def set_surrogate(name: str) -> str:
    """Select the spike function the cores use: ``"own"``, ``"nn"`` or ``"auto"``.

    Returns the name actually in use (``"auto"`` resolves to ``"nn"`` when
    ``flexsn_nn.surrogate.Sigmoid`` is importable and sane, else ``"own"``).
    """
    global _spike, _surrogate_name
    fn = _nn_spike_fn() if name in ("auto", "nn") else None
    if fn is not None:
        _spike, _surrogate_name = fn, "nn"
    else:
        if name == "nn":
            print("note: flexsn_nn.surrogate.Sigmoid is not usable; using the built-in surrogate", flush=True)
        _spike, _surrogate_name = _own_spike, "own"
    return _surrogate_name


def lif_core(x: Tensor, v: Tensor) -> tuple[Tensor, Tensor]:
    """LIF step, hard reset to 0: ``h = v + (x - v)/tau; s = H(h - v_th); v = h (1 - s)``."""
    h = v + (x - v) / TAU
    s = _spike(h - V_TH)
    return s, h * (1.0 - s)


def alif_core(x: Tensor, g: Tensor, v: Tensor, a: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Adaptive-threshold LIF step (2 inputs, 2 states, 2 outputs).

    Inputs: current ``x`` and adaptation gate ``g``; states: membrane ``v``
    and threshold adaptation ``a``; outputs: spikes ``s`` and the pre-reset
    membrane ``h``.
    """
    h = v + (x - v) / TAU
    s = _spike(h - (V_TH + a))
    v_new = h * (1.0 - s)
    a_new = RHO * a + BETA * torch.sigmoid(g) * s
    return s, h, v_new, a_new


@dataclass(frozen=True)
class Neuron:
    """A benchmarked core and its arity."""

    name: str
    core: Callable[..., tuple[Tensor, ...]]
    ni: int
    ns: int
    no: int


NEURONS: dict[str, Neuron] = {
    "lif": Neuron("lif", lif_core, 1, 1, 1),
    "2x2": Neuron("2x2", alif_core, 2, 2, 2),
}


def case_parts(case: str) -> tuple[Neuron, bool]:
    """``"lif-training"`` -> (the LIF neuron, training=True)."""
    name, mode = case.split("-", 1)
    return NEURONS[name], mode == "training"


# --------------------------------------------------------------------------- impls


def make_loop(neuron: Neuron) -> ImplFn:
    """The eager Python loop over ``T`` calling ``neuron.core``: ``(*xs) -> (*output_seqs, *final_states)``."""
    core, ni, ns, no = neuron.core, neuron.ni, neuron.ns, neuron.no

    def loop(*xs: Tensor) -> tuple[Tensor, ...]:
        T = xs[0].shape[0]
        states = [torch.zeros_like(xs[0][0]) for _ in range(ns)]
        outs: list[list[Tensor]] = [[] for _ in range(no)]
        for t in range(T):
            res = core(*(x[t] for x in xs[:ni]), *states)
            for k in range(no):
                outs[k].append(res[k])
            states = list(res[no:])
        return (*(torch.stack(o) for o in outs), *states)

    return loop


def _as_tuple(res: Any) -> tuple[Tensor, ...]:
    return (res,) if isinstance(res, torch.Tensor) else tuple(res)


@dataclass
class TritonImpl:
    """Our backend for one neuron: the callable and how it was built."""

    fn: ImplFn
    api: str
    uses_kernels: Callable[[Sequence[Tensor]], bool]
    build_s: float
    notes: list[str] = field(default_factory=list)


def _check_close(a: Sequence[Tensor], b: Sequence[Tensor], n: int) -> str | None:
    for i in range(n):
        x, y = a[i].float(), b[i].float()
        if x.shape != y.shape:
            return f"output {i} shape {tuple(x.shape)} != {tuple(y.shape)}"
        bad = float((x - y).abs().gt(1e-3 + 1e-3 * y.abs()).float().mean())
        if bad > 0.01:
            return f"output {i} differs from the torch loop in {bad:.1%} of elements"
    return None


def _nn_impl(neuron: Neuron, device: torch.device, check: bool = True) -> TritonImpl:
    """``flexsn_nn.FlexSN(..., backend="triton", store_state_seqs=False)``, checked against the loop if ``check``."""
    from flexsn_nn import FlexSN  # type: ignore[attr-defined, unused-ignore]

    t0 = time.perf_counter()
    try:
        mod = FlexSN(neuron.core, neuron.ni, neuron.ns, neuron.no, backend="triton", store_state_seqs=False, step_mode="m")
    except TypeError:
        mod = FlexSN(neuron.core, neuron.ni, neuron.ns, neuron.no, backend="triton", store_state_seqs=False)
    mod = mod.to(device)
    build_s = time.perf_counter() - t0
    reset = getattr(mod, "reset", None)

    def fn(*xs: Tensor) -> tuple[Tensor, ...]:
        if callable(reset):
            reset()
        return _as_tuple(mod(*xs))

    def uses(xs: Sequence[Tensor]) -> bool:
        probe = getattr(mod, "uses_kernels", None)
        if not callable(probe):
            probe = getattr(getattr(mod, "kernel", None), "uses_kernels", None)
        if callable(probe):
            return bool(probe(*xs))
        return xs[0].device.type == "cuda" or os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")

    if not check:
        return TritonImpl(fn, "flexsn_nn.FlexSN", uses, build_s)
    # Numerical check (forward and input gradients) against the eager loop.
    gen = torch.Generator(device="cpu").manual_seed(0)
    xs = [(torch.randn(3, 64, generator=gen) * 2).to(device).requires_grad_() for _ in range(neuron.ni)]
    xr = [x.detach().clone().requires_grad_() for x in xs]
    out = fn(*xs)
    ref = make_loop(neuron)(*xr)
    if len(out) < neuron.no:
        raise RuntimeError(f"FlexSN returned {len(out)} tensors, expected at least {neuron.no}")
    why = _check_close(out, ref, neuron.no)
    if why:
        raise RuntimeError(why)
    torch.autograd.backward(list(out[: neuron.no]), [torch.ones_like(o) for o in out[: neuron.no]])
    torch.autograd.backward(list(ref[: neuron.no]), [torch.ones_like(o) for o in ref[: neuron.no]])
    why = _check_close([x.grad for x in xs if x.grad is not None], [x.grad for x in xr if x.grad is not None], neuron.ni)
    if why:
        raise RuntimeError("gradients: " + why)
    return TritonImpl(fn, "flexsn_nn.FlexSN", uses, build_s)


def make_triton_impl(neuron: Neuron, device: torch.device, api: str = "auto", check: bool = True) -> TritonImpl:
    """Our backend: ``flexsn_nn.FlexSN`` (api ``nn``/``auto`` when it works) else ``FlexSNKernel.final_state``.

    ``check``: run ``flexsn_nn.FlexSN`` once against the torch loop
    (forward and gradients) and fall back to ``FlexSNKernel`` if it differs
    (off for startup timing).
    """
    notes: list[str] = []
    if api in ("auto", "nn"):
        try:
            impl = _nn_impl(neuron, device, check)
            return impl
        except ImportError as exc:
            notes.append(f"flexsn_nn not usable ({exc}); FlexSNKernel used")
        except Exception as exc:  # noqa: BLE001 - any failure of the layer under construction
            notes.append(f"flexsn_nn.FlexSN failed ({type(exc).__name__}: {exc}); FlexSNKernel used")
    from flexsn_runtime import FlexSNKernel

    t0 = time.perf_counter()
    k = FlexSNKernel(neuron.core, neuron.ni, neuron.ns, neuron.no)
    build_s = time.perf_counter() - t0
    if k.handle is None:
        notes.append(f"FlexSNKernel fell back to the eager loop: {k.fallback_reason}")

    def fn(*xs: Tensor) -> tuple[Tensor, ...]:
        return k.final_state(*xs)

    return TritonImpl(fn, "FlexSNKernel.final_state", lambda xs: k.uses_kernels(*xs), build_s, notes)


# --------------------------------------------------------------------------- timing


def do_bench_median(fn: Callable[[], Any], warmup: int, rep: int) -> float:
    """Median ms of ``fn`` with ``triton.testing.do_bench`` (CUDA events, L2 flushed between runs).

    Works across Triton versions: uses ``return_mode="median"`` where the
    signature has it, else ``quantiles=[0.5]``, else the default return.
    """
    from triton.testing import do_bench

    params = inspect.signature(do_bench).parameters
    if "return_mode" in params:
        res: Any = do_bench(fn, warmup=warmup, rep=rep, return_mode="median")
    elif "quantiles" in params:
        res = do_bench(fn, warmup=warmup, rep=rep, quantiles=[0.5])
    else:
        res = do_bench(fn, warmup=warmup, rep=rep)
    if isinstance(res, (list, tuple)):
        res = res[0]
    return float(res)


def cpu_bench_median(fn: Callable[[], Any], warmup: int, rep: int, min_runs: int = 3, max_runs: int = 1000) -> float:
    """Median ms of ``fn`` with ``time.perf_counter`` (warm up for ``warmup`` ms, at least once)."""
    t_end = time.perf_counter() + warmup / 1e3
    fn()
    while time.perf_counter() < t_end:
        fn()
    times: list[float] = []
    t_end = time.perf_counter() + rep / 1e3
    while len(times) < min_runs or (time.perf_counter() < t_end and len(times) < max_runs):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def sync(device: torch.device) -> None:
    """Wait for queued work on ``device``."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)


# --------------------------------------------------------------------------- benchmark state


@dataclass
class Options:
    """Parsed command line."""

    T: list[int]
    ncl: int
    dtypes: list[str]
    impls: list[str]
    cases: list[str]
    warmup: int
    rep: int
    out: Path
    startup: bool
    max_gb: float
    budget_s: float
    device: torch.device
    api: str
    surrogate: str
    rotate_mb: float
    startup_timeout_s: float
    startup_neurons: list[str]
    deadline_s: float


@dataclass
class Bench:
    """Everything measured so far, plus what is needed to measure more."""

    opts: Options
    meta: dict[str, Any]
    t_start: float = field(default_factory=time.perf_counter)
    results: list[dict[str, Any]] = field(default_factory=list)
    clone_ms: dict[tuple[str, int], float] = field(default_factory=dict)
    startup: dict[str, Any] = field(default_factory=dict)
    triton_impls: dict[str, TritonImpl] = field(default_factory=dict)
    checks: dict[str, Any] = field(default_factory=dict)
    compile_s: dict[tuple[str, str, int], float] = field(default_factory=dict)

    def elapsed(self) -> float:
        """Seconds since the benchmark started."""
        return time.perf_counter() - self.t_start

    def to_json(self) -> dict[str, Any]:
        """The JSON document written to ``bench.json``."""
        return {
            "meta": self.meta,
            "results": self.results,
            "clone_ms": [{"dtype": d, "T": T, "ms": ms} for (d, T), ms in sorted(self.clone_ms.items())],
            "startup": self.startup,
            "checks": self.checks,
            "targets": evaluate_targets(self),
        }

    def save(self, final: bool = False) -> None:
        """Write ``bench.json`` atomically (after an early stop began, only :func:`finish` writes)."""
        if _stopping.is_set() and not final:
            return
        path = self.opts.out / "bench.json"
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(self.to_json(), indent=1, default=str), encoding="utf-8")
        os.replace(tmp, path)

    def find(self, case: str, dtype: str, T: int, impl: str) -> dict[str, Any] | None:
        """The result row for one measurement, if any."""
        for r in self.results:
            if r["case"] == case and r["dtype"] == dtype and r["T"] == T and r["impl"] == impl:
                return r
        return None


def _unit_bytes(T: int, ncl: int, dtype: torch.dtype) -> int:
    return T * ncl * torch.empty((), dtype=dtype).element_size()


def n_rotations(opts: Options, neuron: Neuron, T: int, dtype: torch.dtype) -> int:
    """How many input sets to rotate through (1 when one set exceeds ``--rotate-mb``/3)."""
    set_bytes = (neuron.ni + neuron.no) * _unit_bytes(T, opts.ncl, dtype)
    return max(1, min(3, int(opts.rotate_mb * 2**20 // max(1, set_bytes))))


def estimate_units(impl: str, neuron: Neuron, training: bool, K: int) -> float:
    """Rough peak memory of one measurement, in ``[T, NCL]`` units (for the ``--max-gb`` guard)."""
    ni, ns, no = neuron.ni, neuron.ns, neuron.no
    held = K * (ni + (no if training else 0))  # inputs (+ output grads)
    if impl == "clone":
        return K + 1
    if impl == "triton":
        return held + no + ns + (ni + 2 if training else 1)
    if not training:
        return held + 2 * no + 2
    per_step = {"lif": 5.0, "2x2": 10.0}.get(neuron.name, 16.0)  # autograd keeps 3 (LIF) / 6 (2x2), + grads
    if impl == "compile":
        per_step = ns + no + 2.0
    return held + ni + no + per_step + 2


# --------------------------------------------------------------------------- measurement


def _inputs(neuron: Neuron, T: int, ncl: int, dtype: torch.dtype, device: torch.device, training: bool, K: int, seed: int) -> tuple[list[list[Tensor]], list[list[Tensor]]]:
    gen = torch.Generator(device=device).manual_seed(seed)
    sets: list[list[Tensor]] = []
    grads: list[list[Tensor]] = []
    for _ in range(K):
        xs = [(torch.randn(T, ncl, device=device, generator=gen) * 1.5 + 0.5).to(dtype) for _ in range(neuron.ni)]
        if training:
            for x in xs:
                x.requires_grad_(True)
            grads.append([torch.randn(T, ncl, device=device, generator=gen).to(dtype) for _ in range(neuron.no)])
        sets.append(xs)
    return sets, grads


def _step_fn(impl_fn: ImplFn, sets: list[list[Tensor]], grads: list[list[Tensor]], no: int, training: bool) -> Callable[[], None]:
    """One timed call, rotating through the input sets."""
    state = {"i": 0}

    def run() -> None:
        i = state["i"]
        state["i"] = (i + 1) % len(sets)
        xs = sets[i]
        if training:
            for x in xs:
                x.grad = None
            out = impl_fn(*xs)
            torch.autograd.backward(list(out[:no]), grads[i])
        else:
            with torch.no_grad():
                impl_fn(*xs)

    return run


def measure_memory(impl_fn: ImplFn, xs: list[Tensor], grads: list[Tensor], neuron: Neuron, T: int, ncl: int, device: torch.device) -> dict[str, Any]:
    """Memory of one forward+backward on CUDA, in ``[T, NCL]`` units.

    ``held_after_forward``: what the forward leaves allocated (outputs, final
    states, tensors saved for backward); ``saved``: that minus the outputs
    and final states; ``peak``: ``max_memory_allocated`` delta over
    forward+backward (includes input gradients and backward temporaries).
    Inputs and output gradients exist before and are not counted.
    """
    unit = _unit_bytes(T, ncl, xs[0].dtype)
    for x in xs:
        x.grad = None
    gc.collect()
    sync(device)
    torch.cuda.reset_peak_memory_stats(device)
    base = torch.cuda.memory_allocated(device)
    out = impl_fn(*xs)
    sync(device)
    after_fwd = torch.cuda.memory_allocated(device) - base
    torch.autograd.backward(list(out[: neuron.no]), grads)
    del out
    sync(device)
    peak = torch.cuda.max_memory_allocated(device) - base
    for x in xs:
        x.grad = None
    outputs_units = neuron.no + neuron.ns / T
    saved = after_fwd / unit - outputs_units
    return {
        "peak_units": round(peak / unit, 3),
        "held_after_forward_units": round(after_fwd / unit, 3),
        "saved_units": round(saved, 3),
        "io_tensors": neuron.ni + neuron.no,
        "state_seqs": neuron.ns,
        "target_saved_units": neuron.ns,
        "pass": bool(saved <= neuron.ns + MEMORY_SLACK_UNITS),
        "ideal_peak_units": neuron.no + neuron.ns + neuron.ni,  # outputs + saved states + input grads
    }


def _time(fn: Callable[[], None], opts: Options) -> float:
    if opts.device.type == "cuda":
        return do_bench_median(fn, opts.warmup, opts.rep)
    return cpu_bench_median(fn, opts.warmup, opts.rep)


def _free(device: torch.device) -> None:
    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()


def measure_clone(b: Bench, dtype_name: str, T: int) -> float | None:
    """``x.clone()`` of one ``[T, NCL]`` tensor (memoised per dtype and ``T``)."""
    key = (dtype_name, T)
    if key in b.clone_ms:
        return b.clone_ms[key]
    opts = b.opts
    dtype = DTYPES[dtype_name]
    K = max(1, min(3, int(opts.rotate_mb * 2**20 // max(1, _unit_bytes(T, opts.ncl, dtype)))))
    need = (K + 1) * _unit_bytes(T, opts.ncl, dtype) / 2**30
    if need > opts.max_gb:
        return None
    gen = torch.Generator(device=opts.device).manual_seed(1000 + T)
    xs = [torch.randn(T, opts.ncl, device=opts.device, generator=gen).to(dtype) for _ in range(K)]
    state = {"i": 0}

    def run() -> None:
        i = state["i"]
        state["i"] = (i + 1) % K
        xs[i].clone()

    run()
    sync(opts.device)
    ms = _time(run, opts)
    del xs
    _free(opts.device)
    b.clone_ms[key] = ms
    return ms


def measure(b: Bench, case: str, dtype_name: str, T: int, impl: str) -> dict[str, Any]:
    """Time one (case, dtype, T, impl); returns the result row (also appended to ``b.results``)."""
    opts = b.opts
    neuron, training = case_parts(case)
    dtype = DTYPES[dtype_name]
    row: dict[str, Any] = {
        "case": case, "neuron": neuron.name, "mode": "training" if training else "inference",
        "dtype": dtype_name, "T": T, "ncl": opts.ncl, "impl": impl,
        "ms": None, "copy_ratio": None, "status": "running", "note": "",
    }
    b.results = [r for r in b.results if not (r["case"] == case and r["dtype"] == dtype_name and r["T"] == T and r["impl"] == impl)]
    b.results.append(row)
    clone = measure_clone(b, dtype_name, T)
    row["clone_ms"] = clone
    K = n_rotations(opts, neuron, T, dtype)
    need_gb = estimate_units(impl, neuron, training, K) * _unit_bytes(T, opts.ncl, dtype) / 2**30
    row["est_gb"] = round(need_gb, 2)
    if need_gb > opts.max_gb:
        row.update(status="skipped", note=f"estimated {need_gb:.1f} GB > --max-gb {opts.max_gb:.1f}")
        return row
    if impl == "compile":
        prev = [(t, s) for (c, d, t), s in b.compile_s.items() if c == case and t < T]
        t_prev, s_prev = max(prev) if prev else (4, COMPILE_GUESS_S)
        predicted = s_prev * max(1.0, T / t_prev) ** 1.2
        if b.elapsed() + predicted > opts.budget_s:
            row.update(status="skipped", note=f"time budget: compile predicted {predicted:.0f} s, {opts.budget_s - b.elapsed():.0f} s left")
            return row
    if b.elapsed() > opts.budget_s:
        row.update(status="skipped", note=f"time budget {opts.budget_s:.0f} s used up")
        return row

    sets: list[list[Tensor]] = []
    grads: list[list[Tensor]] = []
    try:
        if impl == "clone":
            if clone is None:
                row.update(status="skipped", note="clone does not fit --max-gb")
                return row
            row.update(ms=clone, copy_ratio=1.0, status="ok")
            return row
        if impl == "triton":
            timpl = get_triton_impl(b, neuron)
            impl_fn: ImplFn = timpl.fn
            row["api"] = timpl.api
        elif impl == "torch":
            impl_fn = make_loop(neuron)
        elif impl == "compile":
            import torch._dynamo as torch_dynamo  # "import torch._dynamo" would make torch local to measure()

            torch_dynamo.reset()
            impl_fn = torch.compile(make_loop(neuron), dynamic=False)
        else:
            raise ValueError(f"unknown impl {impl!r}")

        sets, grads = _inputs(neuron, T, opts.ncl, dtype, opts.device, training, K, seed=zlib.crc32(f"{case}|{T}".encode()) % 10_000)
        if impl == "triton" and not b.triton_impls[neuron.name].uses_kernels(sets[0]):
            row["note"] = "FALLBACK: FlexSN ran the eager loop, not its kernels"
        run = _step_fn(impl_fn, sets, grads, neuron.no, training)
        t0 = time.perf_counter()
        run()
        sync(opts.device)
        first_s = time.perf_counter() - t0
        row["first_call_s"] = round(first_s, 3)
        if impl == "compile":
            b.compile_s[(case, dtype_name, T)] = first_s
        ms = _time(run, opts)
        row["ms"] = ms
        row["copy_ratio"] = (clone / ms) if clone and ms > 0 else None
        row["rotations"] = K
        if training and opts.device.type == "cuda":
            row["memory"] = measure_memory(impl_fn, sets[0], grads[0], neuron, T, opts.ncl, opts.device)
        if row["status"] == "running":  # not "cut" by an early stop meanwhile
            row["status"] = "ok"
    except torch.cuda.OutOfMemoryError as exc:
        if row["status"] == "running":
            row.update(status="oom", note=str(exc).splitlines()[0][:200])
    except Exception as exc:  # noqa: BLE001 - one failure must not end the run
        if row["status"] == "running":
            row.update(status="error", note=f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:300])
            traceback.print_exc(limit=4)
    finally:
        del sets, grads
        _free(opts.device)
    return row


def get_triton_impl(b: Bench, neuron: Neuron) -> TritonImpl:
    """Our backend for ``neuron``, built once per run (its API and notes go to ``meta``)."""
    timpl = b.triton_impls.get(neuron.name)
    if timpl is None:
        timpl = make_triton_impl(neuron, b.opts.device, b.opts.api)
        b.triton_impls[neuron.name] = timpl
        b.meta.setdefault("triton_api", {})[neuron.name] = timpl.api
        b.meta.setdefault("triton_build_s", {})[neuron.name] = round(timpl.build_s, 3)
        for n in timpl.notes:
            b.meta.setdefault("notes", []).append(f"{neuron.name}: {n}")
            print(f"note ({neuron.name}): {n}", flush=True)
    return timpl


def check_numerics(b: Bench, neuron: Neuron, dtype_name: str) -> None:
    """Compare our backend's outputs with the torch loop at a small size (recorded in ``checks``)."""
    opts = b.opts
    key = f"{neuron.name}-{dtype_name}"
    try:
        timpl = get_triton_impl(b, neuron)
        dtype = DTYPES[dtype_name]
        sets, _ = _inputs(neuron, 8, min(opts.ncl, 65536), dtype, opts.device, False, 1, seed=7)
        with torch.no_grad():
            out = timpl.fn(*sets[0])
            ref = make_loop(neuron)(*sets[0])
        diffs = []
        for i in range(neuron.no):
            d = (out[i].float() - ref[i].float()).abs()
            diffs.append({"output": i, "max_abs": float(d.max()), "frac_gt_1e-2": float((d > 1e-2).float().mean())})
        b.checks[key] = {"api": timpl.api, "uses_kernels": timpl.uses_kernels(sets[0]), "outputs": diffs}
    except Exception as exc:  # noqa: BLE001
        b.checks[key] = {"error": f"{type(exc).__name__}: {exc}"[:300]}


# --------------------------------------------------------------------------- startup

_CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
sys.path.insert(0, {tools!r})
import torch
import bench
bench.import_flexsn()
t1 = time.perf_counter()
print(json.dumps(bench.startup_child({neuron!r}, {device!r}, {api!r}, {surrogate!r}, t1 - t0)), flush=True)
"""


try:
    import triton as _triton
    import triton.language as _tl

    @_triton.jit  # type: ignore[misc, unused-ignore]
    def _bench_noop_kernel(x_ptr):  # type: ignore[no-untyped-def, unused-ignore]
        _tl.store(x_ptr, _tl.load(x_ptr) + 1.0)

except Exception:  # noqa: BLE001 - only the cold-start priming needs it
    _bench_noop_kernel = None


def prime_triton(device: torch.device) -> None:
    """Launch a no-op Triton kernel: builds Triton's driver stubs in an empty ``TRITON_CACHE_DIR``.

    Run before the cold startup timing, so it measures compiling FlexSN's
    kernels, not Triton's one-time per-machine setup.
    """
    if _bench_noop_kernel is None or (device.type == "cpu" and os.environ.get("TRITON_INTERPRET", "0") in ("", "0")):
        return
    x = torch.zeros(1, device=device)
    _bench_noop_kernel[(1,)](x)
    sync(device)


def import_flexsn() -> None:
    """Import the FlexSN packages (and Triton) so construction timings do not include imports."""
    import flexsn_runtime  # noqa: F401

    try:
        import flexsn_nn  # noqa: F401
    except Exception:
        pass


def startup_child(neuron_name: str, device_name: str, api: str, surrogate: str, import_s: float) -> dict[str, Any]:
    """Run inside a fresh process: construction-to-first-result of one neuron (seconds)."""
    set_surrogate(surrogate)
    neuron = NEURONS[neuron_name]
    device = torch.device(device_name)
    T, ncl = 8, 4096
    xs = [torch.randn(T, ncl, device=device) for _ in range(neuron.ni)]
    sync(device)  # CUDA context creation is not part of the measurement
    tp = time.perf_counter()
    prime_triton(device)
    prime_s = time.perf_counter() - tp
    t0 = time.perf_counter()
    impl = make_triton_impl(neuron, device, api, check=False)
    t1 = time.perf_counter()
    with torch.no_grad():
        out = impl.fn(*xs)
    float(out[0].float().sum())
    sync(device)
    t2 = time.perf_counter()
    xr = [x.clone().requires_grad_() for x in xs]
    out = impl.fn(*xr)
    torch.autograd.backward(list(out[: neuron.no]), [torch.ones_like(o) for o in out[: neuron.no]])
    sync(device)
    t3 = time.perf_counter()
    return {
        "import_s": round(import_s, 3),
        "triton_prime_s": round(prime_s, 3),
        "construct_s": round(t1 - t0, 3),
        "first_result_s": round(t2 - t0, 3),
        "first_training_step_s": round(t3 - t2, 3),
        "api": impl.api,
        "uses_kernels": impl.uses_kernels(xs),
        "notes": impl.notes,
    }


def measure_startup(b: Bench, neuron_name: str) -> dict[str, Any]:
    """Cold and warm construction-to-first-result of one neuron, each in a fresh ``python -c`` process.

    Cold: empty ``FLEXSN_CACHE_DIR`` and ``TRITON_CACHE_DIR`` (Triton's
    driver stubs are built by :func:`prime_triton` before timing); warm: a
    second process reusing both.
    """
    opts = b.opts
    tmp = Path(tempfile.mkdtemp(prefix=f"flexsn-bench-startup-{neuron_name}-"))
    env = dict(os.environ)
    env["FLEXSN_CACHE_DIR"] = str(tmp / "flexsn")
    env["TRITON_CACHE_DIR"] = str(tmp / "triton")
    code = _CHILD.format(tools=str(TOOLS_DIR), neuron=neuron_name, device=str(opts.device), api=opts.api, surrogate=b.meta["surrogate"])
    res: dict[str, Any] = {}
    try:
        for label in ("cold", "warm"):
            t0 = time.perf_counter()
            try:
                p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=opts.startup_timeout_s)
            except subprocess.TimeoutExpired:
                res[label] = {"error": f"timed out after {opts.startup_timeout_s:.0f} s"}
                continue
            wall = time.perf_counter() - t0
            line = next((ln for ln in reversed(p.stdout.splitlines()) if ln.startswith("{")), None)
            if p.returncode != 0 or line is None:
                tail = (p.stderr or p.stdout).strip().splitlines()[-3:]
                res[label] = {"error": f"exit {p.returncode}: {' | '.join(tail)}"[:400]}
                continue
            entry: dict[str, Any] = json.loads(line)
            entry["process_wall_s"] = round(wall, 3)
            res[label] = entry
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    cold_lim, warm_lim = STARTUP_TARGETS.get(neuron_name, (5.0, 1.0))
    res["targets_s"] = {"cold": cold_lim, "warm": warm_lim}
    return res


# --------------------------------------------------------------------------- targets and tables


def evaluate_targets(b: Bench) -> list[dict[str, Any]]:
    """PASS/FAIL/n/a for each performance target."""
    out: list[dict[str, Any]] = []
    for dtype_name in b.opts.dtypes:
        for case, T, lim in RATIO_TARGETS:
            r = b.find(case, dtype_name, T, "triton")
            val = r.get("copy_ratio") if r else None
            status = "n/a" if val is None else ("PASS" if val >= lim and "FALLBACK" not in r["note"] else "FAIL")  # type: ignore[index]
            out.append({"target": f"{case} {dtype_name} T={T} ratio>={lim:.2f}", "value": val, "status": status})
    for neuron_name, (cold_lim, warm_lim) in STARTUP_TARGETS.items():
        s = b.startup.get(neuron_name)
        for label, lim in (("cold", cold_lim), ("warm", warm_lim)):
            v = (s or {}).get(label, {}).get("first_result_s")
            status = "n/a" if v is None else ("PASS" if v <= lim else "FAIL")
            out.append({"target": f"startup {neuron_name} {label} <= {lim:g} s", "value": v, "status": status})
    for dtype_name in b.opts.dtypes:
        rows = [r for r in b.results if r["case"] == "lif-training" and r["dtype"] == dtype_name and r["impl"] == "triton" and r.get("memory")]
        if not rows:
            out.append({"target": f"lif-training {dtype_name} saved <= 1/state", "value": None, "status": "n/a"})
            continue
        r = max(rows, key=lambda r: (r["T"] <= 32, r["T"]))
        m = r["memory"]
        out.append({"target": f"lif-training {dtype_name} T={r['T']} saved <= {m['target_saved_units']}/state",
                    "value": m["saved_units"], "status": "PASS" if m["pass"] else "FAIL"})
    return out


def _fmt_ms(v: float | None) -> str:
    if v is None:
        return "-"
    return f"{v:.4g}"


def _cell(r: dict[str, Any] | None, compact: bool) -> str:
    if r is None:
        return "-"
    if r["status"] != "ok":
        return "cut" if r["status"] == "running" else str(r["status"])
    ratio = r.get("copy_ratio")
    rs = "-" if ratio is None else (f"{ratio:.2f}" if ratio >= 0.01 else f"{ratio:.1e}")
    flag = "!" if "FALLBACK" in r.get("note", "") else ""
    if compact:
        return f"{rs}@{_fmt_ms(r['ms'])}{flag}"
    return f"{_fmt_ms(r['ms']):>8} ms {rs:>7}{flag}"


def _rows(b: Bench) -> Iterator[tuple[str, str, int]]:
    for case in b.opts.cases:
        for d in b.opts.dtypes:
            for T in b.opts.T:
                yield case, d, T


def results_table(b: Bench, compact: bool) -> str:
    """The results table (``compact``: one short line per case/dtype/T, ``ratio@ms``)."""
    impls = [i for i in b.opts.impls if i != "clone"]
    lines: list[str] = []
    if compact:
        w = 15
        short = {"lif-inference": "lif-inf", "lif-training": "lif-train", "2x2-inference": "2x2-inf", "2x2-training": "2x2-train"}
        lines.append("COMPACT copy ratio @ ms  (ratio = clone ms / impl ms; ! = eager fallback)")
        lines.append(f"{'case':<9} {'dt':<4} {'T':>3} {'clone ms':>8} | " + " | ".join(f"{i:<{w}}" for i in impls))
        for case, d, T in _rows(b):
            cells = [_cell(b.find(case, d, T, i), True) for i in impls]
            lines.append(f"{short.get(case, case):<9} {d:<4} {T:>3} {_fmt_ms(b.clone_ms.get((d, T))):>8} | " + " | ".join(f"{c:<{w}}" for c in cells))
        return "\n".join(lines)
    w = 20
    lines.append(f"{'case':<14} {'dtype':<5} {'T':>4} {'clone ms':>9} | " + " | ".join(f"{i + ' ms / ratio':>{w}}" for i in impls))
    for case, d, T in _rows(b):
        cells = [_cell(b.find(case, d, T, i), False) for i in impls]
        lines.append(f"{case:<14} {d:<5} {T:>4} {_fmt_ms(b.clone_ms.get((d, T))):>9} | " + " | ".join(f"{c:>{w}}" for c in cells))
    apis = b.meta.get("triton_api")
    if apis:
        lines.append("triton impl: " + ", ".join(f"{k} via {v}" for k, v in apis.items()) + f"; surrogate: {b.meta.get('surrogate')}")
    notes = [r for r in b.results if r.get("note")]
    if notes:
        lines.append("notes:")
        for r in notes:
            lines.append(f"  {r['case']} {r['dtype']} T={r['T']} {r['impl']}: {r['status']}: {r['note']}")
    return "\n".join(lines)


def memory_table(b: Bench) -> str:
    """Training memory per impl (CUDA only), in [T, NCL] units."""
    rows = [r for r in b.results if r.get("memory")]
    if not rows:
        return "memory: not measured (needs CUDA)"
    lines = ["MEMORY of one training step in [T, NCL] tensors (inputs, output grads excluded; saved = held after "
             "forward - outputs - final states, target <= states; ideal peak = outputs + states + input grads)",
             f"{'case':<13} {'dt':<4} {'T':>3} {'impl':<8} {'saved':>6} {'held@fwd':>8} {'peak':>6} {'ideal':>5} {'io':>3} {'states':>6}"]
    for r in sorted(rows, key=lambda r: (r["case"], r["dtype"], r["T"], r["impl"])):
        m = r["memory"]
        lines.append(f"{r['case']:<13} {r['dtype']:<4} {r['T']:>3} {r['impl']:<8} {m['saved_units']:>6.2f} "
                     f"{m['held_after_forward_units']:>8.2f} {m['peak_units']:>6.2f} {m['ideal_peak_units']:>5} {m['io_tensors']:>3} {m['state_seqs']:>6}")
    return "\n".join(lines)


def compact_memory(b: Bench) -> str:
    """One line per training case and dtype: the triton impl's saved/peak units per T (CUDA only)."""
    lines: list[str] = []
    for case in b.opts.cases:
        if not case.endswith("training"):
            continue
        for d in b.opts.dtypes:
            cells = []
            for T in b.opts.T:
                r = b.find(case, d, T, "triton")
                m = (r or {}).get("memory")
                if m:
                    cells.append(f"T{T} {m['saved_units']:.2f}/{m['peak_units']:.2f}")
            if cells:
                lines.append(f"{case:<13} {d:<4} " + "  ".join(cells))
    if not lines:
        return "MEM triton: not measured (needs CUDA)"
    return "MEM triton saved/peak in [T,NCL] units (target saved <= states: lif 1, 2x2 2)\n" + "\n".join(lines)


def startup_table(b: Bench) -> str:
    """Cold/warm construction-to-first-result per neuron."""
    if not b.startup:
        return "startup: not measured (--no-startup)"
    lines = ["STARTUP construction-to-first-result (fresh process; import and first training step shown apart)",
             f"{'neuron':<6} {'run':<5} {'first':>7} {'construct':>9} {'import':>7} {'train1':>7} {'proc':>6}  api"]
    for name, s in b.startup.items():
        for label in ("cold", "warm"):
            e = s.get(label, {})
            if "error" in e:
                lines.append(f"{name:<6} {label:<5} ERROR {e['error']}")
                continue
            lines.append(f"{name:<6} {label:<5} {e.get('first_result_s', 0):>7.2f} {e.get('construct_s', 0):>9.2f} "
                         f"{e.get('import_s', 0):>7.2f} {e.get('first_training_step_s', 0):>7.2f} {e.get('process_wall_s', 0):>6.1f}  "
                         f"{e.get('api', '')}{'' if e.get('uses_kernels', True) else ' (EAGER FALLBACK)'}")
    return "\n".join(lines)


def targets_table(b: Bench) -> str:
    """The compact PASS/FAIL targets table."""
    lines = ["TARGETS (triton impl)"]
    for t in evaluate_targets(b):
        v = t["value"]
        vs = "-" if v is None else f"{v:.3g}"
        lines.append(f"{t['status']:<4} {t['target']:<40} {vs}")
    return "\n".join(lines)


def plot(b: Bench) -> Path | None:
    """Copy ratio vs T, one panel per case, one line per impl and dtype; writes ``bench.png``."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as exc:  # noqa: BLE001
        print(f"note: no plot ({exc})", flush=True)
        return None
    cases = b.opts.cases
    ncols = 2 if len(cases) > 1 else 1
    nrows = math.ceil(len(cases) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(6.4 * ncols, 4.2 * nrows), squeeze=False)
    colors = {"triton": "tab:red", "torch": "tab:blue", "compile": "tab:green", "clone": "black"}
    styles = {"fp32": "-", "bf16": "--"}
    markers = {"fp32": "o", "bf16": "s"}
    legend: dict[str, Any] = {}
    for ax, case in zip(axes.flat, cases):
        if any(b.find(case, d, T, "clone") for d in b.opts.dtypes for T in b.opts.T):
            legend.setdefault("clone (= 1)", ax.axhline(1.0, color="black", linewidth=1.0))
        for impl in b.opts.impls:
            if impl == "clone":
                continue
            for d in b.opts.dtypes:
                pts = [(T, r["copy_ratio"]) for T in b.opts.T if (r := b.find(case, d, T, impl)) and r.get("copy_ratio")]
                if pts:
                    xs, ys = zip(*pts)
                    (line,) = ax.plot(xs, ys, marker=markers.get(d, "^"), color=colors.get(impl), linestyle=styles.get(d, ":"))
                    legend.setdefault(f"{impl} {d}", line)
        for tc, T, lim in RATIO_TARGETS:
            if tc == case and T in b.opts.T:
                legend.setdefault("target", ax.scatter([T], [lim], marker="_", s=400, color="tab:red", zorder=5))
        ax.set_xscale("log", base=2)
        ax.minorticks_off()
        ax.set_yscale("log")
        ax.set_xticks(list(b.opts.T))
        ax.set_xticklabels([str(T) for T in b.opts.T])
        ax.set_title(f"{case}  (NCL={b.opts.ncl:,}, {b.meta.get('device_name', '')})", fontsize=9)
        ax.set_xlabel("T")
        ax.set_ylabel("copy ratio (clone ms / impl ms)")
        ax.grid(True, which="both", alpha=0.3)
    for ax in list(axes.flat)[len(cases):]:
        ax.axis("off")
    fig.suptitle("FlexSN benchmark: copy ratio vs T (higher is better; 1 = copy bandwidth)", fontsize=10)
    fig.tight_layout(rect=(0.0, 0.06, 1.0, 1.0))
    if legend:
        fig.legend(list(legend.values()), list(legend.keys()), loc="lower center", ncol=min(len(legend), 8), fontsize=8)
    path = b.opts.out / "bench.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


# --------------------------------------------------------------------------- progress


class Progress:
    """tqdm when installed and stderr is a terminal, else one printed line per step."""

    def __init__(self, total: int, desc: str) -> None:
        self.total, self.n, self.desc = total, 0, desc
        self.bar: Any = None
        if sys.stderr.isatty():  # a captured log gets plain lines, not carriage-return redraws
            try:
                from tqdm import tqdm

                self.bar = tqdm(total=total, desc=desc, file=sys.stderr, dynamic_ncols=True)
            except Exception:
                self.bar = None

    def step(self, label: str, result: str = "") -> None:
        """Mark one item done."""
        self.n += 1
        if self.bar is not None:
            self.bar.set_postfix_str(f"{label} {result}", refresh=False)
            self.bar.update(1)
        else:
            print(f"[{self.desc} {self.n}/{self.total}] {label} {result}", flush=True)

    def close(self) -> None:
        """Finish the bar."""
        if self.bar is not None:
            self.bar.close()


# --------------------------------------------------------------------------- main


def parse_args(argv: Sequence[str] | None = None) -> Options:
    """Parse the command line into :class:`Options`."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--T", type=int, nargs="+", default=None, help="time steps (default 4 8 32 128; --quick: 8 32)")
    p.add_argument("--ncl", type=int, default=DEFAULT_NCL, help="elements per time step (default 4194304)")
    p.add_argument("--dtypes", nargs="+", choices=sorted(DTYPES), default=["fp32", "bf16"])
    p.add_argument("--impls", nargs="+", choices=IMPLS, default=list(IMPLS))
    p.add_argument("--cases", nargs="+", choices=CASES, default=list(CASES))
    p.add_argument("--warmup", type=int, default=None, help="warm-up ms per measurement (default 25; --quick 5)")
    p.add_argument("--rep", type=int, default=None, help="timed ms per measurement (default 100; --quick 25)")
    p.add_argument("--out", type=Path, required=True, help="folder for bench.json and bench.png")
    p.add_argument("--no-startup", action="store_true", help="skip the fresh-process startup measurements")
    p.add_argument("--quick", action="store_true", help="T 8 32 and shorter timing unless given")
    p.add_argument("--max-gb", type=float, default=None, help="skip a measurement whose memory estimate exceeds this (default 85%% of the GPU, 8 on CPU)")
    p.add_argument("--budget-s", type=float, default=480.0, help="wall-clock budget; measurements that would exceed it (compile runs last) are skipped (default 480)")
    p.add_argument("--deadline-s", type=float, default=555.0,
                   help="hard stop: report what was measured and exit at this many seconds (0: never; default 555)")
    p.add_argument("--device", default=None, help="cuda (default when available) or cpu")
    p.add_argument("--api", choices=["auto", "nn", "kernel"], default="auto", help="triton impl through flexsn_nn.FlexSN (auto: when it works) or FlexSNKernel")
    p.add_argument("--surrogate", choices=["auto", "nn", "own"], default="auto", help="spike surrogate: flexsn_nn.surrogate.Sigmoid or the built-in one")
    p.add_argument("--rotate-mb", type=float, default=512.0, help="rotate up to 3 input sets while they fit in this many MB (default 512)")
    p.add_argument("--startup-timeout-s", type=float, default=120.0, help="limit for each fresh startup process")
    p.add_argument("--startup-neurons", nargs="+", choices=sorted(NEURONS), default=None,
                   help="neurons whose startup is measured (default: those of --cases)")
    a = p.parse_args(argv)
    device = torch.device(a.device or ("cuda" if torch.cuda.is_available() else "cpu"))
    if a.max_gb is None:
        a.max_gb = torch.cuda.get_device_properties(device).total_memory * 0.85 / 2**30 if device.type == "cuda" else 8.0
    T = a.T or list(QUICK_T if a.quick else DEFAULT_T)
    warmup = a.warmup if a.warmup is not None else (5 if a.quick else 25)
    rep = a.rep if a.rep is not None else (25 if a.quick else 100)
    return Options(T=sorted(set(T)), ncl=a.ncl, dtypes=a.dtypes, impls=a.impls, cases=a.cases, warmup=warmup, rep=rep,
                   out=a.out, startup=not a.no_startup, max_gb=a.max_gb, budget_s=a.budget_s, device=device,
                   api=a.api, surrogate=a.surrogate, rotate_mb=a.rotate_mb, startup_timeout_s=a.startup_timeout_s,
                   deadline_s=a.deadline_s, startup_neurons=a.startup_neurons or list(dict.fromkeys(case_parts(c)[0].name for c in a.cases)))


def _meta(opts: Options) -> dict[str, Any]:
    import triton

    dev = opts.device
    return {
        "argv": sys.argv,
        "device": str(dev),
        "device_name": torch.cuda.get_device_name(dev) if dev.type == "cuda" else platform.processor() or "cpu",
        "torch": torch.__version__,
        "triton": triton.__version__,
        "python": platform.python_version(),
        "triton_interpret": os.environ.get("TRITON_INTERPRET", ""),
        "ncl": opts.ncl, "T": opts.T, "dtypes": opts.dtypes, "impls": opts.impls, "cases": opts.cases,
        "warmup_ms": opts.warmup, "rep_ms": opts.rep, "max_gb": opts.max_gb, "budget_s": opts.budget_s,
        "timer": "triton.testing.do_bench median (CUDA events)" if dev.type == "cuda" else "time.perf_counter median",
        "copy_ratio": "clone ms of one [T, NCL] input in that dtype / impl ms",
        "triton_impl": "final states only (store_state_seqs=False); training = forward + backward of output seqs with random grads",
        "startup": "fresh python -c process; cold = empty FLEXSN_CACHE_DIR and TRITON_CACHE_DIR (Triton driver stubs "
                   "built by a no-op kernel before timing), warm = both reused; "
                   "first_result_s = construction start to first inference result (CUDA context excluded)",
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; returns the exit code (0 even when targets fail)."""
    opts = parse_args(argv)
    opts.out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    if opts.device.type == "cpu" and os.environ.get("TRITON_INTERPRET", "0") in ("", "0"):
        print("note: CPU without TRITON_INTERPRET=1: the triton impl runs FlexSN's eager fallback", flush=True)
    meta = _meta(opts)
    meta["surrogate"] = set_surrogate(opts.surrogate)
    b = Bench(opts, meta)
    _install_stoppers(b)
    print(f"FlexSN bench on {meta['device_name']} ({opts.device}), torch {meta['torch']}, triton {meta['triton']}, "
          f"NCL={opts.ncl:,}, T={opts.T}, dtypes={opts.dtypes}, surrogate={meta['surrogate']}", flush=True)

    # 1. Startup first: the fresh processes get the GPU before this one allocates on it.
    if opts.startup and "triton" in opts.impls:
        for name in opts.startup_neurons:
            print(f"startup: {name} (cold, warm) ...", flush=True)
            b.startup[name] = measure_startup(b, name)
            b.save()
        print(startup_table(b), flush=True)

    # 2. Everything but compile, then compile (slowest to set up; first to go when the budget runs out).
    plan = [(c, d, T, i) for c in opts.cases for d in opts.dtypes for T in opts.T for i in opts.impls if i != "compile"]
    if "compile" in opts.impls:
        plan += [(c, d, T, "compile") for T in opts.T for c in opts.cases for d in opts.dtypes]
    prog = Progress(len(plan), "bench")
    checked: set[tuple[str, str]] = set()
    try:
        for case, d, T, impl in plan:
            _park_if_stopping()
            neuron, _ = case_parts(case)
            if impl == "triton" and (neuron.name, d) not in checked:
                checked.add((neuron.name, d))
                check_numerics(b, neuron, d)
            r = measure(b, case, d, T, impl)
            b.save()
            prog.step(f"{case} {d} T={T} {impl}", _cell(r, True))
            if r["status"] not in ("ok",):
                print(f"  {case} {d} T={T} {impl}: {r['status']} {r['note']}", flush=True)
    except BaseException as exc:
        prog.close()
        finish(b, f"{type(exc).__name__}")
        raise
    prog.close()
    finish(b)
    return 0


_FINISH_LOCK = threading.Lock()
_finished = False
_stopping = threading.Event()


def _park_if_stopping() -> None:
    """Once an early stop has begun, the main thread waits here for the process to exit."""
    while _stopping.is_set() and threading.current_thread() is threading.main_thread():
        time.sleep(3600)


def finish(b: Bench, why: str = "") -> None:
    """Save JSON and PNG, then print the tables (compact ones last); runs once per process.

    Called at the normal end, or early (``why``) by the ``--deadline-s``
    watchdog or on SIGTERM, in which case an unfinished measurement is
    marked ``cut``.
    """
    global _finished
    if why:
        _stopping.set()
    with _FINISH_LOCK:
        if _finished:
            return
        _finished = True
        for r in list(b.results):
            if r["status"] == "running":
                r.update(status="cut", note=f"run stopped early: {why}")
        if why:
            print(f"\nSTOPPING EARLY ({why}) after {b.elapsed():.0f} s; reporting what was measured", flush=True)
        png: Path | None = None
        try:
            b.save(final=True)
            png = plot(b)
        except Exception as exc:  # noqa: BLE001 - still print the tables
            print(f"note: could not write results ({type(exc).__name__}: {exc})", flush=True)
        opts = b.opts
        print()
        print(results_table(b, compact=False))
        print()
        print(memory_table(b))
        print()
        print(startup_table(b))
        print()
        print(f"wrote {opts.out / 'bench.json'}" + (f" and {png}" if png else "") + f" in {b.elapsed():.0f} s")
        print()
        print(results_table(b, compact=True))
        print(compact_memory(b))
        print()
        print(targets_table(b), flush=True)
        sys.stderr.flush()


def _install_stoppers(b: Bench) -> None:
    """Report and exit at ``--deadline-s`` (watchdog thread) or on SIGTERM, whatever is running."""

    def stop(why: str) -> None:
        try:
            finish(b, why)
        finally:
            os._exit(0)

    if b.opts.deadline_s > 0:
        timer = threading.Timer(max(0.0, b.opts.deadline_s - b.elapsed()), stop, args=(f"--deadline-s {b.opts.deadline_s:.0f}",))
        timer.daemon = True
        timer.start()
    try:
        signal.signal(signal.SIGTERM, lambda signum, frame: stop("SIGTERM"))
    except ValueError:  # not the main thread (e.g. imported and called from a worker)
        pass


if __name__ == "__main__":
    sys.exit(main())
