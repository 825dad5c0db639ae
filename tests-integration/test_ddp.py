"""FlexSN layers under ``DistributedDataParallel`` (gloo, 2 CPU processes): after training steps the
parameters (a learnable PLIF decay included) are equal on both ranks and equal to one process
training on the whole batch (DDP averages the gradients of equal shards)."""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path

import pytest
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

SRC = [str(p) for p in sorted(Path(__file__).resolve().parents[1].glob("packages/*/src"))]
STEPS, B, T, F = 2, 8, 4, 12


def _model() -> torch.nn.Module:
    from flexsn_nn import ParametricLIFNode

    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(F, F), ParametricLIFNode(init_tau=3.0), torch.nn.Linear(F, 3))


def _data() -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(1)
    return torch.rand(STEPS, T, B, F, generator=g) * 2, torch.randint(0, 3, (STEPS, B), generator=g)


def _train(model: torch.nn.Module, xs: torch.Tensor, ys: torch.Tensor, rank: int = 0, world: int = 1) -> None:
    from flexsn_nn import reset_net

    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    shard = slice(rank * B // world, (rank + 1) * B // world)
    for x, y in zip(xs, ys):
        logits = model(x[:, shard]).mean(0)
        loss = torch.nn.functional.cross_entropy(logits, y[shard])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        reset_net(model)


def _worker(rank: int, world: int, port: int, out: str) -> None:
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), TRITON_INTERPRET="1")
    sys.path[:0] = SRC
    dist.init_process_group("gloo", rank=rank, world_size=world)
    try:
        model = torch.nn.parallel.DistributedDataParallel(_model())
        xs, ys = _data()
        _train(model, xs, ys, rank, world)
        torch.save({k: v.detach().clone() for k, v in model.module.state_dict().items()}, f"{out}/rank{rank}.pt")
    finally:
        dist.destroy_process_group()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.skipif(not dist.is_available() or not dist.is_gloo_available(), reason="torch.distributed with gloo needed")
def test_ddp_two_processes_match_one(tmp_path: Path) -> None:
    mp.spawn(_worker, args=(2, _free_port(), str(tmp_path)), nprocs=2, join=True)
    ranks = [torch.load(tmp_path / f"rank{r}.pt") for r in range(2)]
    single = _model()
    _train(single, *_data())
    assert set(ranks[0]) == set(single.state_dict()) and "1.w" in ranks[0]
    for name, want in single.state_dict().items():
        torch.testing.assert_close(ranks[0][name], ranks[1][name], rtol=0, atol=0, msg=f"{name} differs between ranks")
        torch.testing.assert_close(ranks[0][name], want, rtol=1e-5, atol=1e-6, msg=f"{name}: DDP != one process")
    assert not torch.equal(ranks[0]["1.w"], _model().state_dict()["1.w"])  # the decay did train


def test_the_ddp_example_runs_under_torchrun(tmp_path: Path) -> None:
    """``tools/train_ddp.py`` under ``torchrun --nproc_per_node=2`` (gloo on the CPU): rank 0 reports the job."""
    import json
    import subprocess

    root = Path(__file__).resolve().parents[1]
    res = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node=2", str(root / "tools" / "train_ddp.py"),
         "--epochs", "1", "--hidden", "16", "--T", "2", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=600, env={**os.environ, "TRITON_INTERPRET": "1"},
    )
    assert res.returncode == 0, res.stderr[-3000:]
    report = json.loads((tmp_path / "ddp.json").read_text())
    assert report["world_size"] == 2 and report["samples_per_s"] > 0 and 0.0 <= report["test_accuracy"] <= 1.0
