"""The trace cache: fingerprints change with everything a trace depends on, and a warm build skips tracing."""

from __future__ import annotations

import copy
import os
import types
from pathlib import Path

import pytest
import torch

import flexsn_runtime.kernel_build as kernel_mod
from flexsn_runtime import FlexSNKernel, core_fingerprint, eager_loop

ARITY = (1, 1, 1)
SCALE = 0.5


def make_core(decay: float):  # type: ignore[no-untyped-def]
    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        v = v * decay + x * SCALE
        return torch.sigmoid(v), v

    return core


class Surrogate:
    def __init__(self, alpha: float) -> None:
        self.alpha = alpha

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(self.alpha * x)


#: a user module the cores below read (``cfg.TAU``, and ``cfg.THRESH`` only through ``spike``)
cfg = types.ModuleType("flexsn_test_neuron_cfg")
cfg.TAU = 2.0  # type: ignore[attr-defined]
cfg.THRESH = 1.0  # type: ignore[attr-defined]


def spike(v: torch.Tensor) -> torch.Tensor:
    return (v >= cfg.THRESH).to(v.dtype)  # type: ignore[attr-defined]


def cfg_core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    # ``cfg`` sorts before ``spike``: the module is met before the code that reads THRESH
    v = v + (x - v) / cfg.TAU  # type: ignore[attr-defined]
    return spike(v), v


class ChargeBase:
    def charge(self, x: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return v + (x - v) / 2.0


class NeuronWithBase(ChargeBase):
    GAINS = (1.0, 2.0)

    def __call__(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        v = self.charge(x, v) * self.GAINS[0]
        return (v >= 1.0).to(x.dtype), v


def test_same_code_and_values_give_the_same_key() -> None:
    assert core_fingerprint(make_core(0.9), ARITY, None, None) == core_fingerprint(make_core(0.9), ARITY, None, None)


def test_closure_values_globals_arity_and_examples_change_the_key() -> None:
    base = core_fingerprint(make_core(0.9), ARITY, None, None)
    assert base is not None
    assert core_fingerprint(make_core(0.8), ARITY, None, None) != base
    assert core_fingerprint(make_core(0.9), (1, 1, 2), None, None) != base
    assert core_fingerprint(make_core(0.9), ARITY, (torch.zeros(3), torch.zeros(3)), None) != base
    assert core_fingerprint(make_core(0.9), ARITY, None, (True, False)) != base
    global SCALE
    old = SCALE
    try:
        SCALE = 0.25
        assert core_fingerprint(make_core(0.9), ARITY, None, None) != base
    finally:
        SCALE = old


def test_module_attributes_read_by_any_reached_code_change_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    base = core_fingerprint(cfg_core, ARITY, None, None)
    assert base is not None and core_fingerprint(cfg_core, ARITY, None, None) == base
    monkeypatch.setattr(cfg, "THRESH", 0.5)  # read only by ``spike``, hashed after ``cfg`` was met
    thresh = core_fingerprint(cfg_core, ARITY, None, None)
    assert thresh not in (None, base)
    monkeypatch.setattr(cfg, "TAU", 3.0)
    assert core_fingerprint(cfg_core, ARITY, None, None) not in (None, base, thresh)


def test_base_class_methods_and_class_constants_change_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    base = core_fingerprint(NeuronWithBase(), ARITY, None, None)
    assert base is not None
    monkeypatch.setattr(NeuronWithBase, "GAINS", (0.5, 2.0))
    gains = core_fingerprint(NeuronWithBase(), ARITY, None, None)
    assert gains not in (None, base)
    monkeypatch.setattr(ChargeBase, "charge", lambda self, x, v: v + (x - v) / 3.0)
    assert core_fingerprint(NeuronWithBase(), ARITY, None, None) not in (None, base, gains)
    # a class constant that cannot be hashed: no key, so never a stale entry
    monkeypatch.setattr(NeuronWithBase, "GAINS", (object(),))
    assert core_fingerprint(NeuronWithBase(), ARITY, None, None) is None


def test_every_source_that_shapes_a_build_is_in_the_key() -> None:
    """Lowerings live in a subpackage; a fix there must not leave stale kernels behind. The runtime's modules define
    what the ops return (fakes, autograd formula), which Inductor's disk caches keep by handle: all of them count."""
    import flexsn_codegen
    import flexsn_runtime
    import flexsn_trace

    from flexsn_runtime import tracecache

    covered = {p.resolve() for p in tracecache.build_sources()}
    for mod in (flexsn_trace, flexsn_codegen, flexsn_runtime):
        root = Path(mod.__file__ or "").parent
        everything = {p.resolve() for p in root.rglob("*.py")}
        assert everything <= covered, sorted(str(p) for p in everything - covered)
    runtime = Path(tracecache.__file__).parent
    assert {runtime / "ops.py", runtime / "op_autograd.py", runtime / "statics.py", runtime / "layout.py"} <= covered
    assert any(p.parent.name == "lowering" for p in covered)


def test_template_switches_change_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    base = core_fingerprint(make_core(0.9), ARITY, None, None)
    for switch in ("FLEXSN_PREFETCH", "FLEXSN_CARRIER"):
        monkeypatch.setenv(switch, "0")
        assert core_fingerprint(make_core(0.9), ARITY, None, None) != base, switch
        monkeypatch.delenv(switch)
    interp = os.environ.get("TRITON_INTERPRET", "0")
    monkeypatch.setenv("TRITON_INTERPRET", "0" if interp == "1" else "1")
    assert core_fingerprint(make_core(0.9), ARITY, None, None) != base


def test_callable_instances_hash_their_attributes() -> None:
    def with_sg(sg: Surrogate):  # type: ignore[no-untyped-def]
        def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            return sg(x + v), v * 0.5
        return core

    a = core_fingerprint(with_sg(Surrogate(4.0)), ARITY, None, None)
    b = core_fingerprint(with_sg(Surrogate(2.0)), ARITY, None, None)
    assert a is not None and b is not None and a != b


def test_copying_a_core_object_keeps_its_key() -> None:
    """``copy``/``pickle`` cache ``__slotnames__`` on the class: behaviour did not change, nor may the key."""

    class SlottedNeuron:
        __slots__ = ("decay",)

        def __init__(self, decay: float) -> None:
            self.decay = decay

        def __call__(self, x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            v = v * self.decay + x
            return (v >= 1.0).to(x.dtype), v

    core = SlottedNeuron(0.5)
    before = core_fingerprint(core, ARITY, None, None)
    copy.deepcopy(core)
    assert "__slotnames__" in vars(SlottedNeuron)  # what copying leaves on the class
    assert before is not None and core_fingerprint(core, ARITY, None, None) == before
    assert core_fingerprint(SlottedNeuron(0.25), ARITY, None, None) != before


def test_unhashable_dependencies_and_opt_out_disable_the_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    w = torch.randn(1000)

    def big(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return x * w[0], v

    assert core_fingerprint(big, ARITY, None, None) is None
    lin = torch.nn.Linear(2, 2)

    def with_module(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return x * lin.weight[0, 0], v

    assert core_fingerprint(with_module, ARITY, None, None) is None
    monkeypatch.setenv("FLEXSN_TRACE_CACHE", "0")
    assert core_fingerprint(make_core(0.9), ARITY, None, None) is None


def test_warm_build_skips_tracing_and_computes_the_same(monkeypatch: pytest.MonkeyPatch, tmp_path, device: torch.device) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("FLEXSN_CACHE_DIR", str(tmp_path))
    core = make_core(0.7)
    cold = FlexSNKernel(core, *ARITY)
    assert cold.handle is not None and len(list(tmp_path.glob("trace_*.json"))) == 1
    assert not list(tmp_path.glob("trace_*.training.json"))  # the training part waits for a call that needs it
    assert cold.has_training_kernels and list(tmp_path.glob("trace_*.training.json"))

    def no_tracing(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("a warm build must not trace")

    monkeypatch.setattr(kernel_mod, "build_inference_kernels", no_tracing)
    monkeypatch.setattr(kernel_mod, "build_training_variants", no_tracing)
    warm = FlexSNKernel(core, *ARITY)
    assert warm.handle is not None and warm.has_training_kernels
    assert warm.uses_kernels(torch.zeros(2, 3, device=device))
    x = torch.randn(5, 3, device=device, requires_grad=True)
    v0 = torch.randn(3, device=device)
    got = warm(x, v0)  # the training kernels, from the cache
    ref = eager_loop(core, *ARITY, [x], [v0])
    g = torch.randn_like(x)
    (gx,) = torch.autograd.grad(got[0], x, g)
    (rx,) = torch.autograd.grad(ref[0], x, g)
    torch.testing.assert_close(gx, rx)
    for a, b in zip(got, ref):
        torch.testing.assert_close(a, b)


def test_unsupported_cores_are_remembered_too(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("FLEXSN_CACHE_DIR", str(tmp_path))

    def odd(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        v = v + torch.cumsum(x, 0)
        return v, v

    with pytest.warns(RuntimeWarning, match="cumsum"):
        FlexSNKernel(odd, *ARITY)
    monkeypatch.setattr(kernel_mod, "build_inference_kernels", lambda *a, **k: (_ for _ in ()).throw(AssertionError))
    with pytest.warns(RuntimeWarning, match="cumsum"):
        k = FlexSNKernel(odd, *ARITY)
    assert k.handle is None


@pytest.mark.parametrize("damage", [b"\xff\xfe\x00 not utf-8", b"null", b"[1, 2]", b"{}", b"CURRENT_FORMAT_ONLY"],
                         ids=["bytes", "null", "list", "empty", "partial"])
def test_a_damaged_entry_is_discarded_with_one_warning_in_a_fresh_process(damage: bytes, tmp_path: Path) -> None:
    """Every entry the first process wrote is damaged; the second one warns, traces again and is right."""
    import subprocess
    import sys

    src = [str(p) for p in sorted(Path(__file__).resolve().parents[2].glob("*/src"))]
    script = f"""
import sys, warnings, torch
sys.path[:0] = {src!r}
from flexsn_runtime import FlexSNKernel, eager_loop
from flexsn_trace.testing import lif_core
x = torch.rand(4, 6) * 2
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    k = FlexSNKernel(lif_core, 1, 1, 1)
    got = k.final_state(x)
want = eager_loop(lif_core, 1, 1, 1, [x], [torch.zeros(6)], False)
assert k.handle is not None
for a, b in zip(got, want):
    torch.testing.assert_close(a, b)
print("WARNINGS", sum("damaged trace-cache entry" in str(w.message) for w in caught))
"""
    env = dict(os.environ, FLEXSN_CACHE_DIR=str(tmp_path), TRITON_INTERPRET="1")
    first = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0 and "WARNINGS 0" in first.stdout, first.stdout + first.stderr
    entries = list(tmp_path.glob("trace_*.json"))
    assert entries
    if damage == b"CURRENT_FORMAT_ONLY":  # the right format, nothing else in it
        from flexsn_runtime import tracecache

        damage = ('{"format": %d}' % tracecache._FORMAT).encode()
    for entry in entries:
        entry.write_bytes(damage)
    second = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert second.returncode == 0 and "WARNINGS 1" in second.stdout, second.stdout + second.stderr


def test_an_unknown_handle_loads_its_kernels_from_the_trace_cache(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, device: torch.device
) -> None:
    """A saved program's handle (the fingerprint's name, a serial this process never made), asked after every
    neuron of it is gone: the kernels come from the trace cache's entry, inference and training, and compute
    what the loop computes."""
    import gc

    from flexsn_runtime import flexsn_inference_op, flexsn_training_op, registered_handles

    monkeypatch.setenv("FLEXSN_CACHE_DIR", str(tmp_path))
    core = make_core(0.61)
    k = FlexSNKernel(core, *ARITY)
    assert k.handle is not None and k.has_training_kernels  # both parts written
    saved_handle = k.handle | (1 << 19)
    del k
    gc.collect()
    assert not any(h >> 20 == saved_handle >> 20 for h in registered_handles())
    x = torch.randn(5, 3, device=device)
    zeros = [torch.zeros(3, device=device)]
    for a, b in zip(flexsn_inference_op(saved_handle, [x], True), eager_loop(core, *ARITY, [x], zeros, False)):
        torch.testing.assert_close(a, b)
    xl, xr = x.clone().requires_grad_(), x.clone().requires_grad_()
    s, v = flexsn_training_op(saved_handle, [xl], True)[:2]
    rs, rv = eager_loop(core, *ARITY, [xr], zeros, False)
    g = torch.randn_like(x)
    torch.autograd.backward([s, v], [g, torch.ones_like(v)])
    torch.autograd.backward([rs, rv], [g, torch.ones_like(rv)])
    torch.testing.assert_close(xl.grad, xr.grad)


def test_the_trace_cache_answers_a_prefix_only_with_one_entry_of_these_versions(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import json

    from flexsn_runtime import tracecache

    monkeypatch.setenv("FLEXSN_CACHE_DIR", str(tmp_path))
    k = FlexSNKernel(make_core(0.62), *ARITY)
    assert k.handle is not None
    (entry,) = tmp_path.glob("trace_*.json")
    data = json.loads(entry.read_text())
    prefix = data["key"][:10]
    assert tracecache.key_by_prefix(prefix) == data["key"]
    entry.write_text(json.dumps(dict(data, versions="torch 0|triton 0|other sources")))
    assert tracecache.key_by_prefix(prefix) is None  # written under other versions: not taken
    entry.write_text(json.dumps(data))
    twin = dict(data, key=prefix + "f" * 54)  # another entry of the same prefix: the prefix does not decide
    (tmp_path / f"trace_{twin['key'][:40]}.json").write_text(json.dumps(twin))
    assert tracecache.key_by_prefix(prefix) is None
    monkeypatch.setenv("FLEXSN_TRACE_CACHE", "0")
    assert tracecache.key_by_prefix(prefix) is None


def _lif(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = torch.sigmoid(h - 1.0)
    return s, h * (1.0 - s)


class _Wrapper(torch.nn.Module):
    """A module holding a step function, described to the fingerprint by it (as flexsn_hop's fused step's wrapper)."""

    def __init__(self, fn) -> None:  # type: ignore[no-untyped-def]
        super().__init__()
        self.fn = fn

    def forward(self, *args):  # type: ignore[no-untyped-def]
        return self.fn(*args)

    def __flexsn_fingerprint__(self):  # type: ignore[no-untyped-def]
        return self.fn


def _fused_step(fn, scale: float, module: torch.nn.Module | None = None) -> torch.fx.GraphModule:  # type: ignore[no-untyped-def]
    """A GraphModule as the neighbour pass builds one: a prologue, then ``step`` (a call_module), built afresh each time."""
    g = torch.fx.Graph()
    x, v = g.placeholder("x"), g.placeholder("v")
    y = g.call_function(torch.mul, (x, scale))
    out = g.call_module("step", (y, v))
    g.output(out)
    root = torch.nn.Module()
    root.step = module if module is not None else _Wrapper(fn)
    return torch.fx.GraphModule(root, g)


def test_a_graph_module_core_is_keyed_by_its_code_and_what_it_calls() -> None:
    """The same graph built twice (as in two processes) gets one key; another constant, another called function or
    a module the fingerprint cannot see into gives another key or none (never a stale hit)."""
    base = core_fingerprint(_fused_step(_lif, 3.0), ARITY, None, None)
    assert base is not None and core_fingerprint(_fused_step(_lif, 3.0), ARITY, None, None) == base
    assert core_fingerprint(_fused_step(_lif, 2.0), ARITY, None, None) not in (None, base)
    assert core_fingerprint(_fused_step(make_core(0.9), 3.0), ARITY, None, None) not in (None, base)
    opaque = torch.nn.Module()
    opaque.forward = _lif  # type: ignore[method-assign]
    assert core_fingerprint(_fused_step(_lif, 3.0, module=opaque), ARITY, None, None) is None
    gm = _fused_step(_lif, 3.0)
    gm.register_buffer("gain", torch.randn(100))  # a large tensor a get_attr reads: no key
    with gm.graph.inserting_before(next(iter(gm.graph.nodes))):
        gm.graph.get_attr("gain")
    gm.recompile()
    assert core_fingerprint(gm, ARITY, None, None) is None


def test_a_graph_module_argument_the_code_names_by_a_global_is_keyed_by_its_value() -> None:
    """A small tensor passed as a node argument is a global of the generated code (its name, not its value, is in
    the text): another value gives another key; a device argument keeps a key."""

    def scaled(gain: torch.Tensor) -> torch.fx.GraphModule:
        g = torch.fx.Graph()
        x, v = g.placeholder("x"), g.placeholder("v")
        y = g.call_function(torch.mul, (x, gain))
        z = g.call_function(torch.Tensor.to, (y, torch.device("cpu")))
        g.output(g.call_function(_lif, (z, v)))
        return torch.fx.GraphModule(torch.nn.Module(), g)

    a = core_fingerprint(scaled(torch.tensor([2.0])), ARITY, None, None)
    assert a is not None and core_fingerprint(scaled(torch.tensor([2.0])), ARITY, None, None) == a
    assert core_fingerprint(scaled(torch.tensor([3.0])), ARITY, None, None) not in (None, a)
