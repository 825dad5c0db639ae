#!/usr/bin/env python3
"""Chunked recomputation against saved values: training time of the LIF and 2x2 neurons per chunk length.

One variant per process (``--variant saved`` is ``FLEXSN_RECOMPUTE=0``, ``default`` the shipped choice;
``K4`` forces that chunk length through ``flexsn_trace.recompute.chunk_length``, ``K4p2`` also 2 elements per
thread in the recomputing backward (``flexsn_runtime.scan_kernel.RECOMPUTE_PER_THREAD``); the trace cache is
off and the cache folder fresh, so no build or launch configuration is shared).
For each neuron of ``tools/bench_per_call.py``, T and dtype: the copy ratio of a training step
(forward + backward, final states only) back to back (``--iters`` calls between two CUDA events,
median of 5) and per call (each call alone after a synchronize, median of 31), and the largest
difference of the input gradients from autograd through the eager loop on a small tensor.

GPU::

    PYTHONPATH=... python3 chunk_sweep.py --variant K8 --out OUT
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import torch

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tools"))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--variant", required=True, help="saved, or K<n>")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--T", type=int, nargs="+", default=[8, 32])
    p.add_argument("--ncl", type=int, default=1 << 22)
    p.add_argument("--iters", type=int, default=20)
    args = p.parse_args()
    os.environ["FLEXSN_TRACE_CACHE"] = "0"
    os.environ["FLEXSN_CACHE_DIR"] = tempfile.mkdtemp()  # no launch configuration persisted by another variant
    if args.variant == "saved":
        os.environ["FLEXSN_RECOMPUTE"] = "0"
    elif args.variant != "default":
        import flexsn_runtime.scan_kernel as sk
        import flexsn_trace.recompute as rc

        k, _, per = args.variant[1:].partition("p")
        rc.chunk_length = lambda ni, ns, k=int(k): k  # type: ignore[assignment]
        if per:
            sk.RECOMPUTE_PER_THREAD = int(per)
    import flexsn_nn
    from bench_per_call import cores, loop_of, per_call
    from flexsn_nn.surrogate import Sigmoid

    rows: list[dict[str, Any]] = []
    args.out.mkdir(parents=True, exist_ok=True)
    for name, (core, ni, ns, no) in cores(Sigmoid(4.0)).items():
        m = flexsn_nn.FlexSN(core, ni, ns, no).cuda()
        # correctness on CUDA against autograd through the eager loop
        small = [torch.randn(13, 3, 257, device="cuda") + 0.6 for _ in range(ni)]
        a = [s.clone().requires_grad_() for s in small]
        b = [s.clone().requires_grad_() for s in small]
        m.reset()
        out = m(*a)
        outs = out if isinstance(out, tuple) else (out,)
        w = [torch.randn_like(o) for o in outs[:no]]
        ga = torch.autograd.grad(sum((o * q).sum() for o, q in zip(outs[:no], w)), a)
        ro = loop_of(core, ns, no)(*b)
        gb = torch.autograd.grad(sum((o * q).sum() for o, q in zip(ro, w)), b, allow_unused=True)
        err = max(float((x - (torch.zeros_like(x) if y is None else y)).abs().max()) for x, y in zip(ga, gb))
        for dtype in (torch.float32, torch.bfloat16):
            for T in args.T:
                xs = [(torch.randn(T, args.ncl, device="cuda") + 0.5).to(dtype).requires_grad_() for _ in range(ni)]
                grads = [torch.ones(T, args.ncl, device="cuda", dtype=dtype) for _ in range(no)]
                t_copy = per_call(lambda: xs[0].detach().clone(), 3, 31)

                def step() -> None:
                    for x in xs:
                        x.grad = None
                    m.reset()
                    o = m(*xs)
                    o = o if isinstance(o, tuple) else (o,)
                    torch.autograd.backward(list(o[:no]), grads)

                for _ in range(3):
                    step()
                torch.cuda.synchronize()
                b2b = []
                for _ in range(5):
                    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                    e0.record()
                    for _ in range(args.iters):
                        step()
                    e1.record()
                    torch.cuda.synchronize()
                    b2b.append(e0.elapsed_time(e1) / args.iters)
                b2b.sort()
                pc = per_call(step, 3, 31)
                row = dict(variant=args.variant, case=name, dtype=str(dtype).split(".")[-1], T=T,
                           back_to_back=t_copy / b2b[2], per_call=t_copy / pc, ms_b2b=b2b[2], ms_per_call=pc,
                           grad_err_vs_loop=err)
                rows.append(row)
                print(json.dumps(row), flush=True)
        (args.out / f"sweep_{args.variant}.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
