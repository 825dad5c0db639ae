"""Sizes among ``flex_sn_scan``'s lifted arguments (Dynamo lifts the batch size when it recompiles
with dynamic shapes): the loop passes them to the body, the fused kernels run without them, and a
body that computes with one runs the loop. Checked against autograd through a hand-written loop."""

from __future__ import annotations

import warnings
from collections.abc import Iterator

import pytest
import torch
from hop_reference import smooth_lif_core
from test_fused_hook import RecordingHook

import flexsn_hop
from flexsn_hop import (
    dynamo_hop_available,
    eager_scan,
    flex_sn_scan,
    fused,
    lowerable_scan,
    lowerable_scan_available,
    runtime_fusion,
)
from flexsn_hop.sizes import LiftedSizes

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"  # the CPU runs the kernels under TRITON_INTERPRET=1
needs_dynamo = pytest.mark.skipif(not dynamo_hop_available(), reason="Dynamo registration failed")


def scaled_core(x: torch.Tensor, v: torch.Tensor, n: int, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """A core that computes with a size it is passed."""
    h = 0.5 * v + x * w / n
    return torch.tanh(h), h


def scaled_by_hand(xs: torch.Tensor, v: torch.Tensor, n: int, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    ys, vs = [], []
    for t in range(xs.shape[0]):
        v = 0.5 * v + xs[t] * w / n
        ys.append(torch.tanh(v))
        vs.append(v)
    return torch.stack(ys), torch.stack(vs)


def test_the_loop_passes_each_size_in_its_place() -> None:
    xs, v0, w = torch.randn(4, 3), torch.randn(3), torch.randn(3)
    want = scaled_by_hand(xs, v0, 3, w)
    torch.testing.assert_close(eager_scan(scaled_core, 1, 1, 1, xs, v0, 3, w), want)
    torch.testing.assert_close(flex_sn_scan(scaled_core, 1, 1, 1, xs, v0, 3, w), want)
    if lowerable_scan_available():
        torch.testing.assert_close(lowerable_scan(scaled_core, 1, 1, 1, xs, v0, 3, w), want)


def test_another_hook_gets_the_body_with_the_real_sizes_bound() -> None:
    """A hook other than the runtime's may run the body itself: it must see the call's sizes, not a probe."""
    hook = RecordingHook()
    xs, v0, w = torch.randn(4, 3), torch.randn(3), torch.randn(3)
    with flexsn_hop.use_fused_impl(hook):
        out = flex_sn_scan(scaled_core, 1, 1, 1, xs, v0, 5, w)
    torch.testing.assert_close(out, scaled_by_hand(xs, v0, 5, w))
    (call,) = hook.calls
    assert call.lifted_args == (w,)
    torch.testing.assert_close(call.core_fn(xs[0], v0, w), scaled_core(xs[0], v0, 5, w))


def test_a_plain_core_with_a_size_runs_the_loop_once_warned(fused_paths: tuple[list[str], list[LiftedSizes]]) -> None:
    """The runtime's kernels take sizes out of Dynamo's bodies only; a Python core with one runs the loop."""
    paths, _ = fused_paths
    xs, v0, w = (torch.randn(*s, device=DEVICE) for s in [(4, 3), (3,), (3,)])
    fused._WARNED.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = flex_sn_scan(scaled_core, 1, 1, 1, xs, v0, 5, w)
        flex_sn_scan(scaled_core, 1, 1, 1, xs, v0, 5, w)
    torch.testing.assert_close(out, scaled_by_hand(xs, v0, 5, w))
    assert paths == []
    told = [str(c.message) for c in caught if "GraphModule body" in str(c.message)]
    assert len(told) == 1 and "eager loop" in told[0]


@pytest.mark.parametrize("bad", ["three", True, None, [2.5]])
def test_a_lifted_argument_that_is_neither_tensor_nor_size(bad: object) -> None:
    """A float is taken (a 0-d tensor: ``test_static_inputs.py``); a bool, a string or a list is not."""
    xs, v0 = torch.randn(4, 3), torch.randn(3)
    with pytest.raises(TypeError, match=r"flat_args\[2\] must be a torch.Tensor \(or, among the lifted arguments, an int / SymInt size or a float"):
        flex_sn_scan(scaled_core, 1, 1, 1, xs, v0, bad, torch.randn(3))


def test_sizes_bind_in_order_between_tensors() -> None:
    seen: list[tuple[object, ...]] = []

    def core(*args: object) -> object:
        seen.append(args)
        return args

    bound = LiftedSizes((0, 2), (7, 9)).bind(core, 2)
    bound("x", "v", "a", "b")
    assert seen == [("x", "v", 7, "a", 9, "b")]
    assert LiftedSizes().bind(core, 2) is core


@pytest.fixture
def fused_paths(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[list[str], list[LiftedSizes]]]:
    """The fused routes taken and the sizes the operator took out of the bodies."""
    flexsn_hop.enable_fused_kernels(True)
    paths: list[str] = []
    sizes: list[LiftedSizes] = []
    real_route, real_without = runtime_fusion.run_route, fused.without_sizes

    def route_spy(kernel, r, *args, **kwargs):  # type: ignore[no-untyped-def]
        paths.append(r.path)
        return real_route(kernel, r, *args, **kwargs)

    def without_spy(core, offset, s):  # type: ignore[no-untyped-def]
        sizes.append(s)
        return real_without(core, offset, s)

    monkeypatch.setattr(runtime_fusion, "run_route", route_spy)
    monkeypatch.setattr(fused, "without_sizes", without_spy)
    yield paths, sizes
    flexsn_hop.enable_fused_kernels(False)


@needs_dynamo
def test_a_new_batch_size_compiles_dynamic_and_runs_fused(fused_paths: tuple[list[str], list[LiftedSizes]]) -> None:
    """Batch 2, then 3 and 4: Dynamo recompiles with the batch size symbolic and lifts it into the call."""
    paths, sizes = fused_paths
    w = torch.randn(5, device=DEVICE, requires_grad=True)

    def run(x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        def core(xt: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            return smooth_lif_core(xt * w, v)

        return tuple(flex_sn_scan(core, 1, 1, 1, x, torch.zeros_like(x[0]), final_state=True))

    compiled = torch.compile(run, backend="aot_eager", fullgraph=True)
    for batch in (2, 3, 4):
        x = torch.randn(6, batch, 5, device=DEVICE, requires_grad=True)
        y, v = compiled(x)
        (y.sum() + v.pow(2).sum()).backward()
        assert x.grad is not None and w.grad is not None
        got = (y, v, x.grad, w.grad.clone())
        w.grad = None
        xr = x.detach().clone().requires_grad_()
        ys, vs = eager_scan(lambda xt, v: smooth_lif_core(xt * w, v), 1, 1, 1, xr, torch.zeros(batch, 5, device=DEVICE))
        (ys.sum() + vs[-1].pow(2).sum()).backward()
        want = (ys, vs[-1], xr.grad, w.grad)
        w.grad = None
        for a, b in zip(got, want):
            torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-5)
    assert any(s.positions for s in sizes), "Dynamo lifted no size: the test no longer covers sizes"
    assert paths and set(paths) == {"training"}


@needs_dynamo
def test_a_body_computing_with_a_size_runs_the_loop(fused_paths: tuple[list[str], list[LiftedSizes]]) -> None:
    """A core dividing by the batch size it closes over: once the size is symbolic it is a lifted argument
    the body computes with. The kernels' shape check refuses the body, and the loop gets the real size."""
    paths, sizes = fused_paths

    def run(x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        n = x.shape[1]

        def core(xt: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            h = 0.5 * v + xt / n
            return torch.tanh(h), h

        return tuple(flex_sn_scan(core, 1, 1, 1, x, torch.zeros_like(x[0])))

    compiled = torch.compile(run, backend="aot_eager", fullgraph=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for batch in (2, 3, 4):
            if batch == 3:  # batch 2 compiled with n == 2, a constant: fused, and right
                paths.clear()
                sizes.clear()
            x = torch.randn(5, batch, 4, device=DEVICE)
            want = scaled_by_hand(x, torch.zeros(batch, 4, device=DEVICE), batch, torch.ones((), device=DEVICE))
            torch.testing.assert_close(compiled(x), want)
    assert any(s.positions for s in sizes), "Dynamo lifted no size: the test no longer covers sizes"
    assert paths == []
    assert any("shape-dependent" in str(c.message) for c in caught)
