#!/usr/bin/env python3
"""Does a DDP training step with FlexSN neurons give the same parameters compiled as eagerly?
``torchrun --nproc_per_node=N ddp_compiled_check.py MODE`` (MODE: default or reduce-overhead): the convnet of
``tools/bench_net.py`` under DistributedDataParallel, 3 SGD steps eagerly, then the same from the same start compiled in
MODE; rank 0 prints the largest parameter difference (relative to the largest parameter change) and the losses."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import torch
import torch.distributed as dist
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench_net import Net, makers  # noqa: E402

mode = sys.argv[1]
torch.backends.cudnn.allow_tf32 = torch.backends.cuda.matmul.allow_tf32 = False  # the two runs' convolutions agree
rank, world, local = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]), int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
dev = torch.device("cuda", local)
dist.init_process_group("nccl", device_id=dev)
g = torch.Generator(device=dev).manual_seed(1 + rank)
x = torch.randn(8, 16, 3, 32, 32, device=dev, generator=g) * 4 + 1  # the neurons fire, the readout too
labels = torch.randint(0, 10, (16,), device=dev, generator=g)


def train(compiled: bool) -> tuple[list[torch.Tensor], list[float]]:
    torch.manual_seed(0)
    net = Net(makers()["triton"], channels=32).to(dev)
    model = nn.parallel.DistributedDataParallel(net, device_ids=[local])
    fwd = torch.compile(model, mode=None if mode == "default" else mode) if compiled else model
    losses = []
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        for m in model.modules():
            if hasattr(m, "reset") and m is not model:
                m.reset()
        loss = nn.functional.cross_entropy(fwd(x), labels)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return [p.detach().clone() for p in net.parameters()], losses


torch.manual_seed(0)
start = [p.detach().clone() for p in Net(makers()["triton"], channels=32).to(dev).parameters()]
eager, l_eager = train(False)
comp, l_comp = train(True)
change = max((e - s).abs().max().item() for e, s in zip(eager, start))
diff = max((e - c).abs().max().item() for e, c in zip(eager, comp))
if rank == 0:
    print(json.dumps({"mode": mode, "world": world, "max_param_diff": diff, "max_param_change": change,
                      "rel": diff / change, "loss_eager": l_eager, "loss_compiled": l_comp}), flush=True)
dist.destroy_process_group()
