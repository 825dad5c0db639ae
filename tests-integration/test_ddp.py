"""FlexSN layers under ``DistributedDataParallel`` (gloo, 2 CPU processes): after training steps the
parameters (a learnable PLIF decay included) are equal on both ranks and equal to one process
training on the whole batch (DDP averages the gradients of equal shards). The same for FSDP2
(``fully_shard``) and for ``torch.compile`` + DDP, on the CPU (gloo, ``aot_eager``) and, on a GPU,
with NCCL and Inductor (one process per GPU, at most 2)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import torch.distributed as dist

SRC = [str(p) for p in sorted(Path(__file__).resolve().parents[1].glob("packages/*/src"))]

#: one training run, as its own program (spawned workers cannot import this test module)
WORKER = """
import os, sys, torch, torch.distributed as dist
sys.path[:0] = SRC
from flexsn_nn import ParametricLIFNode, reset_net
STEPS, B, T, F = 2, 8, 4, 12
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(F, F), ParametricLIFNode(init_tau=3.0, step_mode="m"), torch.nn.Linear(F, 3))
if world > 1:
    dist.init_process_group("gloo")
    net = torch.nn.parallel.DistributedDataParallel(model)
else:
    net = model
g = torch.Generator().manual_seed(1)
xs, ys = torch.rand(STEPS, T, B, F, generator=g) * 2, torch.randint(0, 3, (STEPS, B), generator=g)
opt = torch.optim.SGD(net.parameters(), lr=0.5)
shard = slice(rank * B // world, (rank + 1) * B // world)
for x, y in zip(xs, ys):
    loss = torch.nn.functional.cross_entropy(net(x[:, shard]).mean(0), y[shard])
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    reset_net(model)
torch.save({k: v.detach().clone() for k, v in model.state_dict().items()}, OUT + f"/w{world}r{rank}.pt")
if world > 1:
    dist.barrier()  # every rank is done with its collectives before gloo's threads shut down
    dist.destroy_process_group()
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _launch(script: Path, world: int, interpret: bool = True) -> None:
    """Run ``script`` as ``world`` processes (ranks 0..world-1) and wait for all; CPU kernels interpreted."""
    port = str(_free_port())
    env = {**os.environ, "WORLD_SIZE": str(world), "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": port}
    if interpret:
        env["TRITON_INTERPRET"] = "1"
    else:
        env.pop("TRITON_INTERPRET", None)
    procs = [
        subprocess.Popen([sys.executable, str(script)], env={**env, "RANK": str(r)},
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for r in range(world)
    ]
    for p in procs:
        _, err = p.communicate(timeout=600)
        assert p.returncode == 0, err[-3000:]


@pytest.mark.skipif(not dist.is_available() or not dist.is_gloo_available(), reason="torch.distributed with gloo needed")
def test_ddp_two_processes_match_one(tmp_path: Path) -> None:
    script = tmp_path / "worker.py"
    script.write_text(f"SRC = {SRC!r}\nOUT = {str(tmp_path)!r}\n" + WORKER)
    _launch(script, 1)
    _launch(script, 2)
    single, ranks = torch.load(tmp_path / "w1r0.pt"), [torch.load(tmp_path / f"w2r{r}.pt") for r in range(2)]
    assert set(ranks[0]) == set(single) and "1.w" in single
    for name, want in single.items():
        torch.testing.assert_close(ranks[0][name], ranks[1][name], rtol=0, atol=0, msg=f"{name} differs between ranks")
        torch.testing.assert_close(ranks[0][name], want, rtol=1e-5, atol=1e-6, msg=f"{name}: DDP != one process")
    assert float(single["1.w"]) != pytest.approx(-0.6931, abs=1e-6)  # the decay did train (init: -log(2))


def test_the_ddp_example_runs_under_torchrun(tmp_path: Path) -> None:
    """``tools/train_ddp.py`` under ``torchrun --nproc_per_node=2`` (gloo on the CPU): rank 0 reports the job."""
    import json

    root = Path(__file__).resolve().parents[1]
    res = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node=2", str(root / "tools" / "train_ddp.py"),
         "--epochs", "1", "--hidden", "16", "--T", "2", "--out", str(tmp_path), "--device", "cpu"],
        capture_output=True, text=True, timeout=600, env={**os.environ, "TRITON_INTERPRET": "1"},
    )
    assert res.returncode == 0, res.stderr[-3000:]
    report = json.loads((tmp_path / "ddp.json").read_text())
    assert report["world_size"] == 2 and report["samples_per_s"] > 0 and 0.0 <= report["test_accuracy"] <= 1.0


SHARDED_WORKER = """
import os, sys, torch, torch.distributed as dist
sys.path[:0] = SRC
from flexsn_nn import ParametricLIFNode, prepare_fully_shard, reset_net
STEPS, B, T, F = 2, 8, 4, 12
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
device = torch.device("cuda", rank) if DEVICE == "cuda" else torch.device("cpu")
if DEVICE == "cuda":
    torch.cuda.set_device(device)
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(F, F), ParametricLIFNode(init_tau=3.0, step_mode="m"), torch.nn.Linear(F, 3)).to(device)
if MODE == "fsdp":
    assert prepare_fully_shard(model) == ["1.w"]
net = model
if MODE != "plain":
    dist.init_process_group("nccl" if DEVICE == "cuda" else "gloo", device_id=device if DEVICE == "cuda" else None)
    if MODE == "fsdp":
        from torch.distributed.device_mesh import init_device_mesh
        from torch.distributed.fsdp import fully_shard
        mesh = init_device_mesh(device.type, (world,))  # explicit: on a GPU host the default mesh is CUDA's
        for layer in model:
            fully_shard(layer, mesh=mesh)
        fully_shard(model, mesh=mesh)
    else:
        ddp = torch.nn.parallel.DistributedDataParallel(model)
        net = torch.compile(ddp, backend="inductor" if DEVICE == "cuda" else "aot_eager")
g = torch.Generator().manual_seed(1)
xs, ys = torch.rand(STEPS, T, B, F, generator=g) * 2, torch.randint(0, 3, (STEPS, B), generator=g)
opt = torch.optim.SGD(net.parameters(), lr=0.5)
shard = slice(rank * B // world, (rank + 1) * B // world)
for x, y in zip(xs.to(device), ys.to(device)):
    loss = torch.nn.functional.cross_entropy(net(x[:, shard]).mean(0), y[shard])
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    reset_net(model)
state = {k: (v.full_tensor() if hasattr(v, "full_tensor") else v).detach().cpu().reshape(v.shape if v.dim() else ()).clone()
         for k, v in model.state_dict().items()}
torch.save(state, OUT + f"/{MODE}-w{world}r{rank}.pt")
if MODE != "plain":
    dist.barrier()  # every rank is done with its collectives before gloo's threads shut down
    dist.destroy_process_group()
"""

DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


@pytest.mark.skipif(not dist.is_available() or not dist.is_gloo_available(), reason="torch.distributed with gloo needed")
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("mode", ["fsdp", "compile_ddp"])
def test_sharded_or_compiled_training_matches_one_plain_process(tmp_path: Path, mode: str, device: str) -> None:
    world = 2 if device == "cpu" else min(2, torch.cuda.device_count())
    for m in ("plain", mode):
        script = tmp_path / f"{m}.py"
        script.write_text(f"SRC = {SRC!r}\nOUT = {str(tmp_path)!r}\nMODE = {m!r}\nDEVICE = {device!r}\n" + SHARDED_WORKER)
        _launch(script, 1 if m == "plain" else world, interpret=device == "cpu")
    single = torch.load(tmp_path / "plain-w1r0.pt")
    ranks = [torch.load(tmp_path / f"{mode}-w{world}r{r}.pt") for r in range(world)]
    assert set(ranks[0]) == set(single) and "1.w" in single
    for name, want in single.items():
        for r, got in enumerate(ranks):
            torch.testing.assert_close(got[name].reshape(want.shape), want, rtol=1e-5, atol=1e-6, msg=f"{name} on rank {r}")
    assert float(single["1.w"]) != pytest.approx(-0.6931, abs=1e-6)  # the decay did train (init: -log(2))
