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
