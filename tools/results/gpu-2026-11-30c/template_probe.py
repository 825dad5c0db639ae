"""Runs 4-7: FlexSN's experimental template lowering against the opaque op and the neighbour pass (#16), timed.

A record of what ran on the GPU. The block of ``tests-integration/test_template_lowering.py`` at the
convnet's size (``T = 8, B = 64, C = 64, 32 x 32``, fp32, ``no_grad``): BatchNorm's normalisation with
given statistics, ``LIFNode``, a residual add; compiled four ways: the op opaque (pass off, lowering
off), the template (pass off, lowering on), the neighbour pass (default), both. Back-to-back time per
call (CUDA events over 50 calls), the number of Triton kernels, and equality with eager.
Usage: ``python template_probe.py OUT_DIR``.
"""
from __future__ import annotations

import copy
import json
import os
import sys
import warnings

import torch
import torch._dynamo
import torch._inductor.config

import flexsn_hop
import flexsn_nn
from flexsn_nn import LIFNode, ParametricLIFNode

OUT = sys.argv[1] if len(sys.argv) > 1 else "."
T, B, C, HW = 8, 64, 64, 1024


class Block(torch.nn.Module):
    def __init__(self, neuron: torch.nn.Module) -> None:
        super().__init__()
        self.neuron = neuron
        self.register_buffer("mean", torch.randn(C, 1) * 0.1)
        self.register_buffer("invstd", torch.rand(C, 1) + 0.5)
        self.weight = torch.nn.Parameter(torch.rand(C, 1) + 0.5)
        self.bias = torch.nn.Parameter(torch.randn(C, 1) * 0.1)

    def forward(self, x: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
        flexsn_nn.functional.reset_net(self)
        return self.neuron((x - self.mean) * self.invstd * self.weight + self.bias) + r


def bench(fn, *args, reps=50):
    for _ in range(5):
        fn(*args)
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    for _ in range(reps):
        fn(*args)
    e.record()
    torch.cuda.synchronize()
    return s.elapsed_time(e) / reps * 1e3


def main() -> None:
    from torch._inductor.utils import run_and_get_code

    torch._inductor.config.fx_graph_cache = False
    torch.manual_seed(0)
    x = torch.randn(T, B, C, HW, device="cuda") + 0.5
    r = torch.randn_like(x)
    result = {"torch": torch.__version__, "shape": [T, B, C, HW]}
    variants = [("opaque", False, False), ("template", False, True), ("neighbour_pass", True, False),
                ("pass_and_template", True, True)]
    for neuron in ["LIFNode", "ParametricLIFNode"]:
        base = Block(LIFNode(step_mode="m") if neuron == "LIFNode" else ParametricLIFNode(step_mode="m")).cuda()
        with torch.no_grad():
            want = base(x, r)
            result[f"{neuron}_eager_us"] = bench(base, x, r)
        for name, pass_on, template_on in variants:
            # one module per variant: Dynamo keeps each one's compiled graph (its guards name the module)
            block = copy.deepcopy(base)
            flexsn_hop.enable_neighbour_fusion(pass_on)
            flexsn_hop.enable_template_lowering(template_on)
            compiled = torch.compile(block, fullgraph=True)
            with torch.no_grad(), warnings.catch_warnings(record=True) as told:
                warnings.simplefilter("always")
                got, codes = run_and_get_code(compiled, x, r)
            code = "\n".join(codes)
            if name == "template":  # the device returns at most 8 files
                with open(os.path.join(OUT, f"{neuron}_{name}.py.txt"), "w") as f:
                    f.write(code)
            result[f"{neuron}_{name}"] = {
                "kernels": code.count("async_compile.triton("), "template": "triton_tem_" in code,
                "opaque_op": any("torch.ops.flexsn.inference.default(" in line and not line.strip().startswith("#")
                                 for line in code.splitlines()),
                "spike_mismatches": int((got != want).sum()), "maxdiff": float((got - want).abs().max()),
                "warnings": sorted({str(w.message)[:200] for w in told}),
            }
            # timed right after its compile, the switches as compiled: Dynamo's guards do not tell the copies
            # apart, so a variant called after another's compile may run that one's graph (run7 did)
            with torch.no_grad():
                times = sorted(bench(compiled, x, r) for _ in range(7))
                copies = sorted(bench(torch.clone, x) for _ in range(3))
            result[f"{neuron}_{name}"].update(us_median=times[3], us_min=times[0], us_max=times[-1],
                                              copy_us=copies[1])
            print(neuron, name, json.dumps(result[f"{neuron}_{name}"]), flush=True)
    with open(os.path.join(OUT, "template_probe.json"), "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
