"""Back-to-back final-state training step (triton.testing.do_bench median) of FlexSN's ParametricLIFNode and
LIFNode on [T, 16, 64, 4096] sequences in fp32 and bf16 (w stays fp32): what the float32 carrier costs
half-precision sequences (the backward reads one float32 carrier instead of the half input and membrane)."""
import sys

import torch
import triton.testing as tt

import flexsn_nn

for dtype in (torch.float32, torch.bfloat16):
    for T in (8, 32):
        x = torch.randn(T, 16, 64, 4096, device="cuda", dtype=dtype)
        t_clone = tt.do_bench(lambda: x.clone(), warmup=25, rep=100, return_mode="median")
        for name, m in (("lif", flexsn_nn.LIFNode()), ("plif", flexsn_nn.ParametricLIFNode().cuda())):
            xr = x.clone().requires_grad_()
            g = torch.randn_like(x)
            params = list(m.parameters())

            def step() -> None:
                m.reset()
                torch.autograd.backward(m(xr), g)

            ms = tt.do_bench(step, warmup=10, rep=100, grad_to_none=[xr, *params], return_mode="median")
            print(sys.argv[1], str(dtype).removeprefix("torch."), f"T={T}", name, f"ratio {t_clone / ms:.3f}", flush=True)
