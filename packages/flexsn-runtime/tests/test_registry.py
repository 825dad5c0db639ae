"""The kernel-handle registry and ``FlexSNKernel`` lifetimes.

A handle lives while it has an owner (a ``FlexSNKernel`` or a deep copy)
or an active reference (a graph of the ``flexsn::training`` op awaiting its
backward); it is removed, and its kernels' ``close`` called, when both
counts reach zero. An eager graph holds its kernels by reference.
"""

from __future__ import annotations

import copy
import gc
import weakref
from typing import Any

import numpy as np
import pytest
import torch

from flexsn_runtime.registry import bundle_of_fingerprint, fingerprint_prefix
from flexsn_runtime import (
    FlexSNKernel,
    TrainingKernels,
    attach_flexsn_handle_finalizer,
    lookup_flexsn_kernel_handle,
    register_flexsn_kernel_handle,
    registered_handles,
    release_active_flexsn_kernel_handle,
    release_flexsn_kernel_handle,
    retain_flexsn_kernel_handle,
    retain_owner_flexsn_kernel_handle,
    run_training,
)


class Closable:
    def __init__(self) -> None:
        self.closed = 0

    def close(self) -> None:
        self.closed += 1


def register(*kernels: Any, identity: str | None = None) -> int:
    ks = list(kernels) + [None] * (4 - len(kernels))
    return register_flexsn_kernel_handle(
        identity=identity,
        inference_kernel=ks[0],
        inference_info=None,
        inference_final_state_kernel=ks[1],
        inference_final_state_info=None,
        # a training pair of stand-ins (no info: the registry only counts references and closes kernels)
        training=None if ks[2] is None else TrainingKernels(ks[2], ks[3], None),  # type: ignore[arg-type]
    )


def counts(handle: int) -> tuple[int, int]:
    bundle = lookup_flexsn_kernel_handle(handle)
    return bundle.owner_refs, bundle.active_refs


def test_register_gives_fresh_handles_with_one_owner() -> None:
    a, b = register(), register()
    try:
        assert isinstance(a, int) and b > a
        assert {a, b} <= set(registered_handles())
        assert counts(a) == (1, 0)
    finally:
        release_flexsn_kernel_handle(a)
        release_flexsn_kernel_handle(b)
    assert a not in registered_handles() and b not in registered_handles()


def test_handles_name_the_trace_they_were_built_from() -> None:
    """Compiled graphs keep handles as constants across processes: equal traces share the high bits, others never."""
    x, y = "ab" * 20, "cd" * 20
    handles = [register(identity=x), register(identity=x), register(identity=y), register(), register()]
    try:
        hx1, hx2, hy, hn1, hn2 = handles
        assert len(set(handles)) == 5
        assert hx1 >> 20 == hx2 >> 20 == int(x[:10], 16) and hx2 == hx1 + 1
        assert hy >> 20 == int(y[:10], 16)
        # no identity: a per-process salt, never one of the traced names
        assert hn1 >> 20 == hn2 >> 20 not in {int(x[:10], 16), int(y[:10], 16)}
        assert all(0 < h < 2**63 for h in handles)
    finally:
        for h in handles:
            release_flexsn_kernel_handle(h)


def test_a_handle_tells_its_fingerprint_and_a_fingerprint_finds_a_live_handle() -> None:
    """What a saved program carries its kernels by (:mod:`flexsn_runtime.programs`)."""
    x = "ef" * 20
    assert bundle_of_fingerprint(x) is None  # nothing of it registered yet
    hx, hn = register(identity=x), register()
    try:
        assert fingerprint_prefix(hx) == x[:10]
        assert fingerprint_prefix(hn) is None  # salted: no fingerprint to carry
        assert bundle_of_fingerprint(x) == hx
        assert bundle_of_fingerprint(x[:10] + "0" * 30) == hx  # the first ten digits decide, as handles do
        assert bundle_of_fingerprint("zz" * 20) is None
    finally:
        release_flexsn_kernel_handle(hx)
        release_flexsn_kernel_handle(hn)
    assert bundle_of_fingerprint(x) is None


@pytest.mark.parametrize("identity", ["", "abc", "xyz" * 5])
def test_a_bad_identity_is_refused(identity: str) -> None:
    before = set(registered_handles())
    with pytest.raises(ValueError, match="hex digest"):
        register(identity=identity)
    assert set(registered_handles()) == before


def test_kernels_of_one_core_get_handles_of_one_name(ref: Any) -> None:
    """``FlexSNKernel`` passes the trace fingerprint: two kernels of one core share a name, another core does not."""
    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        v = v + (x - v) / 2.0
        return (v >= 1.0).to(x.dtype), v

    def other(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        v = v + (x - v) / 3.0
        return (v >= 1.0).to(x.dtype), v

    a, b, c = (FlexSNKernel(f, 1, 1, 1) for f in (core, core, other))
    assert a.handle is not None and b.handle is not None and c.handle is not None
    assert a.handle != b.handle and a.handle >> 20 == b.handle >> 20 != c.handle >> 20


def test_release_when_owner_and_active_both_reach_zero() -> None:
    kernels = [Closable() for _ in range(6)]
    h = register(*kernels[:4])
    lookup_flexsn_kernel_handle(h).half_training = TrainingKernels(kernels[4], kernels[5], None)  # type: ignore[arg-type]
    retain_owner_flexsn_kernel_handle(h)
    assert counts(h) == (2, 0)
    retain_flexsn_kernel_handle(h)
    assert counts(h) == (2, 1)
    release_flexsn_kernel_handle(h)
    release_flexsn_kernel_handle(h)
    assert counts(h) == (0, 1) and h in registered_handles()  # a pending backward keeps it
    assert all(k.closed == 0 for k in kernels)
    release_active_flexsn_kernel_handle(h)
    assert h not in registered_handles()
    assert [k.closed for k in kernels] == [1] * 6  # the 16-bit pair too


def test_a_released_handle_is_answered_by_a_live_bundle_of_its_fingerprint() -> None:
    """Bundles of one fingerprint hold the same kernels: a program saved elsewhere (``torch.export``) or one that
    outlived its neuron runs on a live bundle of that fingerprint; salted handles (no fingerprint) never mix."""
    first, second = Closable(), Closable()
    h0 = register(first, identity="a1b2c3d4e5f60718")
    h1 = register(second, identity="a1b2c3d4e5f60718")
    other = register(Closable(), identity="0fedcba987654321")
    release_flexsn_kernel_handle(h0)
    assert h0 not in registered_handles()
    assert lookup_flexsn_kernel_handle(h0).inference_kernel is second
    assert lookup_flexsn_kernel_handle(h1 + 7).inference_kernel is second  # a serial this process never made
    retain_flexsn_kernel_handle(h0)  # counted on the live bundle
    assert counts(h1) == (1, 1)
    release_active_flexsn_kernel_handle(h0)
    release_flexsn_kernel_handle(h1)
    release_flexsn_kernel_handle(other)
    with pytest.raises(RuntimeError, match="unknown FlexSN kernel handle"):
        lookup_flexsn_kernel_handle(h0)
    s0, s1 = register(Closable()), register(Closable())
    release_flexsn_kernel_handle(s0)
    with pytest.raises(RuntimeError, match="unknown FlexSN kernel handle"):
        lookup_flexsn_kernel_handle(s0)
    release_flexsn_kernel_handle(s1)


def test_active_release_first_then_owner() -> None:
    k = Closable()
    h = register(k)
    retain_flexsn_kernel_handle(h)
    release_active_flexsn_kernel_handle(h)
    assert counts(h) == (1, 0)
    release_flexsn_kernel_handle(h)
    assert h not in registered_handles() and k.closed == 1


def test_unknown_handles() -> None:
    h = register()
    release_flexsn_kernel_handle(h)
    with pytest.raises(RuntimeError, match=f"unknown FlexSN kernel handle {h}") as raised:
        lookup_flexsn_kernel_handle(h)
    assert "torch.export.save" in str(raised.value) and "build the same neurons first" in str(raised.value)
    with pytest.raises(RuntimeError, match="unknown FlexSN kernel handle"):
        retain_flexsn_kernel_handle(h)
    with pytest.raises(RuntimeError, match="unknown FlexSN kernel handle"):
        retain_owner_flexsn_kernel_handle(h)
    # releasing twice (e.g. a finalizer after an explicit release) is harmless
    release_flexsn_kernel_handle(h)
    release_active_flexsn_kernel_handle(h)
    release_flexsn_kernel_handle(10**12)


def test_handle_forms() -> None:
    h = register()
    try:
        for form in (h, torch.tensor(h), torch.tensor([h]), np.int64(h)):
            assert lookup_flexsn_kernel_handle(form) is lookup_flexsn_kernel_handle(h)
        with pytest.raises(TypeError, match="bool"):
            lookup_flexsn_kernel_handle(True)
        with pytest.raises(TypeError, match="one element"):
            lookup_flexsn_kernel_handle(torch.tensor([h, h]))
        with pytest.raises(TypeError, match="unsupported FlexSN kernel handle type"):
            lookup_flexsn_kernel_handle("abc")
    finally:
        release_flexsn_kernel_handle(h)


def test_finalizer_releases_with_its_owner() -> None:
    class Owner:
        pass

    owner = Owner()
    h = register()
    attach_flexsn_handle_finalizer(owner, h)
    assert h in registered_handles()
    del owner
    gc.collect()
    assert h not in registered_handles()


# ---------------------------------------------------------------- FlexSNKernel


def test_kernel_owns_its_handle_and_deepcopies_share_it(ref: Any, device: torch.device) -> None:
    lif_kernel = FlexSNKernel(ref.lif, 1, 1, 1)  # not a fixture: pytest would keep it alive
    h = lif_kernel.handle
    assert h is not None and counts(h) == (1, 0)
    twin = copy.deepcopy(lif_kernel)
    assert twin.handle == h and counts(h) == (2, 0)
    del lif_kernel
    gc.collect()
    assert h in registered_handles()
    x = torch.randn(5, 33, device=device)
    v = torch.randn(33, device=device)
    with torch.no_grad():
        s, vs = twin(x, v)  # the copy still runs the kernels
    (ws,), (wv,) = ref.loop(ref.CORES["lif"], [x], [v])
    torch.testing.assert_close(s, ws)
    torch.testing.assert_close(vs, wv)
    del twin
    gc.collect()
    assert h not in registered_handles()


def test_deepcopy_inside_a_container(ref: Any) -> None:
    k = FlexSNKernel(ref.lif, 1, 1, 1)
    h = k.handle
    assert h is not None
    holder = copy.deepcopy({"a": k, "b": [k]})
    assert holder["a"] is holder["b"][0]  # one copy per object (memo)
    assert counts(h) == (2, 0)
    del k, holder
    gc.collect()
    assert h not in registered_handles()


def _lif_with_states(ref: Any, device: torch.device) -> tuple[FlexSNKernel, int, torch.Tensor, torch.Tensor]:
    """LIF's kernels, their handle, and leaf inputs ``[6, 40]`` and initial states ``[40]``."""
    k = FlexSNKernel(ref.lif, 1, 1, 1)
    assert k.handle is not None
    x = (torch.randn(6, 40, device=device) + 0.8).requires_grad_()
    return k, k.handle, x, torch.randn(40, device=device).requires_grad_()


def _backward_matches_the_loop(ref: Any, x: torch.Tensor, v: torch.Tensor, s: torch.Tensor, vs: torch.Tensor) -> None:
    """``s.sum() + 0.5 * vs.sum()`` backward: the input's and initial state's gradients against the loop's."""
    (s.sum() + 0.5 * vs.sum()).backward()
    gx, gv = ref.loop_grads(ref.CORES["lif"], [x], [v], [torch.ones_like(s), torch.full_like(vs, 0.5)])
    torch.testing.assert_close(x.grad, gx, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(v.grad, gv, rtol=1e-4, atol=1e-5)


def test_pending_eager_backward_keeps_its_kernels(ref: Any, device: torch.device) -> None:
    """An eager graph holds its kernels by reference: the handle goes with its owner, the backward still runs."""
    k, h, x, v = _lif_with_states(ref, device)
    s, vs = k(x, v)
    assert counts(h) == (1, 0)  # no registry count per call: the autograd node holds the kernels
    bundle = weakref.ref(lookup_flexsn_kernel_handle(h))
    del k
    gc.collect()
    assert h not in registered_handles()
    assert bundle() is not None, "the kernels must outlive their owner while a backward is pending"
    _backward_matches_the_loop(ref, x, v, s, vs)
    del s, vs
    gc.collect()
    assert bundle() is None, "the kernels must go with the last graph that needs them"


def test_pending_op_backward_keeps_the_handle(ref: Any, device: torch.device) -> None:
    """The ``flexsn::training`` op's backward finds the kernels by handle: its graph keeps the handle registered."""
    k, h, x, v = _lif_with_states(ref, device)
    s, vs = run_training(h, [x, v], False, tracing=True)[:2]  # through the custom op, as a compiled graph calls it
    assert counts(h) == (1, 1)
    del k
    gc.collect()
    assert h in registered_handles(), "the handle must outlive its owner while a backward is pending"
    _backward_matches_the_loop(ref, x, v, s, vs)
    gc.collect()
    assert h not in registered_handles()


def test_dropped_graph_releases_the_active_reference(ref: Any, device: torch.device) -> None:
    k = FlexSNKernel(ref.lif, 1, 1, 1)
    h = k.handle
    assert h is not None
    x = torch.randn(4, 20, device=device).requires_grad_()
    out = run_training(h, [x], False, tracing=True)
    assert counts(h) == (1, 1)
    del out
    gc.collect()
    assert counts(h) == (1, 0)
    del k
    gc.collect()
    assert h not in registered_handles()


def test_retain_graph_backward_twice(ref: Any, device: torch.device) -> None:
    k = FlexSNKernel(ref.lif, 1, 1, 1)
    h = k.handle
    assert h is not None
    x = (torch.randn(5, 30, device=device) + 0.8).requires_grad_()
    s, vs = k(x)
    loss = s.sum() + vs.sum()
    loss.backward(retain_graph=True)
    first = x.grad.clone()  # type: ignore[union-attr]
    loss.backward()
    torch.testing.assert_close(x.grad, 2 * first)
    del loss, s, vs, k
    gc.collect()
    assert h not in registered_handles()


def test_kernels_without_a_handle_register_nothing(ref: Any) -> None:
    before = set(registered_handles())
    with pytest.warns(RuntimeWarning):
        k = FlexSNKernel(lambda x, v: (torch.cumsum(x, 0), v + x), 1, 1, 1)
    assert k.handle is None
    assert set(registered_handles()) == before
    copy.deepcopy(k)
    assert set(registered_handles()) == before


def test_a_released_bundle_is_freed_at_once_not_by_the_cyclic_gc(device: torch.device) -> None:
    """A trained neuron's kernels go when it goes, not at some later collection: the cyclic GC may run
    inside a CUDA-graph capture, where unloading a kernel's module is a forbidden call."""

    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v * 0.6123 + x  # a constant of its own: no live bundle of another test shares this trace
        s = (h - 1.0).sigmoid()
        return s, h * (1.0 - s)

    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        k = FlexSNKernel(core, 1, 1, 1)
        h = k.handle
        assert h is not None
        x = torch.rand(4, 8, device=device).requires_grad_()
        s, v = k.final_state(x)
        s.sum().backward()
        bundle = lookup_flexsn_kernel_handle(h)
        assert bundle.plans  # the training call's plan: it holds the bundle, the bundle holds it
        gone = weakref.ref(bundle)
        del bundle, s, v, x, k  # v's autograd node holds the call, and through it the bundle
        assert h not in registered_handles()
        assert gone() is None, "the bundle waits for the cyclic GC"
    finally:
        if enabled:
            gc.enable()
