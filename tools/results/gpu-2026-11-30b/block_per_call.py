#!/usr/bin/env python3
"""LIF inference per call and back to back at T = 8 and 32 under several launch configurations (BLOCK_NCL / warps).

The default (1024 / 4) was chosen back to back at T = 32 (``tools/results/gpu-2026-12-03/`` run2). A call timed
alone also pays the kernel's start and its last wave; this asks whether another block size does better there,
at the short sequences where the per-call targets of #14 are not met on every host. Each configuration is persisted
(``ScanKernel.persist_config``) and a new ``LIFNode`` built, so its launch plan launches it; rounds alternate the
configurations. Copy ratio = ``x.clone()``'s time in the same round over the call's. NCL = 4,194,304, fp32.
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench_per_call import back_to_back, per_call  # noqa: E402

CONFIGS = [(1024, 4), (512, 4), (512, 2), (256, 2), (2048, 8), (256, 1), (128, 1)]


def main() -> None:
    from flexsn_nn import LIFNode
    from flexsn_runtime.op_impls import inference_kernel
    from flexsn_runtime.registry import lookup_flexsn_kernel_handle

    ncl = 4 * 1024 * 1024
    rows: dict[tuple[int, str], list[float]] = {}
    for T in (8, 32):
        x = torch.randn(T, ncl, device="cuda") + 0.5
        for rnd in range(3):
            clone_pc = per_call(lambda: x.clone(), 20, 61)
            clone_bb = back_to_back(lambda: x.clone(), 20, 50)
            for block, warps in CONFIGS:
                m = LIFNode(tau=2.0, step_mode="m", backend="triton", store_v_seq=False)
                with torch.no_grad():
                    m(x)
                    m.reset()
                    kernel, _ = inference_kernel(lookup_flexsn_kernel_handle(m.kernel.handle), True)
                    kernel.persist_config(x, ncl, {"BLOCK_NCL": block, "num_warps": warps})
                    m = LIFNode(tau=2.0, step_mode="m", backend="triton", store_v_seq=False)

                    def call() -> None:
                        m.reset()
                        m(x)

                    pc = per_call(call, 20, 61)
                    bb = back_to_back(call, 20, 50)
                name = f"{block}/{warps}"
                rows.setdefault((T, name + " per call"), []).append(clone_pc / pc)
                rows.setdefault((T, name + " back to back"), []).append(clone_bb / bb)
                print(json.dumps({"T": T, "round": rnd, "config": name, "per_call": round(clone_pc / pc, 4),
                                  "back_to_back": round(clone_bb / bb, 4)}), flush=True)
    print("| T | config | copy ratio (median of 3 rounds) |\n| --- | --- | --- |")
    for (T, name), v in rows.items():
        print(f"| {T} | {name} | {statistics.median(v):.3f} ({min(v):.3f}-{max(v):.3f}) |")


if __name__ == "__main__":
    main()
