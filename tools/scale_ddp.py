#!/usr/bin/env python3
"""Multi-GPU scaling of a FlexSN training step: the spiking convnet under ``DistributedDataParallel``.

    torchrun --nproc_per_node=N tools/scale_ddp.py [--T 8] [--batch-size 64] [--steps 30] [--compile MODE] --out OUT

The network of ``tools/bench_net.py`` (three conv-BN-LIF blocks with pooling, a spiking readout;
``FlexSN(backend="triton")`` neurons) on random CIFAR-sized ``[T, B, 3, 32, 32]`` data, one
process per GPU (NCCL), ``--batch-size`` samples per process (weak scaling, as data-parallel
training is used). Each step: ``reset`` + forward + cross entropy + backward (DDP averages the
gradients while the backward runs) + SGD. Rank 0 times ``--steps`` steps after ``--warm`` (CUDA
events between two barriers) and appends ``{"gpus", "samples_per_s", ...}`` to ``OUT/scaling.json``;
run it with N = 1 and N = 2 and read the efficiency as ``samples_per_s(2) / samples_per_s(1)``.
``--compile default`` / ``reduce-overhead`` runs the step's forward through ``torch.compile`` of the DDP module in
that mode (Dynamo's DDP optimizer splits the graph at the gradient buckets; FlexSN's neighbour pass fuses the
BatchNorms into the scans, as in ``tools/bench_net.py``); the row records the mode.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import torch
import torch.distributed as dist
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_net import Net, make_step, makers  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--T", type=int, default=8)
    ap.add_argument("--batch-size", type=int, default=64, help="per process")
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--warm", type=int, default=5)
    ap.add_argument("--compile", choices=("none", "default", "reduce-overhead"), default="none",
                    help="torch.compile the DDP module in this mode (none: eager)")
    ap.add_argument("--out", type=Path, default=Path("out/scale"))
    args = ap.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("scale_ddp.py needs CUDA devices (one per process)")
    rank, world = int(os.environ.get("RANK", "0")), int(os.environ.get("WORLD_SIZE", "1"))
    local = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local)
    dev = torch.device("cuda", local)
    if world > 1:
        dist.init_process_group("nccl", device_id=dev)
    torch.manual_seed(0)
    net = Net(makers()["triton"]).to(dev)
    model = nn.parallel.DistributedDataParallel(net, device_ids=[local]) if world > 1 else net
    g = torch.Generator(device=dev).manual_seed(1 + rank)  # each rank its own shard of random data
    x = torch.randn(args.T, args.batch_size, 3, 32, 32, device=dev, generator=g)
    labels = torch.randint(0, 10, (args.batch_size,), device=dev, generator=g)
    fwd = model if args.compile == "none" else torch.compile(model, mode=None if args.compile == "default" else args.compile)
    step = make_step(model, fwd, x, labels, "train")  # resets the neurons inside the DDP wrapper too

    for _ in range(args.warm):
        step()
    torch.cuda.synchronize()
    if world > 1:
        dist.barrier()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(args.steps):
        step()
    end.record()
    torch.cuda.synchronize()
    if world > 1:
        dist.barrier()
    ms = start.elapsed_time(end) / args.steps
    if rank == 0:
        row = {
            "gpus": world, "compile": args.compile, "T": args.T, "batch_per_gpu": args.batch_size, "ms_per_step": ms,
            "samples_per_s": world * args.batch_size * 1000.0 / ms, "device": torch.cuda.get_device_name(dev),
        }
        print(json.dumps(row), flush=True)
        args.out.mkdir(parents=True, exist_ok=True)
        path = args.out / "scaling.json"
        rows = json.loads(path.read_text()) if path.exists() else []
        path.write_text(json.dumps([*rows, row], indent=1))
    if world > 1:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
