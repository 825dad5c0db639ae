#!/usr/bin/env python3
"""Where the compiled convnet step's GPU time goes, per kernel (``tools/bench_net.py``'s network and step, T = 8, B = 64).

For each impl in argv (``flexsn_ro``, ``loop_ro``, ...) and each of ``train`` / ``infer``: after warm-up,
``torch.profiler`` over 5 steps; the CUDA kernels grouped by name (µs per step, count per step), largest first,
and the same grouped by kind (``scan``: our ``flexsn`` kernels; ``conv``: cuDNN / cutlass / gemm; ``inductor``:
Inductor's Triton kernels; ``copy``; ``reduce``: ATen reductions; ``other``). One JSON line per (impl, what).
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import bench_net  # noqa: E402


def kind(name: str) -> str:
    n = name.lower()
    if "flexsn" in n or "scan" in n:
        return "scan"
    if any(k in n for k in ("cudnn", "conv", "gemm", "cutlass", "sm90", "xmma", "implicit", "wgrad", "dgrad", "fprop")):
        return "conv"
    if n.startswith("triton_"):
        return "inductor"
    if "copy" in n or "elementwise_kernel" in n:
        return "copy"
    if "reduce" in n:
        return "reduce"
    return "other"


def main() -> None:
    dev = torch.device("cuda")
    torch.manual_seed(0)
    x = torch.randn(8, 64, 3, 32, 32, device=dev)
    labels = torch.randint(0, 10, (64,), device=dev)
    for impl in sys.argv[1:]:
        for what in ("train", "infer"):
            net, fwd = bench_net.setup(impl, bench_net.makers(), dev)
            step = bench_net.make_step(net, fwd, x, labels, what)
            for _ in range(8):
                step()
            torch.cuda.synchronize()
            with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as p:
                for _ in range(5):
                    step()
                torch.cuda.synchronize()
            by_name: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
            for e in p.events():
                if e.device_type == torch.autograd.DeviceType.CUDA:
                    by_name[e.name][0] += e.device_time / 5
                    by_name[e.name][1] += 1 / 5
            by_kind: dict[str, float] = defaultdict(float)
            for n, (us, _) in by_name.items():
                by_kind[kind(n)] += us
            top = sorted(by_name.items(), key=lambda kv: -kv[1][0])
            row = {"impl": impl, "what": what, "gpu_us": round(sum(v[0] for v in by_name.values()), 1),
                   "kinds": {k: round(v, 1) for k, v in sorted(by_kind.items(), key=lambda kv: -kv[1])},
                   "kernels": [(n[:90], round(us, 1), c) for n, (us, c) in top[:40]]}
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
