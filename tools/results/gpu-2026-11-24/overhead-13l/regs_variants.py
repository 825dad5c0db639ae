"""Which live values make PLIF's backward kernel take 144 registers (LIF's: 47; ncu-*.txt).

Edits the generated final-state backward source of ParametricLIFNode by hand, one variant at a time, and
reports each variant's registers, spills and the back-to-back training step (do_bench median,
[32, 16, 64, 4096] fp32; copy ratio = clone / step). Variants that drop the guard or the static gradient
compute other numbers: they only locate the registers.
"""
import sys

import torch
import triton.testing as tt

import flexsn_nn
from flexsn_runtime import ScanKernel, ensure_training_kernels

INIT = "    init0 = tl.load(sv_init_state0 + offs, mask=mask, other=0.0).to(tl.float32)\n"
LAZY = "tl.load(sv_init_state0 + offs, mask=mask & (offs * 0 + t == 0), other=0.0).to(tl.float32))"


def variants(code: str) -> dict[str, str]:
    lazy = code.replace(INIT, "").replace("init0)\n", LAZY + "\n")
    noguard = code.replace("    ok = plif_core_guard(stat0)\n", "    ok = tl.full([BLOCK_NCL], 1, tl.int1)\n")
    noacc = code.replace("        acc0 = acc0 + r_2\n", "")
    # one guard per program: a program any of whose neurons fails it reads x back for all of them
    uniform = code.replace("    ok = plif_core_guard(stat0)\n",
                           "    ok = tl.min(tl.where(mask, plif_core_guard(stat0), 1).to(tl.int32), axis=0) != 0\n")
    fb = "        saved2 = tl.load(sv_input0 + base + offs, mask=mask & (ok == 0), other=0.0).to(tl.float32)\n"
    branch = ("        saved2 = tl.zeros([BLOCK_NCL], tl.float32)\n        if ok == 0:\n"
              "            saved2 = tl.load(sv_input0 + base + offs, mask=mask, other=0.0).to(tl.float32)\n")
    return {"as_is": code, "no_guard": noguard, "no_static_grad": noacc, "uniform_guard": uniform,
            "uniform_guard_branch": uniform.replace(fb, branch)}


x = torch.randn(32, 16, 64, 4096, device="cuda") + 0.5
g = torch.randn_like(x)
t_clone = tt.do_bench(lambda: x.clone(), warmup=25, rep=100, return_mode="median")
probe = flexsn_nn.ParametricLIFNode().cuda()
probe.reset()
probe(x[:2, :1].clone().requires_grad_()).sum().backward()
base = ensure_training_kernels(probe.kernel.handle).backward_kernel.final_state
REF: dict[str, torch.Tensor] = {}
for name, code in variants(base.code).items():
    if name != "as_is" and code == base.code:
        print(name, "edit did not apply", flush=True)
        continue
    m = flexsn_nn.ParametricLIFNode().cuda()
    bundle = ensure_training_kernels(m.kernel.handle)
    bundle.backward_kernel.final_state = ScanKernel(code, base.name, "backward_final_state")
    xr = x.clone().requires_grad_()

    def step() -> None:
        m.reset()
        torch.autograd.backward(m(xr), g)

    ms = tt.do_bench(step, warmup=10, rep=100, grad_to_none=[xr, *m.parameters()], return_mode="median")
    xr.grad = None
    step()
    ref = REF.setdefault("x", xr.grad.clone())
    same = bool(torch.equal(ref, xr.grad))
    fn = bundle.backward_kernel.final_state.jit_function()
    regs = [(ck.n_regs, ck.n_spills) for dev in fn.device_caches.values() for ck in (dev[0] if isinstance(dev, tuple) else dev).values()]
    print(name, "regs/spills", regs, f"ratio {t_clone / ms:.3f}", "x.grad as as_is:", same, flush=True)
