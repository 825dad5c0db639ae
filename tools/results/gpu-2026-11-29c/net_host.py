#!/usr/bin/env python3
"""Where the compiled convnet step's host time goes: FlexSN fused / unfused against the plain loop, default mode.

``tools/bench_net.py``'s network and step (T = 8, B = 64, ``WHAT``: infer (default), eval or train). Per impl (argv):
after warm-up, 41 steps each timed alone: host ms (the step's Python call, from a synchronize to its return) and
wall ms (to the GPU's end, CUDA events), medians; then 20 steps under cProfile (top functions by total time,
written to ``OUT/<impl>_<what>.prof.txt``) and 5 under ``torch.profiler`` (CPU self time per op, ``..._ops.txt``).
"""

from __future__ import annotations

import cProfile
import io
import json
import os
import pstats
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import bench_net  # noqa: E402


def main() -> None:
    out = Path(os.environ.get("OUT", "/tmp"))
    dev = torch.device("cuda")
    make = bench_net.makers()
    torch.manual_seed(0)
    x = torch.randn(8, 64, 3, 32, 32, device=dev)
    labels = torch.randint(0, 10, (64,), device=dev)
    what = os.environ.get("WHAT", "infer")
    rows = []
    for impl in sys.argv[1:]:
        net, fwd = bench_net.setup(impl, make, dev)
        step = bench_net.make_step(net, fwd, x, labels, what)
        for _ in range(8):
            step()
        torch.cuda.synchronize()
        host, wall = [], []
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        for _ in range(41):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            a.record()
            step()
            b.record()
            host.append((time.perf_counter() - t0) * 1e3)
            torch.cuda.synchronize()
            wall.append(a.elapsed_time(b))
        prof = cProfile.Profile()
        torch.cuda.synchronize()
        prof.enable()
        for _ in range(20):
            step()
        prof.disable()
        torch.cuda.synchronize()
        s = io.StringIO()
        pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(45)
        s2 = io.StringIO()
        pstats.Stats(prof, stream=s2).sort_stats("cumtime").print_stats(60)
        (out / f"{impl}_{what}.prof.txt").write_text(s.getvalue() + "\n\n" + s2.getvalue())
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]) as p:
            for _ in range(5):
                step()
            torch.cuda.synchronize()
        (out / f"{impl}_{what}_ops.txt").write_text(p.key_averages().table(sort_by="self_cpu_time_total", row_limit=60))
        p.export_chrome_trace(str(out / f"{impl}_{what}_trace.json"))
        row = {"impl": impl, "what": what, "host_ms": statistics.median(host), "wall_ms": statistics.median(wall),
               "host_min": min(host), "wall_min": min(wall)}
        rows.append(row)
        print(json.dumps(row), flush=True)
    (out / f"net_host_{what}.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
