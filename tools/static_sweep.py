"""Launch-configuration sweep of the training kernels of neurons with learnable parameters (GPU).

Run on a CUDA machine: ``PYTHONPATH=<packages' src> python3 tools/static_sweep.py --out DIR``.
For LIF with a constant decay, PLIF (a learnable scalar or per-channel decay
``w``, ``k = sigmoid(w)``) and LIF with a learnable per-channel threshold, on
``[T, B, C, L]`` sequences (fp32, or ``--dtype``), times a final-state training step (forward +
backward, back to back, ``triton.testing.do_bench`` median) for a grid of
``BLOCK_NCL`` / ``num_warps`` of the forward kernel (backward at its
default), then of the backward kernel (forward at its default), and writes
``static_sweep.json`` and a table. Copy ratio = ``x.clone()`` time / step time.
The question it answers: whether the kernels that read a static input, and
the backward that carries its gradient, want another configuration than the
constant-parameter ones (``ScanKernel._default_cuda_config``).
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any, Callable

import torch

from flexsn_runtime import FlexSNKernel, ensure_training_kernels
from flexsn_trace.testing import Spike

CONFIGS = ((1024, 4), (512, 4), (512, 2), (256, 2), (2048, 8), (1024, 8), (2048, 4))


def lif_const(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) * 0.5
    s = Spike.apply(h - 1.0)
    return s, h * (1.0 - s)


def plif(x: torch.Tensor, v: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) * torch.sigmoid(w)
    s = Spike.apply(h - 1.0)
    return s, h * (1.0 - s)


def lif_threshold(x: torch.Tensor, v: torch.Tensor, th: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) * 0.5
    s = Spike.apply(h - th)
    return s, h * (1.0 - s)


def cases(C: int, device: str) -> dict[str, tuple[Callable[..., Any], torch.Tensor | None]]:
    return {
        "lif-const": (lif_const, None),
        "plif-scalar": (plif, torch.zeros((), device=device)),
        "plif-channel": (plif, torch.zeros(C, 1, device=device)),
        "threshold-channel": (lif_threshold, torch.ones(C, 1, device=device)),
    }


def main() -> None:
    import triton.testing as tt

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "out")))
    p.add_argument("--T", type=int, nargs="+", default=[8, 32])
    p.add_argument("--shape", type=int, nargs=3, default=[16, 64, 4096], metavar=("B", "C", "L"))
    p.add_argument("--dtype", choices=["float32", "bfloat16", "float16"], default="float32",
                   help="the sequences' dtype (static inputs stay float32)")
    a = p.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    B, C, L = a.shape
    rows: list[dict[str, Any]] = []
    for name, (core, w0) in cases(C, "cuda").items():
        k = FlexSNKernel(core, 1, 1, 1, num_static=0 if w0 is None else 1)
        bundle = ensure_training_kernels(k.handle)
        assert bundle.training is not None
        fwd, bwd = bundle.training.forward.final_state, bundle.training.backward.final_state
        assert fwd is not None and bwd is not None
        for T in a.T:
            x = torch.randn(T, B, C, L, device="cuda", dtype=getattr(torch, a.dtype))
            ncl = B * C * L
            t_clone = tt.do_bench(lambda: x.clone(), warmup=25, rep=100, return_mode="median")
            xr = x.clone().requires_grad_()
            w = None if w0 is None else w0.clone().requires_grad_()
            g = torch.randn_like(x)
            statics = () if w is None else (w,)

            def step() -> None:
                s, _ = k.final_state(xr, *statics)
                torch.autograd.backward(s, g)

            default = fwd._default_cuda_config(ncl)
            for which in ("forward", "backward"):
                for block, warps in CONFIGS:
                    cfg = {"BLOCK_NCL": block, "num_warps": warps}
                    fwd.persist_config(x, ncl, cfg if which == "forward" else default)
                    bwd.persist_config(x, ncl, cfg if which == "backward" else default)
                    ms = tt.do_bench(step, warmup=10, rep=60, grad_to_none=[xr, *statics], return_mode="median")
                    row = dict(case=name, T=T, kernel=which, block=block, warps=warps, ms=ms, ratio=t_clone / ms)
                    rows.append(row)
                    print(" ".join(f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()), flush=True)
            fwd.persist_config(x, ncl, default)
            bwd.persist_config(x, ncl, default)
            torch.cuda.empty_cache()
    (a.out / "static_sweep.json").write_text(json.dumps({"device": torch.cuda.get_device_name(), "dtype": a.dtype, "rows": rows}, indent=1))
    print("\nbest per case, T and kernel (ratio; default 1024/4):")
    for name in cases(C, "cpu"):
        for T in a.T:
            for which in ("forward", "backward"):
                sel = [r for r in rows if r["case"] == name and r["T"] == T and r["kernel"] == which]
                best = max(sel, key=lambda r: r["ratio"])
                base = next(r for r in sel if (r["block"], r["warps"]) == (1024, 4))
                print(f"{name:18s} T={T:3d} {which:8s} default {base['ratio']:.3f}  best {best['ratio']:.3f} "
                      f"at {best['block']}/{best['warps']}")


if __name__ == "__main__":
    main()
