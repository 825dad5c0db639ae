#!/usr/bin/env python3
"""Where the host time of one FlexSN call goes (CUDA only).

A small training step (``FlexSN`` forward + backward of a LIF layer) on a
tiny layer is host-bound: the GPU finishes each kernel before Python has
queued the next, so wall time per step is the Python + PyTorch + Triton
launch overhead that also caps the copy ratio of short sequences (T=8 in
``tools/bench.py``). This probe times, per step, with one synchronise per
loop of ``--n`` steps:

* ``train``: ``FlexSN(..., backend="triton", store_state_seqs=False)``
  forward + ``torch.autograd.backward`` (the bench's training step);
* ``train_jit_launch``: the same with ``FLEXSN_DIRECT_LAUNCH=0`` (every
  launch through ``JITFunction.__getitem__``);
* ``train_no_launch``: the same with kernel launches replaced by nothing
  (Python + PyTorch only);
* ``infer``: the inference step under ``torch.no_grad()``;
* ``autograd_floor``: a two-``empty_like`` ``autograd.Function`` forward +
  backward (what any custom autograd step costs);
* ``launch_jit`` / ``launch_direct``: one forward-kernel launch through
  ``JITFunction`` and through the cached ``CompiledKernel`` launcher;
* ``python_sum_range_1e5_us`` and ``load_avg``: how fast and how busy the
  host is (host-bound timings differ between machines by as much);
* ``timeline_small`` / ``timeline_full``: median host microseconds from
  the start of a training step to each stage (module forward, forward
  launch, autograd backward entry, backward launch, step end), on the small
  layer and on the bench's full-size layer inside a ``do_bench``-style loop
  (L2 flush before each step; a launch is stamped where the host asks for
  the raw stream, just before the C launcher). In the full-size loop the GPU is idle until
  the host reaches the backward launch, so ``bwd_launch`` is what bounds a
  host-bound step's time; ``timeline_small_infer``: the same for
  inference calls on the small layer (to the launch and the call's end);
* ``breakdown_small``: median host µs per small training step spent
  inside each function of ``BREAKDOWN`` (inclusive; wrapping adds about
  half a microsecond per call);
* ``micro``: host microseconds of single operations on the hot path.

It also prints a cProfile of the training step (top entries by own time)
and, with ``--full``, the bench's full-size training copy ratio for both
launch paths. Results go to ``--out/host_probe.json``.

Usage::

    PYTHONPATH=$(ls -d packages/*/src | tr '\\n' ':') python3 tools/host_probe.py --out OUT
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import sys
import time
from pathlib import Path
from typing import Any, Callable

import torch


def host_speed() -> dict[str, Any]:
    """How fast and how busy this host is: ``python_sum_range_1e5_us`` (the same pure-Python work on every
    machine; host-bound timings move with it) and ``load_avg``."""
    t0 = time.perf_counter()
    for _ in range(20):
        sum(range(100_000))
    return {"python_sum_range_1e5_us": round((time.perf_counter() - t0) / 20 * 1e6, 1), "load_avg": os.getloadavg()}


def _per_step_us(fn: Callable[[], Any], n: int, device: torch.device) -> float:
    for _ in range(20):
        fn()
    torch.cuda.synchronize(device)
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        torch.cuda.synchronize(device)
        best = min(best, (time.perf_counter() - t0) / n * 1e6)
    return best


def _module(device: torch.device) -> Any:
    from flexsn_nn import FlexSN
    from flexsn_trace.testing import lif_core

    return FlexSN(lif_core, 1, 1, 1, backend="triton", store_state_seqs=False, step_mode="m").to(device)


def _train_step(mod: Any, x: torch.Tensor, g: torch.Tensor) -> Callable[[], None]:
    def step() -> None:
        x.grad = None
        mod.reset()
        out = mod(x)
        torch.autograd.backward([out], [g])

    return step


def _timeline(
    mod: Any, x: torch.Tensor, g: torch.Tensor, n: int, flush: torch.Tensor | None, train: bool = True
) -> dict[str, float]:
    """Median host µs from step start to each stage of ``n`` training steps (``train=False``: inference calls)."""
    import statistics

    from flexsn_runtime import scan_kernel as launch_mod
    from flexsn_runtime import op_autograd as autograd_mod

    stamps: list[tuple[str, int]] = []
    now = time.perf_counter_ns
    # every cached launch (the derived path's and a launch plan's) asks for the raw stream just
    # before the C launcher: the stamp is the host's arrival at the launch
    real_stream = launch_mod._raw_stream
    cls = autograd_mod.EagerTraining
    real_fwd, real_bwd = cls.forward, cls.backward
    launches = {"n": 0}

    def launch(index: int) -> int:
        if sys._getframe(1).f_code.co_name == "current_raw_stream":  # a stream lookup (step buffers), not a launch
            return int(real_stream(index))
        which = "fwd" if launches["n"] % 2 == 0 else "bwd"
        launches["n"] += 1
        stamps.append((which + "_launch", now()))
        return int(real_stream(index))

    def fwd(ctx: Any, *a: Any) -> Any:
        stamps.append(("autograd_fwd", now()))
        r = real_fwd(ctx, *a)
        stamps.append(("autograd_fwd_done", now()))
        return r

    def bwd(ctx: Any, *a: Any) -> Any:
        stamps.append(("autograd_bwd", now()))
        r = real_bwd(ctx, *a)
        stamps.append(("autograd_bwd_done", now()))
        return r

    launch_mod._raw_stream = launch
    cls.forward, cls.backward = staticmethod(fwd), staticmethod(bwd)  # type: ignore[method-assign, assignment]
    rows: list[dict[str, float]] = []
    try:
        for i in range(n + 10):
            if flush is not None:
                flush.zero_()
            stamps.clear()
            launches["n"] = 0
            t0 = now()
            if train:
                x.grad = None
                mod.reset()
                out = mod(x)
                stamps.append(("module_done", now()))
                torch.autograd.backward([out], [g])
            else:
                with torch.no_grad():
                    mod.reset()
                    mod(x)
            stamps.append(("step_done", now()))
            if i >= 10:
                rows.append({k: (t - t0) / 1e3 for k, t in stamps})
            if flush is None and i % 50 == 0:
                torch.cuda.synchronize()
        torch.cuda.synchronize()
    finally:
        launch_mod._raw_stream = real_stream
        cls.forward, cls.backward = real_fwd, real_bwd  # type: ignore[method-assign]
    keys = [k for k in rows[0]]
    return {k: round(statistics.median(r[k] for r in rows if k in r), 2) for k in keys}


#: functions whose own time per training step ``_breakdown`` reports ("module:attr")
BREAKDOWN = (
    "flexsn_nn.module:FlexSN._multi_step",
    "flexsn_runtime.flexsn_kernel:FlexSNKernel.run_cached",
    "flexsn_runtime.flexsn_kernel:FlexSNKernel.run",
    "flexsn_runtime.call_cache:call_key",
    "flexsn_runtime.op_impls:launch_args",
    "flexsn_runtime.op_impls:launch_forward",
    "flexsn_runtime.op_autograd:setup",
    "flexsn_runtime.op_autograd:launch_training",
    "flexsn_runtime.launch_plan:LaunchPlan.run",
    "flexsn_runtime.launch_plan:BackwardPlan.run",
    "flexsn_runtime.op_autograd:_eager_backward",
    "flexsn_runtime.launchers:launch_backward",
    "flexsn_runtime.step_buffers:cached_zeros",
    "flexsn_runtime.step_buffers:cached_scratch",
    "flexsn_runtime.scan_kernel:ScanKernel.launch",
    "flexsn_runtime.scan_kernel:ScanKernel._launch_cuda",
    "flexsn_runtime.registry:_change",
    "torch:empty_like",
    "torch:empty",
    "torch:zeros",
)


def _breakdown(mod: Any, x: torch.Tensor, g: torch.Tensor, n: int) -> dict[str, float]:
    """Median host µs per training step spent inside each of ``BREAKDOWN`` (inclusive)."""
    import importlib
    import statistics

    now = time.perf_counter_ns
    spent: dict[str, int] = {}
    undo: list[tuple[Any, str, Any]] = []

    def wrap(name: str, fn: Any) -> Any:
        def timed(*args: Any, **kwargs: Any) -> Any:
            t0 = now()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[name] = spent.get(name, 0) + now() - t0

        return timed

    for spec in BREAKDOWN:
        mod_name, attr = spec.split(":")
        parts = attr.split(".")
        try:  # a tree without one of them (an older tree in an A/B run) reports the rest
            owner: Any = importlib.import_module(mod_name)
            for p in parts[:-1]:
                owner = getattr(owner, p)
            real = owner.__dict__[parts[-1]] if isinstance(owner, type) else getattr(owner, parts[-1])
        except (ImportError, AttributeError, KeyError):
            continue
        undo.append((owner, parts[-1], real))
        setattr(owner, parts[-1], wrap(spec, real))
    rows: list[dict[str, int]] = []
    step = _train_step(mod, x, g)
    try:
        for i in range(n + 10):
            spent.clear()
            t0 = now()
            step()
            spent["step"] = now() - t0
            if i >= 10:
                rows.append(dict(spent))
            if i % 50 == 0:
                torch.cuda.synchronize()
        torch.cuda.synchronize()
    finally:
        for owner, attr, real in reversed(undo):
            setattr(owner, attr, real)
    keys = sorted({k for r in rows for k in r})
    return {k: round(statistics.median(r.get(k, 0) for r in rows) / 1e3, 2) for k in keys}


def _micro(x: torch.Tensor, n: int) -> dict[str, float]:
    """Host µs of single hot-path operations (best of 3 loops of ``n``)."""
    from flexsn_codegen import interpreter_enabled
    from flexsn_runtime.scan_kernel import current_raw_stream

    xd = x.detach()
    args = [xd, xd, xd, xd, xd]
    ops: dict[str, Callable[[], Any]] = {
        "tensor_device": lambda: xd.device,
        "tensor_get_device": lambda: xd.get_device(),
        "cuda_current_device": torch.cuda.current_device,
        "c_cuda_getDevice": torch._C._cuda_getDevice,
        "raw_stream": lambda: current_raw_stream(0),
        "is_current_stream_capturing": torch.cuda.is_current_stream_capturing,
        "is_grad_enabled": torch.is_grad_enabled,
        "compiler_is_compiling": torch.compiler.is_compiling,
        "interpreter_enabled": interpreter_enabled,
        "launch_key_5_args": lambda: (0, xd.dtype, 8, 4096, *[(a.dtype, a.data_ptr() % 16 == 0) for a in args]),
        "empty_like": lambda: torch.empty_like(xd),
        "empty_shape": lambda: torch.empty((8, 4096), dtype=xd.dtype, device=xd.device),
        "contiguous": xd.contiguous,
        "shape_tuple": lambda: tuple(xd.shape[1:]),
    }
    res: dict[str, float] = {}
    for name, fn in ops.items():
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            best = min(best, (time.perf_counter() - t0) / n * 1e6)
        res[name] = round(best, 3)
    return res


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--n", type=int, default=500, help="steps per timed loop")
    p.add_argument("--T", type=int, default=8)
    p.add_argument("--ncl", type=int, default=4096, help="elements per step of the small (host-bound) layer")
    p.add_argument("--full", action="store_true", help="also the bench's full-size training copy ratio")
    a = p.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("host_probe needs CUDA")
    device = torch.device("cuda")
    dtype = torch.bfloat16
    from flexsn_runtime import scan_kernel as launch_mod

    res: dict[str, Any] = {"T": a.T, "ncl": a.ncl, "dtype": str(dtype), "gpu": torch.cuda.get_device_name()}
    res.update(host_speed())
    x = torch.randn(a.T, a.ncl, device=device).to(dtype).requires_grad_()
    g = torch.randn(a.T, a.ncl, device=device).to(dtype)

    os.environ["FLEXSN_DIRECT_LAUNCH"] = "1"
    mod = _module(device)
    res["train"] = _per_step_us(_train_step(mod, x, g), a.n, device)

    def infer() -> None:
        mod.reset()
        with torch.no_grad():
            mod(x)

    res["infer"] = _per_step_us(infer, a.n, device)

    os.environ["FLEXSN_DIRECT_LAUNCH"] = "0"
    mod_jit = _module(device)
    res["train_jit_launch"] = _per_step_us(_train_step(mod_jit, x, g), a.n, device)
    os.environ["FLEXSN_DIRECT_LAUNCH"] = "1"

    real_launch = launch_mod.ScanKernel.launch
    real_prepared = getattr(launch_mod.ScanKernel, "prepared", None)
    launch_mod.ScanKernel.launch = lambda self, *args, **kw: None  # type: ignore[method-assign]
    if real_prepared is not None:  # no launch plans either: they would launch the cached launchers
        launch_mod.ScanKernel.prepared = lambda self, *args, **kw: None  # type: ignore[method-assign]
    try:
        res["train_no_launch"] = _per_step_us(_train_step(_module(device), x, g), a.n, device)
    finally:
        launch_mod.ScanKernel.launch = real_launch  # type: ignore[method-assign]
        if real_prepared is not None:
            launch_mod.ScanKernel.prepared = real_prepared  # type: ignore[method-assign]

    class Floor(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, t: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
            v = torch.empty_like(t)
            ctx.save_for_backward(v)
            return torch.empty_like(t)

        @staticmethod
        def backward(ctx: Any, grad: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
            (v,) = ctx.saved_tensors
            return torch.empty_like(v)

    def floor() -> None:
        x.grad = None
        torch.autograd.backward([Floor.apply(x)], [g])

    res["autograd_floor"] = _per_step_us(floor, a.n, device)

    # raw launches of the inference kernel
    from flexsn_runtime.registry import lookup_flexsn_kernel_handle

    k = lookup_flexsn_kernel_handle(mod.kernel.handle).inference_final_state_kernel
    xd = x.detach()
    s0 = torch.zeros(a.ncl, device=device, dtype=dtype)
    o, fin = torch.empty_like(xd), torch.empty_like(s0)
    cfg = k.config(xd, a.ncl)
    grid = ((a.ncl + cfg["BLOCK_NCL"] - 1) // cfg["BLOCK_NCL"],)
    fn = k.jit_function()

    def jit_launch() -> None:
        fn[grid](xd, s0, o, fin, a.T, a.ncl, BLOCK_NCL=cfg["BLOCK_NCL"], num_warps=cfg["num_warps"])

    res["launch_jit"] = _per_step_us(jit_launch, a.n, device)
    runner = fn[grid](xd, s0, o, fin, a.T, a.ncl, BLOCK_NCL=cfg["BLOCK_NCL"], num_warps=cfg["num_warps"])[(grid[0], 1, 1)]

    def direct_launch() -> None:
        runner(xd, s0, o, fin, a.T, a.ncl, cfg["BLOCK_NCL"], False)  # constexprs last: BLOCK_NCL, ZERO_INIT

    res["launch_direct"] = _per_step_us(direct_launch, a.n, device)
    # the direct launcher computes what the JIT path does
    o2, fin2 = torch.empty_like(o), torch.empty_like(fin)
    fn[grid](xd, s0, o2, fin2, a.T, a.ncl, BLOCK_NCL=cfg["BLOCK_NCL"], num_warps=cfg["num_warps"])
    runner(xd, s0, o, fin, a.T, a.ncl, cfg["BLOCK_NCL"], False)
    res["direct_matches_jit"] = bool(torch.equal(o, o2) and torch.equal(fin, fin2))

    # which launch function the cached launchers are (launch_raw: the C launch, launch_run: driver run, via_runner)
    from flexsn_runtime.training_plan import plan_for

    plan = plan_for(mod.kernel.handle, True)
    res["direct_path"] = sorted({getattr(f, "__name__", "?") for k in (plan.forward, plan.backward) for f in k._direct.values()})
    res["micro"] = _micro(x, 2000)
    res["timeline_small"] = _timeline(mod, x, g, a.n, None)
    res["timeline_small_infer"] = _timeline(mod, x, g, a.n, None, train=False)
    res["breakdown_small"] = _breakdown(mod, x, g, a.n)
    if a.full:
        ncl = 4_194_304
        xt = torch.randn(a.T, ncl, device=device).to(dtype).requires_grad_()
        gt = torch.randn(a.T, ncl, device=device).to(dtype)
        flush = torch.empty(256 * 2**20 // 4, dtype=torch.int32, device=device)  # as triton.testing.do_bench
        res["timeline_full"] = _timeline(_module(device), xt, gt, 200, flush)
        del xt, gt, flush

    prof = cProfile.Profile()
    step = _train_step(mod, x, g)
    prof.enable()
    for _ in range(200):
        step()
    prof.disable()
    torch.cuda.synchronize(device)
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(25)
    res["profile"] = buf.getvalue()

    if a.full:
        import triton.testing as tt

        ncl = 4_194_304
        xf = torch.randn(a.T, ncl, device=device).to(dtype).requires_grad_()
        gf = torch.randn(a.T, ncl, device=device).to(dtype)
        clone = tt.do_bench(lambda: xf.detach().clone(), return_mode="median")
        for name, direct in (("full_direct", "1"), ("full_jit", "0")):
            os.environ["FLEXSN_DIRECT_LAUNCH"] = direct
            ms = tt.do_bench(_train_step(_module(device), xf, gf), return_mode="median")
            res[name] = {"ms": ms, "copy_ratio": clone / ms}
        os.environ["FLEXSN_DIRECT_LAUNCH"] = "1"
        res["full_clone_ms"] = clone

    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / "host_probe.json").write_text(json.dumps(res, indent=1))
    print(res.pop("profile"))
    print(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
