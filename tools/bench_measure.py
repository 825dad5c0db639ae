#!/usr/bin/env python3
"""``tools/bench.py``'s measurements: timing rules, the run's options and results, one measurement, the targets.

Split from ``tools/bench.py``. :func:`measure` times one (case, dtype, ``T``, impl) against
``x.clone()`` of the same ``[T, NCL]`` tensor (:func:`measure_clone`), within the run's memory and
time budget; ``tools/compile_bench.py`` shares the timing rules (:func:`do_bench_median`,
:func:`cpu_bench_median`, :func:`sync`).
"""

from __future__ import annotations

import gc
import inspect
import json
import os
import statistics
import threading
import time
import traceback
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import torch

from bench_neurons import ImplFn, Neuron, Tensor, TritonImpl, case_parts, make_loop, make_triton_impl

CASES = ("lif-inference", "lif-training", "2x2-inference", "2x2-training")
IMPLS = ("triton", "torch", "compile", "clone")
DTYPES: dict[str, torch.dtype] = {"fp32": torch.float32, "bf16": torch.bfloat16}
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
#: set once an early stop (``--deadline-s``, SIGTERM) has begun: only the final report writes ``bench.json`` then
stopping = threading.Event()


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
        if stopping.is_set() and not final:
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


def free_memory(device: torch.device) -> None:
    """Collect garbage and return cached CUDA blocks, between measurements."""
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
    free_memory(opts.device)
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
        free_memory(opts.device)
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
