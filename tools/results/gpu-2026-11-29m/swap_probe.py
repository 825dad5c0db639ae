#!/usr/bin/env python3
"""How fast a scan-shaped kernel reads or writes a tensor in the second memory order (contiguous ``[B, C, H, W]``
beside a channels-last launch): the flat swapped index of ``flexsn_codegen.addressing._offsets`` against a tile
``[BLOCK // C, C]`` transposed in registers (``tl.trans``; ``C`` a constexpr), so a warp's lanes run along ``H * W``.

Each kernel walks ``T`` steps of ``BLOCK`` neurons per program (the launch's channels-last order), loading one
``[T, NCL]`` sequence and storing one: ``same`` (both in the launch's order, the copy floor), ``store_flat`` /
``store_tile`` (stores contiguous), ``load_flat`` / ``load_tile`` (loads contiguous). Also ``final_flat`` /
``final_tile``: ``same``, plus one step stored contiguous at the end (a final state). Prints µs (``do_bench``) and
checks every result against PyTorch's ``contiguous()`` / ``channels_last`` conversions.
"""

from __future__ import annotations

import json
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def _flat(offs, inner, mid):
    block = inner * mid
    return (offs // block) * block + (offs % inner) * mid + (offs // inner) % mid


@triton.jit
def _tile_index(pid, C: tl.constexpr, S: tl.constexpr, mid):
    # the program's neurons as [S, C] in the launch's order; their contiguous addresses as a [C, S] tile
    s = pid * S + tl.arange(0, S)  # spatial index b * mid + hw
    c = tl.arange(0, C)
    return (s // mid)[None, :] * (C * mid) + c[:, None] * mid + (s % mid)[None, :], (s[None, :] * C + c[:, None])


@triton.jit
def probe(x, y, f, T, NCL, mid, MODE: tl.constexpr, C: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < NCL
    S: tl.constexpr = BLOCK // C
    alt = _flat(offs, C, mid)
    tidx, toffs = _tile_index(pid, C, S, mid)
    tmask = toffs < NCL
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    t = 0
    while t < T:  # a while loop: Triton 3.6's interpreter cannot take range() of a runtime int with NumPy >= 2.4
        base = t * NCL  # T * NCL < 2**31 in this probe
        if MODE == 3:  # load_flat
            v = tl.load(x + base + alt, mask=mask)
        elif MODE == 4:  # load_tile
            vt = tl.load(x + base + tidx, mask=tmask)
            v = tl.reshape(tl.trans(vt), [BLOCK])
        else:
            v = tl.load(x + base + offs, mask=mask)
        acc = acc * 0.5 + v
        if MODE == 1:  # store_flat
            tl.store(y + base + alt, acc, mask=mask)
        elif MODE == 2:  # store_tile
            tl.store(y + base + tidx, tl.trans(tl.reshape(acc, [S, C])), mask=tmask)
        else:
            tl.store(y + base + offs, acc, mask=mask)
        t += 1
    if MODE == 5:  # final_flat
        tl.store(f + alt, acc, mask=mask)
    elif MODE == 6:  # final_tile
        tl.store(f + tidx, tl.trans(tl.reshape(acc, [S, C])), mask=tmask)


MODES = {"same": 0, "store_flat": 1, "store_tile": 2, "load_flat": 3, "load_tile": 4, "final_flat": 5, "final_tile": 6}


def reference(x_cl: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    acc, out = torch.zeros_like(x_cl[0]), []
    for t in range(x_cl.shape[0]):
        acc = acc * 0.5 + x_cl[t]
        out.append(acc)
    return torch.stack(out), acc


def main() -> None:
    T, B, C, H, W = (int(a) for a in (sys.argv[1:6] or ["8", "64", "64", "32", "32"]))
    block = int(sys.argv[6]) if len(sys.argv) > 6 else 1024
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")  # CPU: TRITON_INTERPRET=1, checks only
    ncl, mid = B * C * H * W, H * W
    x = torch.randn(T, B, C, H, W, device=dev)
    x_cl = x.view(T * B, C, H, W).contiguous(memory_format=torch.channels_last).view(T, B, C, H, W)
    want_seq, want_final = reference(x)
    grid = (triton.cdiv(ncl, block),)
    rows = []
    for name, mode in MODES.items():
        src = x if mode in (3, 4) else x_cl  # the contiguous tensor read in the second order
        y = torch.empty_like(x) if mode in (1, 2) else torch.empty_like(x_cl)
        f = torch.empty(B, C, H, W, device=dev)
        run = lambda: probe[grid](src, y, f, T, ncl, mid, MODE=mode, C=C, BLOCK=block, num_warps=4)  # noqa: E731
        run()
        torch.testing.assert_close(y, want_seq, rtol=1e-6, atol=1e-6)
        if mode in (5, 6):
            torch.testing.assert_close(f, want_final, rtol=1e-6, atol=1e-6)
        us = triton.testing.do_bench(run, warmup=25, rep=200) * 1e3 if dev.type == "cuda" else 0.0
        rows.append({"mode": name, "us": round(us, 1)})
    clone = triton.testing.do_bench(lambda: x.clone(), warmup=25, rep=200) * 1e3 if dev.type == "cuda" else 0.0
    print(json.dumps({"T": T, "B": B, "C": C, "H": H, "W": W, "BLOCK": block, "clone_us": round(clone, 1), "rows": rows}))


if __name__ == "__main__":
    main()
