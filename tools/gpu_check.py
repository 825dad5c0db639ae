"""GPU correctness and launch-configuration sweep for the generated kernels.

Run on a CUDA machine: ``PYTHONPATH=<packages' src> python3 tools/gpu_check.py --out DIR``.
Checks LIF and a 2-input/2-state/2-output core against the eager loop
(fp32, bf16; inference, final state, training gradients) on CUDA, then
times final-state inference and training of LIF for a grid of
``BLOCK_NCL``/``num_warps`` against ``x.clone()``, writing JSON to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import torch

from flexsn_runtime import FlexSNKernel, eager_loop
from flexsn_trace.testing import Spike
from flexsn_trace.testing import lif_core as lif


def alif(x1, x2, v, a):  # type: ignore[no-untyped-def]
    h = v + (x1 + 0.5 * x2 - v) / 2.0
    s = Spike.apply(h - 1.0 - a)
    a2 = 0.9 * a + 0.2 * s
    return s, h * torch.sigmoid(x2), h * (1.0 - s), a2


def check(device: str, report: dict) -> None:
    for name, core, ni, ns, no in [("lif", lif, 1, 1, 1), ("alif", alif, 2, 2, 2)]:
        k = FlexSNKernel(core, ni, ns, no)
        for dtype in (torch.float32, torch.bfloat16):
            T, shape = 37, (5, 1031)
            xs = [torch.randn(T, *shape, device=device).to(dtype) * 2 for _ in range(ni)]
            s0 = [torch.randn(*shape, device=device).to(dtype) for _ in range(ns)]
            with torch.no_grad():
                out = k(*xs, *s0)
                fin = k.final_state(*xs, *s0)
            ref = eager_loop(core, ni, ns, no, [x.float() for x in xs], [s.float() for s in s0])
            xr = [x.clone().requires_grad_() for x in xs]
            sr = [s.clone().requires_grad_() for s in s0]
            tout = k(*xr, *sr)
            gs = [torch.randn_like(o) for o in tout]
            torch.autograd.backward(tout, gs)
            xe = [x.float().clone().requires_grad_() for x in xs]
            se = [s.float().clone().requires_grad_() for s in s0]
            eref = eager_loop(core, ni, ns, no, xe, se)
            torch.autograd.backward(eref, [g.float() for g in gs])
            def rel(a: torch.Tensor, b: torch.Tensor) -> float:
                a, b = a.float(), b.float()
                a, b = a.detach().float(), b.detach().float()
                return float((a - b).norm() / (b.norm() + 1e-12))
            row = {
                "inference": [rel(a, b) for a, b in zip(out, ref)],
                "final_state": [rel(fin[no + j], ref[no + j][-1]) for j in range(ns)],
                "training_out": [rel(a, b) for a, b in zip(tout, eref)],
                "grads": [rel(a.grad, b.grad) for a, b in zip(xr + sr, xe + se)],
                "spike_mismatch": float((out[0].float() != ref[0]).float().mean()),
            }
            report[f"{name}-{dtype}"] = row
            print(name, dtype, json.dumps(row))


def _vector_ops(fn: object) -> str:
    """Count 128-bit global loads/stores in the PTX of every compiled variant of ``fn``."""
    out = []
    cache = getattr(fn, "device_caches", None) or {}
    for dev in cache.values():
        kernels = dev[0] if isinstance(dev, tuple) else dev
        for ck in kernels.values():
            ptx = ck.asm.get("ptx", "")
            out.append(f"ld.v4={ptx.count('ld.global.v4')}+{ptx.count('ld.global.L1::evict_last.v4')} "
                       f"st.v4={ptx.count('st.global.v4')} ld.b32={ptx.count('ld.global.b32')} "
                       f"ld.v2={ptx.count('ld.global.v2')} ld.any={ptx.count('ld.global')}")
    return "; ".join(out)


def sweep(device: str, report: dict, ncl: int) -> None:
    import triton.testing as tt

    from flexsn_runtime import ensure_training_kernels

    rows = []
    kernels = {}
    for mode in ("0", "1"):
        os.environ["FLEXSN_PREFETCH"] = mode
        kernels[mode] = FlexSNKernel(lif, 1, 1, 1)
    os.environ.pop("FLEXSN_PREFETCH")
    for dtype in (torch.float32, torch.bfloat16):
        for T in (8, 32):
            x = torch.randn(T, ncl, device=device, dtype=dtype)
            t_clone = tt.do_bench(lambda: x.clone(), warmup=25, rep=100, return_mode="median")
            for mode, k in kernels.items():
                bundle = ensure_training_kernels(k.handle)
                ks = [bundle.inference_final_state_kernel, bundle.training.forward.final_state, bundle.training.backward.final_state]
                for block, warps in ((1024, 4), (512, 4), (1024, 8)):
                    cfg = {"BLOCK_NCL": block, "num_warps": warps}
                    for kern in ks:
                        kern.persist_config(x, ncl, cfg)
                    with torch.no_grad():
                        t_inf = tt.do_bench(lambda: k.final_state(x), warmup=25, rep=100, return_mode="median")
                    xr = x.clone().requires_grad_()
                    g = torch.randn_like(x)

                    def fwd_only() -> None:
                        k.final_state(xr)

                    def train() -> None:
                        o = k.final_state(xr)
                        torch.autograd.backward(o[0], g)

                    t_fwd = tt.do_bench(fwd_only, warmup=10, rep=50, return_mode="median")
                    t_tr = tt.do_bench(train, warmup=10, rep=50, grad_to_none=[xr], return_mode="median")
                    try:
                        t_tr_graph = tt.do_bench_cudagraph(train, rep=50, grad_to_none=[xr], return_mode="median")
                    except Exception as exc:  # capture may not support something
                        print("cudagraph failed:", type(exc).__name__, str(exc)[:200])
                        t_tr_graph = float("nan")
                    row = dict(dtype=str(dtype)[6:], T=T, mode=mode, block=block, warps=warps, clone=t_clone,
                               inf=t_inf, fwd=t_fwd, bwd=t_tr - t_fwd, train=t_tr, train_graph=t_tr_graph,
                               inf_ratio=t_clone / t_inf, train_ratio=t_clone / t_tr, graph_ratio=t_clone / t_tr_graph)
                    rows.append(row)
                    print(" ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()))
    for mode, k in kernels.items():
        bundle = ensure_training_kernels(k.handle)
        for kern in (bundle.inference_final_state_kernel, bundle.training.forward.final_state, bundle.training.backward.final_state):
            print(mode, kern.kind, _vector_ops(kern.jit_function()))
    report["sweep"] = rows


def cpu_overhead(report: dict) -> None:
    """Per-call host time of a training step on a tiny tensor (GPU time negligible), and a profile."""
    import cProfile
    import io
    import pstats

    k = FlexSNKernel(lif, 1, 1, 1)
    x = torch.randn(8, 1024, device="cuda", requires_grad=True)
    g = torch.randn(8, 1024, device="cuda")

    def train() -> None:
        o = k.final_state(x)
        torch.autograd.backward(o[0], g)

    def infer() -> None:
        with torch.no_grad():
            k.final_state(x)

    for name, fn in (("train", train), ("infer", infer)):
        for _ in range(20):
            fn()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(300):
            fn()
        torch.cuda.synchronize()
        us = (time.perf_counter() - t0) / 300 * 1e6
        report[f"cpu_us_{name}"] = us
        print(f"host time per {name} step: {us:.1f} us")
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(200):
        train()
    prof.disable()
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(22)
    print("\n".join(line[:150] for line in buf.getvalue().splitlines()[:45]))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--out", default=os.environ.get("OUT", "out"))
    p.add_argument("--ncl", type=int, default=1 << 22)
    p.add_argument("--no-sweep", action="store_true")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    report: dict = {"device": torch.cuda.get_device_name(), "torch": torch.__version__}
    t0 = time.time()
    check("cuda", report)
    report["check_s"] = time.time() - t0
    cpu_overhead(report)
    if not a.no_sweep:
        sweep("cuda", report, a.ncl)
    with open(os.path.join(a.out, "gpu_check.json"), "w") as f:
        json.dump(report, f, indent=1)
    print("total", time.time() - t0, "s")


if __name__ == "__main__":
    main()
