"""Probe why a reverse-time scan is slower than a forward one (GPU only).

Times synthetic 1-read/1-write and 2-read/1-write loop kernels walking the
time axis forward and backward, against ``x.clone()``, for a few block
shapes. Results inform the scan templates' launch defaults (see notes in
``tools/PERF_NOTES.md``).
"""

from __future__ import annotations

import argparse

import torch
import triton
import triton.language as tl
import triton.testing as tt


@triton.jit(do_not_specialize=["T"])
def _loop2r1w(a, b, o, T, NCL, REVERSE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < NCL
    acc = tl.zeros([BLOCK], tl.float32)
    for i in range(T):
        if REVERSE:
            base = tl.cast(T - 1 - i, tl.int64) * NCL
        else:
            base = tl.cast(i, tl.int64) * NCL
        x = tl.load(a + base + offs, mask=mask, other=0.0)
        y = tl.load(b + base + offs, mask=mask, other=0.0)
        acc = acc * 0.5 + x * y
        tl.store(o + base + offs, acc, mask=mask)


@triton.jit(do_not_specialize=["T"])
def _loop1r1w(a, o, T, NCL, REVERSE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < NCL
    acc = tl.zeros([BLOCK], tl.float32)
    for i in range(T):
        if REVERSE:
            base = tl.cast(T - 1 - i, tl.int64) * NCL
        else:
            base = tl.cast(i, tl.int64) * NCL
        x = tl.load(a + base + offs, mask=mask, other=0.0)
        acc = acc * 0.5 + x
        tl.store(o + base + offs, acc, mask=mask)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--ncl", type=int, default=1 << 22)
    p.add_argument("--T", type=int, default=32)
    a = p.parse_args()
    T, ncl = a.T, a.ncl
    x = torch.randn(T, ncl, device="cuda")
    y = torch.randn(T, ncl, device="cuda")
    o = torch.empty_like(x)
    clone = tt.do_bench(lambda: x.clone(), return_mode="median")
    print(f"clone {clone:.3f} ms")
    for block, warps in ((1024, 4), (512, 4), (256, 2), (2048, 8), (1024, 8)):
        grid = (triton.cdiv(ncl, block),)
        for rev in (False, True):
            t1 = tt.do_bench(lambda: _loop1r1w[grid](x, o, T, ncl, REVERSE=rev, BLOCK=block, num_warps=warps), return_mode="median")
            t2 = tt.do_bench(lambda: _loop2r1w[grid](x, y, o, T, ncl, REVERSE=rev, BLOCK=block, num_warps=warps), return_mode="median")
            print(f"block={block} warps={warps} reverse={rev}: 1r1w {t1:.3f} ms ({clone / t1:.3f} of clone), "
                  f"2r1w {t2:.3f} ms ({1.5 * clone / t2:.3f} of clone bandwidth)")


if __name__ == "__main__":
    main()
