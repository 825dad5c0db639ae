"""The demo's checkpoints: stopping after one epoch and resuming gives the loss curve of an
uninterrupted run (same seed), and neuron states are not part of the checkpoint."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
ARGS = ["--epochs", "2", "--hidden", "16", "--batch-size", "128", "--T", "4", "--device", "cpu"]


def _run(out: Path, *extra: str) -> dict[str, object]:
    res = subprocess.run([sys.executable, str(ROOT / "tools" / "demo.py"), *ARGS, "--out", str(out), *extra],
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    metrics: dict[str, object] = json.loads((out / "metrics.json").read_text())
    return metrics


def test_resume_gives_the_uninterrupted_curve(tmp_path: Path) -> None:
    whole = _run(tmp_path / "whole")
    ckpt = tmp_path / "ckpt.pt"
    _run(tmp_path / "first", "--stop-after", "1", "--save", str(ckpt))
    saved = torch.load(ckpt, weights_only=False)
    assert saved["epoch"] == 1 and not any("state" in k.lower() and "lif" in k for k in saved["model"])
    resumed = _run(tmp_path / "resumed", "--resume", str(ckpt))
    assert resumed["history"] == whole["history"]  # type: ignore[index]
