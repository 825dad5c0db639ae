"""Split a per-call training step into host and GPU parts: PLIF (learnable w) against LIF (constant decay).

For each call: CUDA events before the call, after the forward and after the backward (as queued by the
host), and host perf_counter stamps at the same points; medians over 41 calls after 20 warm-up calls.
"""
import statistics
import sys
import time

import torch

import flexsn_nn

T = int(sys.argv[1]) if len(sys.argv) > 1 else 32
ncl = 1 << 22
dev = torch.device("cuda")
x = (torch.randn(T, ncl, device=dev) + 0.5).requires_grad_()
g = torch.randn(T, ncl, device=dev)
neurons = {
    "lif": flexsn_nn.LIFNode(tau=2.0, step_mode="m").to(dev),
    "plif": flexsn_nn.ParametricLIFNode(init_tau=2.0, step_mode="m").to(dev),
}
for name, m in neurons.items():
    params = list(m.parameters())
    rows = []
    for i in range(61):
        ev = [torch.cuda.Event(enable_timing=True) for _ in range(3)]
        torch.cuda.synchronize()
        h0 = time.perf_counter()
        ev[0].record()
        x.grad = None
        for p in params:
            p.grad = None
        m.reset()
        y = m(x)
        h1 = time.perf_counter()
        ev[1].record()
        y.backward(g)
        h2 = time.perf_counter()
        ev[2].record()
        torch.cuda.synchronize()
        h3 = time.perf_counter()
        if i >= 20:
            rows.append((ev[0].elapsed_time(ev[1]), ev[1].elapsed_time(ev[2]), (h1 - h0) * 1e3, (h2 - h1) * 1e3, (h3 - h2) * 1e3))
    med = [statistics.median(c) for c in zip(*rows)]
    print(f"{name:5s} T={T}: events fwd-part {med[0]:.3f} ms, bwd-part {med[1]:.3f} ms, total {med[0] + med[1]:.3f}; "
          f"host: to forward return {med[2]:.3f} ms, backward() {med[3]:.3f} ms, wait for GPU after {med[4]:.3f} ms")
