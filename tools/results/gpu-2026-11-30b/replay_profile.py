#!/usr/bin/env python3
"""Where the host time before a ``reduce-overhead`` convnet step's CUDA-graph replay goes, by function (cProfile).

``tools/results/gpu-2026-11-29f/replay_probe.py`` split a per-call inference step at the replay: FlexSN's host time
before it moved between 189 and 465 µs over processes, the loop's (``backend="torch"``) between 162 and 270 µs.
This profiles ``--n`` per-call steps (synchronize between them, as ``tools/bench_per_call.per_call``) of each impl
in argv (``tools/bench_net.py``'s names, e.g. ``flexsn_ro loop_ro``) and prints, per impl, the total host µs per
step and the functions with the most own time and the most cumulative time per step, plus the time per step spent
before ``torch.cuda.CUDAGraph.replay`` (stamped). ``WHATS`` env: ``infer`` (default) or ``train``.
"""

from __future__ import annotations

import cProfile
import io
import os
import pstats
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import bench_net  # noqa: E402

_now = time.perf_counter_ns
_first: list[int] = []
_real_replay = torch.cuda.CUDAGraph.replay


def _replay(self: torch.cuda.CUDAGraph) -> None:
    _first.append(_now())
    _real_replay(self)


def main() -> None:
    torch.cuda.CUDAGraph.replay = _replay  # type: ignore[method-assign]
    dev = torch.device("cuda")
    torch.manual_seed(0)
    x = torch.randn(8, 64, 3, 32, 32, device=dev)
    labels = torch.randint(0, 10, (64,), device=dev)
    n = int(os.environ.get("N", "200"))
    for impl in sys.argv[1:]:
        for what in os.environ.get("WHATS", "infer").split(","):
            net, fwd = bench_net.setup(impl, bench_net.makers(), dev)
            step = bench_net.make_step(net, fwd, x, labels, what)
            for _ in range(20):
                step()
            torch.cuda.synchronize()
            before: list[float] = []
            for _ in range(n):  # unprofiled: host time to the replay
                _first.clear()
                t0 = _now()
                step()
                if _first:
                    before.append((_first[0] - t0) / 1e3)
                torch.cuda.synchronize()
            prof = cProfile.Profile()
            total = 0
            for _ in range(n):
                t0 = _now()
                prof.enable()
                step()
                prof.disable()
                total += _now() - t0
                torch.cuda.synchronize()
            print(f"=== {impl} {what}: host to replay {statistics.median(before):.1f} us (unprofiled median), "
                  f"profiled host {total / n / 1e3:.1f} us per step", flush=True)
            for key in ("tottime", "cumulative"):
                s = io.StringIO()
                st = pstats.Stats(prof, stream=s)
                st.sort_stats(key).print_stats(30)
                print(f"--- by {key} (seconds over {n} steps)")
                print("\n".join(s.getvalue().splitlines()[6:40]), flush=True)


if __name__ == "__main__":
    main()
