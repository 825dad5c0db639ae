"""Run 11: the template lowering on bfloat16 / float16 sequences, against eager and the opaque op (a record).

Block of ``tests-integration/test_template_lowering.py`` (per-channel affine -> neuron -> residual add),
``[6, 4, 8, 50]``, under ``no_grad``: the fraction of spikes (outputs minus the residual) that differ from
eager, the final state's largest difference, for the op opaque and for the template.
Usage: ``python half_probe.py OUT_DIR``.
"""
from __future__ import annotations

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
T, B, C, L = 6, 4, 8, 50


class Block(torch.nn.Module):
    def __init__(self, neuron: torch.nn.Module) -> None:
        super().__init__()
        self.neuron = neuron
        self.register_buffer("mean", torch.randn(C, 1) * 0.1)
        self.register_buffer("invstd", torch.rand(C, 1) + 0.5)

    def forward(self, x: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
        flexsn_nn.functional.reset_net(self)
        return self.neuron((x - self.mean.to(x.dtype)) * self.invstd.to(x.dtype)) + r


def main() -> None:
    torch._inductor.config.fx_graph_cache = False
    flexsn_hop.enable_neighbour_fusion(False)
    result = {}
    for dtype in (torch.bfloat16, torch.float16):
        for name, make in [("lif", lambda: LIFNode(step_mode="m")), ("plif", lambda: ParametricLIFNode(step_mode="m"))]:
            torch.manual_seed(0)
            block = Block(make()).cuda()
            x = (torch.randn(T, B, C, L, device="cuda") * 1.5 + 0.7).to(dtype)
            r = torch.randn(T, B, C, L, device="cuda").to(dtype)
            with torch.no_grad():
                want = block(x, r) - r
                want_v = block.neuron.v.clone()
            row = {}
            for mode in (False, True):
                flexsn_hop.enable_template_lowering(mode)
                torch._dynamo.reset()
                with torch.no_grad(), warnings.catch_warnings(record=True) as told:
                    warnings.simplefilter("always")
                    got = torch.compile(block, fullgraph=True)(x, r) - r
                row["template" if mode else "opaque"] = {
                    "dtype_out": str(got.dtype), "spikes_differ": float((got != want).float().mean()),
                    "v_maxdiff": float((block.neuron.v.float() - want_v.float()).abs().max()),
                    "warnings": sorted({str(w.message)[:160] for w in told if "FlexSN" in str(w.message)}),
                }
            result[f"{name}_{dtype}"] = row
            print(name, dtype, json.dumps(row), flush=True)
    flexsn_hop.enable_template_lowering(False)
    with open(os.path.join(OUT, "half_probe.json"), "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
