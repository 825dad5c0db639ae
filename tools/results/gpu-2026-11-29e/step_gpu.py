#!/usr/bin/env python3
"""The compiled convnet's step per impl in argv and ``what`` in env ``WHATS`` (``train,infer``): GPU µs per step
(``torch.profiler``, 5 steps), kernels per step, the µs of Inductor kernels named after our ops (``fused_inference`` /
``fused_training``: the copies of their results it inserts), per-call wall ms (median of 41) and back to back ms
(``tools/bench_net.py``'s network and step, T = 8, B = 64). One JSON line per (impl, what); env ``TREE`` labels it.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import bench_net  # noqa: E402
from bench_per_call import back_to_back, per_call  # noqa: E402


def main() -> None:
    dev = torch.device("cuda")
    torch.manual_seed(0)
    x = torch.randn(8, 64, 3, 32, 32, device=dev)
    labels = torch.randint(0, 10, (64,), device=dev)
    for impl in sys.argv[1:]:
        for what in os.environ.get("WHATS", "train,infer").split(","):
            net, fwd = bench_net.setup(impl, bench_net.makers(), dev)
            step = bench_net.make_step(net, fwd, x, labels, what)
            for _ in range(8):
                step()
            torch.cuda.synchronize()
            with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as p:
                for _ in range(5):
                    step()
                torch.cuda.synchronize()
            ev = [e for e in p.events() if e.device_type == torch.autograd.DeviceType.CUDA]
            ours = [e for e in ev if "fused_inference" in e.name or "fused_training" in e.name]
            wall = per_call(step, 0, 41)
            print(json.dumps({"tree": os.environ.get("TREE", "?"), "impl": impl, "what": what,
                              "gpu_us": round(sum(e.device_time for e in ev) / 5, 1), "kernels": len(ev) / 5,
                              "op_copy_us": round(sum(e.device_time for e in ours) / 5, 1), "op_copies": len(ours) / 5,
                              "wall_ms": round(wall, 3), "b2b_ms": round(back_to_back(step, 3, 30), 3)}), flush=True)


if __name__ == "__main__":
    main()
