#!/usr/bin/env python3
"""How far a per-call inference is from its launch floor: the same call cut at each layer (CUDA only).

``tools/bench_per_call.py`` times each call alone (synchronize, CUDA events
around the call, median) as a training loop meets it. This tool times a
``LIFNode`` inference call the same way, and then the same launch entered
one layer lower each time, so the copy ratio each layer leaves is visible:

* ``module``: ``reset()`` + ``m(x)`` under ``torch.no_grad()`` (bench_per_call's call);
* ``forward``: the same through ``m.forward`` (without ``nn.Module.__call__``);
* ``run_cached``: the kernel's call cache (``FlexSNKernel.run_cached``), no module;
* ``plan``: the call signature's launch plan (``LaunchPlan.run``: allocations and launch);
* ``launch``: the plan's launcher with tensors allocated before the clock
  (pointer reads, alignment and device checks, stream, Triton's C launcher);
* ``alloc_raw``: the least a Python call does: two allocations and Triton's C launcher;
* ``raw``: Triton's C launcher alone, pointers read before the clock;
* ``clone``: ``x.clone()``, the copy ratio's reference.

With ``--spin US [US ...]`` it also times ``raw`` behind a busy wait of each
length before the launch (``spin_<US>``) and one after it (``spin_after_20``):
how much of the host time before a launch the per-call figure shows. On two
H200 hosts (``tools/results/gpu-2026-11-27-graphs/``) every microsecond before
the launch showed at ``T = 8``, and at ``T = 32`` on one of them (the other hid
the first 5-10); a wait after the launch, while the kernel runs, showed none.

With ``--host-ncl N`` it also times each variant's host microseconds per
call on a layer of ``N`` neurons per step, calls back to back (the GPU
finishes each kernel before the host queues the next, so wall time per call
is host time), best of three loops of ``--rep * 20`` (``tools/host_probe.py``'s timing).

Rounds alternate the variants (``--rounds``); each cell is the median of
its rounds' medians. Results go to ``--out/per_call_floor.json`` and a table
on stdout.

GPU::

    PYTHONPATH=$(ls -d packages/*/src | paste -sd:) python3 tools/per_call_floor.py --out OUT
"""

from __future__ import annotations

import argparse
import inspect
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_per_call import per_call  # noqa: E402
from host_probe import _per_step_us  # noqa: E402


def _variants(T: int, ncl: int, dtype: torch.dtype) -> dict[str, Callable[[], object]]:
    from flexsn_nn import LIFNode
    from flexsn_runtime import launch_plan as lp
    from flexsn_runtime.scan_kernel import current_raw_stream

    x = (torch.randn(T, ncl, device="cuda") + 0.5).to(dtype)
    m = LIFNode(tau=2.0, step_mode="m", backend="triton", store_v_seq=False)
    caught: list[tuple[Any, list[torch.Tensor]]] = []
    real_run = lp.LaunchPlan.run

    def spy(self: Any, flat: list[torch.Tensor]) -> Any:
        caught.append((self, list(flat)))
        return real_run(self, flat)

    lp.LaunchPlan.run = spy  # type: ignore[method-assign]
    try:
        with torch.no_grad():
            for _ in range(3):  # checked call, plan built, plan run
                m.reset()
                m(x)
    finally:
        lp.LaunchPlan.run = real_run  # type: ignore[method-assign]
    if not caught:
        raise SystemExit("no launch plan ran: the call did not take the planned path")
    plan, flat = caught[-1]
    out = plan.run(flat)
    assert out is not None
    tensors = [*(flat[i] for i in plan._body), *out]  # the launch's arguments (inference: outputs as launched)
    scan_kernel = inspect.getclosurevars(plan._launch).nonlocals["self"]  # the ScanKernel whose launcher the plan calls
    (direct,) = scan_kernel._direct.values()
    T_, ncl_ = T, ncl
    device = x.get_device()
    ptrs = [t.data_ptr() for t in tensors]
    kernel = m.kernel

    n_in = len(tensors) - len(out)
    in_ptrs = ptrs[:n_in]
    step = tuple(x.shape[1:])

    def alloc_raw() -> object:  # the least a Python call can do: allocate the outputs, launch
        s, v = torch.empty_like(x), x.new_empty(*step)
        direct(current_raw_stream(device), [*in_ptrs, s.data_ptr(), v.data_ptr()], T_, ncl_)
        return s, v

    def module() -> object:
        with torch.no_grad():
            m.reset()
            return m(x)

    def forward() -> object:
        with torch.no_grad():
            m.reset()
            return m.forward(x)

    def run_cached() -> object:
        with torch.no_grad():
            return kernel.run_cached((x,), (), (), True)

    return {
        "clone": x.clone,
        "module": module,
        "forward": forward,
        "run_cached": run_cached,
        "plan": lambda: plan.run(flat),
        "launch": lambda: plan._launch(tensors),
        "alloc_raw": alloc_raw,
        "raw": lambda: direct(current_raw_stream(device), ptrs, T_, ncl_),
    }


def spin_variants(raw: Callable[[], object], lengths: list[int]) -> dict[str, Callable[[], object]]:
    """``raw`` behind a busy wait of each of ``lengths`` microseconds, and ``raw`` followed by a 20 µs wait."""
    now = time.perf_counter

    def spin(us: float) -> None:
        end = now() + us * 1e-6
        while now() < end:
            pass

    def before(us: int) -> Callable[[], object]:
        def call() -> object:
            spin(us)
            return raw()

        return call

    def after() -> object:
        out = raw()
        spin(20)
        return out

    return {**{f"spin_{us}": before(us) for us in lengths}, "spin_after_20": after}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--T", type=int, nargs="+", default=[8, 32])
    p.add_argument("--ncl", type=int, default=1 << 22)
    p.add_argument("--dtype", choices=["fp32", "bf16"], default="fp32")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--rep", type=int, default=51)
    p.add_argument("--spin", type=int, nargs="*", default=[], help="also time raw behind busy waits of these µs")
    p.add_argument("--host-ncl", type=int, default=0, help="also host us per call on a layer this small (0: no)")
    a = p.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("per_call_floor needs CUDA")
    a.out.mkdir(parents=True, exist_ok=True)
    dtype = torch.bfloat16 if a.dtype == "bf16" else torch.float32
    rows: list[dict[str, Any]] = []
    for T in a.T:
        variants = _variants(T, a.ncl, dtype)
        if a.spin:
            variants.update(spin_variants(variants["raw"], a.spin))
        per_round: dict[str, list[float]] = {k: [] for k in variants}
        for _ in range(a.rounds):
            for name, fn in variants.items():
                per_round[name].append(per_call(fn, 10, a.rep))
        clone = statistics.median(per_round["clone"])
        for name, times in per_round.items():
            ms = statistics.median(times)
            rows.append(dict(T=T, dtype=a.dtype, variant=name, us=round(ms * 1e3, 2), copy_ratio=round(clone / ms, 4),
                             rounds_us=[round(t * 1e3, 2) for t in times]))
        (a.out / "per_call_floor.json").write_text(json.dumps(dict(gpu=torch.cuda.get_device_name(), rows=rows), indent=1))
    if a.host_ncl:
        host: dict[str, float] = {}
        for name, fn in _variants(a.T[0], a.host_ncl, dtype).items():
            host[name] = round(_per_step_us(fn, a.rep * 20, torch.device("cuda")), 2)
        print("host us per call (T=%d, NCL=%d):" % (a.T[0], a.host_ncl), json.dumps(host))
        (a.out / "per_call_floor.json").write_text(
            json.dumps(dict(gpu=torch.cuda.get_device_name(), rows=rows, host_us=host, host_ncl=a.host_ncl), indent=1)
        )
    print(f"{'variant':<12}" + "".join(f"{'T=' + str(T) + ' us':>12}{'ratio':>8}" for T in a.T))
    for name in dict.fromkeys(r["variant"] for r in rows):
        cells = {r["T"]: r for r in rows if r["variant"] == name}
        print(f"{name:<12}" + "".join(f"{cells[T]['us']:>12.2f}{cells[T]['copy_ratio']:>8.3f}" for T in a.T))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
