"""Per-step shapes that differ: the torch and hop backends run what the core runs, the fused
backends take broadcastable shapes (or fall back with a warning), and ``T == 0`` calls take their
output shapes from ``example_outputs``.

The reference is a plain Python loop over the core written here, with autograd through it.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable, Sequence

import pytest
import torch

from flexsn_nn import FlexSN, hop_available
from flexsn_nn.surrogate import Sigmoid

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")
needs_hop = pytest.mark.skipif(not hop_available(), reason="flexsn_hop is not importable")
T, N, C = 6, 3, 5
spike = Sigmoid(alpha=4.0)


def plain_lif(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x - v) / 2.0
    s = spike(h - 1.0)
    return s, h * (1.0 - s)


def scaled_lif(x: torch.Tensor, w: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    h = v + (x * w - v) / 2.0
    s = spike(h - 1.0)
    return s, h * (1.0 - s)


def weight_only(x: torch.Tensor, w: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """An output that ignores the broadcast input: it keeps w's shape, not the broadcast one."""
    return w * 2.0, v + x


def loop(core: Callable[..., Any], seqs: Sequence[torch.Tensor], v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    ys = []
    for t in range(seqs[0].shape[0]):
        y, v = core(*(x[t] for x in seqs), v)
        ys.append(y)
    return torch.stack(ys), v


def _data(w_shape: tuple[int, ...]) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(3)
    x = (torch.rand(T, N, C, generator=g) * 3).to(DEVICE)
    w = (torch.rand(T, *w_shape, generator=g) + 0.5).to(DEVICE)
    return x, w


@pytest.mark.parametrize("w_shape", [(C,), (1, C), (N, 1)], ids=["C", "1xC", "Nx1"])
@pytest.mark.parametrize("backend", ["triton", "torch", pytest.param("hop", marks=needs_hop)])
def test_broadcast_inputs_match_the_loop_with_gradients(backend: str, w_shape: tuple[int, ...]) -> None:
    x, w = _data(w_shape)
    m = FlexSN(scaled_lif, 2, 1, 1, backend=backend)
    xg, wg = x.clone().requires_grad_(), w.clone().requires_grad_()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the fused backends run these fused: no fallback warning
        y = m(xg, wg)
    (y * torch.linspace(0.5, 1.5, y.numel(), device=DEVICE).view(y.shape)).sum().backward()
    xr, wr = x.clone().requires_grad_(), w.clone().requires_grad_()
    ref, v_ref = loop(scaled_lif, (xr, wr), torch.zeros(N, C, device=DEVICE))
    (ref * torch.linspace(0.5, 1.5, ref.numel(), device=DEVICE).view(ref.shape)).sum().backward()
    torch.testing.assert_close(y, ref)
    torch.testing.assert_close(m.states[0], v_ref)
    assert wg.grad is not None and wg.grad.shape == w.shape
    torch.testing.assert_close(xg.grad, xr.grad, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(wg.grad, wr.grad, rtol=1e-4, atol=1e-5)
    if backend == "triton":
        fits = m.kernel.shape_fits
        assert fits and all(v == (N, C) for v in fits.values())  # the fused kernels ran on [N, C]


def test_a_state_that_broadcasts_runs_fused_and_matches() -> None:
    x, w = _data((N, C))
    v0 = torch.rand(C, device=DEVICE)  # one value per channel, spread over the batch by the core
    m = FlexSN(scaled_lif, 2, 1, 1, store_state_seqs=True)
    m.states = [v0]
    with torch.no_grad():
        y = m(x, w)
    ref, v_ref = loop(scaled_lif, (x, w), v0)
    torch.testing.assert_close(y, ref)
    torch.testing.assert_close(m.states[0], v_ref)
    assert m.state_seqs is not None and m.state_seqs[0].shape == (T, N, C)
    assert m.kernel.shape_fits[((N, C), (N, C), (C,))] == (N, C)


@pytest.mark.parametrize("backend", ["triton", pytest.param("hop", marks=needs_hop)])
def test_a_core_that_keeps_another_shape_falls_back_with_a_warning(backend: str) -> None:
    x, w = _data((1, C))
    m = FlexSN(weight_only, 2, 1, 1, backend=backend, store_state_seqs=True)
    with torch.no_grad():
        if backend == "triton":
            with pytest.warns(RuntimeWarning, match=r"broadcast to \(3, 5\), but the core returns \(1, 5\)"):
                y = m(x, w)
        else:
            y = m(x, w)
    ref, v_ref = loop(weight_only, (x, w), torch.zeros(N, C, device=DEVICE))
    assert y.shape == (T, 1, C)
    torch.testing.assert_close(y, ref)
    torch.testing.assert_close(m.states[0], v_ref)


@needs_hop
def test_flex_sn_scan_fuses_broadcast_shapes_and_warns_when_it_cannot() -> None:
    from flexsn_hop import eager_scan, flex_sn_scan

    x, w = _data((N, 1))  # shapes no other test uses: the warning is told once per reason
    v0 = torch.zeros(N, C, device=DEVICE)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        outs = flex_sn_scan(scaled_lif, 2, 1, 1, x, w, v0)
    for a, b in zip(outs, eager_scan(scaled_lif, 2, 1, 1, x, w, v0)):
        torch.testing.assert_close(a, b)
    with pytest.warns(RuntimeWarning, match="flex_sn_scan: inputs and states of per-step shapes"):
        outs = flex_sn_scan(weight_only, 2, 1, 1, x, w, v0)
    for a, b in zip(outs, eager_scan(weight_only, 2, 1, 1, x, w, v0)):
        torch.testing.assert_close(a, b)


@pytest.mark.parametrize("backend", ["torch", pytest.param("hop", marks=needs_hop)])
def test_torch_and_hop_run_states_of_any_shape(backend: str) -> None:
    def count(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return v + x.sum(), v + 1.0  # a state [3] beside inputs [0, 2]

    m = FlexSN(count, 1, 1, 1, backend=backend, store_state_seqs=True, example_outputs=[torch.zeros(3)])
    m.states = [torch.zeros(3, device=DEVICE)]
    x = torch.ones(4, 0, 2, device=DEVICE)
    y = m(x)
    ref, v_ref = loop(count, (x,), torch.zeros(3, device=DEVICE))
    torch.testing.assert_close(y, ref)
    torch.testing.assert_close(m.states[0], v_ref)
    assert m.state_seqs is not None and m.state_seqs[0].shape == (4, 3)
    empty = m(x[:0])  # T = 0: shaped by example_outputs, states unchanged
    assert empty.shape == (0, 3) and torch.equal(m.states[0], v_ref)


@pytest.mark.parametrize("backend", ["torch", pytest.param("hop", marks=needs_hop)])
def test_an_empty_call_without_example_outputs_takes_a_fake_steps_shapes(backend: str) -> None:
    def pooled(x: torch.Tensor, v: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, ...]:
        h = v + (x - v) * w  # w: a static input [C]
        spike = h >= 1.0
        return h.mean(-1), spike, h.to(torch.float64), h * ~spike

    m = FlexSN(pooled, 1, 1, 3, backend=backend, static_inputs=[torch.nn.Parameter(torch.full((C,), 0.5, device=DEVICE))])
    x, _ = _data((C,))
    ref = m(x[:1])  # one real step: the shapes and dtypes every call has
    m.reset()
    out = m(x[:0])
    for got, want in zip(out, ref):
        assert got.shape == (0, *want.shape[1:]) and got.dtype == want.dtype and got.device == want.device
    assert m.states[0] is not None and torch.equal(m.states[0], torch.zeros_like(m.states[0]))


@pytest.mark.parametrize("backend", ["triton", "inductor", "torch", pytest.param("hop", marks=needs_hop)])
def test_an_empty_call_has_the_dtypes_of_a_call_with_steps(backend: str) -> None:
    """A bool spike stays bool at ``T = 0`` on every backend, as at ``T > 0`` (the kernel backends gave the
    inputs' dtype for every output before)."""
    def core(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        h = v + (x - v) / 2.0
        spike = h >= 1.0
        return spike, h.half(), h * ~spike

    m = FlexSN(core, 1, 1, 2, backend=backend)
    x, _ = _data((C,))
    full = m(x)
    m.reset()
    empty = m(x[:0])
    assert [y.dtype for y in empty] == [y.dtype for y in full] == [torch.bool, x.dtype]
    assert [y.shape for y in empty] == [(0, *y.shape[1:]) for y in full]


@pytest.mark.parametrize("backend", ["triton", "inductor", "torch", pytest.param("hop", marks=needs_hop)])
def test_an_empty_call_has_the_shapes_of_a_call_that_falls_back(backend: str) -> None:
    """A static input of a wider shape than a step makes the kernels fall back to the loop, whose results
    have the static's shape; ``T = 0`` gives that shape too (the kernel backends gave the step's before)."""
    def core(x: torch.Tensor, v: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) * w
        return h * 2.0, h

    m = FlexSN(core, 1, 1, 1, backend=backend, static_inputs=[torch.rand(2, C, device=DEVICE)])
    x = torch.rand(T, C, device=DEVICE)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the fallback's warning: not what is tested here
        full = m(x)
    m.reset()
    assert full.shape == (T, 2, C) and m(x[:0]).shape == (0, 2, C)


@pytest.mark.parametrize("backend", ["torch", pytest.param("hop", marks=needs_hop)])
def test_a_compiled_empty_call_without_example_outputs_has_the_eager_shapes(backend: str) -> None:
    def pooled(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = v + (x - v) / 2.0
        return h.sum(-1), h * (h < 1.0)

    x, _ = _data((C,))
    eager = FlexSN(pooled, 1, 1, 1, backend=backend)(x[:0])
    torch._dynamo.reset()
    compiled = torch.compile(FlexSN(pooled, 1, 1, 1, backend=backend), backend="aot_eager", fullgraph=True)(x[:0])
    assert compiled.shape == eager.shape == (0, N) and compiled.dtype == eager.dtype


@pytest.mark.parametrize("backend", ["torch", pytest.param("hop", marks=needs_hop)])
def test_an_empty_call_of_a_value_branching_core_asks_for_example_outputs(backend: str) -> None:
    def branching(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return (x, v) if bool((x > 0).any()) else (-x, v)  # a branch on a value: no fake step

    m = FlexSN(branching, 1, 1, 1, backend=backend)
    x, _ = _data((C,))
    with pytest.raises(ValueError, match=r"T = 0 requires example_outputs.*fake"):
        m(x[:0])
    assert m.states == []


def test_fused_empty_calls_have_the_broadcast_shape_and_example_dtypes() -> None:
    m = FlexSN(scaled_lif, 2, 1, 1, example_outputs=[torch.zeros(4, dtype=torch.float16)])
    x, w = _data((C,))
    y = m(x[:0], w[:0])
    assert y.shape == (0, N, C) and y.dtype == torch.float16


def test_fused_backends_check_example_output_shapes() -> None:
    examples = [torch.zeros(2, 4)] * 3
    with pytest.raises(ValueError, match=r"example_outputs\[0\] has shape \(4,\), expected \(2, 4\)"):
        FlexSN(scaled_lif, 2, 1, 1, example_inputs=examples, example_outputs=[torch.zeros(4)])
    FlexSN(scaled_lif, 2, 1, 1, example_inputs=examples, example_outputs=[torch.zeros(2, 4)])
    FlexSN(scaled_lif, 2, 1, 1, backend="torch", example_inputs=examples, example_outputs=[torch.zeros(7)])


def test_a_core_error_on_shapes_that_differ_names_them() -> None:
    m = FlexSN(scaled_lif, 2, 1, 1, backend="torch")
    x, _ = _data((C,))
    w = torch.ones(T, 4, device=DEVICE)  # [3, 5] and [4] do not broadcast
    with pytest.raises(ValueError, match=r"per-step shapes \(3, 5\), \(4,\) and states of shapes \(3, 5\)") as info:
        m(x, w)
    assert isinstance(info.value.__cause__, RuntimeError)
    fused = FlexSN(scaled_lif, 2, 1, 1)
    with pytest.raises(ValueError, match=r"per-step shape \(3, 5\) \(or one that broadcasts with it\)"):
        fused(x, w)


@pytest.mark.parametrize("backend", ["triton", "torch"])
def test_a_state_left_in_another_dtype_asks_for_reset(backend: str) -> None:
    """After ``.double()`` a neuron keeps the float32 state of its last call: the next float64 call says so and
    names ``reset()`` (every backend alike), and after it the neuron runs as the loop does."""
    m = FlexSN(plain_lif, 1, 1, 1, step_mode="m", backend=backend)
    m(torch.rand(T, N, C, device=DEVICE))
    m.double()
    x = torch.rand(T, N, C, device=DEVICE, dtype=torch.float64) * 3.0
    with pytest.raises(TypeError, match=r"state 0 has dtype torch.float32 but the inputs have torch.float64.*call reset\(\) first"):
        m(x)
    m.reset()
    v = torch.zeros(N, C, device=DEVICE, dtype=torch.float64)
    want = []
    for t in range(T):
        s, v = plain_lif(x[t], v)
        want.append(s)
    torch.testing.assert_close(m(x), torch.stack(want))
