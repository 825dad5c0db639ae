"""Host time of a small (host-bound) training step, PLIF and LIF: reset() + forward + backward, [T=8, 4096] fp32,
mean over 500 steps after 50 warm-up steps (the GPU idles most of the time at this size)."""
import sys
import time

import torch

import flexsn_nn

for name, m in (("lif", flexsn_nn.LIFNode()), ("plif", flexsn_nn.ParametricLIFNode().cuda())):
    x = torch.randn(8, 4096, device="cuda", requires_grad=True)
    for _ in range(50):
        m.reset()
        m(x).sum().backward()
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(500):
        m.reset()
        m(x).sum().backward()
    torch.cuda.synchronize()
    print(sys.argv[1], name, f"{(time.perf_counter() - t) / 500 * 1e6:.1f} us per step", flush=True)
