#!/usr/bin/env python3
"""Time source-level variants of the generated scan kernels against ``x.clone()`` (CUDA only).

For the bench's LIF and 2x2 neurons it builds ``FlexSNKernel``, rewrites the
source of every generated kernel with one variant, forces a launch
configuration, and times (``triton.testing.do_bench``, median, L2 flushed)
inference and training (forward + backward through autograd) like
``tools/bench.py`` does, as copy ratios. Variants:

* ``base``: the source as generated;
* ``byhand``: ``flexsn_to_storage`` rounds bfloat16 by hand, as in the
  interpreter (compiled kernels use Triton's cast, which rounds to nearest
  even: measured 1-2 % faster, identical results);
* ``smask``: time-range checks of the prefetching loads as scalars instead
  of block-shaped masks;
* ``stream``: streaming cache hints (``evict_first`` loads, ``.cs`` stores).

Variants combine with ``+`` (``byhand+smask``). Used to choose template
changes; results to ``--out/variant_probe.json``.

Usage::

    PYTHONPATH=$(ls -d packages/*/src | tr '\\n' ':') python3 tools/variant_probe.py --out OUT
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any, Callable

import torch
import triton.testing as tt

sys.path.insert(0, str(Path(__file__).resolve().parent))

_RANGE = re.compile(r"mask & \(\(offs \* 0 \+ \((?P<at>[^()]*(?:\([^()]*\))?[^()]*)\)\) >= 0\) & \(\(offs \* 0 \+ \((?P=at)\)\) < T\)")


def byhand(code: str) -> str:
    return code.replace("    if FLEXSN_ROUND_BY_HAND:\n", "    if True:\n", 1)


def smask(code: str) -> str:
    return _RANGE.sub(lambda m: f"mask & (({m['at']}) >= 0) & (({m['at']}) < T)", code)


def stream(code: str) -> str:
    code = re.sub(r"tl\.load\(([^\n]*?)other=0\.0\)", r'tl.load(\1other=0.0, eviction_policy="evict_first")', code)
    return re.sub(r"(tl\.store\([^\n]*?mask=mask)\)", r'\1, cache_modifier=".cs")', code)


TRANSFORMS: dict[str, Callable[[str], str]] = {"byhand": byhand, "smask": smask, "stream": stream}


def transform(code: str, variant: str) -> str:
    for part in variant.split("+"):
        if part != "base":
            new = TRANSFORMS[part](code)
            if new == code:
                raise RuntimeError(f"variant {part!r} changed nothing")
            code = new
    return code


def _kernels(k: Any) -> list[Any]:
    from flexsn_runtime import ensure_training_kernels

    b = ensure_training_kernels(k.handle)
    out = [b.inference_kernel, b.inference_final_state_kernel]
    for sk in (b.training.forward, b.training.backward):
        out += [sk, sk.final_state]
    return [s for s in out if s is not None]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--ncl", type=int, default=4_194_304)
    p.add_argument("--T", type=int, nargs="+", default=[32])
    p.add_argument("--dtypes", nargs="+", default=["bf16"])
    p.add_argument("--variants", nargs="+", default=["base", "byhand", "smask"])
    p.add_argument("--configs", nargs="+", default=["1024x4", "2048x4", "2048x8"], help="BLOCKxWARPS")
    p.add_argument("--cases", nargs="+", default=["lif-inf", "lif-train", "2x2-inf"])
    p.add_argument("--split", action="store_true", help="training: also time forward and backward apart")
    p.add_argument("--no-prefetch", action="store_true", help="build kernels with FLEXSN_PREFETCH=0")
    a = p.parse_args()
    import bench_neurons
    from flexsn_runtime import FlexSNKernel
    from flexsn_runtime.scan_kernel import ncl_bucket

    if a.no_prefetch:
        import os

        os.environ["FLEXSN_PREFETCH"] = "0"
    dev = torch.device("cuda")
    dtypes = {"bf16": torch.bfloat16, "fp32": torch.float32}
    rows: list[dict[str, Any]] = []
    for dname in a.dtypes:
        dtype = dtypes[dname]
        for T in a.T:
            x0 = torch.randn(T, a.ncl, device=dev).to(dtype)
            clone = tt.do_bench(lambda: x0.clone(), return_mode="median")
            for case in a.cases:
                neuron = bench_neurons.NEURONS[case.split("-")[0]]
                training = case.endswith("train")
                xs = [(torch.randn(T, a.ncl, device=dev) * 1.5 + 0.5).to(dtype) for _ in range(neuron.ni)]
                gs = [torch.randn(T, a.ncl, device=dev).to(dtype) for _ in range(neuron.no)]
                if training:
                    for x in xs:
                        x.requires_grad_(True)
                ref = None
                for variant in a.variants:
                    for cfg in a.configs:
                        block, warps = (int(v) for v in cfg.split("x"))
                        k = FlexSNKernel(neuron.core, neuron.ni, neuron.ns, neuron.no)
                        for sk in _kernels(k):
                            sk.code = transform(sk.code, variant)
                            sk._fns.clear()
                            sk._direct.clear()
                            sk._fast[(dev.index or 0, dtype, ncl_bucket(a.ncl))] = {"BLOCK_NCL": block, "num_warps": warps}

                        def run() -> Any:
                            if training:
                                for x in xs:
                                    x.grad = None
                                out = k.final_state(*xs)
                                torch.autograd.backward(list(out[: neuron.no]), gs)
                                return [x.grad for x in xs]
                            with torch.no_grad():
                                return k.final_state(*xs)

                        res = [t.float() for t in run()]
                        if training and a.split:
                            # forward and backward kernels apart (host overhead hides behind T=32 kernels)
                            out = k.final_state(*xs)
                            fwd_ms = tt.do_bench(lambda: k.final_state(*xs), return_mode="median")
                            bwd_ms = tt.do_bench(
                                lambda: torch.autograd.backward(list(out[: neuron.no]), gs, retain_graph=True),
                                return_mode="median",
                            )
                            del out
                            print(f"{dname} T={T:<3} {case:<9} {variant:<22} {cfg:<7} forward {fwd_ms:8.4f} ms "
                                  f"(3 units: ratio x3 {3 * clone / 2 / fwd_ms:.3f})  backward {bwd_ms:8.4f} ms "
                                  f"(ratio x3 {3 * clone / 2 / bwd_ms:.3f})", flush=True)
                        if ref is None:
                            ref = res
                        same = all(torch.equal(r, q) for r, q in zip(ref, res))
                        ms = tt.do_bench(run, return_mode="median")
                        row = {"dtype": dname, "T": T, "case": case, "variant": variant, "config": cfg,
                               "ms": ms, "copy_ratio": clone / ms, "same_as_base": same}
                        rows.append(row)
                        print(f"{dname} T={T:<3} {case:<9} {variant:<22} {cfg:<7} {ms:8.4f} ms  ratio {clone / ms:.3f}"
                              f"  {'same' if same else 'DIFFERS'}", flush=True)
    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / "variant_probe.json").write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
