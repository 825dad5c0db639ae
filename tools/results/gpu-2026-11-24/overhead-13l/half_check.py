"""bf16 PLIF back to back at T = 32: which pair runs, its registers, and the step with each pair."""
import torch
import triton.testing as tt

import flexsn_nn
from flexsn_runtime import ensure_training_kernels

x = torch.randn(32, 16, 64, 4096, device="cuda", dtype=torch.bfloat16)
g = torch.randn_like(x)
t_clone = tt.do_bench(lambda: x.clone(), warmup=25, rep=100, return_mode="median")


def bench(m: torch.nn.Module) -> float:
    xr = x.clone().requires_grad_()

    def step() -> None:
        m.reset()
        torch.autograd.backward(m(xr), g)

    return t_clone / tt.do_bench(step, warmup=10, rep=100, grad_to_none=[xr, *m.parameters()], return_mode="median")


for force_carrier in (False, True, False, True):
    m = flexsn_nn.ParametricLIFNode().cuda()
    bundle = ensure_training_kernels(m.kernel.handle)
    if force_carrier:
        bundle.half_training = None
    r = bench(m)
    plans = {k: p.info.carrier for k, p in m.kernel._plans.items()}
    regs = []
    for p in m.kernel._plans.values():
        fn = p.backward.jit_function()
        regs += [ck.n_regs for dev in fn.device_caches.values() for ck in (dev[0] if isinstance(dev, tuple) else dev).values()]
    print("forced carrier" if force_carrier else "default", "plans", plans, "bwd regs", regs, f"ratio {r:.3f}", flush=True)
