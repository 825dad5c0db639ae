"""Backward kernels of LIF (constants) and PLIF (learnable w) at [32, 16, 64, 4096] fp32, for Nsight Compute.

    python3 ncu_plif.py lif|plif        # three final-state training steps; prints registers and spills

Run under ``ncu --kernel-name regex:flexsn_backward --launch-skip 2 --launch-count 1 ...``.
"""
import sys

import torch

import flexsn_nn
from flexsn_runtime import ensure_training_kernels

which = sys.argv[1]
m = flexsn_nn.LIFNode(tau=2.0) if which == "lif" else flexsn_nn.ParametricLIFNode().cuda()
x = (torch.randn(32, 16, 64, 4096, device="cuda") + 0.5).requires_grad_()
g = torch.randn_like(x)
for _ in range(3):
    m.reset()
    m(x).backward(g)
torch.cuda.synchronize()
b = ensure_training_kernels(m.kernel.handle)
for kern in (b.forward_kernel.final_state, b.backward_kernel.final_state):
    fn = kern.jit_function()
    for dev in getattr(fn, "device_caches", {}).values():
        for ck in (dev[0] if isinstance(dev, tuple) else dev).values():
            print(which, kern.kind, "regs", getattr(ck, "n_regs", "?"), "spills", getattr(ck, "n_spills", "?"),
                  "warps", getattr(getattr(ck, "metadata", None), "num_warps", "?"), flush=True)
