"""tools/bench.py keeps working: a tiny run under the Triton interpreter writes complete JSON and a PNG.

The GPU run is the real benchmark; this only guards the tool itself (every
case and impl measured, tables printed, startup processes spawned) so it
runs first time on the GPU machine. ``torch.compile`` is left out: on the
CPU it compiles C++ and takes most of a minute for these few cases.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CASES = ["lif-inference", "lif-training", "2x2-inference", "2x2-training"]
IMPLS = ["triton", "torch", "clone"]


def test_bench_tiny_interpreter(tmp_path: Path) -> None:
    out = tmp_path / "out"
    env = dict(os.environ)
    env["TRITON_INTERPRET"] = "1"
    env["FLEXSN_CACHE_DIR"] = str(tmp_path / "cache")
    src = [str(p) for p in sorted((REPO / "packages").glob("*/src"))]
    env["PYTHONPATH"] = os.pathsep.join(src + [env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    command = [
        sys.executable, str(REPO / "tools" / "bench.py"), "--out", str(out), "--device", "cpu",
        "--ncl", "300", "--T", "4", "--dtypes", "fp32", "--impls", *IMPLS, "--cases", *CASES,
        "--warmup", "0", "--rep", "1", "--startup-neurons", "lif",
    ]
    t0 = time.perf_counter()
    proc = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    elapsed = time.perf_counter() - t0
    assert proc.returncode == 0, f"bench failed ({elapsed:.0f} s):\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"

    data = json.loads((out / "bench.json").read_text(encoding="utf-8"))
    png = out / "bench.png"
    assert png.is_file() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert data["meta"]["ncl"] == 300 and data["meta"]["T"] == [4]

    rows = {(r["case"], r["dtype"], r["T"], r["impl"]): r for r in data["results"]}
    for case in CASES:
        for impl in IMPLS:
            r = rows.get((case, "fp32", 4, impl))
            assert r is not None, f"no result for {case} {impl}"
            assert r["status"] == "ok", f"{case} {impl}: {r['status']} {r['note']}"
            assert r["ms"] > 0 and r["copy_ratio"] > 0
            if impl == "triton":
                assert "FALLBACK" not in r["note"], r["note"]
    assert [c["T"] for c in data["clone_ms"]] == [4]

    # Numerical check of our backend against the torch loop, per neuron.
    for key in ("lif-fp32", "2x2-fp32"):
        check = data["checks"][key]
        assert "error" not in check, check
        assert check["uses_kernels"] is True
        assert all(o["frac_gt_1e-2"] == 0.0 for o in check["outputs"]), check

    # Startup in fresh processes (cold and warm) for LIF.
    startup = data["startup"]["lif"]
    for label in ("cold", "warm"):
        assert "error" not in startup[label], startup[label]
        assert startup[label]["first_result_s"] > 0
        assert startup[label]["uses_kernels"] is True

    targets = {t["target"]: t["status"] for t in data["targets"]}
    assert any(t.startswith("startup lif cold") for t in targets)
    assert all(s in ("PASS", "FAIL", "n/a") for s in targets.values())

    # The compact tables come last (the GPU runner returns only stdout's tail).
    tail = proc.stdout.strip().splitlines()
    assert any(line.startswith("COMPACT") for line in tail[-40:])
    assert tail[-len(targets) - 1] == "TARGETS (triton impl)"


def test_cuda_only_helpers_with_fakes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The do_bench wrapper and the memory probe, driven through fakes (no GPU here)."""
    import bench_measure
    import bench_neurons
    import torch
    import triton.testing

    calls: list[dict[str, object]] = []

    def new_style(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean"):  # type: ignore[no-untyped-def]
        fn()
        calls.append({"return_mode": return_mode, "quantiles": quantiles})
        return 1.5

    def mid_style(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, fast_flush=True):  # type: ignore[no-untyped-def]
        fn()
        calls.append({"quantiles": quantiles})
        return [2.5]

    def old_style(fn, warmup=25, rep=100):  # type: ignore[no-untyped-def]
        fn()
        return 3.5

    for fake, expected in ((new_style, 1.5), (mid_style, 2.5), (old_style, 3.5)):
        monkeypatch.setattr(triton.testing, "do_bench", fake)
        assert bench_measure.do_bench_median(lambda: None, 5, 10) == expected
    assert calls == [{"return_mode": "median", "quantiles": None}, {"quantiles": [0.5]}]

    # measure_memory's arithmetic, with a fake allocator: the forward keeps 1 output + 1 saved + final state.
    T, ncl = 4, 8
    unit = T * ncl * 4
    state = {"now": 0, "peak": 0}
    monkeypatch.setattr(torch.cuda, "reset_peak_memory_stats", lambda device=None: state.update(peak=state["now"]))
    monkeypatch.setattr(torch.cuda, "memory_allocated", lambda device=None: state["now"])
    monkeypatch.setattr(torch.cuda, "max_memory_allocated", lambda device=None: state["peak"])
    neuron = bench_neurons.NEURONS["lif"]

    def fake_impl(*xs: torch.Tensor) -> tuple[torch.Tensor, ...]:
        state["now"] += 2 * unit + ncl * 4  # output seq + one saved state seq + final state
        state["peak"] = max(state["peak"], state["now"] + unit)  # + input grad during backward
        y = xs[0] * 2
        return y, y[-1]

    xs = [torch.randn(T, ncl, requires_grad=True)]
    m = bench_measure.measure_memory(fake_impl, xs, [torch.randn(T, ncl)], neuron, T, ncl, torch.device("cpu"))
    assert m["saved_units"] == 1.0 and m["pass"] is True
    assert m["held_after_forward_units"] == 2.25 and m["peak_units"] == 3.25
    assert m["io_tensors"] == 2 and m["ideal_peak_units"] == 3


def test_scale_ddp_gpu_timeline_against_a_tick_count() -> None:
    """``tools/scale_ddp.py``'s split of a profile's GPU time, against counting each microsecond of random kernels."""
    import random

    import scale_ddp

    rng = random.Random(0)
    for _ in range(50):
        events = [
            {"cat": "kernel", "name": rng.choice(["ncclDevKernel_AllReduce", "triton_poi_fused", "conv"]),
             "ts": rng.randrange(0, 60), "dur": rng.randrange(1, 15)}
            for _ in range(rng.randrange(1, 8))
        ]
        events.append({"cat": "cpu_op", "name": "aten::add", "ts": 0, "dur": 500})  # not a kernel: not counted
        got = scale_ddp.gpu_timeline({"traceEvents": events})
        kernels = events[:-1]
        start, end = min(e["ts"] for e in kernels), max(e["ts"] + e["dur"] for e in kernels)
        ticks = {"compute_us": 0, "nccl_only_us": 0, "idle_us": 0}
        for t in range(start, end):
            on = [e["name"] for e in kernels if e["ts"] <= t < e["ts"] + e["dur"]]
            nccl = [n for n in on if "nccl" in n.lower()]
            ticks["idle_us" if not on else "nccl_only_us" if len(nccl) == len(on) else "compute_us"] += 1
        assert got == {"span_us": end - start, **ticks}, (events, got)


def test_scale_ddp_plot_only_draws_the_recorded_rows(tmp_path: Path) -> None:
    """``tools/scale_ddp.py --plot-only`` draws a PNG from recorded rows without a GPU, and refuses an empty folder."""
    import scale_ddp

    rows = [
        {"gpus": g, "neuron": n, "compile": "reduce-overhead", "batch_per_gpu": 64, "samples_per_s": s,
         **({"compute_us": 2800.0, "nccl_only_us": 20.0, "idle_us": 900.0} if g == 2 else {})}
        for g, n, s in ((1, "triton", 22000.0), (2, "triton", 30000.0), (1, "torch", 10000.0), (2, "torch", 14000.0))
    ]
    assert scale_ddp.label(rows[0]) == "FlexSN reduce-overhead"
    assert scale_ddp.label({**rows[2], "batch_per_gpu": 128, "compile_inner": True}) == "loop reduce-overhead B=128 inner"
    (tmp_path / "scaling.json").write_text(json.dumps(rows))
    src = [str(p) for p in sorted((REPO / "packages").glob("*/src"))]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(src)}
    command = [sys.executable, str(REPO / "tools" / "scale_ddp.py"), "--plot-only", "--out"]
    proc = subprocess.run([*command, str(tmp_path)], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (tmp_path / "scaling.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = subprocess.run([*command, str(empty)], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0 and "no rows" in proc.stderr
