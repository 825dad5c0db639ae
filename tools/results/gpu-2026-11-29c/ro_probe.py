#!/usr/bin/env python3
"""FlexSN's compiled convnet inference step under reduce-overhead: ms per step and Dynamo's frame counters.

Whether Dynamo converts frames while the CUDA-graphed step runs (our op kernels' Python, reached from the graph),
and whether the step replays a CUDA graph (``cudagraph_trees`` counters).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import bench_net  # noqa: E402
from bench_per_call import per_call  # noqa: E402

from torch._dynamo.utils import counters  # noqa: E402

dev = torch.device("cuda")
x = torch.randn(8, 64, 3, 32, 32, device=dev)
labels = torch.randint(0, 10, (64,), device=dev)
net, fwd = bench_net.setup("flexsn_ro", bench_net.makers(), dev)
step = bench_net.make_step(net, fwd, x, labels, "infer")
for _ in range(5):
    step()
before = {k: dict(v) for k, v in counters.items()}
ms = per_call(step, 3, 31)
after = {k: dict(v) for k, v in counters.items()}
print(json.dumps({"ms": ms, "frames_before": before.get("frames"), "frames_after": after.get("frames"),
                  "inductor": {k: v for k, v in after.get("inductor", {}).items() if "cudagraph" in k}}))
print("counter groups:", sorted(after))
