#!/usr/bin/env python3
"""Host µs of one ``flexsn::inference`` op call on CUDA, cut into its layers (medians of 3000 calls, small tensors).

Rows: the op through the dispatcher (``torch.ops.flexsn.inference.default``, as Inductor's wrapper calls it), the same
with Python's cyclic GC off, the implementation with its signature (``inference_impl``), the argument check alone, the
launch plan's ``run``, and two allocations + Triton's launcher (the floor); then a cProfile of the op's calls (top by
own time). Every call runs on ``[8, 4, 16]`` fp32 (the GPU is never the bottleneck).
"""

from __future__ import annotations

import cProfile
import gc
import io
import json
import os
import pstats
import statistics
import time

import torch

from flexsn_nn import LIFNode
from flexsn_runtime import ops
from flexsn_runtime.op_impls import inference_impl


def bench(f, n: int = 3000) -> float:
    for _ in range(300):
        f()
    ts = []
    for _ in range(n):
        t = time.perf_counter_ns()
        f()
        ts.append(time.perf_counter_ns() - t)
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    return round(statistics.median(ts) / 1e3, 2)


def main() -> None:
    out = os.environ.get("OUT", "/tmp")
    dev = os.environ.get("DEV", "cuda")
    n = LIFNode(step_mode="m").to(dev)
    x = torch.randn(8, 4, 16, device=dev)
    with torch.no_grad():
        n(x)
    h = n.kernel.handle
    args = [x]
    sig = ops.check_op_args(h, args, "flexsn::inference")
    op = torch.ops.flexsn.inference.default
    rows = {}
    with torch.no_grad():
        rows["op_dispatch"] = bench(lambda: op(h, args, True))
        gc.disable()
        rows["op_dispatch_gc_off"] = bench(lambda: op(h, args, True))
        gc.enable()
        rows["custom_op_object"] = bench(lambda: ops.flexsn_inference_op(h, args, True))
        rows["inference_impl"] = bench(lambda: inference_impl(h, args, True, sig))
        rows["check_op_args"] = bench(lambda: ops.check_op_args(h, args, "flexsn::inference"))
        rows["module_call"] = bench(lambda: (n.reset(), n(x)))
        rows["empty_like_x2"] = bench(lambda: (torch.empty_like(x), x.new_empty(4, 16)))
        rows["clone"] = bench(lambda: x.clone())
    print(json.dumps(rows), flush=True)
    prof = cProfile.Profile()
    with torch.no_grad():
        prof.enable()
        for _ in range(2000):
            op(h, args, True)
        prof.disable()
    s = io.StringIO()
    pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(30)
    text = s.getvalue()
    print(text[:6000])
    with open(os.path.join(out, "op_host.json"), "w") as f:
        json.dump(rows, f)


if __name__ == "__main__":
    main()
