"""One LIF training step at full size, for profiling the scan kernels with Nsight Compute.

Usage on the GPU machine (PYTHONPATH = the packages' src folders)::

    ncu --clock-control none --kernel-name regex:flexsn_ --launch-skip 3 --launch-count 3 \
        --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
        python3 tools/ncu_probe.py

Prints each kernel's register count and spills as reported by Triton.
"""

from __future__ import annotations

import sys

import torch

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from gpu_check import lif  # noqa: E402

from flexsn_runtime import FlexSNKernel, lookup_flexsn_kernel_handle  # noqa: E402


def main() -> None:
    k = FlexSNKernel(lif, 1, 1, 1)
    x = torch.randn(32, 1 << 22, device="cuda", requires_grad=True)
    g = torch.randn_like(x)
    for _ in range(2):
        out = k.final_state(x)
        torch.autograd.backward(out[0], g)
        x.grad = None
    torch.cuda.synchronize()
    b = lookup_flexsn_kernel_handle(k.handle)
    for kern in (b.inference_final_state_kernel, b.training.forward.final_state, b.training.backward.final_state):  # type: ignore[union-attr]
        fn = kern.jit_function()  # type: ignore[union-attr]
        for dev in getattr(fn, "device_caches", {}).values():
            for ck in (dev[0] if isinstance(dev, tuple) else dev).values():
                print(kern.kind, "regs", getattr(ck, "n_regs", "?"), "spills", getattr(ck, "n_spills", "?"))  # type: ignore[union-attr]


if __name__ == "__main__" and "--timeline" not in sys.argv:
    main()


def timeline() -> None:
    """Kernel timeline of three training steps (torch.profiler), to find gaps between kernels."""
    import json
    import os

    from torch.profiler import ProfilerActivity, profile

    k = FlexSNKernel(lif, 1, 1, 1)
    x = torch.randn(32, 1 << 22, device="cuda", requires_grad=True)
    g = torch.randn_like(x)

    def step() -> None:
        out = k.final_state(x)
        torch.autograd.backward(out[0], g)
        x.grad = None

    for _ in range(3):
        step()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(3):
            step()
        torch.cuda.synchronize()
    path = os.path.join(os.environ.get("OUT", "."), "trace.json")
    prof.export_chrome_trace(path)
    events = json.load(open(path))["traceEvents"]
    kernels = sorted((e for e in events if e.get("cat") == "kernel"), key=lambda e: e["ts"])
    prev_end = None
    for e in kernels:
        gap = "" if prev_end is None else f"gap {e['ts'] - prev_end:8.1f} us"
        print(f"{e['name'][:60]:60s} dur {e['dur']:8.1f} us {gap}")
        prev_end = e["ts"] + e["dur"]


if __name__ == "__main__" and "--timeline" in sys.argv:
    timeline()
