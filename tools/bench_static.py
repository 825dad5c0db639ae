#!/usr/bin/env python3
"""Learnable parameters on the fused path: PLIF training per call next to its peers, the cost of a
per-channel parameter over constants, and the first result in a fresh process.

Per call, as ``../shared/bench/bench_plif.py`` times it: ``reset()`` + forward + backward timed
alone with CUDA events after a synchronize, median of ``--rep``; fp32; copy ratio =
``x.clone()`` time / step time.

* ``plif``: PLIF training (learnable decay ``w``, ``tau = 1 / sigmoid(w)``), ``[T, NCL]``:
  ``eager`` (the loop over a core capturing ``w``), ``compile`` (``torch.compile`` of it),
  ``flexsn_captured`` (``FlexSN`` on that core: ``w`` lifted automatically), ``flexsn_default``
  (``w`` bound as a default argument instead, as ``bench_plif.py`` binds it),
  ``flexsn_plif`` (``flexsn_nn.ParametricLIFNode``), and when SpikingJelly 2.0 is importable
  ``sj_static`` (its ``FlexSN(static_inputs=...)``) and ``sj_plif`` (its hand-written
  ``ParametricLIFNode``). dL/dw of each is checked against the eager loop.
* ``overhead``: ``[T, B, C, L]`` training, ``LIFNode`` with constants against the same neuron
  with a per-channel learnable threshold (``LearnableThresholdLIFNode``), PLIF with a scalar
  and with a per-channel learnable decay (``w`` of shape ``[C, 1]``): per call (median over
  ``--rounds`` rounds in rotated order), back to back, and the GPU time of a step's kernels
  (``torch.profiler``), each as a fraction over constants. The kernels' figure is what the
  parameter costs the GPU; the rest of the per-call difference is host time left exposed.
* ``startup``: construction to first inference and first training result of
  ``ParametricLIFNode`` in a fresh process (imports, CUDA context and Triton's driver stubs
  excluded, as ``tools/bench.py`` does), cold (empty FlexSN and Triton caches) and warm; then
  construction to the first training step alone (no inference call before it), cold, with and
  without the backward kernel compiled ahead (``FLEXSN_PREWARM``).

``--autograd-threads off`` runs the backward passes on the calling thread (PyTorch's
``torch.autograd.set_multithreading_enabled(False)``; the startup part's fresh processes keep
PyTorch's default).

GPU::

    PYTHONPATH=$(ls -d packages/*/src | paste -sd:) python3 tools/bench_static.py --out OUT

Writes ``static.json`` and ``static.png`` to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any, Callable

import torch

from bench_per_call import AUTOGRAD_THREADS_HELP, back_to_back, per_call  # the timers (tools/ is this script's folder on sys.path)
from plotting import pyplot

RESULTS: list[dict[str, Any]] = []
#: the run's --autograd-threads, recorded in every row
SETTINGS: dict[str, Any] = {}


def log(out: Path, **row: Any) -> None:
    row.update(SETTINGS)
    RESULTS.append(row)
    print(json.dumps(row), flush=True)
    (out / "static.json").write_text(json.dumps(RESULTS, indent=1))


def plif_core(sg: Callable[[torch.Tensor], torch.Tensor], w: torch.Tensor) -> Callable[..., Any]:
    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) * torch.sigmoid(w)
        s = sg(h - 1.0)
        return s, h * (1.0 - s)

    return core


def plif_static(x: torch.Tensor, v: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    from flexsn_nn.surrogate import Sigmoid

    h = v + (x - v) * torch.sigmoid(w)
    s = Sigmoid(4.0)(h - 1.0)
    return s, h * (1.0 - s)


def train_step(fn: Callable[[torch.Tensor], Any], x: torch.Tensor, g: torch.Tensor, params: list[torch.Tensor]) -> Callable[[], None]:
    xl = x.clone().requires_grad_(True)

    def step() -> None:
        xl.grad = None
        for p in params:
            p.grad = None
        out = fn(xl)
        out = out[0] if isinstance(out, (tuple, list)) else out
        out.backward(g)

    return step


def bench_plif(args: argparse.Namespace, out: Path) -> None:
    import flexsn_nn
    from flexsn_nn.surrogate import Sigmoid

    dev = torch.device("cuda")
    sg = Sigmoid(4.0)
    for T in args.T:
        x = torch.randn(T, args.ncl, device=dev) + 0.5
        g = torch.randn(T, args.ncl, device=dev)
        t_copy = per_call(lambda: x.clone(), args.warmup, args.rep)
        log(out, case="copy", T=T, ms=t_copy)
        impls: dict[str, tuple[Callable[[torch.Tensor], Any], torch.Tensor]] = {}
        w_e = torch.nn.Parameter(torch.tensor(0.0, device=dev))
        core_e = plif_core(sg, w_e)

        def loop(xx: torch.Tensor, core: Callable[..., Any] = core_e) -> torch.Tensor:
            v, outs = torch.zeros_like(xx[0]), []
            for t in range(xx.shape[0]):
                s, v = core(xx[t], v)
                outs.append(s)
            return torch.stack(outs)

        impls["eager"] = (loop, w_e)
        if not args.no_compile:
            impls["compile"] = (torch.compile(loop, fullgraph=True), w_e)
        w_c = torch.nn.Parameter(torch.tensor(0.0, device=dev))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            captured = flexsn_nn.FlexSN(plif_core(sg, w_c), 1, 1, 1)
        log(out, case="flexsn_captured_warnings", T=T, warnings=[str(w.message)[:200] for w in caught],
            lifted=list(captured.kernel.captures.names()))
        impls["flexsn_captured"] = (lambda xx, m=captured: (m.reset(), m(xx))[1], w_c)
        w_d = torch.nn.Parameter(torch.tensor(0.0, device=dev))

        def core_default(x: torch.Tensor, v: torch.Tensor, w: torch.Tensor = w_d) -> tuple[torch.Tensor, torch.Tensor]:
            h = v + (x - v) * torch.sigmoid(w)  # w bound as a default argument, as ../shared/bench/bench_plif.py binds it
            s = sg(h - 1.0)
            return s, h * (1.0 - s)

        bound = flexsn_nn.FlexSN(core_default, 1, 1, 1)
        impls["flexsn_default"] = (lambda xx, m=bound: (m.reset(), m(xx))[1], w_d)
        plif = flexsn_nn.ParametricLIFNode(init_tau=2.0, step_mode="m").to(dev)
        impls["flexsn_plif"] = (lambda xx, m=plif: (m.reset(), m(xx))[1], plif.w)
        try:
            from spikingjelly.activation_based import neuron as sjn
            from spikingjelly.activation_based import surrogate as sjs
            from spikingjelly.activation_based.neuron.flexsn import FlexSN as SJFlexSN

            w_s = torch.nn.Parameter(torch.tensor(0.0, device=dev))

            def core_s(xt: torch.Tensor, v: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
                h = v + (xt - v) * torch.sigmoid(w)
                s = sjs.sigmoid.apply(h - 1.0, 4.0)
                return s, h * (1.0 - s)

            sm = SJFlexSN(core_s, num_states=1, static_inputs=(w_s,), step_mode="m").to(dev)
            impls["sj_static"] = (lambda xx, m=sm: (m.reset(), m(xx))[1], sm._static_input_0)
            pl = sjn.ParametricLIFNode(init_tau=2.0, surrogate_function=sjs.Sigmoid(alpha=4.0), step_mode="m").to(dev)
            impls["sj_plif"] = (lambda xx, m=pl: (m.reset(), m(xx))[1], pl.w)
        except Exception as exc:  # noqa: BLE001 - peers are optional on a machine without SpikingJelly
            log(out, case="peers_missing", err=repr(exc)[:200])
        ref = None
        for name, (fn, w) in impls.items():
            step = train_step(fn, x, g, [w])
            t0 = time.perf_counter()
            step()
            torch.cuda.synchronize()
            first = time.perf_counter() - t0
            assert w.grad is not None
            dw = float(w.grad.sum())
            ref = dw if ref is None else ref
            ms = per_call(step, args.warmup, args.rep)
            log(out, case="plif_train", impl=name, T=T, ms=ms, copy_ratio=t_copy / ms, first_s=first, dw=dw,
                dw_rel_err=abs(dw - ref) / max(abs(ref), 1e-12))
        del impls
        torch.cuda.empty_cache()


def overhead_neurons(channels: int, device: torch.device) -> dict[str, torch.nn.Module]:
    """The ``overhead`` part's neurons for ``[T, B, channels, L]`` inputs, LIF with constants first.

    Then the same LIF with a per-channel learnable threshold, PLIF with a scalar learnable decay, and
    PLIF with a per-channel one (``w`` of shape ``[channels, 1]``, through ``static_inputs``).
    """
    import flexsn_nn

    w = torch.nn.Parameter(torch.zeros(channels, 1, device=device))
    return {
        "lif_constants": flexsn_nn.LIFNode(tau=2.0, step_mode="m"),
        "threshold_per_channel": flexsn_nn.LearnableThresholdLIFNode(threshold_shape=(channels, 1), step_mode="m").to(device),
        "plif_scalar": flexsn_nn.ParametricLIFNode(step_mode="m").to(device),
        "plif_per_channel": flexsn_nn.FlexSN(plif_static, 1, 1, 1, static_inputs={"w": w}),
    }


def module_train_step(m: torch.nn.Module, x: torch.Tensor, g: torch.Tensor) -> Callable[[], None]:
    """``reset()`` + forward + backward of neuron module ``m`` on a leaf copy of ``x`` (its gradients cleared first)."""
    return train_step(lambda xx: (m.reset(), m(xx))[1], x, g, list(m.parameters()))  # type: ignore[operator]


def kernel_time(fn: Callable[[], object], warm: int) -> tuple[float, list[tuple[str, float]]]:
    """GPU time of one call's kernels (torch.profiler, CUDA activity): total µs and ``(kernel, µs)`` in launch order.

    What the GPU does for a call whatever the host: the gap between this and the per-call time
    is the host's (Python, autograd, launches) left exposed.
    """
    from torch.profiler import ProfilerActivity, profile

    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    kernels = [(e.name, e.device_time_total) for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    return sum(t for _, t in kernels), [(n[:60], round(t, 1)) for n, t in kernels]


def bench_overhead(args: argparse.Namespace, out: Path) -> None:
    """The ``overhead`` part: per call over ``--rounds`` rounds (the neurons' order rotated each round, so a
    host's slow spell does not fall on one neuron), back to back, and the kernels' GPU time, each over
    LIF with constants."""
    from statistics import median

    dev = torch.device("cuda")
    C = 64
    L = args.ncl // (args.batch * C)
    for T in args.T:
        x = torch.randn(T, args.batch, C, L, device=dev) + 0.5
        g = torch.randn_like(x)
        t_copy = per_call(lambda: x.clone(), args.warmup, args.rep)
        steps = {name: module_train_step(m, x, g) for name, m in overhead_neurons(C, dev).items()}
        names = list(steps)
        rounds: dict[str, list[float]] = {name: [] for name in names}
        for r in range(args.rounds):
            k = r % len(names)
            for name in names[k:] + names[:k]:
                rounds[name].append(per_call(steps[name], args.warmup, args.rep))
        base: dict[str, float] = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # the profiler's note on its cycles
            for name in names:
                ms = median(rounds[name])
                b2b = back_to_back(steps[name], args.warmup, 4 * args.rep)
                kernel_us, kernels = kernel_time(steps[name], args.warmup)
                base = base or {"ms": ms, "b2b": b2b, "kernel": kernel_us}
                log(out, case="overhead_train", impl=name, T=T, ms=ms, rounds_ms=[round(v, 4) for v in rounds[name]],
                    copy_ratio=t_copy / ms, over_constants=ms / base["ms"] - 1.0, back_to_back_ms=b2b,
                    back_to_back_over_constants=b2b / base["b2b"] - 1.0, kernel_us=kernel_us,
                    kernel_over_constants=kernel_us / base["kernel"] - 1.0, kernels=kernels)


STARTUP = """
import json, sys, time, torch, triton, triton.language as tl
import flexsn_nn

@triton.jit
def noop(x):
    pass

x = torch.randn(8, 4096, device="cuda")
noop[(1,)](x)  # Triton's driver stubs and the CUDA context are not part of the measurement
torch.cuda.synchronize()
t0 = time.perf_counter()
m = flexsn_nn.ParametricLIFNode(step_mode="m").cuda()
times = {}
if sys.argv[1] == "both":  # an inference call first, then training (the training time counts both)
    with torch.no_grad():
        float(m(x).sum())
    times["inference_s"] = time.perf_counter() - t0
    m.reset()
xr = x.clone().requires_grad_()
m(xr).sum().backward()
torch.cuda.synchronize()
times["training_s"] = time.perf_counter() - t0
print(json.dumps(times))
"""


def bench_startup(out: Path, repeats: int = 1) -> None:
    """Construction to first results in fresh processes: inference then training, cold then warm caches;
    then training alone (a training script's first step) with empty caches again, ``repeats`` times,
    alternating with the same run without the backward's compile ahead (``FLEXSN_PREWARM=0``)."""
    runs = [("cold", "both", "a", "1"), ("warm", "both", "a", "1")]
    for i in range(repeats):
        runs += [("cold-training-only", "train", f"b{i}", "1"), ("cold-training-only-no-prewarm", "train", f"c{i}", "0")]
    with tempfile.TemporaryDirectory() as cache:
        script = Path(cache) / "startup.py"  # a file: Triton's @jit reads the kernel's source
        script.write_text(STARTUP)
        for label, mode, caches, prewarm in runs:
            env = {**os.environ, "FLEXSN_CACHE_DIR": f"{cache}/{caches}/flexsn", "TRITON_CACHE_DIR": f"{cache}/{caches}/triton",
                   "FLEXSN_PREWARM": prewarm}
            res = subprocess.run([sys.executable, str(script), mode], env=env, capture_output=True, text=True, timeout=300)
            times = json.loads(res.stdout.strip().splitlines()[-1]) if res.returncode == 0 else {}
            log(out, case="startup", kind=label, **times, err=res.stderr[-300:] if res.returncode else None)


def over_constants(ax: Any, rows: list[dict[str, Any]]) -> None:
    """Per learnable neuron and ``T``: its cost over LIF with constants per call, back to back and in kernel time (%)."""
    labels = [f"{r['impl']}\nT={r['T']}" for r in rows]
    metrics = [("over_constants", "per call"), ("back_to_back_over_constants", "back to back"), ("kernel_over_constants", "kernels (GPU time)")]
    width = 0.8 / len(metrics)
    for i, (key, label) in enumerate(metrics):
        ax.bar([j + i * width for j in range(len(rows))], [100 * r[key] for r in rows], width, label=label)
    ax.axhline(10, color="k", ls="--", lw=0.8, label="issue's bound (10%)")
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(rows))], labels, fontsize=6)
    ax.set_ylabel("cost over constants (%)")
    ax.set_title("learnable parameter's cost, training")
    ax.legend(fontsize=7)


def plot(out: Path) -> None:
    plt = pyplot()
    if plt is None:
        return
    rows = [r for r in RESULTS if r.get("case") in ("plif_train", "overhead_train")]
    if not rows:
        return
    panels = [(case, title) for case, title in (("plif_train", "PLIF training, per call"), ("overhead_train", "constants vs learnable"))
              if any(r["case"] == case for r in rows)]  # only the parts that ran (--parts)
    costs = [r for r in rows if r["case"] == "overhead_train" and "kernel_over_constants" in r and r["impl"] != "lif_constants"]
    fig, axes = plt.subplots(1, len(panels) + bool(costs), figsize=(6 * (len(panels) + bool(costs)), 4), squeeze=False)
    if costs:
        over_constants(axes[0][-1], costs)
    for ax, (case, title) in zip(axes[0], panels):
        sel = [r for r in rows if r["case"] == case]
        Ts = sorted({r["T"] for r in sel})
        impls = list(dict.fromkeys(r["impl"] for r in sel))
        width = 0.8 / max(1, len(impls))
        for i, impl in enumerate(impls):
            vals = [next((r["copy_ratio"] for r in sel if r["impl"] == impl and r["T"] == T), 0.0) for T in Ts]
            ax.bar([j + i * width for j in range(len(Ts))], vals, width, label=impl)
        ax.set_xticks([j + 0.4 - width / 2 for j in range(len(Ts))], [f"T={T}" for T in Ts])
        ax.set_ylabel("copy ratio (x.clone() time / step time)")
        ax.set_title(title)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "static.png", dpi=120)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--T", type=int, nargs="+", default=[8, 32])
    p.add_argument("--ncl", type=int, default=1 << 22)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--rep", type=int, default=15)
    p.add_argument("--rounds", type=int, default=3, help="overhead part: per-call rounds, the neurons' order rotated each round")
    p.add_argument("--autograd-threads", choices=["on", "off"], default="on", help=AUTOGRAD_THREADS_HELP)
    p.add_argument("--parts", nargs="+", default=["plif", "overhead", "startup"], choices=["plif", "overhead", "startup"])
    p.add_argument("--no-compile", action="store_true", help="skip the torch.compile peer")
    p.add_argument("--startup-repeats", type=int, default=1, help="cold first training steps, each with and without the compile ahead")
    args = p.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    SETTINGS["autograd_threads"] = args.autograd_threads
    torch.autograd.set_multithreading_enabled(args.autograd_threads == "on")  # this (the calling) thread's setting
    if "startup" in args.parts:
        bench_startup(args.out, args.startup_repeats)  # first: nothing of this process is warm for it
    if "plif" in args.parts:
        bench_plif(args, args.out)
    if "overhead" in args.parts:
        bench_overhead(args, args.out)
    plot(args.out)


if __name__ == "__main__":
    main()
