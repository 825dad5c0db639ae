#!/usr/bin/env python3
"""``tools/bench.py``'s startup measurement: construction to first result in fresh processes.

Split from ``tools/bench.py``. :func:`measure_startup` runs :func:`startup_child` in a new
``python -c`` process twice: cold (empty ``FLEXSN_CACHE_DIR`` and ``TRITON_CACHE_DIR``) and warm.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import torch

from bench_measure import STARTUP_TARGETS, Bench, sync
from bench_neurons import NEURONS, make_triton_impl, set_surrogate

TOOLS_DIR = Path(__file__).resolve().parent

_CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
sys.path.insert(0, {tools!r})
import torch
import bench_startup
bench_startup.import_flexsn()
t1 = time.perf_counter()
print(json.dumps(bench_startup.startup_child({neuron!r}, {device!r}, {api!r}, {surrogate!r}, t1 - t0)), flush=True)
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
