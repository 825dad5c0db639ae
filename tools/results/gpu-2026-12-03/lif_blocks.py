"""LIF kernels' launch settings on the H200 (#14): is 1024 / 4 warps still the best block for inference?

write_mix.py's minimal scans ran 0.6-1.2% faster at BLOCK 512 than at 1024 (4 warps both). This times
FlexSN's LIFNode inference (final state) and training (forward + backward) back to back (do_bench median),
fp32, NCL = 4,194,304, T = 8 and 32, at a few BLOCK_NCL / num_warps settings set through
ScanKernel.persist_config (alternated twice). Writes lif_blocks.json to argv[1].
"""
import json
import sys

import torch
from triton.testing import do_bench

from flexsn_nn import LIFNode
from flexsn_runtime.op_impls import inference_kernel
from flexsn_runtime.registry import lookup_flexsn_kernel_handle

NCL = 1 << 22
SETTINGS = ((1024, 4), (512, 4), (512, 2), (2048, 8))
rows = []
for T in (8, 32):
    x = (torch.randn(T, NCL, device="cuda") + 0.5).requires_grad_()
    g = torch.ones_like(x)
    m = LIFNode(tau=2.0, step_mode="m", backend="triton", store_v_seq=False)

    def inf():
        with torch.no_grad():
            m.reset()
            m(x)

    def train():
        x.grad = None
        m.reset()
        torch.autograd.backward(m(x), g)

    inf(); train(); torch.cuda.synchronize()
    plan = m.kernel.plan(True, torch.float32)
    kernels = {"inf": [inference_kernel(lookup_flexsn_kernel_handle(m.kernel.handle), True)[0]],
               "train": [plan.forward, plan.backward]}
    clone_us = do_bench(lambda: x.detach().clone(), warmup=50, rep=300, return_mode="median") * 1e3
    for rnd in range(2):
        for block, warps in SETTINGS:
            for name, fn in (("inf", inf), ("train", train)):
                for k in kernels[name]:
                    k.persist_config(x, NCL, {"BLOCK_NCL": block, "num_warps": warps})
                fn(); torch.cuda.synchronize()
                us = do_bench(fn, warmup=30, rep=300, return_mode="median") * 1e3
                rows.append({"T": T, "case": name, "block": block, "warps": warps, "round": rnd, "us": us, "ratio": clone_us / us})
                print(f"T={T:2d} {name:5s} b{block:5d} w{warps} round {rnd}: {us:8.1f} us  ratio {clone_us / us:.3f}", flush=True)
    for ks in kernels.values():
        for k in ks:
            k.persist_config(x, NCL, {"BLOCK_NCL": 1024, "num_warps": 4})
json.dump(rows, open(sys.argv[1] + "/lif_blocks.json", "w"), indent=1)
