#!/usr/bin/env python3
"""Where a per-call ``reduce-overhead`` step's time goes: host time to the CUDA graph's replay, the GPU's wait for it,
the replay's GPU time (``tools/bench_net.py``'s convnet, T = 8, B = 64; impls in argv, ``WHATS`` env, default ``infer``).

``torch.cuda.CUDAGraph.replay`` is wrapped to stamp the host clock and record a CUDA event just before each replay.
Per call (synchronize first, as ``tools/bench_per_call.per_call``): ``host_to_replay_us`` (step start to the first
replay, host clock), ``host_total_us`` (step start to return), ``gpu_wait_us`` (the start event to the first replay's
event: the GPU idle before the graph), ``gpu_graph_us`` (first replay's event to the end event), ``wall_us`` (start
to end event, what ``per_call`` reports), ``replays`` per call. Medians of 41 calls; one JSON line per (impl, what),
with this process's ``python_sum_range_1e5_us`` (``tools/host_probe.py``'s host speed).
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import bench_net  # noqa: E402
from host_probe import host_speed  # noqa: E402

_now = time.perf_counter_ns
_marks: list[tuple[int, torch.cuda.Event]] = []
_real_replay = torch.cuda.CUDAGraph.replay


def _replay(self: torch.cuda.CUDAGraph) -> None:
    ev = torch.cuda.Event(enable_timing=True)
    ev.record()
    _marks.append((_now(), ev))
    _real_replay(self)


def probe(step, n: int = 41) -> dict[str, float]:
    rows: dict[str, list[float]] = {k: [] for k in ("host_to_replay_us", "host_total_us", "gpu_wait_us", "gpu_graph_us", "wall_us", "replays")}
    for _ in range(10):
        step()
    torch.cuda.synchronize()
    for _ in range(n):
        _marks.clear()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        t0 = _now()
        a.record()
        step()
        t1 = _now()
        b.record()
        torch.cuda.synchronize()
        rows["host_total_us"].append((t1 - t0) / 1e3)
        rows["wall_us"].append(a.elapsed_time(b) * 1e3)
        rows["replays"].append(len(_marks))
        if _marks:
            th, ev = _marks[0]
            rows["host_to_replay_us"].append((th - t0) / 1e3)
            rows["gpu_wait_us"].append(a.elapsed_time(ev) * 1e3)
            rows["gpu_graph_us"].append(ev.elapsed_time(b) * 1e3)
    return {k: round(statistics.median(v), 1) for k, v in rows.items() if v}


def main() -> None:
    torch.cuda.CUDAGraph.replay = _replay  # type: ignore[method-assign]
    dev = torch.device("cuda")
    torch.manual_seed(0)
    x = torch.randn(8, 64, 3, 32, 32, device=dev)
    labels = torch.randint(0, 10, (64,), device=dev)
    speed = host_speed()
    for impl in sys.argv[1:]:
        for what in os.environ.get("WHATS", "infer").split(","):
            net, fwd = bench_net.setup(impl, bench_net.makers(), dev)
            step = bench_net.make_step(net, fwd, x, labels, what)
            print(json.dumps({"proc": os.environ.get("PROC", "?"), "impl": impl, "what": what, **probe(step), **speed}), flush=True)


if __name__ == "__main__":
    main()
