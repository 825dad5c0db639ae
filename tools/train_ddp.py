#!/usr/bin/env python3
"""The demo's spiking MLP trained with ``DistributedDataParallel``: one process per GPU (NCCL) or CPU (gloo).

    torchrun --nproc_per_node=2 tools/train_ddp.py [--epochs 3] [--hidden 256] [--T 8]

(``hatch run python -m torch.distributed.run --nproc_per_node=2 tools/train_ddp.py`` on a CPU
machine: gloo and Triton's interpreter.) Each process trains on its ``DistributedSampler`` shard
of scikit-learn's digits; DDP averages the gradients, the learnable PLIF decay included. Rank 0
shows the progress bar, prints the test accuracy and samples/s of the whole job, and writes
``--out``/``ddp.json``. Run without ``torchrun`` it trains as one process.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import torch
import torch.distributed as dist

REPO = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--T", type=int, default=8)
    p.add_argument("--batch-size", type=int, default=64, help="per process")
    p.add_argument("--lr", type=float, default=5e-3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, default=Path("out/ddp"))
    p.add_argument(
        "--device", choices=["auto", "cuda", "cpu"], default="auto",
        help="auto: one GPU per local process when there are enough, else the CPU (gloo)",
    )
    args = p.parse_args(argv)
    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    local = int(os.environ.get("LOCAL_RANK", "0"))
    local_world = int(os.environ.get("LOCAL_WORLD_SIZE", "1"))
    gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if args.device == "cuda" and gpus < local_world:
        p.error(f"--device cuda needs one GPU per local process: {local_world} processes, {gpus} GPU(s)")
    cuda = args.device == "cuda" or (args.device == "auto" and gpus >= local_world)
    if args.device == "auto" and not cuda and gpus and rank == 0:
        print(f"train_ddp: {local_world} local processes but {gpus} GPU(s): training on the CPU (gloo)", file=sys.stderr)
    if not cuda:
        os.environ.setdefault("TRITON_INTERPRET", "1")  # before Triton is imported
    device = torch.device("cuda", local) if cuda else torch.device("cpu")
    if cuda:
        torch.cuda.set_device(device)
    if world > 1:
        dist.init_process_group("nccl" if cuda else "gloo")
    for src in sorted((REPO / "packages").glob("*/src")):
        sys.path.append(str(src))
    from sklearn.datasets import load_digits
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler
    from tqdm import tqdm

    from flexsn_nn import ParametricLIFNode, reset_net

    torch.manual_seed(args.seed)  # the same initial parameters on every rank (DDP also broadcasts them)
    digits = load_digits()
    x = torch.tensor(digits.data, dtype=torch.float32) / 16.0
    y = torch.tensor(digits.target)
    n_test = len(x) // 4
    train = TensorDataset(x[n_test:], y[n_test:])
    sampler = DistributedSampler(train, num_replicas=world, rank=rank, seed=args.seed) if world > 1 else None
    loader = DataLoader(train, batch_size=args.batch_size, sampler=sampler, shuffle=sampler is None, drop_last=True)
    model = torch.nn.Sequential(torch.nn.Linear(64, args.hidden), ParametricLIFNode(step_mode="m"), torch.nn.Linear(args.hidden, 10)).to(device)
    net = torch.nn.parallel.DistributedDataParallel(model, device_ids=[local] if cuda else None) if world > 1 else model
    opt = torch.optim.Adam(net.parameters(), lr=args.lr)
    gen = torch.Generator(device=device).manual_seed(args.seed + rank)

    def encode(batch: torch.Tensor) -> torch.Tensor:
        """Rate coding: ``[B, 64]`` intensities -> ``[T, B, 64]`` Bernoulli spikes."""
        return torch.bernoulli(batch.to(device).unsqueeze(0).expand(args.T, *batch.shape), generator=gen)

    start, seen = time.perf_counter(), 0
    bar = tqdm(total=args.epochs * len(loader), desc="training", disable=rank != 0, dynamic_ncols=True)
    for epoch in range(args.epochs):
        if sampler is not None:
            sampler.set_epoch(epoch)
        for xb, yb in loader:
            loss = torch.nn.functional.cross_entropy(net(encode(xb)).mean(0), yb.to(device))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            reset_net(model)
            seen += len(xb) * world
            bar.update(1)
            bar.set_postfix(epoch=epoch + 1, loss=f"{loss.item():.3f}")
    bar.close()
    if cuda:
        torch.cuda.synchronize()
    elapsed = time.perf_counter() - start
    if rank == 0:
        with torch.no_grad():
            pred = model(encode(x[:n_test])).mean(0).argmax(1).cpu()
        reset_net(model)
        result = {"world_size": world, "device": str(device), "test_accuracy": float((pred == y[:n_test]).float().mean()),
                  "samples_per_s": seen / elapsed, "epochs": args.epochs, "plif_tau": float(model[1].tau)}
        print(json.dumps(result))
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "ddp.json").write_text(json.dumps(result, indent=1))
    if world > 1:
        dist.barrier()  # rank 0's evaluation is done before any rank's gloo threads shut down
        dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
