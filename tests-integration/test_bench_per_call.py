"""tools/bench_per_call.py's ``--processes N``: the spread of each row over fresh processes (the tool's
measurement needs CUDA; here its orchestration and arithmetic run with the children stubbed)."""

from __future__ import annotations

import json
import statistics
import subprocess
from pathlib import Path
from typing import Any

import pytest

import bench_per_call  # tools/ is on pytest's pythonpath (pytest.ini)


def _row(ratio: float, ms: float, impl: str = "flexsn", mode: str = "training") -> dict[str, Any]:
    return dict(case="lif", mode=mode, impl=impl, T=8, dtype="fp32", ms=ms, copy_ratio=ratio, autograd_threads="on",
                host_us=10.0)


def test_the_spread_is_taken_per_row_over_the_processes() -> None:
    runs = [
        [_row(0.30, 0.25), _row(0.70, 0.10, mode="inference")],
        [_row(0.19, 0.39), _row(0.75, 0.09, mode="inference")],
        [_row(0.24, 0.31)],  # a process that stopped before its inference row
    ]
    rows = bench_per_call.spread(runs)
    assert [(r["mode"], r["processes"]) for r in rows] == [("training", 3), ("inference", 2)]
    train, infer = rows
    assert (train["copy_ratio_min"], train["copy_ratio_max"]) == (0.19, 0.30)
    assert train["copy_ratio_median"] == statistics.median([0.30, 0.19, 0.24])
    assert train["ms_median"] == 0.31
    assert infer["copy_ratio_median"] == pytest.approx(0.725)


def test_the_child_arguments_drop_out_and_processes() -> None:
    argv = ["--cases", "lif", "--out", "X", "--processes", "3", "--T", "8", "--out=Y", "--processes=2", "--rep", "61"]
    assert bench_per_call._strip_out_and_processes(argv) == ["--cases", "lif", "--T", "8", "--rep", "61"]


def test_processes_run_one_after_another_and_write_the_spread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ratios = iter([0.31, 0.22, 0.27])
    calls: list[list[str]] = []

    def child(cmd: list[str], check: bool) -> subprocess.CompletedProcess[str]:
        assert check
        calls.append(cmd)
        out = Path(cmd[cmd.index("--out") + 1])
        out.mkdir(parents=True)
        (out / "per_call.json").write_text(json.dumps([_row(next(ratios), 0.3)]))
        return subprocess.CompletedProcess(cmd, 0)

    monkeypatch.setattr(bench_per_call.subprocess, "run", child)
    bench_per_call._in_processes(3, tmp_path, ["--cases", "lif"])
    assert len(calls) == 3 and all(c[-2:] == ["--processes", "1"] and "--cases" in c for c in calls)
    (row,) = json.loads((tmp_path / "per_call_processes.json").read_text())
    assert (row["processes"], row["copy_ratio_min"], row["copy_ratio_median"], row["copy_ratio_max"]) == (3, 0.22, 0.27, 0.31)
