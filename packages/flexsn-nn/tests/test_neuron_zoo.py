"""The neurons people train (SpikingJelly's names, arguments and defaults) against their equations
written out here as Python loops, with autograd through them for inputs and learnable parameters,
on the fused path and on the eager loop."""

from __future__ import annotations

import math
import warnings
from typing import Any, Callable

import pytest
import torch

import flexsn_nn as fn

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")
T, B, C, H = 6, 2, 3, 4


def sg(x: torch.Tensor) -> torch.Tensor:
    """Θ forward with the Sigmoid(alpha=4) surrogate backward, written independently."""
    s = torch.sigmoid(4.0 * x)
    return (x >= 0).to(x) + (s - s.detach())


def hard(h: torch.Tensor, s: torch.Tensor, v_reset: float) -> torch.Tensor:
    return h * (1 - s) + v_reset * s


def ref_plif(x: torch.Tensor, p: dict[str, torch.Tensor]) -> tuple[torch.Tensor, list[torch.Tensor]]:
    v, out = torch.zeros_like(x[0]), []
    for t in range(x.shape[0]):
        h = v + (x[t] - v) * torch.sigmoid(p["w"])
        s = sg(h - 1.0)
        v = hard(h, s, 0.0)
        out.append(s)
    return torch.stack(out), [v]


def ref_threshold(x: torch.Tensor, p: dict[str, torch.Tensor]) -> tuple[torch.Tensor, list[torch.Tensor]]:
    v, out = torch.zeros_like(x[0]), []
    for t in range(x.shape[0]):
        h = v + (x[t] - v) / 2.0
        s = sg(h - p["threshold"])
        v = h - s * p["threshold"]  # soft reset (v_reset=None below)
        out.append(s)
    return torch.stack(out), [v]


def ref_alif(x: torch.Tensor, p: dict[str, torch.Tensor]) -> tuple[torch.Tensor, list[torch.Tensor]]:
    v, a, out = torch.zeros_like(x[0]), torch.zeros_like(x[0]), []
    rho = math.exp(-1.0 / 20.0)
    for t in range(x.shape[0]):
        h = v + (x[t] - v) / 2.0
        s = sg(h - (1.0 + p["beta"] * a))
        v, a = hard(h, s, 0.0), rho * a + (1 - rho) * s
        out.append(s)
    return torch.stack(out), [v, a]


def ref_cuba(x: torch.Tensor, p: dict[str, torch.Tensor]) -> tuple[torch.Tensor, list[torch.Tensor]]:
    v, i, out = torch.zeros_like(x[0]), torch.zeros_like(x[0]), []
    for t in range(x.shape[0]):
        i = i * p["c_decay"] + x[t]
        h = v * p["v_decay"] + i
        s = sg(h - 1.0)
        v = hard(h, s, 0.0)
        out.append(s)
    return torch.stack(out), [v, i]


def ref_qif(x: torch.Tensor, p: dict[str, torch.Tensor]) -> tuple[torch.Tensor, list[torch.Tensor]]:
    v, out = torch.full_like(x[0], -0.1), []
    for t in range(x.shape[0]):
        h = v + (x[t] + 1.0 * (v - 0.0) * (v - 0.8)) / 2.0
        s = sg(h - 1.0)
        v = hard(h, s, -0.1)
        out.append(s)
    return torch.stack(out), [v]


def ref_eif(x: torch.Tensor, p: dict[str, torch.Tensor]) -> tuple[torch.Tensor, list[torch.Tensor]]:
    v, out = torch.full_like(x[0], -0.1), []
    for t in range(x.shape[0]):
        h = v + (x[t] + 0.0 - v + 1.0 * torch.exp((v - 0.8) / 1.0)) / 2.0
        s = sg(h - 1.0)
        v = hard(h, s, -0.1)
        out.append(s)
    return torch.stack(out), [v]


def ref_izhikevich(x: torch.Tensor, p: dict[str, torch.Tensor]) -> tuple[torch.Tensor, list[torch.Tensor]]:
    v, w, out = torch.zeros_like(x[0]), torch.zeros_like(x[0]), []
    a, b, v_rest = 0.3, 0.1, -0.1
    for t in range(x.shape[0]):
        h = v + (x[t] + (v - v_rest) * (v - 0.8) - w) / 2.0
        s = sg(h - 1.0)
        w = w + (a * (h - v_rest) - w) / 2.0 + b * s
        v = hard(h, s, 0.0)
        out.append(s)
    return torch.stack(out), [v, w]


CASES: dict[str, tuple[Callable[..., Any], dict[str, Any], Callable[..., Any]]] = {
    "ParametricLIFNode": (fn.ParametricLIFNode, {"init_tau": 3.0}, ref_plif),
    "LearnableThresholdLIFNode": (fn.LearnableThresholdLIFNode, {"threshold_shape": (C, 1), "v_reset": None}, ref_threshold),
    "AdaptiveLIFNode": (fn.AdaptiveLIFNode, {}, ref_alif),
    "CUBALIFNode": (fn.CUBALIFNode, {"c_decay": 0.7, "v_decay": 0.4, "v_threshold": 1.0, "surrogate_function": fn.surrogate.Sigmoid(), "requires_grad": True}, ref_cuba),
    "QIFNode": (fn.QIFNode, {}, ref_qif),
    "EIFNode": (fn.EIFNode, {}, ref_eif),
    "IzhikevichNode": (fn.IzhikevichNode, {"a": 0.3, "b": 0.1}, ref_izhikevich),
}


@pytest.mark.parametrize("backend", ["triton", "torch"])
@pytest.mark.parametrize("name", list(CASES))
def test_neuron_matches_its_equations(name: str, backend: str) -> None:
    cls, kwargs, ref = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every neuron runs fused
        m = cls(backend=backend, step_mode="m", **kwargs).to(DEVICE)
    g = torch.Generator().manual_seed(4)
    x = (torch.rand(T, B, C, H, generator=g) * 2.2).to(DEVICE)
    if name == "LearnableThresholdLIFNode":
        with torch.no_grad():
            m.threshold.copy_(torch.tensor([[0.8], [1.0], [1.3]]))
    if backend == "triton":
        assert m.uses_kernels(x)
    xg = x.clone().requires_grad_()
    y = m(xg)
    weights = torch.linspace(0.2, 1.8, y.numel(), device=DEVICE).view(y.shape)
    ((y * weights).sum() + sum((s * s).sum() for s in m.states if s is not None)).backward()
    params = {n: p.detach().clone().requires_grad_() for n, p in m.named_parameters()}
    buffers = {n: b for n, b in m.named_buffers()}
    xr = x.clone().requires_grad_()
    yr, states = ref(xr, {**buffers, **params})
    ((yr * weights).sum() + sum((s * s).sum() for s in states)).backward()
    torch.testing.assert_close(y, yr)
    for got, want in zip(m.states, states):
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(xg.grad, xr.grad, rtol=1e-4, atol=1e-5)
    for n, p in m.named_parameters():
        assert p.grad is not None and params[n].grad is not None, n
        assert p.grad.abs().sum() > 0, f"{n} got a zero gradient"
        torch.testing.assert_close(p.grad, params[n].grad, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("backend", ["triton", "inductor", "torch", "hop"])
@pytest.mark.parametrize("name", ["LIFNode", *CASES])
def test_an_empty_sequence_gives_empty_spikes_on_every_backend(name: str, backend: str) -> None:
    """``T = 0``: spikes ``[0, *shape]`` in the input's dtype, the states as they were, and a backward that reaches
    the input, on every backend alike (before, ``torch`` and ``hop`` asked for ``example_outputs``, which the
    neurons do not take; SpikingJelly's neurons fail on an empty sequence)."""
    if backend == "hop" and not fn.hop_available():
        pytest.skip("flexsn_hop is not importable")
    cls, kwargs, _ = CASES[name] if name in CASES else (fn.LIFNode, {}, None)
    m = cls(backend=backend, step_mode="m", **kwargs).to(DEVICE)
    x = torch.rand(T, B, C, H, device=DEVICE)
    m(x)
    held = [s.clone() for s in m.states]
    xe = torch.rand(0, B, C, H, device=DEVICE, requires_grad=True)
    y = m(xe)
    assert y.shape == (0, B, C, H) and y.dtype == xe.dtype
    for s, h in zip(m.states, held):
        assert torch.equal(s, h)
    y.sum().backward()
    assert xe.grad is not None and xe.grad.shape == xe.shape


def test_plif_follows_spikingjelly() -> None:
    m = fn.ParametricLIFNode(init_tau=2.0, step_mode="m")
    assert [n for n, _ in m.named_parameters()] == ["w"] and float(m.w) == pytest.approx(0.0)
    assert float(m.tau) == pytest.approx(2.0)
    assert float(fn.ParametricLIFNode(init_tau=5.0, step_mode="m").tau) == pytest.approx(5.0)
    assert set(m.state_dict()) == {"w"}
    with pytest.raises(ValueError, match="init_tau must be > 1"):
        fn.ParametricLIFNode(init_tau=1.0, step_mode="m")


def test_prepare_fully_shard_gives_scalar_parameters_one_element_and_keeps_results() -> None:
    """FSDP2 refuses 0-d parameters: PLIF's ``w`` becomes ``[1]``; outputs and gradients stay the same."""
    net = torch.nn.Sequential(torch.nn.Linear(C, C), fn.ParametricLIFNode(init_tau=3.0, step_mode="m"), fn.LIFNode(v_threshold=0.5, step_mode="m")).to(DEVICE)
    x = torch.rand(T, B, C, device=DEVICE) * 2
    with torch.no_grad():  # drive both layers to fire: their spikes are what is compared
        net[0].weight.copy_(torch.eye(C) * 3.0)
        net[0].bias.zero_()
    before = net(x)
    assert before.any(), "the last layer (fed 0/1 spikes; threshold 0.5) must fire for the comparison to mean anything"
    before.sum().backward()
    g0 = net[1].w.grad.clone()  # type: ignore[union-attr]
    fn.reset_net(net)
    assert fn.prepare_fully_shard(net) == ["1.w"]
    assert net[1].w.shape == (1,) and isinstance(net[1].w, torch.nn.Parameter) and net[1].w.grad is None
    after = net(x)
    after.sum().backward()
    torch.testing.assert_close(after, before)
    torch.testing.assert_close(net[1].w.grad, g0.reshape(1))
    assert fn.prepare_fully_shard(net) == []  # nothing left to change
    with pytest.raises(TypeError, match="nn.Module"):
        fn.prepare_fully_shard([net])  # type: ignore[arg-type]


@pytest.mark.parametrize("compiler", ["aot_eager", "inductor"])
def test_plif_trains_inside_torch_compile(compiler: str) -> None:
    """A PLIF layer after a Linear under torch.compile(fullgraph=True): Inductor compiles around the opaque op."""
    m = fn.ParametricLIFNode(step_mode="m").to(DEVICE)
    lin = torch.nn.Linear(C, C).to(DEVICE)

    def step(x: torch.Tensor) -> torch.Tensor:
        m.reset()
        return m(lin(x))

    with torch.no_grad():  # drive the layer to fire: its spikes are compared
        lin.weight.copy_(torch.eye(C) * 2.0)
    x = (torch.rand(T, B, C, device=DEVICE) * 2).requires_grad_()
    y = torch.compile(step, fullgraph=True, backend=compiler)(x)
    assert y.any() and not y.all()
    y.sum().backward()
    got = (m.w.grad.clone(), lin.weight.grad.clone())  # type: ignore[union-attr]
    m.w.grad, lin.weight.grad = None, None
    y2 = step(x)
    y2.sum().backward()
    torch.testing.assert_close(y, y2)
    torch.testing.assert_close(got[0], m.w.grad, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(got[1], lin.weight.grad, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    "make, error, message",
    [
        (lambda: fn.CUBALIFNode(c_decay=1.5), ValueError, r"c_decay \(the fraction kept per step\) must be in \[0, 1\]"),
        (lambda: fn.CUBALIFNode(v_decay=-0.1), ValueError, r"v_decay .* must be in \[0, 1\]"),
        (lambda: fn.CUBALIFNode(current_decay=0.3), TypeError, r"'c_decay', the fraction KEPT per step.*c_decay=\{1 - current_decay\}"),
        (lambda: fn.CUBALIFNode(voltage_decay=0.3), TypeError, r"'v_decay'"),
        (lambda: fn.CUBALIFNode(c_deacy=0.3), TypeError, r"unexpected keyword argument 'c_deacy'"),
        (lambda: fn.CUBALIFNode(requires_grad="yes"), TypeError, "requires_grad must be a Python bool"),
        (lambda: fn.LearnableThresholdLIFNode(threshold_shape=(0,), step_mode="m"), ValueError, "threshold_shape"),
        (lambda: fn.AdaptiveLIFNode(tau_a=0.5, step_mode="m"), ValueError, "tau_a must be > 1"),
        (lambda: fn.QIFNode(a0=0.0, step_mode="m"), ValueError, "a0 must be > 0"),
        (lambda: fn.EIFNode(delta_T=0.0, step_mode="m"), ValueError, "delta_T must be > 0"),
        (lambda: fn.QIFNode(v_reset=2.0, step_mode="m"), ValueError, "v_threshold > v_reset"),
        (lambda: fn.IzhikevichNode(tau="2", step_mode="m"), TypeError, "tau must be a Python float"),
    ],
)
def test_bad_arguments(make: Callable[[], Any], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        make()
