"""Inductor's on-disk caches never serve a graph compiled for one neuron to another.

``torch.compile`` keeps a FlexSN op's kernel handle in the graph as a constant,
and Inductor's FX-graph cache keys on the graph's text. When handles counted
from 1, a graph compiled for one neuron was served in the next process to an
edited neuron with the same handle: the compiled code kept the old op's output
dtype and read the new op's boolean spikes as fp32 (wrong numbers, then a
``double free``). Handles now name the traced core
(:func:`flexsn_runtime.register_flexsn_kernel_handle`); each process below
shares one Inductor cache directory and checks its result against the eager
module.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest


REPO = Path(__file__).resolve().parents[1]

_PROGRAM = r'''
import json, sys, torch
from torch._dynamo.utils import counters
from flexsn_nn import FlexSN

def float_spikes(x, v):
    v = v + (x - v) / 2.0
    s = (v >= 1.0).to(x.dtype)
    return s, v * (1.0 - s)

def bool_spikes(x, v):  # the same graph around the op; the op now returns bool spikes
    v = v + (x - v) / 2.0
    s = v >= 1.0
    return s, v * (~s)

neuron = FlexSN({"float": float_spikes, "bool": bool_spikes}[sys.argv[1]], 1, 1, 1, step_mode="m")
compiled = torch.compile(lambda x: neuron(x) * 3 + 1)
x = torch.rand(4, 8, 16, generator=torch.Generator().manual_seed(0)) * 3
out = compiled(x)
neuron.reset()
ref = neuron(x) * 3 + 1
print(json.dumps(dict(
    hits=counters["inductor"]["fxgraph_cache_hit"], misses=counters["inductor"]["fxgraph_cache_miss"],
    fused=counters["flexsn"]["scans_fused"],
    dtype=str(out.dtype), ref_dtype=str(ref.dtype), equal=bool(out.dtype == ref.dtype and torch.equal(out, ref)),
)))
'''


def _compile_in_a_new_process(tmp_path: Path, core: str, trace_cache: bool = True, fuse: bool = True) -> dict[str, Any]:
    env = dict(os.environ)
    env.update(
        TRITON_INTERPRET="1",
        TORCHINDUCTOR_CACHE_DIR=str(tmp_path / "inductor"),
        FLEXSN_CACHE_DIR=str(tmp_path / "flexsn"),
        FLEXSN_TRACE_CACHE="1" if trace_cache else "0",
        FLEXSN_FUSE_NEIGHBOURS="1" if fuse else "0",
    )
    env.pop("TORCHINDUCTOR_FORCE_DISABLE_CACHES", None)
    src = [str(p) for p in sorted((REPO / "packages").glob("*/src"))]
    env["PYTHONPATH"] = os.pathsep.join(src + [env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    proc = subprocess.run(
        [sys.executable, "-c", _PROGRAM, core], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, f"the {core} process failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.parametrize("fuse", [True, False], ids=["fused", "unfused"])
def test_a_cached_graph_is_reused_for_the_same_neuron_only(tmp_path: Path, fuse: bool) -> None:
    """Fused (the default: ``* 3 + 1`` runs inside the scan, whose step is a GraphModule) or not."""
    first = _compile_in_a_new_process(tmp_path, "float", fuse=fuse)
    assert first["misses"] == 1 and first["hits"] == 0 and first["equal"] and first["fused"] == int(fuse), first
    edited = _compile_in_a_new_process(tmp_path, "bool", fuse=fuse)
    assert edited["hits"] == 0 and edited["equal"], edited
    assert edited["dtype"] == "torch.int64"  # bool spikes * 3 + 1, as the eager module gives
    # the same neuron again: the cache does serve it (so the miss above is the handle's doing)
    again = _compile_in_a_new_process(tmp_path, "float", fuse=fuse)
    assert again["hits"] == 1 and again["equal"], again
    # without a trace fingerprint the handle is salted per process: never served across processes
    salted = _compile_in_a_new_process(tmp_path, "float", trace_cache=False, fuse=fuse)
    assert salted["hits"] == 0 and salted["equal"], salted
