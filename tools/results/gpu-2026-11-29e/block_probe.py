#!/usr/bin/env python3
"""The recomputing backward's program width against its static inputs' partial sums (compiled convnet, T = 8, B = 64).

A recomputing backward runs one element per thread in programs of ``BLOCK_NCL = 128`` (4 warps). With a
channels-last per-channel static (a BatchNorm absorbed by the neighbour pass: ``inner = 1, mid = C = 128``) a
program holds exactly one period of the channels, so it writes one fp32 partial per neuron and static, and ATen
sums them afterwards (``run1``: ``reduce_kernel`` 147 µs per step). Env ``BWD_BLOCK`` sets the backward kernels'
``BLOCK_NCL`` (``num_warps = BLOCK_NCL // 32``, still one element per thread); each program then sums
``BLOCK_NCL / 128`` periods itself. Per impl in argv (training step): GPU µs per step by kind, the backward scans'
and the reductions' µs, and the per-call wall ms (median of 41). One JSON line per impl.
"""

from __future__ import annotations

import json
import os
import sys
from collections import defaultdict
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import bench_net  # noqa: E402
from bench_per_call import per_call  # noqa: E402
from flexsn_runtime import scan_kernel  # noqa: E402

BLOCK = int(os.environ.get("BWD_BLOCK", "0"))
_real = scan_kernel.ScanKernel._default_cuda_config


def _config(self, ncl, element_size=4):  # type: ignore[no-untyped-def]
    cfg = _real(self, ncl, element_size)
    if BLOCK and "backward" in self.kind and self.per_thread == 1 and cfg["BLOCK_NCL"] >= 128:
        return {"BLOCK_NCL": BLOCK, "num_warps": max(1, BLOCK // 32)}
    return cfg


scan_kernel.ScanKernel._default_cuda_config = _config  # type: ignore[method-assign]


def main() -> None:
    dev = torch.device("cuda")
    torch.manual_seed(0)
    x = torch.randn(8, 64, 3, 32, 32, device=dev)
    labels = torch.randint(0, 10, (64,), device=dev)
    for impl in sys.argv[1:]:
        net, fwd = bench_net.setup(impl, bench_net.makers(), dev)
        step = bench_net.make_step(net, fwd, x, labels, "train")
        for _ in range(8):
            step()
        torch.cuda.synchronize()
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as p:
            for _ in range(5):
                step()
            torch.cuda.synchronize()
        by: dict[str, float] = defaultdict(float)
        total = 0.0
        for e in p.events():
            if e.device_type == torch.autograd.DeviceType.CUDA:
                total += e.device_time / 5
                n = e.name
                key = "bwd_scan" if "flexsn_backward" in n else "fwd_scan" if "flexsn_" in n else "aten_reduce" if "reduce_kernel" in n else None
                if key:
                    by[key] += e.device_time / 5
        wall = per_call(step, 0, 41)
        print(json.dumps({"block": BLOCK or 128, "impl": impl, "gpu_us": round(total, 1), **{k: round(v, 1) for k, v in by.items()},
                          "wall_ms": round(wall, 3)}), flush=True)


if __name__ == "__main__":
    main()
