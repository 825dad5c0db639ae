#!/usr/bin/env python3
"""A probe, not a fix: is the untiled copy of a template-written final state Inductor's coalescing analysis weighing
a template's mutated input (a ``MutationOutput`` of ``NoneLayout``, size ``[0]``) as nothing? Patches
``torch._inductor.tiling_utils.try_get_buf_size`` to size such a buffer by the buffer it mutates, then runs
``template_profile.py`` with the arguments given (the copy's kernel should then be tiled: ``'y'`` in its
``tiling_scores``, and about the opaque op's copy time, 17 µs)."""
import runpy
import sys
from pathlib import Path

import torch
from torch._inductor import ir, tiling_utils
from torch._inductor.virtualized import V

original = tiling_utils.try_get_buf_size


def sized(buf_name: str) -> int | None:
    buf = V.graph.try_get_buffer(buf_name)
    if isinstance(buf, ir.MutationOutput):
        return original(buf.get_mutation_names()[0])
    return original(buf_name)


tiling_utils.try_get_buf_size = sized
here = Path(__file__).resolve().parent
sys.argv = [str(here / "template_profile.py"), *sys.argv[1:]]
print("patched try_get_buf_size; torch", torch.__version__, flush=True)
runpy.run_path(str(here / "template_profile.py"), run_name="__main__")
