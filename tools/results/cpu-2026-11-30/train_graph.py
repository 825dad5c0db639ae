"""One compiled training step of tools/bench_net.py's network (8 channels) on the CPU, the neighbour pass on:
run under TORCH_LOGS=post_grad_graphs to see where the scans sit in Inductor's forward and backward graphs."""
import os
import sys

import torch
import torch._functorch.config
import torch._inductor.config

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from bench_net import Net, makers, reset  # noqa: E402

torch._inductor.config.fx_graph_cache = False  # a cached graph would not be logged
torch._functorch.config.enable_autograd_cache = False
torch.manual_seed(0)
net = Net(makers()["triton"], channels=8)
compiled = torch.compile(net)
x = torch.randn(2, 2, 3, 32, 32)
reset(net)
compiled(x).sum().backward()
